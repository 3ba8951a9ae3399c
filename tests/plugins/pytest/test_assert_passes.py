"""``agent_eval.assert_passes``: passes at the bar, otherwise names every case that did not pass and why."""

from __future__ import annotations

import pytest

import agent_eval
from agent_eval import EvalReport, EvalResult, assert_passes


def result(name: str, status: str, **extra: object) -> EvalResult:
    return EvalResult(name, "in", output="out", status=status, **extra)  # type: ignore[arg-type]


def message(report: EvalReport, **options: float) -> str:
    with pytest.raises(AssertionError) as caught:
        assert_passes(report, **options)
    return str(caught.value)


def test_it_is_a_public_name_of_the_core() -> None:
    assert "assert_passes" in agent_eval.__all__
    assert agent_eval.assert_passes is assert_passes


def test_a_report_where_every_case_passed_passes() -> None:
    assert_passes(EvalReport([result("a", "passed"), result("b", "passed")]))


def test_a_failure_names_each_case_that_did_not_pass_with_status_score_and_reason() -> None:
    report = EvalReport(
        [
            result("greets", "passed", score=1.0),
            result("adds", "failed", score=0.5, reason="missing: '4'"),
            result("explodes", "error", error="ValueError: boom"),
        ]
    )
    assert message(report) == (
        "pass rate 33.3% is below 100.0%: 1 passed, 1 failed, 1 error, 0 skipped\n"
        "  'adds': failed, score 0.50: missing: '4'\n"
        "  'explodes': error: ValueError: boom"
    )


def test_it_passes_at_or_above_min_pass_rate_even_with_failures() -> None:
    report = EvalReport([result("a", "passed"), result("b", "failed", reason="no")])
    assert_passes(report, min_pass_rate=0.5)
    assert "pass rate 50.0% is below 60.0%" in message(report, min_pass_rate=0.6)


def test_skipped_cases_count_neither_way_as_in_pass_rate() -> None:
    report = EvalReport([result("a", "passed"), result("b", "skipped", reason="no judge")])
    assert_passes(report)
    failing = EvalReport([result("a", "failed", reason="no"), result("b", "skipped", reason="no judge")])
    text = message(failing)
    assert text.startswith("pass rate 0.0% is below 100.0%: 0 passed, 1 failed, 0 errors, 1 skipped (skipped cases")
    assert "'b'" not in text


def test_a_report_where_nothing_ran_fails_and_says_why_each_case_was_skipped() -> None:
    report = EvalReport([result("a", "skipped", reason="no judge configured")])
    assert message(report) == (
        "no case ran: 0 passed, 0 failed, 0 errors, 1 skipped\n  'a': skipped: no judge configured"
    )
    assert message(EvalReport([])) == "no case ran: the report is empty"
    assert_passes(EvalReport([]), min_pass_rate=0.0)


def test_the_message_is_bounded_in_cases_and_in_each_line() -> None:
    report = EvalReport([result(f"case {n}", "failed", reason="x" * 1000) for n in range(25)])
    lines = message(report).splitlines()
    assert len(lines) == 1 + 10 + 1
    assert lines[-1] == "  … and 15 more"
    assert all(len(line) <= 2 + 300 for line in lines[1:-1])
    assert lines[1].endswith("…")


def test_an_interrupted_run_says_so() -> None:
    report = EvalReport([result("a", "failed", reason="no")], interrupted=True, planned=4)
    assert message(report).splitlines()[0].endswith("; the run was interrupted after 1 of 4 cases")


@pytest.mark.parametrize("bar", [-0.1, 1.5, True, "1"])
def test_a_bar_outside_zero_to_one_is_refused(bar: object) -> None:
    with pytest.raises(ValueError, match="min_pass_rate must be a number from 0 to 1"):
        assert_passes(EvalReport([]), min_pass_rate=bar)  # type: ignore[arg-type]


def test_something_other_than_a_report_is_refused() -> None:
    with pytest.raises(TypeError, match=r"assert_passes\(\) takes an EvalReport, got \[\]"):
        assert_passes([])  # type: ignore[arg-type]
