"""Parsing suite files while keeping where each value stands (line and column).

YAML is loaded safely with YAML 1.2 scalars (``no`` stays a string, ``010``
is ten), duplicate keys and aliases are errors (:mod:`agent_eval._yamlmap`, which imports PyYAML:
only a YAML file needs it). JSON is parsed by the standard library; the position of a value is found
only when an error needs it.

Both refuse, with a position, what would break the code that walks the data later: values nested
more than :data:`MAX_DEPTH` deep and integers beyond the range of a float.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from itertools import repeat
from operator import add
from typing import Any, NamedTuple

import orjson

Path_ = tuple[str | int, ...]
Position = tuple[int, int]

#: Appended to a path to ask for the position of a mapping key rather than of its value.
KEY = "\x00key"

#: How deep lists and mappings may nest in a file (the file itself is level 0).
MAX_DEPTH = 100
#: The largest integer a file may hold (as large as a float can be, so any number converts to one).
MAX_INT = int(sys.float_info.max)
_MAX_DIGITS = len(str(MAX_INT))
TOO_DEEP = f"lists and mappings nest more than {MAX_DEPTH} deep here (at most {MAX_DEPTH}); flatten the data"


class SourceError(Exception):
    """A file that cannot be parsed; ``line`` and ``column`` are 1-based."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class TooLarge(Exception):
    def __init__(self, message: str, literal: str) -> None:
        super().__init__(message)
        self.message = message
        self.literal = literal


def integer(text: str) -> int:
    """The integer a YAML (``0o17``, ``0x1f``) or JSON literal spells; beyond :data:`MAX_INT` it is refused."""
    sign, digits = (text[0], text[1:]) if text[:1] in "+-" else ("", text)
    base = {"0o": 8, "0x": 16}.get(digits[:2].lower(), 10)
    body = digits[2:] if base != 10 else digits
    # Digits counted before converting: Python refuses decimal text of more than 4,300 digits.
    fits = len(body.lstrip("0")) <= (_MAX_DIGITS if base == 10 else 4 * _MAX_DIGITS)
    value = int(sign + body, base) if fits else MAX_INT + 1
    if abs(value) > MAX_INT:
        shown = text if len(text) <= 24 else f"{text[:20]}… ({len(text)} characters)"
        message = f"the integer {shown} is too large (at most about 1.8e308); quote it to keep it as text"
        raise TooLarge(message, text)
    return value


class _DuplicateKey(Exception):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def load_json(text: str) -> Any:
    """Parse JSON; duplicate keys, syntax errors, deep nesting and huge integers are a SourceError with the position."""
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates, parse_int=integer)
    except json.JSONDecodeError as error:
        raise SourceError(f"invalid JSON: {error.msg}", error.lineno, error.colno) from None
    except _DuplicateKey as error:
        line, column = json_duplicate_position(text, str(error))
        raise SourceError(f"duplicate key {str(error)!r}; each key may appear once", line, column) from None
    except TooLarge as error:
        raise SourceError(error.message, *line_column(text, _number_offset(text, error.literal))) from None
    except RecursionError:
        data = None  # the decoder ran out of stack: deeper than MAX_DEPTH, found below
    # Few brackets cannot nest deep: most texts are let through on two counts.
    if data is None or text.count("[") + text.count("{") > MAX_DEPTH:
        offset = _too_deep_offset(text)
        if offset is not None:
            raise SourceError(TOO_DEEP, *line_column(text, offset))
    no_lone_surrogates(text, data, lambda: json_positions(text))
    return data


#: Bytes of a text as :class:`LinesScreen` sees them for numbers: digits as "0", anything else as ".".
_DIGITS = bytes(48 if 48 <= i <= 57 else 46 for i in range(256))
#: Bytes of a text as it sees them for nesting: each "[" and "{" as "[", each line break kept, the rest left out.
_OPENINGS = bytes(91 if i == 123 else i for i in range(256))
_NOT_OPENINGS = bytes(i for i in range(256) if i not in b"[{\n")


