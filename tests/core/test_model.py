"""The records: pass-rate rules, token usage sums and the JSON round trip of a report."""

from __future__ import annotations

import json

import pytest

from agent_eval import Case, EvalReport, EvalResult, Evaluation, SuiteError
from agent_eval._codec import jsonable


def result(name: str, status: str, score: float | None = None, **extra: object) -> EvalResult:
    return EvalResult(name, "in", output="out", status=status, score=score, **extra)  # type: ignore[arg-type]


def test_pass_rate_leaves_skipped_cases_out() -> None:
    report = EvalReport([result("a", "passed"), result("b", "failed"), result("c", "skipped")])
    assert (report.passed, report.failed, report.skipped, report.total) == (1, 1, 1, 3)
    assert report.pass_rate == 0.5


def test_strict_rate_counts_skipped_as_failed() -> None:
    report = EvalReport([result("a", "passed"), result("c", "skipped")])
    assert report.rate(strict=True) == 0.5


@pytest.mark.parametrize("cases", [[], [result("a", "skipped")]])
def test_pass_rate_is_zero_when_nothing_ran(cases: list[EvalResult]) -> None:
    assert EvalReport(cases).pass_rate == 0.0


def test_errors_count_against_the_pass_rate() -> None:
    report = EvalReport([result("a", "passed"), result("b", "error")])
    assert (report.errored, report.pass_rate) == (1, 0.5)


def test_usage_is_summed_over_every_evaluation_key_by_key() -> None:
    judged = Evaluation("llm_judge", "passed", score=1.0, metadata={"usage": {"prompt_tokens": 11, "total_tokens": 18}})
    again = Evaluation("llm_judge", "failed", score=0.0, metadata={"usage": {"prompt_tokens": 5, "total_tokens": 9}})
    report = EvalReport([result("a", "passed", evaluations=(judged,)), result("b", "failed", evaluations=(again,))])
    assert report.usage == {"prompt_tokens": 16, "total_tokens": 27}


def test_report_survives_a_json_round_trip() -> None:
    evaluation = Evaluation(
        "contains",
        "failed",
        score=0.5,
        reason="missing: 'extendable'",
        error=None,
        duration_ms=0.1,
        metadata={"k": [1, 2]},
    )
    original = EvalReport(
        [
            result("a", "failed", 0.5, evaluations=(evaluation,), expected="4", metadata={"tag": "x"}),
            result("b", "error", error="ValueError: boom"),
        ],
        name="warranty",
        total_ms=12.5,
        started_at="2026-11-30T12:00:00+00:00",
        interrupted=True,
        planned=5,
        metadata={"agent": "m:a"},
    )
    loaded = EvalReport.from_json(original.to_json())
    assert loaded == original
    assert loaded.to_dict() == original.to_dict()


def test_report_dict_has_the_contract_fields() -> None:
    data = EvalReport([result("a", "passed", 1.0)]).to_dict()
    for key in ("passed", "failed", "errored", "skipped", "total", "pass_rate", "total_ms", "cases"):
        assert key in data
    case = data["cases"][0]
    for key in (
        "name",
        "input",
        "output",
        "passed",
        "status",
        "score",
        "reason",
        "error",
        "duration_ms",
        "evaluations",
    ):
        assert key in case


def test_from_dict_rejects_what_is_not_a_report() -> None:
    with pytest.raises(ValueError, match="not an agent-eval report"):
        EvalReport.from_dict({"hello": 1})


def test_values_json_cannot_hold_become_their_repr() -> None:
    class Thing:
        def __repr__(self) -> str:
            return "<thing>"

    assert jsonable({"a": (1, Thing()), 2: float("nan"), "b": b"\xff"}) == {
        "a": [1, "<thing>"],
        "2": "nan",
        "b": "\ufffd",
    }
    assert json.dumps(jsonable({"x": {1, 2}}))  # a set is written, not a crash


def test_case_from_dict_needs_name_and_input() -> None:
    from agent_eval._cases import coerce

    with pytest.raises(SuiteError, match="missing key 'input'"):
        coerce({"name": "a"})
    assert coerce({"name": "a", "input": 1, "evaluators": [len]}).evaluators == (len,)


def test_records_past_their_first_fields_are_built_by_keyword() -> None:
    with pytest.raises(TypeError):
        Case("a", "in", "expected")  # type: ignore[misc]
    with pytest.raises(TypeError):
        EvalResult("a", "in", "out")  # type: ignore[misc]
    with pytest.raises(TypeError):
        Evaluation("contains", "passed", 1.0)  # type: ignore[misc]


def test_durations_survive_the_json_round_trip_unrounded() -> None:
    evaluation = Evaluation("contains", "passed", score=1.0, duration_ms=0.123456789)
    original = EvalReport(
        [EvalResult("a", "in", output="out", status="passed", duration_ms=1 / 3, evaluations=(evaluation,))],
        total_ms=2 / 7,
    )
    loaded = EvalReport.from_json(original.to_json())
    assert loaded == original
    assert loaded.cases[0].duration_ms == 1 / 3
    assert loaded.cases[0].evaluations[0].duration_ms == 0.123456789


def test_atomic_report_files_get_ordinary_permissions(tmp_path: object) -> None:
    import os
    from pathlib import Path

    from agent_eval._report.files import write_atomic

    target = Path(str(tmp_path)) / "report.json"
    previous = os.umask(0o022)
    try:
        write_atomic(target, "{}")
    finally:
        os.umask(previous)
    assert target.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in target.parent.iterdir()] == ["report.json"]  # no temporary left behind
