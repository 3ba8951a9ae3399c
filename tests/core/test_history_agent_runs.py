"""Agent runs through the real command and the history: `show -v` prints each case's trajectory, `runs`
lists the agents' tokens and cost, a database of the older schema learns them from its stored reports,
and the JSON Lines stream carries each attempt of a repeated case."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from agent_eval import _history as history_module
from tests.data.reports.project import Project
from tests.data.reports.trajectories import HOSTILE, agent_source, report

SHOWN = HOSTILE.replace("\x1b", "\\x1b").replace("\x07", "\\x07")
CASES = [
    {"name": "kettle", "input": "What warranty does the kettle have?", "evaluators": [{"says": "2 years"}]},
    {"name": "toaster", "input": "And the toaster?", "evaluators": [{"says": "toaster"}]},
]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project(tmp_path)
    (tmp_path / "tools_agent.py").write_text(agent_source(), encoding="utf-8")
    project.suite(CASES, name="tools", agent="tools_agent:agent")
    return project


def reasons(text: str) -> str:
    """The reason column of every table row, folded lines joined."""
    cells = [line.rstrip()[1:-1].split("│") for line in text.splitlines() if line[:1] == "│"]
    return " ".join(" ".join(row[3] for row in cells if len(row) > 3).split())


def test_show_verbose_prints_each_cases_trajectory_under_it(project: Project) -> None:
    assert project.cli("run", "suite.yaml").returncode == 1
    done = project.cli("show", "latest", "-v")
    assert done.returncode == 0, done.stderr
    labels = [line.split("│")[1].strip() for line in done.stdout.splitlines() if line[:1] == "│"]
    assert [label for label in labels if label] == [
        "kettle",
        "└ step 1",
        "└ step 2",
        "└ step 3",
        "toaster",
        "└ step 1",
        "└ step 2",
        "└ step 3",
    ]
    shown = reasons(done.stdout)
    assert 'get_warranty {"product": "kettle"} → 2 years' in shown
    assert f"✗ error: permission denied {SHOWN}" in shown
    assert 'search (raw arguments, not valid JSON) {"q": "kettle → {"hits": [1, 2]}' in shown
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    summary = done.stdout.strip().splitlines()[-1]
    assert summary.endswith("· 2,468 agent tokens · $0.0246")


def test_show_without_verbose_lists_no_steps_and_runs_lists_tokens_and_cost(project: Project) -> None:
    assert project.cli("run", "suite.yaml").returncode == 1
    shown = project.cli("show", "latest")
    assert shown.returncode == 0 and "step 1" not in shown.stdout
    runs = project.cli("runs")
    assert runs.returncode == 0, runs.stderr
    header = next(line for line in runs.stdout.splitlines() if "Run" in line and "Pass rate" in line)
    assert [cell.strip() for cell in header.strip("┃ ").split("┃")][-2:] == ["Agent tokens", "Cost"]
    row = next(line for line in runs.stdout.splitlines() if "tools" in line)
    assert [cell.strip() for cell in row.strip("│ ").split("│")][-2:] == ["2,468", "$0.0246"]
    [listed] = json.loads(project.cli("runs", "--json").stdout)
    assert listed["agent_tokens"] == 2468 and abs(listed["cost_usd"] - 0.0246) < 1e-12


def test_runs_has_no_agent_columns_when_no_run_reported_tokens_or_cost(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.suite()
    project.cli("run", "suite.yaml")
    runs = project.cli("runs")
    assert "Agent tokens" not in runs.stdout and "Cost" not in runs.stdout
    assert json.loads(project.cli("runs", "--json").stdout)[0]["agent_tokens"] is None


def test_the_jsonl_line_of_a_repeated_case_carries_each_attempt(project: Project) -> None:
    done = project.cli("run", "suite.yaml", "--repeat", "3", "--jsonl", "r.jsonl", "--no-history")
    assert done.returncode == 1, done.stderr
    lines = [json.loads(line) for line in (project.root / "r.jsonl").read_text(encoding="utf-8").splitlines()]
    kettle = next(line for line in lines if line["type"] == "case" and line["name"] == "kettle")
    assert [attempt["index"] for attempt in kettle["attempts"]] == [0, 1, 2]
    assert all(attempt["status"] == "passed" for attempt in kettle["attempts"])
    assert [len(attempt["tool_calls"]) for attempt in kettle["attempts"]] == [3, 3, 3]
    assert kettle["attempts"][0]["tool_calls"][2]["arguments"] == '{"q": "kettle'
    assert kettle["pass_fraction"] == 1.0 and kettle["flaky"] is False
    assert kettle["usage"]["total_tokens"] == 3 * 1234
    summary = lines[-1]
    assert summary["type"] == "summary" and summary["agent_usage"]["total_tokens"] == 6 * 1234
    assert summary["stats"]["repeat"] == 3


OLD_INSERT = """
    INSERT INTO runs (id, recorded_at, started_at, suite, suite_file, agent, total, passed, failed, errored,
                      skipped, pass_rate, total_ms, interrupted, min_pass_rate, strict, report)
    VALUES (?, '2026-01-02T03:04:05+00:00', '2026-01-02T03:04:05+00:00', 'trajectories', NULL, NULL,
            4, 2, 1, 1, 0, 0.5, 1234, 0, NULL, 0, ?)
