"""How the history stores a report: zlib-compressed JSON from schema version 4 on, JSON text before.

A database at version 3 (its reports JSON text, written by the agent-eval of that version) is brought
to version 4 and reads its old runs beside new ones; a stored report that is damaged is one line naming
the run and the database.
"""

from __future__ import annotations

import json
import re
import sqlite3
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_eval import _history as history_module
from agent_eval._history import History, HistoryError
from agent_eval._json import document
from agent_eval._model import EvalReport, EvalResult, Evaluation
from tests.core.test_scale_reports import PROFILE, report_of
from tests.data.reports.project import Project

#: The version this agent-eval writes compressed reports from; 3 is the last that wrote JSON text.
COMPRESSED_FROM = 4

#: The columns as version 3 had them, and its INSERT: the report written into a blob of its size, then
#: made text, as that agent-eval did.
OLD_INSERT = """
    INSERT INTO runs (id, recorded_at, started_at, suite, suite_file, agent, total, passed, failed, errored,
                      skipped, pass_rate, total_ms, interrupted, min_pass_rate, strict, agent_tokens, cost_usd, report)
    VALUES (?, '2026-01-02T03:04:05+00:00', '2026-01-02T03:04:05+00:00', ?, NULL, NULL,
            ?, ?, ?, ?, ?, ?, ?, 0, NULL, 0, NULL, NULL, zeroblob(?))
"""


def make_report(run_id: str, *, text: str = "out") -> EvalReport:
    cases = [
        EvalResult(
            f"c{i}",
            f"in {i}",
            output=f"{text} {i}",
            status=status,
            score=1.0 if status == "passed" else 0.0,
            reason="why",
            evaluations=(Evaluation("says", status, score=1.0, reason="why"),),
        )
        for i, status in enumerate(("passed", "failed", "error", "skipped"))
    ]
    return EvalReport(cases, name="suite", total_ms=12.0, metadata={"run_id": run_id})


def version_3_database(path: Path, reports: list[EvalReport]) -> None:
    """A history as the agent-eval of schema version 3 left it, its reports JSON text."""
    with sqlite3.connect(path, isolation_level=None) as connection:
        connection.execute("PRAGMA journal_mode = WAL")
        for statements in history_module.MIGRATIONS[:3]:
            for statement in statements:
                connection.execute(statement)
        connection.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        connection.execute("INSERT INTO schema_version (version) VALUES (3)")
        for report in reports:
            text = report.to_json(indent=None).encode("utf-8")
            counts = (report.total, report.passed, report.failed, report.errored, report.skipped)
            row = [report.metadata["run_id"], report.name, *counts, report.pass_rate, report.total_ms, len(text)]
            seq = connection.execute(OLD_INSERT, row).lastrowid
            assert seq is not None
            with connection.blobopen("runs", "report", seq) as blob:
                blob.write(text)
            connection.execute("UPDATE runs SET report = CAST(report AS TEXT) WHERE seq = ?", [seq])
    connection.close()


def stored(path: Path) -> list[tuple[str, str, Any]]:
    """Each run's id, the SQLite type of its report and the report as stored, oldest first."""
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT id, typeof(report), report FROM runs ORDER BY seq").fetchall()
    connection.close()
    return rows


def set_report(path: Path, run_id: str, value: Any) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE runs SET report = ? WHERE id = ?", [value, run_id])
    connection.close()


def test_a_run_is_stored_as_its_compact_json_report_compressed_by_zlib(tmp_path: Path) -> None:
    report = make_report("r1")
    history = History(tmp_path / "runs.db")
    history.record(report)
    [(run_id, kind, value)] = stored(tmp_path / "runs.db")
    assert (run_id, kind) == ("r1", "blob")
    assert zlib.decompress(value) == report.to_json(indent=None).encode("utf-8")
    assert len(value) < len(report.to_json(indent=None))
    assert history.load("r1").report.to_dict() == report.to_dict()


def test_a_report_is_compressed_as_its_parts_come_never_joined_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    report = EvalReport([EvalResult(f"c{i}", "x" * 1000, status="passed") for i in range(3000)])
    parts = list(document(report.summary_dict(), "cases", report.case_json()))
    fed: list[int] = []
    compressobj = zlib.compressobj

    class Watched:
        def __init__(self, level: int) -> None:
            self.inner = compressobj(level)

        def compress(self, data: bytes) -> bytes:
            fed.append(len(data))
            return self.inner.compress(data)

        def flush(self) -> bytes:
            return self.inner.flush()

    monkeypatch.setattr(history_module.zlib, "compressobj", Watched)
    compressed = history_module._compressed(iter(parts))
    assert zlib.decompress(b"".join(compressed)) == b"".join(parts)
    assert len(fed) > 1 and max(fed) < sum(map(len, parts)) / 2


