"""Plain lines of a JSON Lines suite, found so a column at a time over a chunk of lines.

A plain line is one the full reading of a case would have nothing to say of: a mapping of known keys
(but ``evaluator``) whose name is text not seen before, with an ``input``, no ``threshold``, metadata
that is a mapping if any, and an evaluator list a case read before had, none of whose evaluators has a
``check_case``. Its case is then made from its fields, without the places the full reading keeps for
its messages. Large files are read by a msgspec decoder (:func:`line_decoder`) that checks all but the
name and the evaluator list in C and keeps the list as written; the other chunks are mappings.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from itertools import chain, repeat
from operator import attrgetter, is_
from typing import Any, NamedTuple

#: The keys of a plain line.
PLAIN_KEYS = frozenset(("name", "input", "expected", "evaluators", "metadata", "threshold"))

_DICT = {dict}
_TEXT = {str}
_METADATA_TYPES = frozenset((type(None), dict))
_NAME, _INPUT, _EXPECTED, _EVALUATORS, _METADATA = map(
    attrgetter, ("name", "input", "expected", "evaluators", "metadata")
)


class PlainList(NamedTuple):
    """What an evaluator list gives the plain lines that have it, and their fingerprints' end."""

    evaluators: tuple[Any, ...]
    weights: tuple[float, ...]
    threshold: float | None
    #: What a plain line's fingerprint digests after its name, input and expected answer.
    tail: str


#: What :func:`written_known` gives: the list all lines have, or each line's.
Known = PlainList | list[PlainList]


class Columns(NamedTuple):
    """The fields of some plain lines, one list each, and the lines' numbers."""

    names: list[str]
    given: list[Any]
    expected: list[Any]
    #: Each line's metadata, a new mapping where it has none.
    metadata: list[dict[str, Any]]
    numbers: Sequence[int]

    @classmethod
    def of_mappings(cls, values: list[dict[str, Any]], names: list[str], numbers: Sequence[int]) -> Columns:
        """The columns of lines read as mappings."""
        given = list(map(dict.get, values, repeat("input")))
        expected = list(map(dict.get, values, repeat("expected")))
        metadata = [metadata or {} for metadata in map(dict.get, values, repeat("metadata"))]
        return cls(names, given, expected, metadata, numbers)

    @classmethod
    def of_typed(cls, lines: list[Any], numbers: Sequence[int]) -> Columns:
        """The columns of lines read by :func:`line_decoder` (where a key is not given, msgspec's UNSET)."""
        import msgspec

        unset = msgspec.UNSET
        expected = [None if value is unset else value for value in map(_EXPECTED, lines)]
        metadata = [metadata or {} for metadata in map(_METADATA, lines)]  # UNSET is false too
        return cls(list(map(_NAME, lines)), list(map(_INPUT, lines)), expected, metadata, numbers)

    def pick(self, at: list[int]) -> Columns:
        """The columns of the lines at ``at``."""
        if len(at) == len(self.names):
            return self
        names, given, expected, metadata, numbers = self
        return Columns(
            [names[i] for i in at],
            [given[i] for i in at],
            [expected[i] for i in at],
            [metadata[i] for i in at],
            [numbers[i] for i in at],
        )


@functools.cache
def line_decoder() -> Any:
    """A msgspec decoder of a line that is a mapping of the keys of a plain line, with a text name, an
    input, metadata that is a mapping if any and no threshold (``msgspec.Raw`` keeps the evaluator list
    as written). Keys not given are UNSET, so that its encoding of a line holds the line's keys; but a
    null threshold is left out of it, and such a line is read as a mapping (its colons do not add up:
    see :func:`agent_eval._sourcemap.read_part`)."""
    import msgspec

    unset = msgspec.UnsetType
    fields: list[Any] = [
        ("name", str),
        ("input", Any),
        ("expected", Any | unset, msgspec.UNSET),
        ("evaluators", msgspec.Raw, msgspec.Raw(b"null")),
        ("metadata", dict[str, Any] | None | unset, msgspec.UNSET),
        ("threshold", None, None),
    ]
    line = msgspec.defstruct("PlainLine", fields, forbid_unknown_fields=True, omit_defaults=True)
    return msgspec.json.Decoder(line)


def written_known(lines: list[Any], known: dict[bytes, PlainList]) -> Known | None:
    """What the evaluator list of each typed line gives (``known`` by its text as written): one for all
    when all have the same list, else each line's; None when a line's list is not known."""
    written = list(map(_EVALUATORS, lines))
    first = written[0]
    found = known.get(bytes(first))
    if found is not None and all(map(first.__eq__, written)):
        return found
    each: list[Any] = list(map(known.get, map(bytes, written)))
    return None if None in each else each


def written_texts(lines: list[Any]) -> dict[bytes, int]:
    """The evaluator lists of typed lines as written, each with where a line has it."""
    return dict(zip(map(bytes, map(_EVALUATORS, lines)), range(len(lines)), strict=True))


def text_names(values: list[Any]) -> list[str] | None:
    """The name of each line (``values``) when all are mappings whose names are text, not blank; else None."""
    if set(map(type, values)) != _DICT:
        return None
    names: list[Any] = list(map(dict.get, values, repeat("name")))
    if set(map(type, names)) != _TEXT or not all(map(str.strip, names)):
        return None
    return names


def plain_shape(data: dict[str, Any]) -> bool:
    """True when a case's mapping has the keys of a plain line, and an input."""
    return (
        data.keys() <= PLAIN_KEYS
        and "input" in data
        and type(data.get("metadata")) in _METADATA_TYPES
        and data.get("threshold") is None
    )


def plain_shapes(values: list[dict[str, Any]]) -> bool:
    """:func:`plain_shape` of every mapping, a column at a time."""
    return (
        PLAIN_KEYS.issuperset(chain.from_iterable(values))
        and all(map(dict.__contains__, values, repeat("input")))
        and _METADATA_TYPES.issuperset(map(type, map(dict.get, values, repeat("metadata"))))
        and all(map(is_, map(dict.get, values, repeat("threshold")), repeat(None)))
    )
