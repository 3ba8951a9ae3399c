"""The entry point agent-eval loads: registers ``llm_judge`` and the ``calibrate`` and ``review`` commands."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_eval import hookimpl
from agent_eval_judge.evaluator import llm_judge
from agent_eval_judge.similar import similar


@hookimpl
def register_evaluators(register: Callable[..., Any]) -> None:
    """Register ``llm_judge`` and ``similar``."""
    register(llm_judge)
    register(similar)


@hookimpl
def register_commands(register: Callable[..., Any]) -> None:
    """Register ``agent-eval calibrate`` and ``agent-eval review`` (imported here: listing evaluators stays light)."""
    from agent_eval_judge.calibrate import calibrate
    from agent_eval_judge.review import review

    register(calibrate)
    register(review)
