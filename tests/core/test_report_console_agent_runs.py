"""The console report of agent runs: tokens and cost in the summary, flaky cases marked, and under ``-v``
each case's tool calls step by step and each attempt of a repeated case on a row of its own."""

from __future__ import annotations

import io
import re

import pytest

from agent_eval import EvalReport
from agent_eval._report.console import print_report, summary_line
from tests.data.reports.trajectories import HOSTILE, report, result

#: Control characters no console output may hold raw (newlines aside).
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")


@pytest.fixture(autouse=True)
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")


def printed(shown: EvalReport, **options: bool) -> str:
    out = io.StringIO()
    print_report(shown, file=out, **options)
    return out.getvalue()


def rows(text: str) -> list[list[str]]:
    """The table's rows as lists of their cells' text (a folded row's lines each on their own)."""
    return [[cell.strip() for cell in line.rstrip()[1:-1].split("│")] for line in text.splitlines() if line[:1] == "│"]


def reasons(text: str) -> str:
    """The reason column's text, its folded lines joined by spaces."""
    return " ".join(" ".join(row[3] for row in rows(text)).split())


def test_the_summary_line_gives_the_agents_tokens_and_cost_before_the_judges_tokens() -> None:
    line = summary_line(report())
    assert line.endswith("· 1.23 s · 1,274 agent tokens · $0.0153")
    plain = EvalReport([result("a", "passed")])
    assert "agent tokens" not in summary_line(plain) and "$" not in summary_line(plain)


def test_a_flaky_case_says_so_before_its_reason() -> None:
    table = rows(printed(report()))
    flaky = next(row for row in table if row[0] == "flaky")
    assert flaky[1] == "2/3"
    assert flaky[3] == "flaky · 2/3 attempts passed; attempt 2: says: missing '4'"
    assert not any(row[3].startswith("flaky") for row in table if row[0] != "flaky")


def test_without_verbose_no_step_or_attempt_is_listed() -> None:
    text = printed(report())
    assert "step 1" not in text and "attempt 1" not in text


def test_verbose_lists_each_tool_call_in_order_under_its_case_with_the_error_marked() -> None:
    table = rows(printed(report(), verbose=True))
    start = next(index for index, row in enumerate(table) if row[0] == "uses tools")
    steps = [(index, row) for index, row in enumerate(table[start:], start) if row[0].startswith("└ step")]
    assert [row[0] for _, row in steps[:3]] == ["└ step 1", "└ step 2", "└ step 3"]
    assert steps[0][1][3] == 'get_warranty {"product": "kettle"}'
    assert table[steps[0][0] + 1][3] == "→ 2 years"
    assert steps[1][1][1] == "ERROR" and steps[0][1][1] == "" and steps[2][1][1] == ""
    text = reasons(printed(report(), verbose=True))
    assert "✗ error: permission denied [/b] \\x1b]0;pwned\\x07 </script>" in text
    assert 'search (raw arguments, not valid JSON) {"q": "kettle' in text
    assert '→ {"hits": [1, 2], "note": "[/b] \\u001b]0;pwned\\u0007 </script>' in text


def test_verbose_lists_each_attempt_with_its_evaluations_and_tool_calls() -> None:
    table = rows(printed(report(), verbose=True))
    start = next(index for index, row in enumerate(table) if row[0] == "flaky")
    end = next(index for index, row in enumerate(table) if row[0] == "crashes")
    labels = [row[0] for row in table[start + 1 : end] if row[0]]
    assert labels == [
        "└ attempt 1",
        "└ step 1",
        "└ attempt 2",
        "└ says",
        "└ max_steps",
        "└ step 1",
        "└ step 2",
        "└ step 3",
        "└ attempt 3",
    ]
    attempts = [row for row in table[start:end] if row[0].startswith("└ attempt")]
    assert [(row[1], row[2], row[3]) for row in attempts] == [
        ("PASS", "1.00", "found '4'"),
        ("FAIL", "0.00", "says: missing '4'"),
        ("PASS", "1.00", "found '4'"),
    ]


def test_tool_names_arguments_results_and_errors_print_as_text() -> None:
    text = printed(report(), verbose=True)
    assert not RAW_CONTROL.search(text)
    shown = HOSTILE.replace("\x1b", "\\x1b").replace("\x07", "\\x07")
    assert f"delete_account {shown}" in reasons(text)
    assert f"permission denied {shown}" in reasons(text)


def test_a_case_without_tool_calls_has_no_step_rows() -> None:
    table = rows(printed(EvalReport([result("a", "failed", reason="no")]), verbose=True))
    assert [row[0] for row in table if row[0]] == ["a"]
