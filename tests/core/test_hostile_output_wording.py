"""Counts in words that agree with them, broken plugins in the JSON listing, and `runs` coloured by the bar
each run was held to."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from helpers import run_cli, write_plugin

from agent_eval._history import History
from agent_eval._model import EvalReport, EvalResult
from tests.data.reports.project import Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project(tmp_path)
    project.suite()
    return project


def test_one_case_is_one_case_everywhere(tmp_path: Path) -> None:
    from agent_eval._report import console, html, junit, markdown

    report = EvalReport(
        [EvalResult("only", "q", status="error", error="broke")], name="solo", interrupted=True, planned=1
    )
    stream = io.StringIO()
    console.print_report(report, file=stream)
    printed = stream.getvalue()
    assert "solo — 1 case" in printed
    assert "1 cases" not in printed and "1/1 case finished" in printed and "1 error," in printed
    for text in (markdown.render(report), html.render(report), junit.render(report)):
        assert "1 of 1 planned case finished" in text
        assert "1 planned cases" not in text


def test_list_evaluators_json_lists_broken_plugins_with_their_error(tmp_path: Path) -> None:
    site = write_plugin(
        tmp_path / "site", "raise RuntimeError('kaput')\n", distribution="kaput-evals", version="0.0.1",
        entry_point="kaput", module="kaput_mod",
    )  # fmt: skip
    done = run_cli("list-evaluators", "--json", cwd=tmp_path, env={"PYTHONPATH": str(site)})
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    broken = [item for item in listed if item["broken"]]
    assert broken == [
        {
            "name": None,
            "package": "kaput-evals",
            "version": "0.0.1",
            "description": None,
            "plugin": "kaput",
            "parameters": [],
            "broken": True,
            "error": "RuntimeError: kaput",
        }
    ]
    good = [item for item in listed if not item["broken"]]
    assert good and all({"name", "package", "version", "description", "parameters"} <= set(item) for item in good)


def test_runs_colours_a_pass_rate_by_the_bar_its_run_was_held_to(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rich.console import Console

    from agent_eval.cli import history as history_cli

    assert project.cli("run", "suite.yaml", "--min-pass-rate", "0.5").returncode == 0  # 50% met its bar
    assert project.cli("run", "suite.yaml").returncode == 1  # 50% below the default bar of 100%
    summaries = History(project.root / ".agent-eval" / "runs.db").runs()
    assert [(summary.min_pass_rate, summary.met) for summary in summaries] == [(1.0, False), (0.5, True)]
    buffer = io.StringIO()
    terminal = Console(file=buffer, force_terminal=True, color_system="standard", no_color=False, width=200)
    monkeypatch.setattr("agent_eval._report.console.make_console", lambda *args, **kwargs: terminal)
    history_cli._print_runs(summaries)
    rates = [line for line in buffer.getvalue().splitlines() if "50.0%" in line]
    assert len(rates) == 2
    assert re.search("\x1b\\[31m *50.0%", rates[0])  # red: below its bar
    assert re.search("\x1b\\[32m *50.0%", rates[1])  # green: at its bar, though a case failed
    listed = json.loads(project.cli("runs", "--json").stdout)
    assert [(run["min_pass_rate"], run["strict"]) for run in listed] == [(1.0, False), (0.5, False)]


def test_a_history_recorded_before_the_bar_was_kept_learns_it_from_the_reports(project: Project) -> None:
    import sqlite3
    import zlib

    assert project.cli("run", "suite.yaml", "--min-pass-rate", "0.5", "--strict").returncode == 1
    database = project.root / ".agent-eval" / "runs.db"
    with sqlite3.connect(database) as connection:  # back to the first schema, as an older agent-eval left it
        for column in ("min_pass_rate", "strict", "agent_tokens", "cost_usd"):
            connection.execute(f"ALTER TABLE runs DROP COLUMN {column}")
        [(stored,)] = connection.execute("SELECT report FROM runs").fetchall()
        connection.execute("UPDATE runs SET report = ?", [zlib.decompress(stored).decode()])  # JSON text then
        connection.execute("UPDATE schema_version SET version = 1")
    [summary] = History(database).runs()
    assert (summary.min_pass_rate, summary.strict, summary.met) == (0.5, True, False)
