"""Reading suite and cases files: each becomes sources, and a place in a source tells ``file:line:col``.

A CSV cases file (``cases: data.csv``) becomes one source per row, each a case-shaped mapping whose
every place is the row's first line (``data.csv:7``).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from itertools import repeat
from pathlib import Path
from typing import Any

from agent_eval._errors import FileReadError, SuiteError
from agent_eval._files import MAX_BYTES, decode_text, display, read_file_bytes
from agent_eval._sourcemap import (
    LineChunk,
    LinesScreen,
    Path_,
    Position,
    SourceError,
    json_line_chunks,
    json_positions,
    load_json,
    read_part,
)

FORMATS = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}
#: The columns of a CSV cases file that are a case's own; every other column is metadata.
CSV_COLUMNS = ("name", "input", "expected")


class Source:
    """One parsed file (or one line of a JSONL file) and a way to turn a path inside it into a position."""

    def __init__(
        self, path: Path, data: Any, positions: dict[Path_, Position] | None, text: str, origin: str | None = None
    ) -> None:
        self.path = path
        self.data = data
        self._positions = positions
        self.text = text
        #: ``file:line:col`` of the value that pointed at this file (``cases: data.jsonl``), if any.
        self.origin = origin

    @property
    def note(self) -> str:
        """`` (from suite.yaml:4:8)`` for a file another one pointed at, else nothing."""
        return f" (from {self.origin})" if self.origin else ""

    @property
    def is_line(self) -> bool:
        """True for one line of a JSONL file."""
        return False

    def where(self, at: Path_) -> str:
        """``file:line:column`` of the value at ``at`` (or of the nearest enclosing one)."""
        if self._positions is None:
            self._positions = _safe_json_positions(self.text)
        for end in range(len(at), -1, -1):
            position = self._positions.get(at[:end])
            if position is not None:
                return f"{self.path}:{position[0]}:{position[1]}"
        return f"{self.path}:1:1"

    def location(self, at: Path_) -> str:
        """``file:line`` where that is known without work (YAML, JSONL), else the file alone.

        JSON positions are only worked out for errors: scanning a large file for every case would
        cost more than loading it.
        """
        if self._positions is None:
            return str(self.path)
        return self.where(at).rsplit(":", 1)[0]


class LineSource(Source):
    """One line of a JSONL file: positions are that line's."""

    __slots__ = ("number",)

    def __init__(self, path: Path, data: Any, text: str, number: int, origin: str | None = None) -> None:
        super().__init__(path, data, None, text, origin)
        self.number = number

    @property
    def is_line(self) -> bool:
        return True

    def where(self, at: Path_) -> str:
        _, line, column = super().where(at).rsplit(":", 2)
        return f"{self.path}:{self.number + int(line) - 1}:{column}"

    def location(self, at: Path_) -> str:
        return f"{self.path}:{self.number}"


class RowSource(Source):
    """One row of a CSV file, as a case: every place in it is the line the row starts on."""

    __slots__ = ("number",)

    def __init__(self, path: Path, data: Any, number: int, origin: str | None = None) -> None:
        super().__init__(path, data, {}, "", origin)
        self.number = number

    @property
    def is_line(self) -> bool:
        return True

    def where(self, at: Path_) -> str:
        return f"{self.path}:{self.number}"

    def location(self, at: Path_) -> str:
        return f"{self.path}:{self.number}"


class Place:
    """A value inside a source: the source and the path of keys and indexes that leads to it."""

    __slots__ = ("at", "source")

    def __init__(self, source: Source, at: Path_ = ()) -> None:
        self.source = source
        self.at = at

    def child(self, *keys: str | int) -> Place:
        """The place of a value inside this one."""
        return Place(self.source, (*self.at, *keys))

    @property
    def value(self) -> Any:
        """The value standing here."""
        node = self.source.data
        for key in self.at:
            node = node[key]
        return node

    def where(self) -> str:
        """``file:line:column``."""
        return self.source.where(self.at)

    def name_where(self) -> str:
        """``file:line:column`` of the ``name`` here (a case's): worked out only when a message needs it."""
        return self.source.where((*self.at, "name"))

    def location(self) -> str:
        """``file:line`` (or the file alone, for JSON)."""
        return self.source.location(self.at)


def parse(path: Path, *, origin: str | None = None) -> list[Source]:
    """The file as one source (YAML, JSON) or one source per line (JSONL); unreadable files raise SuiteError.

    ``origin`` is where the file was named, for a file another one points at: its problems end with
    `` (from ORIGIN)``.
    """
    found = open_sources(path, origin=origin)
    if not isinstance(found, Lines):
        return found
    sources: list[Source] = [found.source(number, line, data) for number, line, data in found]
    if found.problems:
        raise SuiteError(found.problems, source=str(path))
    return sources