class LinesScreen:
    """What a JSON Lines text holds that orjson or msgspec cannot read as :func:`load_json` does, looked
    for once in the whole text (and again in a line only when the whole text holds it); digits are
    looked for a chunk at a time (:func:`digit_run`), where a reader needs it.

    orjson reads most lines ten times faster than the standard library, and exactly as it does: the
    same values, and an error where it refuses. It differs on integers of more than 64 bits (it makes
    them floats; msgspec reads them, but also those beyond :data:`MAX_INT`), on nesting deeper than
    :data:`MAX_DEPTH` (both read it) and it keeps the last of two equal keys instead of refusing the
    line. The last is found by counting: with no escape ``\\u``, the text holds a colon for each key and
    each colon inside its strings, and so does orjson's re-encoding of what it read, minus the keys it
    dropped (each with its colon).
    """

    def __init__(self, data: bytes, lines: list[str]) -> None:
        """The screen of a text from its UTF-8 bytes and its lines."""
        # most texts hold no backslash at all: found at once, where looking for "\\u" reads every byte
        self.escapes = b"\\" in data and (b"\\u" in data or b"\\U" in data)
        #: Some line opens more than MAX_DEPTH lists and mappings (so it may nest too deep).
        self.deep = max(map(len, lines), default=0) > MAX_DEPTH and _opens_many(data)

    def escaped(self, line: str) -> bool:
        """True when ``line`` may hold an escape ``\\u``."""
        return self.escapes and ("\\u" in line or "\\U" in line)

    def shallow(self, line: str) -> bool:
        """True when ``line`` cannot nest deeper than :data:`MAX_DEPTH`: it opens no more than that."""
        return not self.deep or line.count("[") + line.count("{") <= MAX_DEPTH


def _opens_many(data: bytes) -> bool:
    """True when a line of ``data`` opens more than :data:`MAX_DEPTH` lists and mappings."""
    return b"[" * (MAX_DEPTH + 1) in data.translate(_OPENINGS, _NOT_OPENINGS)


#: Integers of more digits than this may not fit in 64 bits: orjson reads those as floats.
_LONG_DIGITS = 19


def digit_run(lines: list[str], length: int) -> bool:
    """True when a line of ``lines`` holds ``length`` digits in a row."""
    if max(map(len, lines), default=0) < length:
        return False
    return b"0" * length in "\n".join(lines).encode("utf-8", "surrogatepass").translate(_DIGITS)


#: What :func:`json_line_chunks` gives for a line it leaves to :func:`load_json`.
UNSURE = object()


class LineChunk(NamedTuple):
    """Lines of a JSON Lines text, but the blank ones: their numbers, texts and values."""

    numbers: Sequence[int]
    lines: list[str]
    #: Each line's value, or :data:`UNSURE` (at :attr:`precise`) where orjson did not read it.
    values: list[Any]
    #: Where in :attr:`values` stand the lines left to :func:`load_json`, in order.
    precise: list[int]
    #: True when the values are what a typed decoder made (see :func:`read_part`), not JSON values.
    typed: bool = False


def json_lines(text: str) -> list[tuple[int, str, Any]]:
    """Each line of JSON Lines text that is not blank: its number, its text, and its value as
    :func:`load_json` reads it, or :data:`UNSURE` when reading it takes :func:`load_json` (a problem to
    report with its position, a line the screen flags, a line that may hold a key twice)."""
    return [line for chunk in json_line_chunks(text) for line in zip(*chunk[:3], strict=True)]


#: How many lines :func:`json_line_chunks` reads before it checks that none of them holds a key twice.
_CHUNK = 1024


def json_line_chunks(
    text: str, lines: list[str] | None = None, screen: LinesScreen | None = None, typed: Any = None
) -> Iterator[LineChunk]:
    """:func:`json_lines` a chunk of lines at a time, each chunk checked for keys given twice as a whole,
    so that no more than a chunk of values is held; with ``typed`` (a msgspec decoder), chunks it
    reads are its values (see :func:`read_part`).

    ``lines`` is ``text.split("\n")`` and ``screen`` the text's :class:`LinesScreen` when the caller has
    made them. Lines end at "\n" only: JSON strings may hold U+2028, U+2029 or U+0085, where
    str.splitlines would cut.
    """
    lines = text.split("\n") if lines is None else lines
    screen = LinesScreen(text.encode("utf-8", "surrogatepass"), lines) if screen is None else screen
    # the empty lines at the end (after the last line break) hold nothing: left out, the last chunk can be
    # read in one go rather than found blank by orjson and read again line by line
    count = len(lines)
    while count and not lines[count - 1]:
        count -= 1
    start = 0
    for base in range(0, count, _CHUNK):
        part = lines[base : min(base + _CHUNK, count)]
        end = start + sum(map(len, part)) + len(part)  # the span of ``text`` the part's lines (and breaks) take
        chunk = read_part(part, base + 1, screen, text.count(":", start, end), typed)
        if chunk is not None:
            yield chunk
        start = end


