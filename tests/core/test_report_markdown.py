"""The Markdown summary: counts, the bar, and the failing cases, with agent text kept inert."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_eval._model import EvalReport, EvalResult
from agent_eval._report import markdown


def case(name: str, status: Any, **more: Any) -> EvalResult:
    return EvalResult(name, "q", output="a", status=status, **more)


def sample(**metadata: Any) -> EvalReport:
    return EvalReport(
        [
            case("greets", "passed", score=1.0),
            case("adds", "failed", score=0.5, reason="contains: missing '4'"),
            case("slow", "error", error="timed out after 2 s"),
            case("judged", "skipped", reason="no judge"),
        ],
        name="warranty",
        total_ms=1500,
        metadata={"run_id": "r1", "suite_file": "suite.yaml", "agent_eval_version": "0.1.0", **metadata},
    )


def test_heading_and_counts_row_show_the_outcome_against_the_bar() -> None:
    lines = markdown.render(sample(min_pass_rate=0.3)).splitlines()
    assert lines[0] == "### ✅ agent-eval: warranty — 1 of 4 passed"
    assert lines[2:5] == [
        "| Passed | Failed | Errors | Skipped | Pass rate | Bar | Time |",
        "|---:|---:|---:|---:|---:|---:|---:|",
        "| 1 | 1 | 1 | 1 | 33.3% (95% CI 6.1-79.2%) | 30% met | 1.50 s |",
    ]


def test_below_the_bar_is_marked_as_failing() -> None:
    lines = markdown.render(sample(min_pass_rate=0.9)).splitlines()
    assert lines[0] == "### ❌ agent-eval: warranty — 1 of 4 passed"
    assert lines[4] == "| 1 | 1 | 1 | 1 | 33.3% (95% CI 6.1-79.2%) | 90% **not met** | 1.50 s |"


def test_without_a_recorded_bar_the_default_of_100_percent_applies() -> None:
    report = EvalReport([case("a", "passed")], name="s")
    lines = markdown.render(report).splitlines()
    assert lines[0] == "### ✅ agent-eval: s — 1 of 1 passed"
    assert lines[4] == "| 1 | 0 | 0 | 0 | 100.0% (95% CI 20.7-100.0%) | 100% met | 0.00 ms |"


def test_strict_runs_count_skipped_cases_in_the_rate() -> None:
    report = EvalReport([case("a", "passed"), case("b", "skipped")], metadata={"strict": True, "min_pass_rate": 0.6})
    lines = markdown.render(report).splitlines()
    assert lines[0].startswith("### ❌")
    assert "| 50.0% (strict) | 60% **not met** |" in lines[4]


def test_failing_and_errored_cases_are_listed_and_passing_ones_are_not() -> None:
    text = markdown.render(sample())
    assert "#### Cases that did not pass (2)" in text
    assert "| adds | FAIL | 0.50 | contains: missing '4' |" in text
    assert "| slow | ERROR |  | timed out after 2 s |" in text
    assert "greets |" not in text and "judged |" not in text


def test_nothing_failing_means_no_table() -> None:
    text = markdown.render(EvalReport([case("a", "passed")]))
    assert "did not pass" not in text


def test_agent_text_cannot_break_the_table_or_inject_html() -> None:
    reason = "a | b\nnew line <img src=x onerror=alert(1)> **bold** [link](http://x) `code` & ~strike~ _em_"
    text = markdown.render(EvalReport([case("x|y", "failed", reason=reason)]))
    row = next(line for line in text.splitlines() if line.startswith("| x"))
    assert row == (
        # the newline is shown as the escape \n (its backslash escaped for Markdown): one line per row
        "| x\\|y | FAIL |  | a \\| b\\\\nnew line &lt;img src=x onerror=alert(1)&gt; \\*\\*bold\\*\\* "
        "\\[link\\](http://x) \\`code\\` &amp; \\~strike\\~ \\_em\\_ |"
    )
    assert "<img" not in text


def test_many_failures_are_capped_with_a_count_of_the_rest() -> None:
    report = EvalReport([case(f"c{i}", "failed", reason="no") for i in range(markdown.FAILING_LIMIT + 7)])
    text = markdown.render(report)
    assert f"| c{markdown.FAILING_LIMIT - 1} | FAIL |" in text
    assert f"| c{markdown.FAILING_LIMIT} | FAIL |" not in text
    assert "… and 7 more; the JUnit, HTML or JSON report lists them all." in text


def test_long_reasons_are_shortened() -> None:
    text = markdown.render(EvalReport([case("x", "failed", reason="word " * 200)]))
    row = next(line for line in text.splitlines() if line.startswith("| x"))
    assert len(row) < markdown.REASON_LIMIT + 40
    assert row.endswith("… |")


def test_an_interrupted_run_says_so_and_is_not_a_success() -> None:
    report = EvalReport([case("a", "passed")], name="s", interrupted=True, planned=4)
    text = markdown.render(report)
    assert text.splitlines()[0].startswith("### ❌")
    assert "> **Interrupted:** 1 of 4 planned cases finished; the others did not run." in text


def test_footer_names_version_suite_agent_and_run() -> None:
    text = markdown.render(sample(agent="my_agent:run"))
    assert text.splitlines()[-1] == ("<sub>agent-eval 0.1.0 · suite suite.yaml · agent my\\_agent:run · run r1</sub>")


def test_write_puts_the_summary_in_a_file(tmp_path: Path) -> None:
    target = tmp_path / "summary.md"
    markdown.write(sample(), target)
    assert target.read_text(encoding="utf-8") == markdown.render(sample()) + "\n"
