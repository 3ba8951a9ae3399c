"""Helpers for the judge's tests: verdict replies and running cases through the real runner."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_eval import EvalReport, EvalSuite
from agent_eval.testing.server import Reply, completion_reply


def verdict_text(passed: bool, score: float | None = None, reason: str = "because") -> str:
    """The JSON a well-behaved judge answers."""
    data: dict[str, Any] = {"reason": reason, "pass": passed}
    data["score"] = (1.0 if passed else 0.0) if score is None else score
    return json.dumps(data)


def verdict_reply(passed: bool, score: float | None = None, reason: str = "because", **options: Any) -> Reply:
    """A 200 reply carrying a verdict."""
    return completion_reply(verdict_text(passed, score, reason), **options)


def answer_agent(answer: str = "Hello! How can I help?") -> Any:
    """An agent that always gives ``answer``."""

    def agent(_input: Any) -> str:
        return answer

    return agent


def run_cases(evaluators: Sequence[Any], *, answer: str = "Hello! How can I help?", concurrency: int = 1) -> EvalReport:
    """Run one case per evaluator (named c0, c1, ...) with a fixed answer and return the report."""
    cases = [{"name": f"c{i}", "input": f"question {i}", "evaluator": e} for i, e in enumerate(evaluators)]
    return EvalSuite(answer_agent(answer), cases).run(print=False, concurrency=concurrency)


def only(report: EvalReport) -> Any:
    """The single case of a one-case report."""
    assert len(report.cases) == 1
    return report.cases[0]


def stored_verdicts(cache_root: Path) -> dict[str, Any]:
    """Every readable verdict under a cache folder, by key, as a fresh run would load them."""
    from agent_eval_judge.cache import VerdictCache

    return VerdictCache(str(cache_root / "judge")).stored()
