"""How a case's evaluations become its status, score and reason: weights, and an optional threshold.

Without a threshold a case passes when every evaluation that ran passed; with one, when the weighted
mean of their scores is at least the threshold and none errored. Weights default to 1, so a case
without weights or threshold is graded as it always was.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import attrs

from agent_eval._model import Evaluation, Status
from agent_eval._text import short_repr

#: How far below a threshold a weighted mean may fall and still reach it: sums of floats round.
_TOLERANCE = 1e-9


@attrs.frozen
class Grade:
    """A case's status, score, reason and error, worked out from its evaluations."""

    status: Status
    score: float | None = None
    reason: str | None = None
    error: str | None = None


def grade(evaluations: Sequence[Evaluation], weights: Sequence[float] = (), threshold: float | None = None) -> Grade:
    """The grade of a case from its evaluations; ``weights[i]`` weighs ``evaluations[i]`` (missing: 1)."""
    if threshold is None and len(evaluations) == 1:
        only = evaluations[0]
        return Grade(only.status, only.score, only.reason, f"{only.name}: {only.error}" if only.error else None)
    score = weighted_mean(evaluations, weights)
    failing = [labelled(e.name, e.reason or "failed") for e in evaluations if e.status == "failed"]
    errors = "; ".join(f"{e.name}: {e.error}" for e in evaluations if e.status == "error") or None
    statuses = {evaluation.status for evaluation in evaluations}
    status: Status
    if "error" in statuses:
        status = "error"
    elif statuses <= {"skipped"}:
        status = "skipped"
    elif threshold is not None and score is not None:
        status = "passed" if score >= threshold - _TOLERANCE else "failed"
        verdict = "reaches" if status == "passed" else "is below"
        failing.insert(0, f"score {score:.2f} {verdict} the threshold {threshold:g}")
    else:
        status = "failed" if "failed" in statuses else "passed"
    return Grade(status, score, "; ".join(failing) or None, errors)


def labelled(name: str, text: str) -> str:
    """``name: text``, unless the text already starts so (a combinator's reason names the combinator)."""
    return text if text.startswith(name) and text[len(name) : len(name) + 2] == ": " else f"{name}: {text}"


def weighted_mean(evaluations: Sequence[Evaluation], weights: Sequence[float] = ()) -> float | None:
    """The weighted mean score of the evaluations that ran (None when none ran or none has a score)."""
    total = weight_sum = 0.0
    for index, evaluation in enumerate(evaluations):
        if evaluation.status in ("passed", "failed") and evaluation.score is not None:
            weight = weights[index] if index < len(weights) else 1.0
            total += weight * evaluation.score
            weight_sum += weight
    return total / weight_sum if weight_sum else None


def weight_problem(weight: object) -> str | None:
    """What is wrong with ``weight`` as an evaluator's weight (a finite number above 0), or None."""
    if isinstance(weight, int | float) and not isinstance(weight, bool) and 0 < weight <= sys.float_info.max:
        return None
    return f"'weight' must be a number more than 0, got {short_repr(weight)}"


def threshold_problem(threshold: object) -> str | None:
    """What is wrong with ``threshold`` as a case's threshold (a number from 0 to 1), or None."""
    if isinstance(threshold, int | float) and not isinstance(threshold, bool) and 0 <= threshold <= 1:
        return None
    return f"'threshold' must be a number from 0 to 1, got {short_repr(threshold)}"