def read_part(part: list[str], first: int, screen: LinesScreen, written: int, typed: Any = None) -> LineChunk | None:
    """The lines of ``part`` (numbered from ``first``, holding ``written`` colons) that are not blank, as
    a chunk (None when all are blank).

    When the lines hold nothing :class:`LinesScreen` looks for, the msgspec decoder ``typed`` is tried
    first: when it reads every line, and its encoding of what it read holds as many colons as the lines
    (no key given twice, but maybe inside a ``msgspec.Raw`` value, which it keeps as written), the chunk
    is its values.
    """
    flagged = screen.escapes or (screen.deep and not _shallow(part))
    if typed is not None and not flagged and not digit_run(part, _MAX_DIGITS):
        chunk = _typed_chunk(part, first, typed, written)
        if chunk is not None:
            return chunk
    digits = digit_run(part, _LONG_DIGITS)
    if not flagged and not digits:
        try:
            values = list(map(orjson.loads, part))
        except orjson.JSONDecodeError:  # a blank line, or one that is not JSON
            pass
        else:
            return _keys_checked(
                LineChunk(range(first, first + len(part)), part, values, []), range(len(part)), written
            )
    chunk, quick, unsure = _careful_chunk(part, first, screen, digits)
    return _keys_checked(chunk, quick, written - unsure) if chunk.lines else None


def _shallow(part: list[str]) -> bool:
    """True when no line of ``part`` opens more than :data:`MAX_DEPTH` lists and mappings."""
    opened = map(add, map(str.count, part, repeat("[")), map(str.count, part, repeat("{")))
    return max(opened, default=0) <= MAX_DEPTH


def _typed_chunk(part: list[str], first: int, typed: Any, written: int) -> LineChunk | None:
    import msgspec

    try:
        values = list(map(typed.decode, part))
    except msgspec.MsgspecError:
        return None
    if msgspec.json.encode(values).count(b":") != written:  # a key given twice, or a default written out
        return None
    return LineChunk(range(first, first + len(part)), part, values, [], typed=True)


def _careful_chunk(part: list[str], first: int, screen: LinesScreen, digits: bool) -> tuple[LineChunk, list[int], int]:
    """The lines of ``part`` (numbered from ``first``) that are not blank, each with its value or
    :data:`UNSURE`; where those orjson read are, and how many colons the others hold. ``digits``: some
    line may hold an integer beyond 64 bits."""
    loads, refused = orjson.loads, orjson.JSONDecodeError
    numbers: list[int] = []
    lines: list[str] = []
    values: list[Any] = []
    quick: list[int] = []
    precise: list[int] = []
    unsure = 0
    for number, line in enumerate(part, start=first):
        long = digits and b"0" * _LONG_DIGITS in line.encode("utf-8", "surrogatepass").translate(_DIGITS)
        if not long and not screen.escaped(line) and screen.shallow(line):
            try:
                value = loads(line)
            except refused:
                value = UNSURE
            else:
                quick.append(len(values))
        else:
            value = UNSURE
        if value is UNSURE:
            if not line.strip(_JSON_SPACE):
                continue
            precise.append(len(values))
            unsure += line.count(":")
        numbers.append(number)
        lines.append(line)
        values.append(value)
    return LineChunk(numbers, lines, values, precise), quick, unsure


def _keys_checked(chunk: LineChunk, quick: Sequence[int], written: int) -> LineChunk:
    """The chunk, with each line orjson read (at ``quick``) that holds a key twice marked :data:`UNSURE`;
    ``written`` is how many colons the text of the lines orjson read holds."""
    values = chunk.values
    read = values if len(quick) == len(values) else [values[at] for at in quick]
    if read and written != orjson.dumps(read).count(b":"):
        # some line holds a key twice: the precise parser is to find which, and say where
        for at in quick:
            if chunk.lines[at].count(":") != orjson.dumps(values[at]).count(b":"):
                values[at] = UNSURE
                chunk.precise.append(at)
        chunk.precise.sort()
    return chunk


_JSON_SPACE = " \t\r"


_SURROGATE = re.compile("[\ud800-\udfff]")


def no_lone_surrogates(text: str, data: Any, positions: Callable[[], dict[Path_, Position]]) -> None:
    """Refuse a string that an escape (``"\\ud800"``) made hold half of a UTF-16 pair: it is not text.

    Nothing could print or write it (UTF-8 has no such character). Only escapes make one, so a text
    without ``\\u`` is let through on one look.
    """
    if "\\u" not in text and "\\U" not in text:
        return
    path = _lone_surrogate(data)
    if path is None:
        return
    found = positions()
    where = next((found[path[:end]] for end in range(len(path), -1, -1) if path[:end] in found), (1, 1))
    message = "a string holds half of a UTF-16 surrogate pair (an escape such as \\ud800), which is not text; remove it"
    raise SourceError(message, *where)


