"""The console table at any width, ``--verbose``, and where agent and evaluator errors were raised."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from helpers import run_cli

from agent_eval._history import History
from tests.data.reports.project import Project

LONG_NAME = "refund policy for damaged items bought online during a sale"
JUDGE_REASON = (
    "The answer states the refund window correctly but never says that damaged items bought during a sale "
    "are covered, which the criteria require; it also invents a restocking fee that the policy does not have."
)
RAISE_LINE = "raise RuntimeError"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project(tmp_path)
    project.answers({"Say hello": "hello there", "Refund?": "within 30 days", "Crash": {"raise": "agent broke"}})
    project.suite(
        [
            {"name": "greets", "input": "Say hello", "evaluators": [{"says": "hello"}]},
            {"name": LONG_NAME, "input": "Refund?", "evaluators": [{"fails_saying": JUDGE_REASON}]},
            {"name": "crashes", "input": "Crash", "evaluators": [{"says": "x"}]},
            {"name": "two checks", "input": "Say hello", "evaluators": [{"says": "bye"}, {"explodes": {}}]},
        ]
    )
    return project


def run(project: Project, *args: str, columns: int = 120) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=project.root, env={**project.env(), "COLUMNS": str(columns)})


def table_rows(out: str) -> list[list[str]]:
    """The table's lines as cells, the box drawing taken off."""
    return [[part.strip() for part in line.strip("│").split("│")] for line in out.splitlines() if line.startswith("│")]


def column(out: str, index: int) -> str:
    """Everything in one column of the table, with no whitespace (text folds across lines)."""
    return "".join("".join(row[index].split()) for row in table_rows(out) if len(row) == 5)


def squeezed(text: str) -> str:
    return "".join(text.split())


def test_case_status_and_score_are_never_squeezed_out(project: Project) -> None:
    for columns in (80, 120, 250):
        done = run(project, "run", "suite.yaml", "--no-history", columns=columns)
        assert done.returncode == 1, done.stderr
        lines = done.stdout.splitlines()
        assert max(len(line) for line in lines) <= columns
        header = next(line for line in lines if line.startswith("┃"))
        assert [cell.strip() for cell in header.strip("┃").split("┃")] == ["Case", "Status", "Score", "Reason", "Time"]
        assert squeezed(LONG_NAME) in column(done.stdout, 0), columns  # whole, folded onto more lines if need be
        statuses = [row[1] for row in table_rows(done.stdout) if row[1]]
        assert statuses == ["PASS", "FAIL", "ERROR", "ERROR"], columns
        scores = [row[2] for row in table_rows(done.stdout) if row[2]]
        assert scores == ["1.00", "0.00", "0.00"], columns


def test_reasons_use_the_width_there_is(project: Project) -> None:
    wide = run(project, "run", "suite.yaml", "--no-history", columns=250)
    # 150 characters on one line (there is room for 157), and the rest on the next
    assert any(JUDGE_REASON[:150] in line for line in wide.stdout.splitlines())
    assert squeezed(JUDGE_REASON) in column(wide.stdout, 3)
    medium = run(project, "run", "suite.yaml", "--no-history", columns=120)
    assert squeezed(JUDGE_REASON[:180]) in column(medium.stdout, 3)  # wrapped onto four lines
    narrow = run(project, "run", "suite.yaml", "--no-history", columns=80)
    reason = column(narrow.stdout, 3)
    assert squeezed(JUDGE_REASON) not in reason and squeezed(JUDGE_REASON[:60]) in reason
    assert "…" in reason


def test_verbose_prints_every_reason_and_error_whole_with_where_errors_were_raised(project: Project) -> None:
    done = run(project, "run", "suite.yaml", "--verbose", columns=80)
    assert done.returncode == 1, done.stderr
    reasons = column(done.stdout, 3)
    assert squeezed(JUDGE_REASON) in reasons
    assert squeezed("RuntimeError: agent broke") in reasons
    assert "atanswers_agent.py:16inagent" in reasons
    # one row per evaluation under a case with several, each with its own reason or error
    names = [row[0] for row in table_rows(done.stdout) if row[0]]
    assert names[-2:] == ["└ says", "└ explodes"]
    assert squeezed("missing 'bye'") in reasons and squeezed("RuntimeError: evaluator exploded") in reasons
    assert re.search(r"atrx_plugin\.py:\d+inexplodes\.<locals>\.check", reasons)
    short = run(project, "run", "suite.yaml", "-v", "--no-history", columns=80)
    assert column(short.stdout, 3) == reasons
    show = run(project, "show", "latest", "-v", columns=80)
    assert show.returncode == 0, show.stderr
    assert column(show.stdout, 3) == reasons


