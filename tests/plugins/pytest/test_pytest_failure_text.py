"""The text of a case that did not pass: one headline, the case, every evaluation, the error and its frames."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from agent_eval import EvalResult, Evaluation
from agent_eval_pytest.failure import CaseReport, frames_of, headline, skip_reason


def text(result: Any) -> list[str]:
    return str(CaseReport(result, "eval_demo.yaml", 7)).splitlines()


def test_a_failed_case_shows_its_headline_case_values_and_aligned_evaluations() -> None:
    result = EvalResult(
        "adds",
        "What is 2 + 2?",
        output="5\nreally",
        expected="4",
        status="failed",
        score=0.5,
        reason="contains: missing: '4'",
        evaluations=(
            Evaluation("contains", "failed", score=0.0, reason="missing: '4'"),
            Evaluation("valid_json", "passed", score=1.0),
            Evaluation("llm_judge", "skipped", reason="no judge configured"),
        ),
    )
    assert text(result) == [
        "failed · score 0.50 · contains: missing: '4'",
        "case 'adds' (eval_demo.yaml:7)",
        "input: What is 2 + 2?",
        "output: 5",
        "  really",
        "expected: 4",
        "evaluations:",
        "  FAIL  contains    score 0.00  missing: '4'",
        "  PASS  valid_json  score 1.00",
        "  SKIP  llm_judge   no judge configured",
    ]


def test_the_headline_and_junit_message_is_one_bounded_line() -> None:
    result = EvalResult("a", "in", status="failed", reason="x\n" * 500)
    line = headline(result)
    assert "\n" not in line
    assert len(line) < 320
    report = CaseReport(result, "eval_demo.yaml", 3)
    assert (report.reprcrash.path, report.reprcrash.lineno, report.reprcrash.message) == ("eval_demo.yaml", 3, line)
    assert str(report.reprcrash) == f"eval_demo.yaml:3: {line}"


def test_long_outputs_are_cut() -> None:
    lines = text(EvalResult("a", "in", output="y" * 5000, status="failed", reason="no"))
    (output,) = [line for line in lines if line.startswith("output: ")]
    assert len(output) == len("output: ") + 1000
    assert output.endswith("…")


def test_an_agent_error_shows_the_error_text_as_it_is() -> None:
    result = EvalResult("a", "boom", status="error", error="ValueError: the agent blew up")
    assert text(result) == [
        "error · ValueError: the agent blew up",
        "case 'a' (eval_demo.yaml:7)",
        "input: boom",
        "error: ValueError: the agent blew up",
    ]


def test_frames_are_shown_when_the_record_carries_them() -> None:
    frames = [
        {"filename": "agents.py", "lineno": 5, "name": "agent", "line": None, "code": "raise ValueError('x')"},
        SimpleNamespace(file="tools.py", line=12, function="lookup", source="db.get(key)"),
        "helpers.py:3 in fetch",
    ]
    result = SimpleNamespace(
        name="a",
        input="boom",
        output=None,
        expected=None,
        status="error",
        score=None,
        reason=None,
        error="ValueError: x",
        evaluations=(),
        frames=frames,
    )
    assert text(result)[-4:] == [
        "error: ValueError: x",
        "  agents.py:5 in agent: raise ValueError('x')",
        "  tools.py:12 in lookup: db.get(key)",
        "  helpers.py:3 in fetch",
    ]


def test_a_traceback_text_is_shown_line_by_line_and_many_frames_are_cut_to_the_innermost() -> None:
    assert frames_of(SimpleNamespace(traceback='  File "a.py", line 1, in f\n    g()\n\n')) == [
        '  File "a.py", line 1, in f',
        "    g()",
    ]
    many = frames_of(SimpleNamespace(frames=[f"f{n}.py:1" for n in range(15)]))
    assert many == ["… 5 outer frames", *(f"f{n}.py:1" for n in range(5, 15))]
    assert frames_of(EvalResult("a", "in", status="error", error="x")) == []


def test_repeats_show_each_attempt() -> None:
    attempt = SimpleNamespace
    result = SimpleNamespace(
        name="a",
        input="hi",
        output="hello",
        expected=None,
        status="failed",
        score=0.5,
        reason="missing: 'hi'",
        error=None,
        evaluations=(),
        flaky=True,
        attempts=(
            attempt(status="passed", score=1.0, reason=None, error=None),
            attempt(status="failed", score=0.0, reason="missing: 'hi'", error=None),
        ),
    )
    assert text(result)[4:7] == [
        "attempts: 1 of 2 passed (flaky)",
        "  1: passed · score 1.00",
        "  2: failed · score 0.00 · missing: 'hi'",
    ]


def test_a_skip_reason_comes_from_the_case_or_its_skipped_evaluations() -> None:
    assert skip_reason(EvalResult("a", "in", status="skipped", reason="no evaluators")) == "no evaluators"
    skipped = EvalResult(
        "a",
        "in",
        status="skipped",
        evaluations=(Evaluation("llm_judge", "skipped", reason="no judge"), Evaluation("x", "skipped")),
    )
    assert skip_reason(skipped) == "llm_judge: no judge"
    assert skip_reason(EvalResult("a", "in", status="skipped")) == "skipped"
