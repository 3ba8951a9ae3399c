"""Labels files: a person's pass/fail verdicts on agent outputs, which ``agent-eval calibrate`` reads.

Two shapes, told apart by the file's suffix (``.csv``; anything else is JSON Lines):

- JSON Lines: one object per line with ``name``, ``output`` (any JSON value), ``label`` and optionally
  ``score``, ``note``, ``tool_calls`` and ``suite_file``. The first line may be a header instead (an
  object with neither ``name`` nor ``label``), as ``agent-eval review`` writes it: ``{"format":
  "agent-eval/labels", "version": 1, "suite_file": ..., "run": ...}``.
- CSV with a header row naming the columns ``name``, ``output``, ``label`` (``score``, ``note``,
  ``suite_file`` optional; other columns are ignored).

A label is ``pass`` or ``fail``, or ``true`` or ``false`` (any case, or a JSON boolean). Every problem is
one line naming ``file:line``; all of them are raised together.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import attrs

from agent_eval import AgentEvalError, ToolCall

#: What the first line of a labels file written by ``agent-eval review`` says it is.
LABELS_FORMAT = "agent-eval/labels"
LABELS_VERSION = 1

_PASS = frozenset({"pass", "true"})
_FAIL = frozenset({"fail", "false"})
_REQUIRED = ("name", "output", "label")


class LabelsError(AgentEvalError):
    """A labels file cannot be used as it is; ``problems`` holds one ``file:line: ...`` line each."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


@attrs.frozen
class Label:
    """One output a person labelled: passed or not, with the line it came from."""

    name: str
    output: Any
    passed: bool
    line: int = attrs.field(kw_only=True)
    score: float | None = attrs.field(default=None, kw_only=True)
    note: str = attrs.field(default="", kw_only=True)
    tool_calls: tuple[ToolCall, ...] = attrs.field(default=(), kw_only=True)


@attrs.frozen
class LabelsFile:
    """A labels file read whole: its labels in order, and the suite file and run it says it came from."""

    path: str
    labels: tuple[Label, ...]
    suite_file: str | None = attrs.field(default=None, kw_only=True)
    run: str | None = attrs.field(default=None, kw_only=True)


def read_labels(path: str) -> LabelsFile:
    """Read and check a labels file; FileReadError when it cannot be read, LabelsError listing every problem."""
    from agent_eval import read_text_file

    text = read_text_file(path)
    reader = _Reader(path)
    rows = _csv_rows(reader, text) if path.lower().endswith(".csv") else _json_rows(reader, text)
    labels = [label for label in (reader.label(line, row) for line, row in rows) if label is not None]
    if not reader.problems and not labels:
        reader.problems.append(f"{path}: holds no labels; give one line per labelled output")
    if reader.problems:
        raise LabelsError(reader.problems)
    return LabelsFile(path, tuple(labels), suite_file=reader.suite_file, run=reader.run)


