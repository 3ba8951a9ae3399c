"""Grading stored answers again: an executor that replays what the agent did in a recorded run."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_eval._agent_run import AgentRun
from agent_eval._local import LocalExecutor
from agent_eval._model import Attempt, Case, EvalResult


def stored_run(result: EvalResult | Attempt) -> AgentRun:
    """What the agent did, as a result (or one attempt of it) recorded it."""
    return AgentRun(result.output, tool_calls=result.tool_calls, usage=result.usage, cost_usd=result.cost_usd)


def no_agent(question: Any) -> Any:
    """Stands for the agent in a rescore: it must never be called."""
    raise AssertionError("rescoring calls no agent")


class ReplayExecutor(LocalExecutor):
    """The local executor with the agent's answers taken from a recorded run, by case name and attempt.

    No agent is called: each attempt's stored output, tool calls, usage and cost are graded by the
    plan's evaluators as if the agent had just answered.
    """

    batches_agent_calls = False  # the answers are the stored ones, from _call_agent

    def __init__(self, stored: Mapping[str, EvalResult]) -> None:
        super().__init__()
        self.stored = stored

    async def _call_agent(self, case: Case, attempt: int) -> Any:
        result = self.stored[case.name]
        if result.attempts:
            if attempt >= len(result.attempts):
                raise LookupError(f"the recorded run has no attempt {attempt + 1} of case {case.name!r}")
            return stored_run(result.attempts[attempt])
        return stored_run(result)
