"""compare(): matching two runs' cases by name and sorting what changed."""

from __future__ import annotations

from typing import Any

import pytest

from agent_eval._history import HistoryError, compare
from agent_eval._model import EvalReport, EvalResult


def case(name: str, status: Any, score: float | None = None, reason: str | None = None, **more: Any) -> EvalResult:
    return EvalResult(name, "in", output="out", status=status, score=score, reason=reason, **more)


def report(*cases: EvalResult) -> EvalReport:
    return EvalReport(cases, name="s")


def test_passed_then_failed_is_a_regression() -> None:
    result = compare(report(case("a", "passed", 1.0)), report(case("a", "failed", 0.0, "missing 'x'")))
    assert result.regressed
    [change] = result.regressions
    assert (change.name, change.base_status, change.head_status) == ("a", "passed", "failed")
    assert change.score_delta == -1.0
    assert change.reason == "missing 'x'"
    assert not result.fixed and not result.score_changes


def test_passed_then_error_is_a_regression_that_names_the_error() -> None:
    head = report(case("a", "error", error="timed out after 2 s"))
    result = compare(report(case("a", "passed", 1.0)), head)
    assert [c.name for c in result.regressions] == ["a"]
    assert result.regressions[0].reason == "timed out after 2 s"
    assert result.regressions[0].score_delta is None


def test_failed_then_passed_is_newly_passing_and_not_a_regression() -> None:
    result = compare(report(case("a", "failed", 0.2)), report(case("a", "passed", 0.9)))
    assert not result.regressed
    assert [c.name for c in result.fixed] == ["a"]
    assert round(result.fixed[0].score_delta or 0, 6) == 0.7


def test_passed_then_skipped_is_a_status_change_but_not_a_regression() -> None:
    result = compare(report(case("a", "passed")), report(case("a", "skipped")))
    assert not result.regressed
    assert [(c.base_status, c.head_status) for c in result.status_changes] == [("passed", "skipped")]


def test_failed_then_error_is_a_status_change_but_not_a_regression() -> None:
    result = compare(report(case("a", "failed")), report(case("a", "error")))
    assert not result.regressed
    assert [c.name for c in result.status_changes] == ["a"]


def test_score_change_without_status_change_is_listed_with_its_delta() -> None:
    base = report(case("a", "passed", 0.5), case("b", "passed", 1.0))
    head = report(case("a", "passed", 0.75), case("b", "passed", 1.0))
    result = compare(base, head)
    assert [(c.name, c.score_delta) for c in result.score_changes] == [("a", 0.25)]
    assert not result.regressed


def test_scores_equal_after_a_json_round_trip_are_not_a_change() -> None:
    result = compare(report(case("a", "passed", 0.1 + 0.2)), report(case("a", "passed", 0.3)))
    assert result.unchanged


def test_added_and_removed_cases_are_listed_and_do_not_regress() -> None:
    base = report(case("kept", "passed"), case("gone", "passed"))
    head = report(case("kept", "passed"), case("new", "failed", reason="bad"))
    result = compare(base, head)
    assert [(c.name, c.head_status) for c in result.added] == [("new", "failed")]
    assert [(c.name, c.base_status, c.head_status) for c in result.removed] == [("gone", "passed", None)]
    assert not result.regressed


def test_identical_runs_are_unchanged() -> None:
    cases = (case("a", "passed", 1.0), case("b", "failed", 0.0))
    result = compare(report(*cases), report(*cases))
    assert result.unchanged
    assert not result.regressed


def test_repeated_names_are_refused_naming_the_run_and_the_names() -> None:
    # paired by name, a repeated name could hide a regression (it did when 'same [2]' was also a name)
    base = report(case("same", "passed"), case("same", "passed"), case("same [2]", "failed"))
    head = report(case("same", "passed"), case("same", "failed"), case("same [2]", "failed"))
    with pytest.raises(HistoryError, match=r"^BASE holds more than one case named 'same' \(2 times\); "):
        compare(base, head)
    with pytest.raises(HistoryError, match=r"^head.json holds more than one case named 'same' \(2 times\)"):
        compare(report(case("same", "passed")), head, labels=("base.json", "head.json"))


def test_to_dict_holds_every_group_and_both_runs() -> None:
    base = EvalReport([case("a", "passed", 1.0)], metadata={"run_id": "r1"})
    head = EvalReport([case("a", "failed", 0.0)], metadata={"run_id": "r2"})
    data = compare(base, head).to_dict()
    assert data["regressed"] is True
    assert data["base"]["run_id"] == "r1" and data["head"]["run_id"] == "r2"
    assert data["regressions"][0]["score_delta"] == -1.0
    assert set(data) >= {"fixed", "status_changes", "score_changes", "added", "removed"}
