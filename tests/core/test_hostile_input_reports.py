"""Reports read back (files for ``compare``, rows of the history) and history writes that fail."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agent_eval import EvalReport, EvalResult, Evaluation
from agent_eval import _history as history_module
from agent_eval._history import History, HistoryError


def report_dict() -> dict[str, Any]:
    evaluation = Evaluation("has", "passed", score=1.0)
    case = EvalResult("a", "in", output="out", status="passed", score=1.0, evaluations=(evaluation,))
    return EvalReport([case], name="s", metadata={"run_id": "r1"}).to_dict()


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            lambda d: d["cases"][0].update(score="high"),
            "cases[0].score must be a number or null, got a string ('high')",
        ),
        (lambda d: d.update(metadata=5), "metadata must be an object, got a number (5)"),
        (lambda d: d["cases"][0].update(metadata=[]), "cases[0].metadata must be an object, got a list"),
        (lambda d: d["cases"][0].update(name=7), "cases[0].name must be a string, got a number (7)"),
        (lambda d: d["cases"][0].pop("status"), "cases[0].status is missing"),
        (lambda d: d["cases"][0].update(evaluations={}), "cases[0].evaluations must be a list, got a mapping"),
        (lambda d: d["cases"][0].update(evaluations=None), "cases[0].evaluations must be a list, got nothing (null)"),
        (lambda d: d["cases"][0].update(attempts=None), "cases[0].attempts must be a list, got nothing (null)"),
        (lambda d: d["cases"][0].update(tool_calls=None), "cases[0].tool_calls must be a list, got nothing (null)"),
        (
            lambda d: d["cases"][0]["evaluations"].append(3),
            "cases[0].evaluations[1] must be an object, got a number (3)",
        ),
        (
            lambda d: d["cases"][0]["evaluations"][0].update(duration_ms=True),
            "cases[0].evaluations[0].duration_ms must be a number, got a boolean (true)",
        ),
        (lambda d: d.update(interrupted="no"), "interrupted must be true or false, got a string ('no')"),
        (lambda d: d.update(planned=1.5), "planned must be a whole number or null, got a number (1.5)"),
    ],
)
def test_a_report_with_a_field_of_the_wrong_type_is_refused_naming_the_field(change: Any, problem: str) -> None:
    data = report_dict()
    change(data)
    with pytest.raises(ValueError) as caught:
        EvalReport.from_json(json.dumps(data))
    assert str(caught.value) == f"not an agent-eval report: {problem}"


def test_a_report_too_deep_or_with_a_huge_integer_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match=r"^not an agent-eval report: its JSON nests too deeply to read$"):
        EvalReport.from_json('{"cases": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ValueError, match=r"^not an agent-eval report: it holds an integer of more than 4,300 digits$"):
        EvalReport.from_json('{"cases": [], "total_ms": 1' + "0" * 5000 + "}")


def test_a_malformed_report_in_the_history_is_a_history_error(tmp_path: Path) -> None:
    history = History(tmp_path / "runs.db")
    history.record(EvalReport.from_dict(report_dict()))
    with sqlite3.connect(tmp_path / "runs.db") as connection:
        connection.execute("UPDATE runs SET report = ?", ['{"cases": [{"name": "a", "input": 1, "status": 5}]}'])
    connection.close()
    with pytest.raises(
        HistoryError, match=r"cannot be read: not an agent-eval report: cases\[0\]\.status must be one of"
    ):
        history.load("latest")


def test_a_full_disk_is_reported_as_itself_not_as_a_failed_rollback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    history = History(tmp_path / "runs.db")
    history.record(EvalReport.from_dict(report_dict()))
    prepare = history_module._prepare

    def full(connection: sqlite3.Connection, path: Path) -> None:
        prepare(connection, path)
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        connection.execute(f"PRAGMA max_page_count = {pages}")  # no room for one more page, as on a full disk

    monkeypatch.setattr(history_module, "_prepare", full)
    noise = random.Random(0).randbytes(100_000).hex()  # the history compresses reports: text that stays big
    big = EvalReport([EvalResult("b", noise, status="passed")], metadata={"run_id": "r2"})
    with pytest.raises(HistoryError) as caught:
        history.record(big)
    assert str(caught.value) == f"run history {tmp_path / 'runs.db'}: database or disk is full"
    monkeypatch.setattr(history_module, "_prepare", prepare)
    assert [run.id for run in history.runs()] == ["r1"]  # nothing half-written


def test_compare_reads_a_report_as_bytes_and_decodes_it_only_when_the_fast_reader_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_eval import FileReadError
    from agent_eval._report import json as report_json

    decoded: list[str] = []
    decode = report_json.decode_text
    monkeypatch.setattr(report_json, "decode_text", lambda data, path: decoded.append(str(path)) or decode(data, path))
    good = tmp_path / "good.json"
    good.write_text(json.dumps(report_dict()), encoding="utf-8")
    assert [case.name for case in report_json.read_outcomes(good).cases] == ["a"]
    assert decoded == []  # a large report is never held as bytes and text at once
    broken = tmp_path / "broken.json"
    broken.write_bytes(json.dumps(report_dict()).replace('"out"', '"o\xffut"').encode("latin-1"))
    with pytest.raises(FileReadError) as caught:
        report_json.read_outcomes(broken)
    assert decoded == [str(broken)]
    assert "is not UTF-8 text: byte 0xff cannot be decoded" in str(caught.value)
    assert ":1:" in str(caught.value)


def test_is_utf8_agrees_with_decoding_on_random_bytes_across_piece_edges(monkeypatch: pytest.MonkeyPatch) -> None:
    import random

    from agent_eval import _files

    monkeypatch.setattr(_files, "_CHUNK", 7)  # characters of up to four bytes cut at every place
    rng = random.Random(5)
    alphabet = ["a", "é", "日", "😀", "\x00"]
    for _ in range(3000):
        data = bytearray("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))).encode())
        if data and rng.random() < 0.5:
            data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            bytes(data).decode("utf-8")
            expected = True
        except UnicodeDecodeError:
            expected = False
        assert _files.is_utf8(bytes(data)) is expected, bytes(data)
