"""The core's own plugin, registered like any other: the ``local`` executor."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent_eval.hookspecs import hookimpl

if TYPE_CHECKING:
    from agent_eval._local import LocalExecutor


def local() -> LocalExecutor:
    """Run the cases in this process: asyncio workers, sync agents and evaluators in worker threads."""
    from agent_eval._local import LocalExecutor

    return LocalExecutor()


@hookimpl
def register_executors(register: Callable[..., Any]) -> None:
    """Register ``local``."""
    register(local)