class _Reader:
    """Checks rows one after another, collecting problems, the first line of each name and the suite file."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.problems: list[str] = []
        self.first_line: dict[str, int] = {}
        self.suite_file: str | None = None
        self.suite_line = 0
        self.run: str | None = None

    def problem(self, line: int, message: str) -> None:
        self.problems.append(f"{self.path}:{line}: {message}")

    def header(self, line: int, row: dict[str, Any]) -> None:
        """The first line of a file written by ``review``: which suite and run the labels are of."""
        given = row.get("format")
        if given is not None and given != LABELS_FORMAT:
            self.problem(line, f"format {given!r} is not {LABELS_FORMAT!r}; is this a labels file?")
        self._suite_file(line, row.get("suite_file"))
        run = row.get("run")
        if run is not None:
            if isinstance(run, str) and run.strip():
                self.run = run
            else:
                self.problem(line, f"'run' must name a run, got {run!r}")

    def label(self, line: int, row: dict[str, Any]) -> Label | None:
        """The row as a Label, or None when it has problems (each added)."""
        count = len(self.problems)
        missing = [key for key in _REQUIRED if key not in row]
        if missing:
            self.problem(line, f"missing {', '.join(repr(key) for key in missing)}; a label has {', '.join(_REQUIRED)}")
        name = self._name(line, row.get("name")) if "name" in row else None
        passed = self._passed(line, row["label"]) if "label" in row else None
        score = self._score(line, row.get("score"))
        note = self._note(line, row.get("note"))
        calls = self._tool_calls(line, row.get("tool_calls"))
        self._suite_file(line, row.get("suite_file"))
        if name is not None:
            first = self.first_line.setdefault(name, line)
            if first != line:
                self.problem(line, f"case {name!r} is labelled twice (first at line {first}); keep one")
        if len(self.problems) > count or name is None or passed is None:
            return None
        return Label(name, row["output"], passed, line=line, score=score, note=note, tool_calls=calls)

    def _name(self, line: int, value: Any) -> str | None:
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if isinstance(value, str) and value.strip():
            return value
        self.problem(line, f"'name' must be a case's name, got {value!r}")
        return None

    def _passed(self, line: int, value: Any) -> bool | None:
        if isinstance(value, bool):
            return value
        word = value.strip().lower() if isinstance(value, str) else None
        if word in _PASS:
            return True
        if word in _FAIL:
            return False
        self.problem(line, f"label {value!r} is neither pass nor fail; write pass, fail, true or false")
        return None

    def _score(self, line: int, value: Any) -> float | None:
        if value is None or value == "":
            return None
        number: Any = value
        if isinstance(value, str):
            try:
                number = float(value)
            except ValueError:
                number = None
        numeric = isinstance(number, int | float) and not isinstance(number, bool)
        if numeric and math.isfinite(number) and 0 <= number <= 1:
            return float(number)
        self.problem(line, f"score {value!r} is not a number from 0 to 1")
        return None

    def _note(self, line: int, value: Any) -> str:
        if value is None:
            return ""
        if isinstance(value, str):
            return value
        self.problem(line, f"'note' must be text, got {value!r}")
        return ""

    def _tool_calls(self, line: int, value: Any) -> tuple[ToolCall, ...]:
        if value is None:
            return ()
        if isinstance(value, list):
            try:
                return tuple(ToolCall.from_dict(call) for call in value)
            except (ValueError, TypeError) as error:
                self.problem(line, f"'tool_calls': {error}")
                return ()
        self.problem(line, f"'tool_calls' must be a list of tool calls, got {type(value).__name__}")
        return ()

    def _suite_file(self, line: int, value: Any) -> None:
        if value is None or value == "":
            return
        if not isinstance(value, str):
            self.problem(line, f"'suite_file' must be a path, got {value!r}")
        elif self.suite_file is None:
            self.suite_file, self.suite_line = value, line
        elif value != self.suite_file:
            where = f"line {self.suite_line}"
            self.problem(line, f"suite_file {value!r} differs from {self.suite_file!r} ({where}); one file, one suite")


def _json_rows(reader: _Reader, text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each labelled line's object, with its line number; the header (on the first line) is read aside."""
    import json

    first = True
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as error:
            reader.problem(number, f"not JSON ({getattr(error, 'msg', error)}); a labels file has one object a line")
            first = False
            continue
        if not isinstance(row, dict):
            reader.problem(number, f"expected an object with name, output and label, got {type(row).__name__}")
        elif first and "name" not in row and "label" not in row:
            reader.header(number, row)
        else:
            yield number, row
        first = False


def _csv_rows(reader: _Reader, text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each data row as a mapping of the header's columns, with the line it starts on."""
    import csv
    import io

    rows = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [column.strip().lower() for column in next(rows, [])]
        missing = [column for column in _REQUIRED if column not in header]
        if missing:
            columns = ", ".join(repr(column) for column in missing)
            reader.problem(1, f"no {columns} column; a labels CSV has a header row: name,output,label[,score,note]")
            return
        start = rows.line_num + 1
        for row in rows:
            line, start = start, rows.line_num + 1
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if len(row) > len(header):
                reader.problem(line, f"{len(row)} fields, but the header names {len(header)} columns")
                continue
            yield line, dict(zip(header, row, strict=False))
    except csv.Error as error:
        reader.problem(rows.line_num, f"not CSV: {error}")
