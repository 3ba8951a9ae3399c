"""A repeated case's result, from its attempts."""

from __future__ import annotations

from collections.abc import Sequence

from agent_eval._agent_run import Usage
from agent_eval._model import Attempt, Case, EvalResult, Status


def as_attempt(index: int, result: EvalResult) -> Attempt:
    """One attempt's part of a result: what the agent answered and how it was graded."""
    return Attempt(
        index,
        result.status,
        output=result.output,
        score=result.score,
        reason=result.reason,
        error=result.error,
        duration_ms=result.duration_ms,
        evaluations=result.evaluations,
        tool_calls=result.tool_calls,
        usage=result.usage,
        cost_usd=result.cost_usd,
    )


def combine_attempts(case: Case, results: Sequence[EvalResult], case_pass_rate: float) -> EvalResult:
    """The case's result from its attempts' results (in any order; ``results[i]`` ran as attempt i).

    Status: skipped when every attempt was; passed when the share of attempts that passed (skipped ones
    left out) reaches ``case_pass_rate``; otherwise failed, or error when no attempt failed but some
    errored. The score is the mean of the attempts' scores; the output, evaluations and tool calls are
    those of the first attempt that did not pass (the first attempt's, when the case passed); the
    reason starts ``3/5 attempts passed``; durations, usage and cost add up.
    """
    attempts = [as_attempt(index, result) for index, result in enumerate(results)]
    ran = [attempt for attempt in attempts if attempt.status != "skipped"]
    passed = sum(attempt.status == "passed" for attempt in ran)
    status = _status(ran, passed, case_pass_rate)
    shown = next((a for a in attempts if a.status in ("failed", "error")), attempts[0])
    scores = [attempt.score for attempt in ran if attempt.score is not None]
    reason = f"{passed}/{len(ran)} attempts passed" if ran else "every attempt was skipped"
    why = shown.error or shown.reason
    if shown.status != "passed" and why:
        reason += f"; attempt {shown.index + 1}: {why}"
    return EvalResult(
        case.name,
        case.input,
        output=shown.output,
        expected=case.expected,
        status=status,
        score=sum(scores) / len(scores) if scores else None,
        reason=reason,
        error=shown.error if status == "error" else None,
        duration_ms=sum(attempt.duration_ms for attempt in attempts),
        metadata=case.metadata,
        evaluations=shown.evaluations,
        tool_calls=shown.tool_calls,
        usage=_total_usage(attempts),
        cost_usd=_total_cost(attempts),
        attempts=attempts,
        fingerprint=case.fingerprint,
    )


def _status(ran: Sequence[Attempt], passed: int, case_pass_rate: float) -> Status:
    if not ran:
        return "skipped"
    if passed / len(ran) >= case_pass_rate:
        return "passed"
    return "failed" if any(attempt.status == "failed" for attempt in ran) else "error"


def _total_usage(attempts: Sequence[Attempt]) -> Usage | None:
    usages = [attempt.usage for attempt in attempts if attempt.usage is not None]
    return sum(usages, Usage()) if usages else None


def _total_cost(attempts: Sequence[Attempt]) -> float | None:
    costs = [attempt.cost_usd for attempt in attempts if attempt.cost_usd is not None]
    return sum(costs) if costs else None