def test_the_innermost_frames_of_errors_are_kept_in_every_record(project: Project) -> None:
    done = run(project, "run", "suite.yaml", "--json", "r.json", "--jsonl", "r.jsonl", "--html", "r.html")
    assert done.returncode == 1, done.stderr
    report = json.loads((project.root / "r.json").read_text(encoding="utf-8"))
    crashed, two = report["cases"][2], report["cases"][3]
    assert crashed["frames"] == ["answers_agent.py:16 in agent"]
    assert two["frames"] == []
    [says, explodes] = two["evaluations"]
    assert says["frames"] == []
    assert len(explodes["frames"]) == 1 and re.fullmatch(
        r"rx_plugin\.py:\d+ in explodes\.<locals>\.check", explodes["frames"][0]
    )
    lines = [json.loads(line) for line in (project.root / "r.jsonl").read_text(encoding="utf-8").splitlines()]
    assert lines[2]["frames"] == crashed["frames"]
    assert "answers_agent.py:16 in agent" in (project.root / "r.html").read_text(encoding="utf-8")
    stored = History(project.root / ".agent-eval" / "runs.db").load("latest").report
    assert stored.cases[2].frames == ("answers_agent.py:16 in agent",)
    assert stored.cases[3].evaluations[1].frames == tuple(explodes["frames"])


def test_frames_of_keeps_the_innermost_frames_from_the_code_that_raised() -> None:
    from agent_eval._text import frames_of

    def inner(depth: int) -> None:
        if depth == 0:
            raise ValueError("deep")
        inner(depth - 1)

    try:
        inner(9)
    except ValueError as error:
        frames = frames_of(error)
    assert len(frames) == 5
    assert all(re.fullmatch(r"tests/core/test_hostile_output_layout\.py:\d+ in .*inner", frame) for frame in frames)
    assert frames_of(ValueError("never raised")) == ()


def test_a_big_run_prints_at_most_two_hundred_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    # The default width (a pytest-xdist worker without a terminal is given COLUMNS=80).
    monkeypatch.delenv("COLUMNS", raising=False)

    from agent_eval._model import EvalReport, EvalResult
    from agent_eval._report.console import print_report

    cases = [EvalResult(f"case {i}", "q", status="failed" if i % 2 else "passed", reason="no") for i in range(1000)]
    stream = io.StringIO()
    print_report(EvalReport(cases), file=stream)
    rows = [row for row in table_rows(stream.getvalue()) if row[0]]
    assert len(rows) == 200 and all(row[1] == "FAIL" for row in rows)
    assert (
        "(800 cases (500 passed, 300 that did not pass) not shown; write them all with --json PATH)"
        in stream.getvalue()
    )


def test_runs_keeps_the_run_suite_and_pass_rate_on_a_narrow_console(project: Project) -> None:
    project.suite(name="warranty support suite with a long name")
    assert run(project, "run", "suite.yaml").returncode == 1
    for columns in (80, 120):
        done = run(project, "runs", columns=columns)
        assert done.returncode == 0, done.stderr
        assert max(len(line) for line in done.stdout.splitlines()) <= columns
        header = next(line for line in done.stdout.splitlines() if line.startswith("┃"))
        names = [name.strip() for name in header.strip("┃").split("┃")]
        assert {"Run", "Suite", "Pass rate"} <= set(names), columns
        rows = [row for row in table_rows(done.stdout) if len(row) == len(names)]
        assert len(rows[0][names.index("Run")]) == len("20260101-000000-abcdef")
        suite = "".join(squeezed(row[names.index("Suite")]) for row in rows)
        assert squeezed("warranty support suite with a long name") in suite
        assert rows[0][names.index("Pass rate")].endswith(".0%")