def test_a_version_3_database_is_upgraded_and_reads_its_text_reports_beside_compressed_ones(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    old = [make_report("old-1", text="first"), make_report("old-2", text="second")]
    version_3_database(path, old)
    history = History(path)
    assert history.load("old-1").report.to_dict() == old[0].to_dict()  # read before any new run
    new = make_report("new", text="third")
    history.record(new)
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT version FROM schema_version").fetchall() == [(COMPRESSED_FROM,)]
    connection.close()
    kinds = [(run_id, kind) for run_id, kind, _ in stored(path)]
    assert kinds == [("old-1", "text"), ("old-2", "text"), ("new", "blob")]
    for report in [*old, new]:
        assert history.load(str(report.metadata["run_id"])).report.to_dict() == report.to_dict()
    assert [run.id for run in history.runs()] == ["new", "old-2", "old-1"]
    history.record(make_report("newer"))  # opened again at its version: nothing is migrated twice
    assert [kind for _, kind, _ in stored(path)] == ["text", "text", "blob", "blob"]
    assert history.load("old-2").report.to_dict() == old[1].to_dict()


def test_the_json_migrations_pass_over_a_compressed_report_should_one_be_there(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    report = make_report("text")
    report.metadata.update(min_pass_rate=0.25, strict=False)  # as `agent-eval run` records them
    version_3_database(path, [report, make_report("blob")])
    with sqlite3.connect(path) as connection:  # back to version 1, one report compressed
        for column in ("min_pass_rate", "strict", "agent_tokens", "cost_usd"):
            connection.execute(f"ALTER TABLE runs DROP COLUMN {column}")
        connection.execute("UPDATE schema_version SET version = 1")
    connection.close()
    set_report(path, "blob", zlib.compress(make_report("blob").to_json(indent=None).encode("utf-8")))
    history = History(path)
    assert {run.id: run.min_pass_rate for run in history.runs()} == {"text": 0.25, "blob": None}
    assert history.load("blob").report.to_dict() == make_report("blob").to_dict()


def test_an_agent_eval_of_version_3_refuses_a_database_that_may_hold_compressed_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    History(tmp_path / "runs.db").record(make_report("r1"))
    monkeypatch.setattr(history_module, "MIGRATIONS", history_module.MIGRATIONS[:3])
    with pytest.raises(HistoryError, match=r"schema version 4, newer than this agent-eval knows \(3\)"):
        History(tmp_path / "runs.db").load("r1")


def test_a_report_of_many_mib_reads_back_whole_its_characters_split_across_pieces(tmp_path: Path) -> None:
    texts = ("é" * 300_001, "日本" * 200_001, "\U0001f600" * 150_001, "plain " * 100_000)
    cases = [EvalResult(f"c{i}", text, output=text[::-1], status="passed") for i, text in enumerate(texts * 2)]
    report = EvalReport(cases, name="big", metadata={"run_id": "big"})
    assert len(report.to_json(indent=None).encode("utf-8")) > 8 << 20
    history = History(tmp_path / "runs.db")
    history.record(report)
    assert history.load("big").report.to_dict() == report.to_dict()


GOOD = zlib.compress(make_report("r1").to_json(indent=None).encode("utf-8"), 1)
DAMAGE = r"its compressed report is damaged \(Error -3 while decompressing data: .*\)"
#: A report column's value as damage or a hand leaves it, and what is said of it after "cannot be read: ".
DAMAGED: dict[str, tuple[bytes, str]] = {
    "JSON as a BLOB": (b'{"cases": []}', DAMAGE),
    "a byte changed": (GOOD[:40] + bytes([GOOD[40] ^ 0xFF]) + GOOD[41:], DAMAGE),
    "cut short": (GOOD[:-9], r"its compressed report is cut short after [\d,]+ bytes"),
    "empty": (b"", r"its compressed report is cut short after 0 bytes"),
    "trailing bytes": (GOOD + b"more", r"its compressed report is followed by 4 bytes more"),
    "not UTF-8 inside": (
        zlib.compress(b'{"cases": ["\xff"]}'),
        r"its report is not UTF-8 text: byte 0xff at 12",
    ),
    "not UTF-8 past the first MiB": (
        zlib.compress(b'{"cases": [], "name": "' + b"x" * (1 << 21) + b'\xff"}'),
        r"its report is not UTF-8 text: byte 0xff at 2,097,175",
    ),
    "ends inside a character": (
        zlib.compress(b'{"cases": [], "name": "\xc3'),
        r"its report is not UTF-8 text: byte 0xc3 at 23",
    ),
    "not JSON inside": (
        zlib.compress(b"{nope"),
        r"not an agent-eval report: invalid JSON at line 1, column 2: .*",
    ),
    "not a report inside": (zlib.compress(b"[1, 2]"), r"not an agent-eval report: .*"),
}


@pytest.mark.parametrize("damage", list(DAMAGED))
def test_a_damaged_compressed_report_is_one_history_error_naming_the_run_and_the_database(
    damage: str, tmp_path: Path
) -> None:
    value, problem = DAMAGED[damage]
    path = tmp_path / "runs.db"
    History(path).record(make_report("r1"))
    set_report(path, "r1", value)
    with pytest.raises(HistoryError) as caught:
        History(path).load("latest")
    message = str(caught.value)
    assert message.startswith(f"run 'r1' in {path} cannot be read: ")
    assert re.fullmatch(problem, message.removeprefix(f"run 'r1' in {path} cannot be read: "))
    assert "\n" not in message


def test_a_blob_that_expands_past_the_most_a_report_may_hold_is_refused_as_it_expands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_eval import _history

    monkeypatch.setattr(_history, "MAX_REPORT_BYTES", 3 << 20)
    path = tmp_path / "runs.db"
    History(path).record(make_report("r1"))
    bomb = zlib.compress(b'{"cases": [], "name": "' + b"x" * (64 << 20) + b'"}', 9)  # 64 KB that make 64 MB
    assert len(bomb) < 100_000
    set_report(path, "r1", bomb)
    with pytest.raises(HistoryError) as caught:
        History(path).load("latest")
    assert str(caught.value) == (
        f"run 'r1' in {path} cannot be read: its compressed report expands past 3,145,728 bytes, "
        "the most a report may hold"
    )


def test_a_report_larger_than_the_most_a_report_may_hold_is_not_recorded_as_it_could_not_be_read_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_eval import _history

    report = EvalReport(
        [EvalResult(f"c{i}", "q" * 1000, status="passed") for i in range(100)], metadata={"run_id": "big"}
    )
    monkeypatch.setattr(_history, "MAX_REPORT_BYTES", len(report.to_json(indent=None).encode("utf-8")) - 1)
    history = History(tmp_path / "runs.db")
    history.record(make_report("small"))
    with pytest.raises(HistoryError, match=r"^run 'big': its report holds more than [\d,]+ bytes of JSON, the most"):
        history.record(report)
    assert [run.id for run in history.runs()] == ["small"]
    monkeypatch.setattr(_history, "MAX_REPORT_BYTES", len(report.to_json(indent=None).encode("utf-8")))
    history.record(report)  # exactly the most: recorded, and read back
    assert history.load("big").report.to_dict() == report.to_dict()


def test_show_and_compare_of_a_damaged_run_print_one_line_and_exit_2(tmp_path: Path) -> None:
    project = Project(tmp_path)
    path = tmp_path / "runs.db"
    History(path).record(make_report("good"))
    History(path).record(make_report("bad"))
    set_report(path, "bad", GOOD[:-9])
    for command in (("show", "bad"), ("compare", "good", "bad"), ("rescore", "bad")):
        done = project.cli(*command, "--history", "runs.db")
        assert done.returncode == 2, done.stdout
        said = "cannot be read: its compressed report is cut short after [\\d,]+ bytes"
        assert re.fullmatch(f"error: run 'bad' in runs.db {said}", done.stderr.rstrip("\n"))


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("generated") / "runs.db"


@PROFILE
@given(data=st.data())
def test_a_generated_report_reads_back_from_its_compressed_row_as_from_a_text_row(
    data: st.DataObject, database: Path
) -> None:
    report = report_of(data)
    history = History(database)
    run_id = history.record(report)
    [(_, kind, value)] = stored(database)
    text = zlib.decompress(value).decode("utf-8")
    expected = json.loads(report.to_json(indent=None))
    expected["metadata"]["run_id"] = run_id
    assert kind == "blob" and json.loads(text) == expected
    from_blob = history.load(run_id).report
    set_report(database, run_id, text)  # the row as version 3 wrote it
    assert stored(database)[0][1] == "text"
    from_text = history.load(run_id).report
    with sqlite3.connect(database) as connection:  # the next example's run may have the same id
        connection.execute("DELETE FROM runs")
    connection.close()
    assert from_blob.to_json() == from_text.to_json()
    assert [case.name for case in from_blob.cases] == [case["name"] for case in expected["cases"]]
