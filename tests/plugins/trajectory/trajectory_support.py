"""Helpers for the trajectory plugin's tests: a stand-in evaluator context and short call builders."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from agent_eval import AgentRun, ToolCall, Usage


def ctx(
    *calls: ToolCall,
    usage: Usage | None = None,
    cost_usd: float | None = None,
    duration_ms: float = 0.0,
) -> Any:
    """What an evaluator's ``ctx`` carries about the agent's run, for these tests."""
    run = AgentRun("answer", tool_calls=calls, usage=usage, cost_usd=cost_usd)
    return SimpleNamespace(run=run, tool_calls=calls, usage=usage, cost_usd=cost_usd, duration_ms=duration_ms)


def call(name: str, arguments: dict[str, Any] | str | None = None, *, error: str | None = None) -> ToolCall:
    """A made call; ``arguments`` as text stands for arguments that were not valid JSON."""
    return ToolCall(name, {} if arguments is None else arguments, error=error)


def want(name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    """An expected call as a suite file writes it."""
    return {"name": name} if args is None else {"name": name, "args": args}
