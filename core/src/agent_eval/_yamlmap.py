"""YAML suite files parsed safely, with YAML 1.2 scalars, keeping where each value stands (see
:mod:`agent_eval._sourcemap`, whose errors and limits it shares). Its own module: PyYAML takes 12 ms
to import, which a JSON or JSON Lines suite, and a command that reads no suite, need not pay."""

from __future__ import annotations

import re
from typing import Any

import yaml

from agent_eval._sourcemap import (
    KEY,
    MAX_DEPTH,
    TOO_DEEP,
    Path_,
    Position,
    SourceError,
    TooLarge,
    integer,
    line_column,
    no_lone_surrogates,
)


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
        try:
            return integer(text)
        except TooLarge as error:
            raise SourceError(error.message, node.start_mark.line + 1, node.start_mark.column + 1) from None

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
        #: How many lists and mappings enclose the node being composed.
        self.depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise SourceError(
                "anchors and aliases (*name) are not supported in suite files; write the value out",
                event.start_mark.line + 1,
                event.start_mark.column + 1,
            )
        # Composing (and later constructing and walking) recurses once per level: stop before Python's limit.
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if not isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            return super().compose_node(parent, index)
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                mark: Any = event.start_mark
                raise SourceError(TOO_DEEP, mark.line + 1, mark.column + 1)
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def load_yaml(text: str) -> tuple[Any, dict[Path_, Position]]:
    """Parse YAML safely; return the data and the position of every value by its path."""
    try:
        loader = _Loader(text)  # the reader checks the characters here, before anything is parsed
    except yaml.reader.ReaderError as error:
        raise _unprintable(text, error) from None
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {}
        positions: dict[Path_, Position] = {}
        _walk(node, (), positions)
        data = loader.construct_document(node)
        no_lone_surrogates(text, data, lambda: positions)
        return data, positions
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


def _unprintable(text: str, error: yaml.reader.ReaderError) -> SourceError:
    line, column = line_column(text, error.position)
    code = ord(error.character) if isinstance(error.character, str) else int(error.character)
    message = (
        f"invalid YAML: the character U+{code:04X} is not allowed in YAML text; remove it, or write it "
        f'as an escape ("\\x{code:02x}") inside a double-quoted string'
        if code <= 0xFF
        else f"invalid YAML: the character U+{code:04X} is not allowed in YAML text; remove it"
    )
    return SourceError(message, line, column)


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
