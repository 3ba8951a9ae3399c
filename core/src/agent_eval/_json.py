"""JSON text of agent-eval's data: orjson where it can, the standard library where it cannot.

orjson encodes a large report about ten times faster than ``json`` (it is C, and writes UTF-8 directly);
it refuses a few things the standard library writes — ints beyond 64 bits, for one — so those
documents go through ``json`` instead, with the same result. Data reaching here went through
:func:`agent_eval._codec.jsonable`, so both always succeed.

A report is written from pieces: the JSON of each case is made once (:func:`encode`) and the documents
that hold every case (the JSON report, the history's copy, the page's data) are joined from those
pieces by :func:`document`, so no writer encodes a case again or holds a whole document as dicts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import orjson


def encode(data: Any, *, indent: bool = False) -> bytes:
    """``data`` as UTF-8 JSON: compact, or indented by two spaces; non-ASCII characters as they are."""
    try:
        return orjson.dumps(data, option=orjson.OPT_INDENT_2 if indent else 0)
    except (TypeError, orjson.JSONEncodeError):
        separators = None if indent else (",", ":")
        text = json.dumps(data, ensure_ascii=False, indent=2 if indent else None, separators=separators)
        return text.encode("utf-8")


def dumps(data: Any, *, indent: bool = False) -> str:
    """``data`` as JSON text: compact, or indented by two spaces; non-ASCII characters as they are."""
    return encode(data, indent=indent).decode("utf-8")


def loads(text: str | bytes) -> Any:
    """The value a JSON text holds (``json.JSONDecodeError`` when it holds none).

    orjson reads an integer beyond 64 bits as a float: a text that may hold one (a run of 19 digits
    or more, which may also be in a string) is read by the standard library, which keeps it whole.
    """
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    if _LONG_NUMBER in data.translate(_DIGITS):
        return json.loads(text)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)  # the standard library's error says where, as callers expect


#: Every byte of a text as :func:`loads` looks at it: digits as "0", anything else as a space.
_DIGITS = bytes(48 if 48 <= i <= 57 else 32 for i in range(256))
#: A run of digits no integer orjson reads exactly is shorter than.
_LONG_NUMBER = b"0" * 19


#: About this many bytes of pieces are joined into each batch of :func:`batches`.
_BATCH = 1 << 20


def batches(pieces: Iterable[bytes], separator: bytes = b",") -> Iterator[bytes]:
    """``pieces`` (compact JSON) joined by ``separator`` into batches of about a MiB: for :func:`document`,
    which writes a batch as it writes its pieces one by one, and a writer that then handles a few hundred
    parts instead of two for each case (``separator=b""``: a document's parts, in writes of about a MiB)."""
    for batch in _gathered(pieces):
        yield separator.join(batch)


def _gathered(pieces: Iterable[bytes]) -> Iterator[list[bytes]]:
    """``pieces`` in lists of about :data:`_BATCH` bytes (never an empty one)."""
    batch: list[bytes] = []
    size = 0
    for piece in pieces:
        batch.append(piece)
        size += len(piece)
        if size >= _BATCH:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def document(head: Mapping[str, Any], key: str, pieces: Iterable[bytes], *, indent: bool = False) -> Iterator[bytes]:
    """The JSON of ``{**head, key: [...]}`` in parts, the list's items given as their own compact JSON
    (``pieces``, or :func:`batches` of them).

    Joined, the parts are exactly what :func:`encode` makes of the whole document. Compact, each piece
    goes in as it is; indented, the pieces are indented in batches (:func:`batches`) by msgspec, which
    re-indents JSON text as it is, without reading it into values (ten times faster than decoding and
    encoding again, and a batch at a time three times faster than a piece at a time). ``head`` must not
    be empty.
    """
    if indent:
        yield _indented_opening(head, key)
        yield from _indented_items(pieces)
        return
    yield encode(head)[:-1] + b"," + encode(key) + b":["
    # each piece is yielded as it is, never joined to its separator: a copy of every case's JSON would
    # double what a writer holds
    first = True
    for piece in pieces:
        if not first:
            yield b","
        yield piece
        first = False
    yield b"]}"


def lined_document(head: Mapping[str, Any], key: str, pieces: Iterable[bytes]) -> Iterator[bytes]:
    """The JSON of ``{**head, key: [...]}`` indented as :func:`document` indents it, but for the list's items:
    each is one line of its own, compact as given (``pieces``), under the list's indent. The same data as
    the indented document, in about half its bytes, and without re-indenting any item. ``head`` must not
    be empty."""
    yield _indented_opening(head, key)
    first = True
    for batch in batches(pieces, _ITEM_LINES):
        yield (b"\n    " if first else _ITEM_LINES) + batch
        first = False
    yield b"]\n}" if first else b"\n  ]\n}"


def _indented_opening(head: Mapping[str, Any], key: str) -> bytes:
    """An indented document's ``head``, without its closing ``\n}``, then ``key`` opening its list."""
    return encode(head, indent=True)[:-2] + b",\n  " + encode(key) + b": ["


#: What goes between two items of a :func:`lined_document`'s list.
_ITEM_LINES = b",\n    "


def _indented_items(pieces: Iterable[bytes]) -> Iterator[bytes]:
    """The items of the list of an indented :func:`document`, in batches, and its end."""
    import msgspec

    first = True
    for batch in _gathered(pieces):
        opening, cut = _FIRST_ITEMS if first else _LATER_ITEMS
        # the batch as the list under a key of an object, as the items are in the document: msgspec
        # indents them at their depth there (JSON text holds newlines only between its tokens, so it is
        # the same as indenting each case on its own), and what is around them is cut off; after the
        # first batch a 0 goes before the items, so that what is kept starts with the comma after it
        batch[0] = opening + batch[0]
        batch[-1] += b"]}"
        yield msgspec.json.format(b",".join(batch), indent=2)[cut : -len(b"\n  ]\n}")]
        first = False
    yield b"]\n}" if first else b"\n  ]\n}"


#: What goes before a batch of an indented document's items (the first, the others), and how much of
#: the indented text is before them.
_FIRST_ITEMS = (b'{"":[', len(b'{\n  "": ['))
_LATER_ITEMS = (b'{"":[0,', len(b'{\n  "": [\n    0'))