def open_sources(path: Path, *, origin: str | None = None) -> list[Source] | Lines:
    """As :func:`parse`, but a JSONL file is read line by line as its :class:`Lines` are iterated."""
    note = f" (from {origin})" if origin else ""
    try:
        data, kind = _read(path)
        text = decode_text(data, path)
    except FileReadError as error:
        raise SuiteError([f"{error}{note}"]) from None
    if kind == "jsonl":
        return Lines(path, text, origin, data)
    del data  # the text is what is read from here on
    if kind == "csv":
        if origin is None:
            message = f"{path}: a CSV file holds cases, not a suite; name it in a suite file: `cases: {path.name}`"
            raise SuiteError([message])
        return _parse_csv(path, text, origin)
    try:
        if kind == "yaml":
            from agent_eval._yamlmap import load_yaml

            data, positions = load_yaml(text)
            return [Source(path, data, positions, text, origin)]
        return [Source(path, load_json(text), None, text, origin)]
    except SourceError as error:
        raise SuiteError([f"{path}:{error.line}:{error.column}: {error.message}{note}"]) from None


def _read(path: Path) -> tuple[bytes, str]:
    """The bytes of a suite or cases file (bounded as :func:`read_text_file` bounds them), and its kind."""
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        problem = f"unknown suite file type {path.suffix!r}; use .yaml, .yml, .json or .jsonl"
        raise FileReadError(display(str(path)), problem)
    return read_file_bytes(path, limit=MAX_BYTES), kind


class Lines:
    """A JSON Lines file, read as it is iterated: the number, text and value of each line that is not blank.

    A line that is not JSON is a problem (:attr:`problems`, in line order, once iterated) and no value
    comes after the first problem: the file's cases are read only when every line is JSON. Most lines
    are read by orjson (:func:`agent_eval._sourcemap.json_line_chunks`); the others by the parser that
    says where a problem is.
    """

    def __init__(self, path: Path, text: str, origin: str | None, data: bytes | None = None) -> None:
        self.path = path
        self.origin = origin
        self.problems: list[str] = []
        self._text = text
        #: The lines, but those :meth:`chunks` has let go of (left empty): a message finds them in the text.
        self._lines = text.split("\n")
        #: What the text holds that orjson reads otherwise (from the file's bytes, ``data``, when at hand).
        self._screen = LinesScreen(text.encode("utf-8", "surrogatepass") if data is None else data, self._lines)
        #: Where in the text lines start, for some of them: the index of the line, and its offset (the
        #: first line, and each line after those let go of).
        self._spans = [0]
        self._starts = [0]
        #: The lines of the spans let go of that a message named, by span.
        self._found: dict[int, list[str]] = {}

    def __iter__(self) -> Iterator[tuple[int, str, Any]]:
        for chunk in self.chunks():
            yield from zip(*chunk[:3], strict=True)

    @property
    def line_count(self) -> int:
        """How many lines the text has, blank ones too."""
        return len(self._lines)

    def chunks(self, typed: Callable[[], Any] | None = None) -> Iterator[LineChunk]:
        """The lines a chunk at a time, each with its number, its text and its value; the values of
        the lines orjson did not read (at the chunk's ``precise``) are :func:`load_json`'s, and those of
        the others hold no NaN, no infinity and no integer beyond 64 bits. With ``typed`` (what makes a
        msgspec decoder, called only when the text holds no escape), a chunk may be the decoder's values
        instead (see :func:`agent_eval._sourcemap.read_part`)."""
        decoder = None if typed is None or self._screen.escapes else typed()
        for chunk in json_line_chunks(self._text, self._lines, self._screen, decoder):
            if chunk.typed and self.problems:  # only problems are told now: a typed chunk may hide some
                self.untyped(chunk)
            elif self._resolved(chunk):
                yield chunk
            self._let_go(chunk.numbers[-1])

    def _let_go(self, last: int) -> None:
        """Let go of the lines up to line ``last``: read, their texts are not needed but for a message."""
        first, offset = self._spans[-1], self._starts[-1]
        self._spans.append(last)
        self._starts.append(offset + sum(map(len, self._lines[first:last])) + last - first)
        self._lines[first:last] = [""] * (last - first)

    def _line(self, number: int) -> str:
        """The text of line ``number``."""
        at = number - 1
        if at >= self._spans[-1]:  # not let go of yet
            return self._lines[at]
        span = bisect.bisect_right(self._spans, at) - 1
        found = self._found.get(span)
        if found is None:  # a message names a line of this span: the span's lines are made again, once
            found = self._text[self._starts[span] : self._starts[span + 1] - 1].split("\n")
            self._found[span] = found
        return found[at - self._spans[span]]

    def untyped(self, chunk: LineChunk) -> LineChunk | None:
        """The lines of a typed chunk as :meth:`chunks` reads them without a decoder (None when one is
        not JSON: a problem)."""
        written = sum(map(str.count, chunk.lines, repeat(":")))
        read = read_part(chunk.lines, chunk.numbers[0], self._screen, written)
        return read if read is not None and self._resolved(read) else None

    def _resolved(self, chunk: LineChunk) -> bool:
        """Read the lines orjson did not read with :func:`load_json`; False when one is not JSON."""
        note = f" (from {self.origin})" if self.origin else ""
        for at in chunk.precise:
            try:
                chunk.values[at] = load_json(chunk.lines[at])
            except SourceError as error:
                self.problems.append(f"{self.path}:{chunk.numbers[at]}:{error.column}: {error.message}{note}")
        return not self.problems

    def source(self, number: int, line: str, data: Any) -> LineSource:
        """Line ``number`` (its text, and its value) as a source."""
        return LineSource(self.path, data, line, number, self.origin)

    def name_where(self, number: int) -> str:
        """``file:line:column`` of the ``name`` of the case on line ``number``."""
        return LineSource(self.path, None, self._line(number), number, self.origin).where(("name",))


