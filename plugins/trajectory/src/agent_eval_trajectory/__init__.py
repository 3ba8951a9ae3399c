"""Tool-call evaluators for agent-eval: what an agent called, in what order, and what it spent."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from agent_eval_trajectory.factories import (
    max_cost,
    max_latency,
    max_steps,
    max_tokens,
    tool_called,
    tool_not_called,
    trajectory_match,
)

if TYPE_CHECKING:
    from agent_eval_trajectory.budgets import MaxCost, MaxLatency, MaxSteps, MaxTokens
    from agent_eval_trajectory.calls import ToolCalled, ToolNotCalled
    from agent_eval_trajectory.trajectory import TrajectoryMatch

__all__ = [
    "MaxCost",
    "MaxLatency",
    "MaxSteps",
    "MaxTokens",
    "ToolCalled",
    "ToolNotCalled",
    "TrajectoryMatch",
    "max_cost",
    "max_latency",
    "max_steps",
    "max_tokens",
    "tool_called",
    "tool_not_called",
    "trajectory_match",
]

_LAZY = {
    "MaxCost": "agent_eval_trajectory.budgets",
    "MaxLatency": "agent_eval_trajectory.budgets",
    "MaxSteps": "agent_eval_trajectory.budgets",
    "MaxTokens": "agent_eval_trajectory.budgets",
    "ToolCalled": "agent_eval_trajectory.calls",
    "ToolNotCalled": "agent_eval_trajectory.calls",
    "TrajectoryMatch": "agent_eval_trajectory.trajectory",
}


def __getattr__(name: str) -> Any:
    # The evaluator classes load on first use: listing evaluators imports only the factories.
    if name not in _LAZY:
        raise AttributeError(f"module 'agent_eval_trajectory' has no attribute {name!r}")
    return getattr(importlib.import_module(_LAZY[name]), name)
