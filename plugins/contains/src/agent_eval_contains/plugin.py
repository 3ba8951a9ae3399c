"""The agent-eval plugin: registers ``contains`` and ``matches``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_eval import hookimpl
from agent_eval_contains.factories import contains, matches


@hookimpl
def register_evaluators(register: Callable[..., Any]) -> None:
    """Register ``contains`` and ``matches``."""
    register(contains)
    register(matches)
