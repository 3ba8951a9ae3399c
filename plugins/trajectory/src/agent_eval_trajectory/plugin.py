"""The agent-eval plugin: registers the tool-call evaluators and the budgets."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_eval import hookimpl
from agent_eval_trajectory.factories import (
    max_cost,
    max_latency,
    max_steps,
    max_tokens,
    tool_called,
    tool_not_called,
    trajectory_match,
)


@hookimpl
def register_evaluators(register: Callable[..., Any]) -> None:
    """Register ``tool_called``, ``tool_not_called``, ``trajectory_match`` and the four budgets."""
    for factory in (tool_called, tool_not_called, trajectory_match, max_steps, max_latency, max_tokens, max_cost):
        register(factory)
