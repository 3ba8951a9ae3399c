"""The agent-eval plugin: registers ``exact_match``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_eval import hookimpl
from agent_eval_exact.factories import exact_match


@hookimpl
def register_evaluators(register: Callable[..., Any]) -> None:
    """Register ``exact_match``."""
    register(exact_match)
