"""The figures ``agent-eval calibrate`` reports, from graded labels: plain JSON-ready dicts.

The formulas are :mod:`agent_eval.stats`' (``judge_agreement``, ``krippendorff_alpha``); this module
only chooses what goes in: labels the judge could not grade (errors, skips) are counted and named,
never taken for a verdict.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from agent_eval_judge.calibration import Graded, Grading, Status


def agreement(labels: Sequence[bool], verdicts: Sequence[bool]) -> dict[str, Any]:
    """``n``, agreement, Cohen's kappa with its standard error and 95% interval, the confusion, the error rates."""
    from agent_eval.stats import judge_agreement

    found = judge_agreement(labels, verdicts)
    return {
        "n": found.n,
        "agreement": found.agreement,
        "kappa": found.kappa,
        "kappa_se": found.kappa_se,
        "kappa_ci_low": found.kappa_low,
        "kappa_ci_high": found.kappa_high,
        "confusion": attrs.asdict(found.confusion),
        "false_pass_rate": found.false_pass_rate,
        "false_fail_rate": found.false_fail_rate,
    }


def judge_figures(grading: Grading) -> dict[str, Any]:
    """One judge configuration against the person: overall, per criterion, and what it could not grade."""
    graded = grading.graded
    ran = [item for item in graded if item.status in ("passed", "failed")]
    figures = agreement([item.label.passed for item in ran], [item.status == "passed" for item in ran])
    figures["model"] = grading.model
    figures["judge_models"] = sorted({v.model for item in graded for v in item.verdicts if v.model is not None})
    figures.update(_scores(ran))
    figures["errors"] = _unjudged(graded, "error")
    figures["skipped"] = _unjudged(graded, "skipped")
    figures["disagreements"] = [_disagreement(item) for item in ran if item.label.passed != (item.status == "passed")]
    figures["criteria"] = per_criterion(graded)
    return figures


def per_criterion(graded: Iterable[Graded]) -> list[dict[str, Any]]:
    """Each distinct criterion's judge against the labels of the cases it grades, in order of first use."""
    found: dict[str, list[tuple[bool, Status]]] = {}
    for item in graded:
        statuses: dict[str, list[Status]] = {}
        for verdict in item.verdicts:
            # the same criterion written with other spacing or line breaks is the same criterion
            statuses.setdefault(" ".join(verdict.criteria.split()), []).append(verdict.status)
        for criteria, seen in statuses.items():
            found.setdefault(criteria, []).append((item.label.passed, _combined(seen)))
    entries = []
    for criteria, outcomes in found.items():
        ran = [(label, status == "passed") for label, status in outcomes if status in ("passed", "failed")]
        entry = {"criteria": criteria, **agreement([label for label, _ in ran], [verdict for _, verdict in ran])}
        entry["errors"] = sum(status == "error" for _, status in outcomes)
        entry["skipped"] = sum(status == "skipped" for _, status in outcomes)
        entries.append(entry)
    return entries


def between_judges(gradings: Sequence[Grading]) -> tuple[list[dict[str, Any]], float | None]:
    """Each pair of judge configurations' agreement with each other (over the labels both graded), and
    Krippendorff's alpha across the person and every configuration."""
    from agent_eval.stats import krippendorff_alpha

    verdicts = [[_verdict(item) for item in grading.graded] for grading in gradings]
    pairs = []
    for (a, first), (b, second) in itertools.combinations(zip(gradings, verdicts, strict=True), 2):
        both = [(x, y) for x, y in zip(first, second, strict=True) if x is not None and y is not None]
        figures = agreement([x for x, _ in both], [y for _, y in both])
        pairs.append(
            {
                "models": [a.model, b.model],
                **{key: figures[key] for key in ("n", "agreement", "kappa", "kappa_ci_low", "kappa_ci_high")},
            }
        )
    person = [item.label.passed for item in gradings[0].graded] if gradings else []
    units = zip(person, *verdicts, strict=True)
    return pairs, krippendorff_alpha(units)


def _verdict(item: Graded) -> bool | None:
    status = item.status
    return None if status not in ("passed", "failed") else status == "passed"


def _combined(statuses: list[Status]) -> Status:
    """The verdict of one criterion asked more than once on a case, as a case combines its evaluations."""
    if "error" in statuses:
        return "error"
    ran = [status for status in statuses if status != "skipped"]
    if not ran:
        return "skipped"
    return "passed" if all(status == "passed" for status in ran) else "failed"


def _scores(ran: Sequence[Graded]) -> dict[str, Any]:
    """The mean absolute difference between the person's scores (where given) and the judge's."""
    pairs = [(item.label.score, item.score) for item in ran if item.label.score is not None and item.score is not None]
    gap = sum(abs(person - judge) for person, judge in pairs if person is not None and judge is not None)
    return {"scored": len(pairs), "score_mae": gap / len(pairs) if pairs else None}


def _unjudged(graded: Iterable[Graded], status: str) -> list[dict[str, Any]]:
    return [
        {"name": item.label.name, "line": item.label.line, "reason": item.problem}
        for item in graded
        if item.status == status
    ]


def _disagreement(item: Graded) -> dict[str, Any]:
    reasons = [verdict.reason for verdict in item.verdicts if verdict.status == "failed"] or [
        verdict.reason for verdict in item.verdicts
    ]
    return {
        "name": item.label.name,
        "line": item.label.line,
        "label": "pass" if item.label.passed else "fail",
        "verdict": "pass" if item.status == "passed" else "fail",
        "kind": "false_fail" if item.label.passed else "false_pass",
        "reason": next((reason for reason in reasons if reason), None),
        "note": item.label.note,
    }