def _parse_csv(path: Path, text: str, origin: str) -> list[Source]:
    """One source per row of a CSV file with a header row; a problem names the file and line."""
    import csv
    import io

    note = f" (from {origin})"
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    previous = csv.field_size_limit(MAX_BYTES)  # the default, 128 KiB, is shorter than many an input
    try:
        header = _csv_header(path, reader, note)
        sources: list[Source] = []
        problems: list[str] = []
        start = reader.line_num + 1
        try:
            for row in reader:
                line, start = start, reader.line_num + 1
                if not row or (len(row) == 1 and not row[0].strip()):
                    continue
                if len(row) != len(header):
                    problems.append(f"{path}:{line}: the row has {len(row)} fields, the header {len(header)}{note}")
                    continue
                sources.append(RowSource(path, _csv_case(header, row), line, origin))
        except csv.Error as error:
            problems.append(f"{path}:{reader.line_num}: not valid CSV: {error}{note}")
    finally:
        csv.field_size_limit(previous)
    if problems:
        raise SuiteError(problems, source=str(path))
    return sources


def _csv_header(path: Path, reader: Any, note: str) -> list[str]:
    """The header's column names, checked: named, unique, with ``name`` and ``input`` among them."""
    import csv

    try:
        header = [column.strip() for column in next(reader, [])]
    except csv.Error as error:
        raise SuiteError([f"{path}:{reader.line_num}: not valid CSV: {error}{note}"]) from None
    expected = "its first line names the columns: name, input and optionally expected (others become metadata)"
    if not any(header):
        raise SuiteError([f"{path}:1: has no header row; {expected}{note}"])
    problems = [f"column {index} has no name" for index, column in enumerate(header, start=1) if not column]
    twice = [column for column in dict.fromkeys(header) if column and header.count(column) > 1]
    problems += [f"column {column!r} is named twice" for column in twice]
    problems += [f"missing the column {column!r}" for column in ("name", "input") if column not in header]
    if problems:
        raise SuiteError([f"{path}:1: {problem}; {expected}{note}" for problem in problems], source=str(path))
    return header


def _csv_case(header: list[str], row: list[str]) -> dict[str, Any]:
    """A row as a case: ``name``, ``input``, ``expected`` (an empty cell: none), the rest metadata."""
    fields = dict(zip(header, row, strict=True))
    case: dict[str, Any] = {"name": fields.pop("name"), "input": fields.pop("input")}
    expected = fields.pop("expected", "")
    if expected != "":
        case["expected"] = expected
    if fields:
        case["metadata"] = fields
    return case


def _safe_json_positions(text: str) -> dict[Path_, Position]:
    try:
        return json_positions(text)
    except (ValueError, IndexError):
        return {}


def position_key(problem: str) -> tuple[str, int, int]:
    """Sort problems by file, then line and column (``file:line`` for a CSV file's rows)."""
    location = problem.split(": ", 1)[0]
    parts = location.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return parts[0], int(parts[1]), int(parts[2])
    file, _, line = location.rpartition(":")
    if file and line.isdigit():
        return file, int(line), 0
    return location, 0, 0
