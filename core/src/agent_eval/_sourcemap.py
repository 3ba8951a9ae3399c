"""Parsing suite files while keeping where each value stands (line and column).

YAML is loaded safely with YAML 1.2 scalars (``no`` stays a string, ``010``
is ten), duplicate keys and aliases are errors. JSON is parsed by the standard
library; the position of a value is found only when an error needs it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import yaml

Path_ = tuple[str | int, ...]
Position = tuple[int, int]

#: Appended to a path to ask for the position of a mapping key rather than of its value.
KEY = "\x00key"


class SourceError(Exception):
    """A file that cannot be parsed; ``line`` and ``column`` are 1-based."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class _Resolver(yaml.resolver.Resolver):
    """YAML 1.2 core-schema scalars: only true/false are booleans, no dates, no sexagesimals."""


_Resolver.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag == "tag:yaml.org,2002:null"]
    for first, resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.items()
}
_Resolver.yaml_implicit_resolvers = {k: v for k, v in _Resolver.yaml_implicit_resolvers.items() if v}
_Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"), list("-+0123456789")
)
_Resolver.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)


class _Constructor(yaml.constructor.SafeConstructor):
    def construct_yaml_int(self, node: yaml.Node) -> int:
        text = str(self.construct_scalar(node))  # type: ignore[arg-type]
        if text.startswith("0o"):
            return int(text[2:], 8)
        if text.startswith("0x"):
            return int(text[2:], 16)
        return int(text)

    def construct_yaml_float(self, node: yaml.Node) -> float:
        text = str(self.construct_scalar(node)).lower()  # type: ignore[arg-type]
        if text.endswith(".inf"):
            return float("-inf") if text.startswith("-") else float("inf")
        if text == ".nan":
            return float("nan")
        return float(text)


_Constructor.add_constructor("tag:yaml.org,2002:int", _Constructor.construct_yaml_int)  # type: ignore[type-var]
_Constructor.add_constructor("tag:yaml.org,2002:float", _Constructor.construct_yaml_float)  # type: ignore[type-var]


class _Loader(
    yaml.reader.Reader,
    yaml.scanner.Scanner,
    yaml.parser.Parser,
    yaml.composer.Composer,
    _Constructor,
    _Resolver,
):
    def __init__(self, stream: str) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        _Constructor.__init__(self)
        _Resolver.__init__(self)

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise SourceError(
                "anchors and aliases (*name) are not supported in suite files; write the value out",
                event.start_mark.line + 1,
                event.start_mark.column + 1,
            )
        return super().compose_node(parent, index)


def load_yaml(text: str) -> tuple[Any, dict[Path_, Position]]:
    """Parse YAML safely; return the data and the position of every value by its path."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {}
        positions: dict[Path_, Position] = {}
        _walk(node, (), positions)
        return loader.construct_document(node), positions
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problem = " ".join(filter(None, [error.context, error.problem]))
        if mark is None:
            raise SourceError(f"invalid YAML: {problem}") from None
        raise SourceError(f"invalid YAML: {problem}", mark.line + 1, mark.column + 1) from None
    except yaml.YAMLError as error:
        raise SourceError(f"invalid YAML: {error}") from None
    finally:
        loader.dispose()


def _walk(node: yaml.Node, path: Path_, positions: dict[Path_, Position]) -> None:
    positions[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        seen: dict[Any, int] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else repr(key_node.value)
            if key in seen:
                raise SourceError(
                    f"duplicate key {key!r} (first at line {seen[key]}); each key may appear once",
                    key_node.start_mark.line + 1,
                    key_node.start_mark.column + 1,
                )
            seen[key] = key_node.start_mark.line + 1
            positions[(*path, key, KEY)] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            _walk(value_node, (*path, key), positions)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*path, index), positions)


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
    """Parse JSON; duplicate keys and syntax errors become a SourceError with the position."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as error:
        raise SourceError(f"invalid JSON: {error.msg}", error.lineno, error.colno) from None
    except _DuplicateKey as error:
        line, column = json_duplicate_position(text, str(error))
        raise SourceError(f"duplicate key {str(error)!r}; each key may appear once", line, column) from None


def json_positions(text: str) -> dict[Path_, Position]:
    """The position of every value of a (valid) JSON document, by path."""
    offsets: dict[Path_, int] = {}
    _JsonScanner(text, lambda path, offset, duplicate: offsets.setdefault(path, offset)).value(0, ())
    return {path: line_column(text, offset) for path, offset in offsets.items()}


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
