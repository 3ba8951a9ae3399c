"""History: recording reports in SQLite, finding them again, and the versioned schema."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agent_eval import _history as history_module
from agent_eval._history import History, HistoryError
from agent_eval._model import EvalReport, EvalResult, Evaluation


def make_report(
    run_id: str | None = None, *, name: str = "suite", statuses: tuple[Any, ...] = ("passed",)
) -> EvalReport:
    cases = [
        EvalResult(
            f"c{i}",
            f"in {i}",
            output=f"out {i}",
            status=status,
            score=1.0 if status == "passed" else 0.0,
            reason="why",
            evaluations=(Evaluation("says", status, score=1.0, reason="why", metadata={"model": "m"}),),
        )
        for i, status in enumerate(statuses)
    ]
    metadata = {"run_id": run_id, "suite_file": "s.yaml", "agent": "a:b"} if run_id else {}
    return EvalReport(cases, name=name, total_ms=12.0, started_at="2026-01-02T03:04:05+00:00", metadata=metadata)


def test_record_returns_the_reports_run_id_and_load_gives_the_report_back(tmp_path: Path) -> None:
    history = History(tmp_path / "runs.db")
    report = make_report("r-1", statuses=("passed", "failed", "error", "skipped"))
    assert history.record(report) == "r-1"
    stored = history.load("r-1")
    assert stored.report.to_dict() == report.to_dict()
    summary = stored.summary
    assert (summary.total, summary.passed, summary.failed, summary.errored, summary.skipped) == (4, 1, 1, 1, 1)
    assert (summary.suite, summary.suite_file, summary.agent) == ("suite", "s.yaml", "a:b")
    assert summary.pass_rate == pytest.approx(1 / 3)
    assert summary.interrupted is False


def test_a_report_without_run_id_gets_a_generated_one_stored_in_its_metadata(tmp_path: Path) -> None:
    history = History(tmp_path / "runs.db")
    first, second = history.record(make_report()), history.record(make_report())
    assert first != second
    assert history.load(first).report.metadata["run_id"] == first


def test_recording_the_same_run_id_twice_is_refused(tmp_path: Path) -> None:
    history = History(tmp_path / "runs.db")
    history.record(make_report("dup"))
    with pytest.raises(HistoryError, match=r"'dup' is already recorded"):
        history.record(make_report("dup"))
    assert len(history.runs()) == 1


def test_runs_lists_newest_first_and_honours_limit_and_suite(tmp_path: Path) -> None:
    history = History(tmp_path / "runs.db")
    for i in range(5):
        history.record(make_report(f"r{i}", name="even" if i % 2 == 0 else "odd"))
    assert [run.id for run in history.runs()] == ["r4", "r3", "r2", "r1", "r0"]
    assert [run.id for run in history.runs(limit=2)] == ["r4", "r3"]
    assert [run.id for run in history.runs(suite="odd")] == ["r3", "r1"]
    assert len(history.runs(limit=None)) == 5


def test_latest_and_latest_tilde_n_count_back_from_the_newest_run(tmp_path: Path) -> None:
    history = History(tmp_path / "runs.db")
    for run_id in ("b-old", "a-middle", "c-new"):  # recording order, not id order, decides
        history.record(make_report(run_id))
    assert history.resolve("latest") == "c-new"
    assert history.resolve("latest~0") == "c-new"
    assert history.resolve("latest~1") == "a-middle"
    assert history.resolve("latest~2") == "b-old"
    with pytest.raises(HistoryError, match=r"'latest~3' needs 4 recorded runs; .* holds 3"):
        history.resolve("latest~3")


def test_a_unique_prefix_names_a_run_and_an_ambiguous_one_is_refused(tmp_path: Path) -> None:
    history = History(tmp_path / "runs.db")
    for run_id in ("20260101-aaa", "20260101-abb", "20260202-ccc"):
        history.record(make_report(run_id))
    assert history.resolve("20260202") == "20260202-ccc"
    with pytest.raises(HistoryError, match=r"ambiguous.*20260101-abb, 20260101-aaa"):
        history.resolve("20260101-a")


def test_an_unknown_run_is_an_error_that_says_how_to_list_runs(tmp_path: Path) -> None:
    history = History(tmp_path / "runs.db")
    history.record(make_report("r1"))
    with pytest.raises(HistoryError, match=r"no run 'nope' in .*agent-eval runs"):
        history.load("nope")


def test_reading_a_missing_database_is_an_error_and_creates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "runs.db"
    history = History(path)
    assert history.runs() == []
    with pytest.raises(HistoryError, match=r"no run history at"):
        history.load("latest")
    assert not path.parent.exists()


def test_a_file_that_is_not_a_database_gives_a_history_error(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    path.write_text("this is not sqlite " * 100)
    with pytest.raises(HistoryError, match=r"runs.db"):
        History(path).record(make_report("x"))


def test_the_database_uses_wal_and_records_its_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    History(path).record(make_report("x"))
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert connection.execute("SELECT version FROM schema_version").fetchall() == [
            (len(history_module.MIGRATIONS),)
        ]
        indexes = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert {"runs_by_suite", "runs_by_started_at"} <= indexes
        assert connection.execute("SELECT suite, passed, total FROM runs").fetchall() == [("suite", 1, 1)]


def test_an_older_database_is_migrated_in_order_and_keeps_its_runs(tmp_path: Path, monkeypatch: Any) -> None:
    path = tmp_path / "runs.db"
    History(path).record(make_report("before"))
    later = (
        ("ALTER TABLE runs ADD COLUMN label TEXT", "UPDATE runs SET label = 'one'"),
        ("UPDATE runs SET label = label || '+two'",),
    )
    monkeypatch.setattr(history_module, "MIGRATIONS", history_module.MIGRATIONS + later)
    history = History(path)
    assert history.load("before").report.cases[0].name == "c0"
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT label FROM runs").fetchall() == [("one+two",)]
        assert connection.execute("SELECT version FROM schema_version").fetchone()[0] == len(history_module.MIGRATIONS)
    history.record(make_report("after"))
    with sqlite3.connect(path) as connection:  # applied once: a second open changes nothing
        assert connection.execute("SELECT label FROM runs ORDER BY seq").fetchall() == [("one+two",), (None,)]


def test_a_first_version_database_whose_reports_say_nothing_of_strict_is_upgraded(tmp_path: Path) -> None:
    import json

    path = tmp_path / "runs.db"
    with sqlite3.connect(path) as connection:  # as the first agent-eval left it: a run recorded from Python
        connection.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        connection.execute("INSERT INTO schema_version VALUES (1)")
        for statement in history_module.MIGRATIONS[0]:
            connection.execute(statement)
        report = {"name": "s", "cases": [], "metadata": {"run_id": "old"}}
        connection.execute(
            "INSERT INTO runs (id, recorded_at, total, passed, failed, errored, skipped, pass_rate, total_ms,"
            " interrupted, report) VALUES ('old', '2026-01-01', 0, 0, 0, 0, 0, 0, 0, 0, ?)",
            [json.dumps(report)],
        )
    history = History(path)
    history.record(make_report("new"))
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT id, strict FROM runs ORDER BY seq").fetchall() == [("old", 0), ("new", 0)]


def test_a_database_from_a_newer_version_is_refused_with_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    History(path).record(make_report("x"))
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE schema_version SET version = 99")
    with pytest.raises(HistoryError, match=r"schema version 99, newer than .*upgrade agent-eval"):
        History(path).load("x")


def test_a_new_agent_eval_folder_gets_a_gitignore(tmp_path: Path) -> None:
    History(tmp_path / ".agent-eval" / "runs.db").record(make_report("x"))
    assert (tmp_path / ".agent-eval" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_an_existing_folder_is_left_as_it_is(tmp_path: Path) -> None:
    History(tmp_path / "runs.db").record(make_report("x"))
    assert not (tmp_path / ".gitignore").exists()


def test_an_interrupted_report_is_recorded_as_interrupted(tmp_path: Path) -> None:
    history = History(tmp_path / "runs.db")
    report = EvalReport(make_report().cases, interrupted=True, planned=10, metadata={"run_id": "cut"})
    history.record(report)
    stored = history.load("cut")
    assert stored.summary.interrupted is True
    assert stored.report.interrupted is True and stored.report.planned == 10
