"""The JSON report (``--json``) and the per-case JSON Lines stream (``--jsonl``)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agent_eval._codec import jsonable
from agent_eval._files import read_text_file
from agent_eval._json import document, encode, indented
from agent_eval._model import EvalReport, EvalResult, case_json
from agent_eval._report.files import LineWriter, write_atomic


def write(report: EvalReport, path: str | Path) -> None:
    """Write the whole report as JSON (as :meth:`EvalReport.to_json` makes it), atomically, case by case."""
    write_atomic(path, parts(report))


def parts(report: EvalReport) -> Iterator[bytes]:
    """The JSON report (indented, then a newline) in parts: no more than one case's text at a time."""
    pieces = (indented(piece) for piece in report.case_json())
    yield from document(report.summary_dict(), "cases", pieces, indent=True)
    yield b"\n"


def read(path: str | Path) -> EvalReport:
    """Load a report written by :func:`write`.

    FileReadError when the file cannot be read (missing, not a regular file, too large, not UTF-8);
    ValueError, saying which field, when it is not a report.
    """
    return EvalReport.from_json(read_text_file(path))


def read_lines(path: str | Path) -> EvalReport:
    """Load the cases a ``--jsonl`` stream holds, finished or not (a killed run leaves no summary line).

    The run's facts come from the lines' ``run`` field; a case written twice (a run resumed into the
    same file) counts once, as its last line has it.
    """
    from agent_eval._sourcemap import SourceError, load_json

    text = read_text_file(path)
    cases: dict[str, EvalResult] = {}
    run: dict[str, Any] = {}
    summary: dict[str, Any] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = load_json(line)
        except SourceError as error:
            if number == text.count("\n") + 1:
                break  # the last line of a killed run may be cut short
            raise ValueError(f"line {number}: {error.message}") from None
        if not isinstance(record, dict):
            raise ValueError(f"line {number}: expected an object, got {type(record).__name__}")
        kind = record.get("type")
        if isinstance(record.get("run"), dict):
            run = record["run"]
        if kind == "case":
            try:
                result = EvalResult.from_dict(record)
            except (ValueError, TypeError, KeyError) as error:
                raise ValueError(f"line {number}: {error}") from None
            cases[result.name] = result
        elif kind == "summary":
            summary = record
    return EvalReport(
        list(cases.values()),
        name=summary.get("name") if isinstance(summary.get("name"), str) else run.get("suite"),
        interrupted=not summary or bool(summary.get("interrupted")),
        planned=summary.get("planned") if isinstance(summary.get("planned"), int) else None,
        metadata=run,
    )


class CaseStream:
    """``--jsonl``: one line per case as it finishes, then one summary line.

    A case's line is ``{"type": "case", "run": {...}, "index": N, **result.to_dict()}``, joined from the
    run's JSON (made once) and the result's (:func:`agent_eval._model.case_json`, kept for the reports).
    """

    def __init__(self, path: str | Path, run: dict[str, Any], *, on_error: Callable[[OSError], None]) -> None:
        self._writer = LineWriter(path)
        self._run = jsonable(run)
        self._head = b'{"type":"case","run":' + encode(self._run) + b',"index":'
        self._on_error = on_error
        #: Set when a write failed (a full disk, ...): the run goes on, and nothing more is written here.
        self.failed = False

    def case(self, index: int, result: EvalResult) -> None:
        """Append a finished case."""
        if self.failed:
            return
        body = case_json(result)  # an object: "{...}", never empty
        try:
            self._writer.write_line(b"%s%d,%s" % (self._head, index, body[1:]))
        except OSError as error:
            self.failed = True
            self._on_error(error)

    def finish(self, report: EvalReport) -> None:
        """Append the run's summary line and close the file."""
        summary = report.summary_dict()
        self._write({"type": "summary", "run": self._run, **summary})
        with contextlib.suppress(OSError):
            self._writer.close()

    def _write(self, record: dict[str, Any]) -> None:
        if self.failed:
            return
        try:
            self._writer.write(record)
        except OSError as error:
            self.failed = True
            self._on_error(error)
