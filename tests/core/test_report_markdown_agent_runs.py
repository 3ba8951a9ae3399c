"""The Markdown summary of agent runs: the tool calls of each failing case, the agents' tokens and cost."""

from __future__ import annotations

from agent_eval import EvalReport
from agent_eval._report import markdown
from tests.data.reports.trajectories import repeated_report, report, result


def failing_rows(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("#### Cases that did not pass"))
    return [line for line in lines[start + 2 :] if line.startswith("|")]


def test_failing_cases_give_their_tool_calls_and_how_many_failed() -> None:
    header, rule, *body = failing_rows(markdown.render(report()))
    assert header == "| Case | Status | Score | Reason | Tool calls |"
    assert rule == "|---|---|---:|---|---:|"
    assert body == [
        "| uses tools | FAIL | 0.50 | bad | 3 (1 failed) |",
        "| crashes | ERROR |  | RuntimeError: boom | 0 |",
    ]


def test_without_tool_calls_the_table_has_no_tool_calls_column() -> None:
    plain = EvalReport([result("a", "failed", reason="no"), result("b", "passed")])
    header, _, row = failing_rows(markdown.render(plain))
    assert header == "| Case | Status | Score | Reason |"
    assert row == "| a | FAIL |  | no |"


def test_a_repeated_failing_case_gives_the_tool_calls_of_the_attempt_shown_and_is_marked_flaky() -> None:
    _, _, row, *_ = failing_rows(markdown.render(repeated_report()))
    assert row.startswith("| flaky | 2/3 (flaky) | 0.67 | 2/3 attempts passed; attempt 2: says: missing '4' |")
    assert row.endswith("| 3 (1 failed) |")


def test_the_footer_gives_the_agents_tokens_and_cost_beside_the_judges_tokens() -> None:
    footer = markdown.render(report(metadata={"run_id": "r1"})).splitlines()[-1]
    assert footer == "<sub>run r1 · 1,274 agent tokens · $0.0153</sub>"
    assert "agent tokens" not in markdown.render(EvalReport([result("a", "passed")]))