def _lone_surrogate(data: Any) -> Path_ | None:
    """The path of the first string (a value, or a key) holding a lone surrogate, or None."""
    stack: list[tuple[Path_, Any]] = [((), data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value):
                return path
        elif isinstance(value, dict):
            for key in value:
                if isinstance(key, str) and _SURROGATE.search(key):
                    return (*path, key, KEY)
            stack.extend(reversed([((*path, key), item) for key, item in value.items()]))
        elif isinstance(value, list):
            stack.extend(reversed([((*path, index), item) for index, item in enumerate(value)]))
    return None


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?')


def _too_deep_offset(text: str) -> int | None:
    """Where a value of (valid) JSON text opens more than MAX_DEPTH levels deep, or None."""
    depth = 0
    for match in _JSON_TOKEN.finditer(text):
        char = text[match.start()]
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return match.start()
        elif char in "]}":
            depth -= 1
    return None


def _number_offset(text: str, literal: str) -> int:
    """Where the number ``literal`` stands in JSON text (outside strings)."""
    for match in _JSON_TOKEN.finditer(text):
        if match.group() == literal:
            return match.start()
    return 0


def json_positions(text: str) -> dict[Path_, Position]:
    """The position of every value of a (valid) JSON document, by path."""
    offsets: dict[Path_, int] = {}
    _JsonScanner(text, lambda path, offset, duplicate: offsets.setdefault(path, offset)).value(0, ())
    return dict(zip(offsets, line_columns(text, list(offsets.values())), strict=True))


def json_duplicate_position(text: str, key: str) -> Position:
    """Where the second occurrence of ``key`` in one object stands."""
    found: list[int] = []

    def note(path: Path_, offset: int, duplicate: bool) -> None:
        if duplicate and path[-2:] == (key, KEY) and not found:
            found.append(offset)

    _JsonScanner(text, note).value(0, ())
    return line_column(text, found[0]) if found else (1, 1)


def line_column(text: str, offset: int) -> Position:
    """1-based line and column of a character offset."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def line_columns(text: str, offsets: list[int]) -> list[Position]:
    """:func:`line_column` of many offsets in one pass over the text (not one pass per offset)."""
    found: list[Position] = [(1, 1)] * len(offsets)
    line, line_start, last = 1, 0, 0
    for index in sorted(range(len(offsets)), key=offsets.__getitem__):
        offset = offsets[index]
        breaks = text.count("\n", last, offset)
        if breaks:
            line += breaks
            line_start = text.rfind("\n", last, offset) + 1
        found[index] = (line, offset - line_start + 1)
        last = offset
    return found


class _JsonScanner:
    """Walks valid JSON text and reports where each value starts."""

    _space = re.compile(r"[ \t\n\r]*")

    def __init__(self, text: str, note: Callable[[Path_, int, bool], Any]) -> None:
        self.text = text
        self.note = note
        self.decoder = json.JSONDecoder()

    def skip(self, index: int) -> int:
        match = self._space.match(self.text, index)
        return match.end() if match else index

    def value(self, index: int, path: Path_) -> int:
        index = self.skip(index)
        self.note(path, index, False)
        char = self.text[index : index + 1]
        if char == "{":
            return self._object(index + 1, path)
        if char == "[":
            return self._array(index + 1, path)
        _, end = self.decoder.raw_decode(self.text, index)
        return int(end)

    def _object(self, index: int, path: Path_) -> int:
        index = self.skip(index)
        if self.text[index] == "}":
            return index + 1
        seen: set[str] = set()
        while True:
            index = self.skip(index)
            self.note((*path, key_at := self._key(index), KEY), index, key_at in seen)
            key, index = json.decoder.scanstring(self.text, index + 1)  # type: ignore[attr-defined]
            index = self.skip(index) + 1  # the colon
            index = self.value(index, (*path, key))
            seen.add(key)
            index = self.skip(index)
            if self.text[index] == "}":
                return index + 1
            index += 1  # the comma

    def _key(self, index: int) -> str:
        key, _ = json.decoder.scanstring(self.text, index + 1)  # type: ignore[attr-defined]
        return str(key)

    def _array(self, index: int, path: Path_) -> int:
        index = self.skip(index)
        if self.text[index] == "]":
            return index + 1
        position = 0
        while True:
            index = self.value(index, (*path, position))
            position += 1
            index = self.skip(index)
            if self.text[index] == "]":
                return index + 1
            index += 1