"""


def old_database(path: Path, reports: dict[str, dict[str, object]]) -> None:
    """A history as the agent-eval before agent totals left it: the first two migrations, and these reports."""
    with sqlite3.connect(path) as connection:
        for statements in history_module.MIGRATIONS[:2]:
            for statement in statements:
                connection.execute(statement)
        connection.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        connection.execute("INSERT INTO schema_version (version) VALUES (2)")
        for run_id, data in reports.items():
            connection.execute(OLD_INSERT, [run_id, json.dumps(data)])
    connection.close()


def older_report(run_id: str, **changes: object) -> dict[str, object]:
    """The report as written before ``agent_usage`` and ``cost_usd`` were report keys."""
    data = report(metadata={"run_id": run_id}).to_dict()
    del data["agent_usage"], data["cost_usd"]
    data.update(changes)
    return data


def test_an_old_database_learns_each_runs_tokens_and_cost_from_its_stored_reports(tmp_path: Path) -> None:
    plain = older_report("20260102-030405-000002")
    for case in plain["cases"]:  # type: ignore[attr-defined]
        case.update(usage=None, cost_usd=None, attempts=[])
    huge = older_report("20260102-030405-000003")
    huge["cases"][0]["usage"]["input_tokens"] = 2**70  # type: ignore[index]
    path = tmp_path / "old.db"
    first_report = older_report("20260102-030405-000001")
    old_database(
        path, {"20260102-030405-000001": first_report, "20260102-030405-000002": plain, "20260102-030405-000003": huge}
    )
    project = Project(tmp_path)
    listed = json.loads(project.cli("runs", "--history", "old.db", "--json").stdout)
    by_id = {run["id"]: run for run in listed}
    first = by_id["20260102-030405-000001"]
    assert first["agent_tokens"] == 1274 and abs(first["cost_usd"] - 0.0153) < 1e-12
    second = by_id["20260102-030405-000002"]
    assert (second["agent_tokens"], second["cost_usd"]) == (None, None)
    assert by_id["20260102-030405-000003"]["agent_tokens"] > 2**62  # a count past 64 bits does not break the schema
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT version FROM schema_version").fetchone()[0] == len(history_module.MIGRATIONS)
    connection.close()
    table = project.cli("runs", "--history", "old.db")
    assert table.returncode == 0, table.stderr
    row = next(line for line in table.stdout.splitlines() if "000001" in line)
    assert [cell.strip() for cell in row.strip("│ ").split("│")][-2:] == ["1,274", "$0.0153"]
    shown = project.cli("show", "20260102-030405-000001", "--history", "old.db", "-v")
    assert shown.returncode == 0, shown.stderr
    assert f"✗ error: permission denied {SHOWN}" in reasons(shown.stdout)
    assert shown.stdout.strip().splitlines()[-1].endswith("· 1,274 agent tokens · $0.0153")


def test_a_run_recorded_after_the_migration_stores_its_totals(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old_database(path, {"20260102-030405-000001": older_report("20260102-030405-000001")})
    history = history_module.History(path)
    history.record(report(metadata={"run_id": "new"}))
    [new, old] = history.runs()
    assert (new.id, new.agent_tokens, old.agent_tokens) == ("new", 1274, 1274)
    assert new.cost_usd is not None and old.cost_usd is not None and abs(new.cost_usd - old.cost_usd) < 1e-12
