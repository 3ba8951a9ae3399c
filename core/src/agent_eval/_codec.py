"""Records to JSON-ready dicts and back, from one description: the attrs fields of the record.

A field's ``metadata`` says how its value travels: :data:`ANY` (any Python value), :func:`records` (a
tuple of records of another class), or nothing (a plain JSON value). Every value but records is written
through :func:`jsonable`, so a report always encodes, whatever its values hold. A record class may add
read-only keys to what it writes (``passed``, counts) through ``_derived``: they are written, never read
back.

Reading checks each value against its field's annotation (``str``, ``float | None``, a ``Literal``, a
mapping), so a file that holds ``"score": "high"`` is refused with the field's path instead of
becoming a record that breaks whatever uses it.
"""

from __future__ import annotations

import contextlib
import gc
import math
import re
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from typing import Any

import attrs
import orjson

from agent_eval._json import encode
from agent_eval._text import describe_error, int_text, kind_of, short_repr, text_of


class InvalidRecord(ValueError):
    """What was read does not fit the record: ``cases[2].score must be a number or null, got …``."""


#: A check of a value read for a field: what it must be (in words), and the test.
_Check = tuple[str, Callable[[Any], bool]]

#: ``attrs.field(metadata=ANY)``: any value; written through :func:`jsonable`.
ANY: Mapping[str, Any] = {"codec": "any"}
#: ``attrs.field(metadata=MAPPING)``: a mapping of anything; written through :func:`jsonable`, read as a dict.
MAPPING: Mapping[str, Any] = {"codec": "mapping"}


def records(cls: type) -> Mapping[str, Any]:
    """``attrs.field(metadata=records(Cls))``: a tuple of ``Cls`` records, written as a list of dicts."""
    return {"codec": "records", "class": cls}


def record(cls: type) -> Mapping[str, Any]:
    """``attrs.field(metadata=record(Cls))``: one ``Cls`` record (or None), written as a dict."""
    return {"codec": "record", "class": cls}


class Codec:
    """The writer and reader of one record class, worked out once from its fields."""

    def __init__(self, cls: type) -> None:
        self.cls = cls
        fields = attrs.fields(cls)
        hints = typing.get_type_hints(cls)
        self._out: list[tuple[str, Callable[[Any], Any]]] = []
        self._kinds: list[tuple[str, str | None]] = []
        self._in: list[tuple[str, Callable[[Any, str], Any] | None, _Check | None, Any]] = []
        self._plain: dict[tuple[str, ...], list[tuple[str, _Check | None, Any, frozenset[type]]]] = {}
        for field in fields:
            if not field.init:
                continue
            kind = field.metadata.get("codec")
            self._out.append((field.name, _writer(kind, field.metadata)))
            self._kinds.append((field.name, kind))
            default = field.default
            if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
                default = default.factory()
            if kind == "records":  # a list of records: null is no list (the reader checks each item)
                check: _Check | None = _A_LIST
            else:
                check = None if kind in ("any", "record") else _check_of(hints.get(field.name, Any))
            self._in.append((field.name, _reader(kind, field.metadata), check, default))

        #: The record's read-only keys, written after its fields: ``cls._derived(record)``, when the class has it.
        self._derived: Callable[[Any], Mapping[str, Any]] | None = getattr(cls, "_derived", None)
        self._write = self._compile()
        self._as_is_writer: Callable[[Any], dict[str, Any]] | None = None

    def to_dict(
        self, record: Any, derived: Mapping[str, Any] | None = None, *, skip: tuple[str, ...] = ()
    ) -> dict[str, Any]:
        """The record as a JSON-ready dict; ``derived`` keys (by default the class's ``_derived``) are
        added after the fields, ``skip`` left out."""
        if skip:
            data = {name: write(getattr(record, name)) for name, write in self._out if name not in skip}
        else:
            data = self._write(record)
        if derived is None and self._derived is not None:
            derived = self._derived(record)
        if derived:
            data.update(derived)
        return data

    def json(self, record: Any) -> bytes:
        """``encode(self.to_dict(record))``, made faster for a record whose values need nothing done to them.

        Such a record's values go to orjson as they are, without the copies :func:`jsonable` makes: the
        text is the same, for every value (:func:`as_is` takes only values that jsonable would give
        back unchanged but for their containers' types, and what orjson refuses — a lone surrogate, an
        int of more than 64 bits, a key that is not text — sends the record the careful way).
        """
        try:
            return orjson.dumps(self.as_is_writer()(record))
        except (NotPlain, TypeError):  # orjson.JSONEncodeError is a TypeError
            return encode(self.to_dict(record))

    def _compile(self) -> Callable[[Any], dict[str, Any]]:
        """A writer of this class's records as one function, as attrs makes ``__init__``: a report writes
        one per case and per evaluation, and a loop over the fields with a call per value costs several
        times more. Plain strings, numbers, booleans and None are written as they are inline, and so are
        empty lists, tuples and dicts and the records of record fields; anything else goes through the
        field's writer (:func:`jsonable` for values). The dict is made at once, in the fields' order."""
        lines = ["def write(record):"]
        names: dict[str, Any] = {"_isfinite": math.isfinite}
        for index, (name, kind) in enumerate(self._kinds):
            write, value = f"_w{index}", f"v{index}"
            names[write] = self._out[index][1]
            lines.append(f"    {value} = record.{name}")
            if kind == "records":
                lines.append(f"    {value} = [item.to_dict() for item in {value}] if {value} else []")
                continue
            if kind == "record":
                lines.append(f"    {value} = None if {value} is None else {value}.to_dict()")
                continue
            lines += [
                f"    t = type({value})",
                f"    if {value} is None or t is bool or (t is str and {value}.isascii())"
                f" or (t is int and -(1 << 62) < {value} < 1 << 62) or (t is float and _isfinite({value})):",
                "        pass",
                f"    elif (t is tuple or t is list) and not {value}:",
                f"        {value} = []",
                f"    elif t is dict and not {value}:",
                f"        {value} = {{}}",
                "    else:",
                f"        {value} = {write}({value})",
            ]
        items = ", ".join(f"{name!r}: v{index}" for index, (name, _) in enumerate(self._kinds))
        lines.append(f"    return {{{items}}}")
        exec("\n".join(lines), names)  # noqa: S102 - the code is made here from the class's field names
        writer: Callable[[Any], dict[str, Any]] = names["write"]
        return writer

    def _compile_as_is(self) -> Callable[[Any], dict[str, Any]]:
        """A writer like :meth:`_compile`'s that hands each value on as it is, or raises :class:`NotPlain`
        when one is not a plain JSON value that :func:`as_is` accepts (a record field: a record of exactly
        its field's class, written the same way)."""
        lines = ["def write(record):"]
        names: dict[str, Any] = {"_items_as_is": items_as_is, "_refuse": _refuse}
        values = []  # the fields' values that are looked at together, by items_as_is
        for index, (name, kind) in enumerate(self._kinds):
            value = f"v{index}"
            lines.append(f"    {value} = record.{name}")
            if kind not in ("records", "record"):
                values.append(value)
            else:
                cls = next(field.metadata["class"] for field in attrs.fields(self.cls) if field.name == name)
                names[f"_c{index}"], names[f"_w{index}"] = cls, codec_of(cls).as_is_writer()
                if kind == "records":
                    lines += [
                        f"    if {value}:",
                        f"        {value} = [_w{index}(item) if type(item) is _c{index} else _refuse()"
                        f" for item in {value}]",
                        "    else:",
                        f"        {value} = []",
                    ]
                else:
                    lines += [
                        f"    if {value} is not None:",
                        f"        {value} = _w{index}({value}) if type({value}) is _c{index} else _refuse()",
                    ]
        if values:  # each value as a container's items are looked at, a level above the values' own contents
            lines.append(f"    _items_as_is(({', '.join(values)},), -1)")
        items = ", ".join(f"{name!r}: v{index}" for index, (name, _) in enumerate(self._kinds))
        if self._derived is None:
            lines.append(f"    return {{{items}}}")
        else:
            names["_derived"] = self._derived
            lines += [f"    data = {{{items}}}", "    data.update(_derived(record))", "    return data"]
        exec("\n".join(lines), names)  # noqa: S102 - the code is made here from the class's field names
        writer: Callable[[Any], dict[str, Any]] = names["write"]
        return writer

    def as_is_writer(self) -> Callable[[Any], dict[str, Any]]:
        """The writer :meth:`json` uses (made on first use)."""
        if self._as_is_writer is None:
            self._as_is_writer = self._compile_as_is()
        return self._as_is_writer

    def from_dict(self, data: Mapping[str, Any], at: str = "") -> Any:
        """A record from what :meth:`to_dict` wrote; missing keys take the field's default.

        A value of the wrong type, or a missing key that has no default, raises :class:`InvalidRecord`
        naming it by its path from the top (``at`` is this record's: ``cases[2]``).
        """
        if not isinstance(data, Mapping):
            raise InvalidRecord(f"{at or 'the record'} must be an object, got {kind_of(data)}")
        values = {}
        for name, read, check, default in self._in:
            where = f"{at}.{name}" if at else name
            if name in data:
                value = data[name]
                if check is not None and not check[1](value):
                    raise InvalidRecord(f"{where} must be {check[0]}, got {kind_of(value)}")
                values[name] = read(value, where) if read is not None and value is not None else value
            elif default is not attrs.NOTHING:
                values[name] = default
            else:
                raise InvalidRecord(f"{where} is missing")
        return self.cls(**values)

    def read_fields(self, data: Any, at: str, names: tuple[str, ...]) -> tuple[Any, ...]:
        """The values of only the plain fields ``names`` of what :meth:`to_dict` wrote, in that order, each
        checked as :meth:`from_dict` checks it (a missing one takes its default): for a reader that needs
        no more of a large record."""
        if not isinstance(data, Mapping):
            raise InvalidRecord(f"{at or 'the record'} must be an object, got {kind_of(data)}")
        fields = self._plain.get(names)
        if fields is None:
            fields = self._plain[names] = [self._plain_field(name) for name in names]
        values = []
        for name, check, default, fast in fields:
            value = data.get(name, attrs.NOTHING)
            if value is attrs.NOTHING:
                if default is attrs.NOTHING:
                    raise InvalidRecord(f"{f'{at}.{name}' if at else name} is missing")
                value = default
            elif type(value) not in fast and check is not None and not check[1](value):
                raise InvalidRecord(f"{f'{at}.{name}' if at else name} must be {check[0]}, got {kind_of(value)}")
            values.append(value)
        return tuple(values)

    def _plain_field(self, name: str) -> tuple[str, _Check | None, Any, frozenset[type]]:
        """A plain field's check, its default, and the exact types that pass the check without running it."""
        found = [(check, default) for field, read, check, default in self._in if field == name and read is None]
        if not found:
            raise KeyError(f"{self.cls.__name__} has no plain field {name!r}")
        check, default = found[0]
        hint = typing.get_type_hints(self.cls).get(name, Any)
        return name, check, default, _exact_types(hint)


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cycle collector while a large tree of new objects is built (a report read back).

    The collector would walk every object made so far, again and again as they pile up: half the time
    of reading a report of 100,000 cases. What JSON reading builds holds no cycles, so nothing is lost.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _writer(kind: str | None, metadata: Mapping[str, Any]) -> Callable[[Any], Any]:
    if kind == "records":
        return _records_out
    if kind == "record":
        return _record_out
    # plain fields too: a reason or a name may hold a lone surrogate, which no JSON file could encode
    return jsonable


def _records_out(items: Iterable[Any]) -> list[dict[str, Any]]:
    # each record's own to_dict, so that its derived keys are written too
    return [item.to_dict() for item in items]


def _record_out(item: Any) -> dict[str, Any] | None:
    return None if item is None else item.to_dict()


def _reader(kind: str | None, metadata: Mapping[str, Any]) -> Callable[[Any, str], Any] | None:
    if kind == "mapping":
        return _mapping
    if kind == "records":
        inner = codec_of(metadata["class"])
        return lambda items, at: tuple(inner.from_dict(item, f"{at}[{i}]") for i, item in enumerate(_list(items, at)))
    if kind == "record":
        return codec_of(metadata["class"]).from_dict
    return None


def _mapping(value: Any, at: str) -> Mapping[str, Any]:
    return dict(value)  # its type was checked against the field's annotation


#: The check of a field that holds a list of records.
_A_LIST: _Check = ("a list", lambda value: isinstance(value, list | tuple))


def _list(value: Any, at: str) -> Sequence[Any]:
    if not isinstance(value, list | tuple):
        raise InvalidRecord(f"{at} must be a list, got {kind_of(value)}")
    return value


def _check_of(hint: Any) -> _Check | None:
    """How a value read for a field annotated ``hint`` is checked; None: anything goes."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        inner = _check_of(options[0]) if len(options) == 1 else None
        if inner is None:
            return None
        test = inner[1]
        return f"{inner[0]} or null", lambda value: value is None or test(value)
    if origin is typing.Literal:
        choices = typing.get_args(hint)
        return "one of " + ", ".join(repr(choice) for choice in choices), lambda value: value in choices
    if hint is str:
        return "a string", lambda value: isinstance(value, str)
    if hint is bool:
        return "true or false", lambda value: isinstance(value, bool)
    if hint is int:
        return "a whole number", lambda value: isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return "a number", lambda value: isinstance(value, int | float) and not isinstance(value, bool)
    if hint in (dict, Mapping) or origin in (dict, Mapping):
        return "an object", lambda value: isinstance(value, Mapping)
    return None


def _exact_types(hint: Any) -> frozenset[type]:
    """Types whose values always pass the check of a field annotated ``hint`` (bool is not an int here)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        parts = [frozenset({type(None)}) if arg is type(None) else _exact_types(arg) for arg in typing.get_args(hint)]
        return frozenset().union(*parts) if all(parts) else frozenset()
    return {str: frozenset({str}), int: frozenset({int}), float: frozenset({int, float})}.get(hint, frozenset())


_codecs: dict[type, Codec] = {}


def codec_of(cls: type) -> Codec:
    """The codec of ``cls``, made on first use."""
    codec = _codecs.get(cls)
    if codec is None:
        codec = _codecs[cls] = Codec(cls)
    return codec


#: Containers nested deeper than this are written as a note: JSON readers and writers recurse.
MAX_DEPTH = 100
#: At most this many values are written from one value (a structure that shares parts can expand
#: past any memory when written out); the rest are left out, with a note.
MAX_VALUES = 1_000_000
#: Longest ``repr`` written for a value JSON cannot hold.
REPR_LIMIT = 10_000
#: Ints with more bits than this are written as text: ``str`` refuses ints of over 4,300 digits.
_INT_BITS = 14_000
_SURROGATE = re.compile("[\ud800-\udfff]")


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON data that always encodes, as UTF-8 too; never raises.

    Mappings become objects (keys as text), lists, tuples and sets become lists, bytes are decoded,
    lone surrogates become U+FFFD, ints too long for ``str`` and non-finite floats become text, and
    anything else its ``repr`` (cut at :data:`REPR_LIMIT`). A container inside itself, one nested deeper
    than :data:`MAX_DEPTH` or values past :data:`MAX_VALUES` are written as a note in ``<…>``.
    """
    # the common cases first, without a _Writer: a report writes a few of these per case
    kind = type(value)
    if kind is str:
        return value if value.isascii() else _text(value)
    if value is None or kind is bool:
        return value
    if kind is float:
        return value if math.isfinite(value) else repr(value)
    if kind is int:
        return value if value.bit_length() <= _INT_BITS else int_text(value)
    if kind is dict or kind is list or kind is tuple:
        if not value:
            return {} if kind is dict else []
        try:
            return _plain(value, 0)
        except NotPlain:
            pass
    return _Writer().value(value, 0)


class NotPlain(Exception):
    """A value :func:`_plain` leaves to a :class:`_Writer`."""


#: :func:`_plain` takes containers at most this deep, of at most this many items each: fewer values
#: than MAX_VALUES in all, and no container inside itself.
_PLAIN_DEPTH = 3
_PLAIN_ITEMS = 64


def _plain(value: Any, depth: int) -> Any:
    """What :class:`_Writer` makes of a small dict, list or tuple of plain JSON values (the metadata of an
    evaluation, a short list), made without its bookkeeping; anything else raises :class:`NotPlain`."""
    if depth >= _PLAIN_DEPTH or len(value) > _PLAIN_ITEMS:
        raise NotPlain
    if type(value) is dict:
        written = {}
        for key, item in value.items():
            if type(key) is not str or not key.isascii():
                raise NotPlain
            kind = type(item)
            plain = kind is bool or item is None or (kind is str and item.isascii())
            written[key] = item if plain else _item(item, depth)
        return written
    return [
        item if type(item) is bool or item is None or (type(item) is str and item.isascii()) else _item(item, depth)
        for item in value
    ]


#: Floats inside ±this, and ints from -2**63 to under 2**64, are written alike by orjson and msgspec: orjson
#: writes a float of 1e16 or more as ``1e+16`` where msgspec writes ``1e16``, and refuses the ints msgspec
#: writes past 64 bits. (NaN compares false: it is outside too.)
WRITTEN_ALIKE = 1e16
_LOWEST_INT, _INT_END = -(1 << 63), 1 << 64


def as_is(value: Any, depth: int) -> None:
    """Raise :class:`NotPlain` unless ``value`` (a dict, list or tuple, at most :data:`_PLAIN_DEPTH` deep and
    :data:`_PLAIN_ITEMS` long at each level) holds only text keys and strings, None, booleans, ints and
    floats that orjson and msgspec write alike (:data:`WRITTEN_ALIKE`), and such containers: what either
    writes as :func:`jsonable`'s copy of it would be written, when it writes it at all (neither writes a
    lone surrogate)."""
    kind = type(value)
    if not (kind is dict or kind is list or kind is tuple) or depth >= _PLAIN_DEPTH or len(value) > _PLAIN_ITEMS:
        raise NotPlain
    if kind is dict:
        for key in value:
            if type(key) is not str:
                raise NotPlain
        value = value.values()
    items_as_is(value, depth)


def items_as_is(items: Iterable[Any], depth: int) -> None:
    """:func:`as_is` of each of ``items``, the items of a container at ``depth`` (plain values pass)."""
    for item in items:
        kind = type(item)
        if kind is str or item is None or kind is bool:
            continue
        if kind is float:
            if -WRITTEN_ALIKE < item < WRITTEN_ALIKE:
                continue
            raise NotPlain
        if kind is int:
            if _LOWEST_INT <= item < _INT_END:
                continue
            raise NotPlain
        if kind is dict or kind is list or kind is tuple:
            if item:
                as_is(item, depth + 1)
            continue
        raise NotPlain


def _refuse() -> Any:
    """Raise :class:`NotPlain` (from within an expression)."""
    raise NotPlain


def _item(item: Any, depth: int) -> Any:
    kind = type(item)
    if kind is int and -(1 << 62) < item < 1 << 62:
        return item
    if kind is float and math.isfinite(item):
        return item
    if kind is str:
        return _text(item)
    if kind is dict or kind is list or kind is tuple:
        return _plain(item, depth + 1) if item else {} if kind is dict else []
    raise NotPlain


class _Writer:
    """One :func:`jsonable` call: the containers open on the way down, and the values left to write."""

    def __init__(self) -> None:
        self.open: set[int] = set()
        self.left = MAX_VALUES

    def value(self, value: Any, depth: int) -> Any:
        self.left -= 1
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, str):
            return value if value.isascii() else _text(value)
        if isinstance(value, int):
            return int(value) if value.bit_length() <= _INT_BITS else int_text(value)
        if isinstance(value, float):
            return float(value) if math.isfinite(value) else repr(float(value))
        if isinstance(value, bytes | bytearray | memoryview):
            return _text(bytes(value).decode("utf-8", errors="replace"))
        if type(value) in (dict, list, tuple) or isinstance(value, Mapping | Sequence | Set):
            return self.container(value, depth)  # (str and bytes are Sequences too, but were handled above)
        return _text(short_repr(value, REPR_LIMIT))

    def container(self, value: Any, depth: int) -> Any:
        name = type(value).__name__
        if depth >= MAX_DEPTH:
            return f"<{name} nested deeper than {MAX_DEPTH} levels>"
        key = id(value)
        if key in self.open:
            return f"<{name} that contains itself>"
        self.open.add(key)
        try:
            if type(value) is dict or isinstance(value, Mapping):
                return self.mapping(value, depth + 1)
            return self.items(value, depth + 1)
        except Exception as error:  # a container whose iteration raises is still written, as a note
            return _text(f"<{name} that cannot be read: {describe_error(error)}>")
        finally:
            self.open.discard(key)

    def mapping(self, value: Mapping[Any, Any], depth: int) -> dict[str, Any]:
        written: dict[str, Any] = {}
        for key, item in value.items():
            if self.left <= 0:
                written["…"] = self.cut_note()
                break
            written[key if type(key) is str and key.isascii() else _key(key)] = self.value(item, depth)
        return written

    def items(self, value: Iterable[Any], depth: int) -> list[Any]:
        written = []
        for item in value:
            if self.left <= 0:
                written.append(self.cut_note())
                break
            written.append(self.value(item, depth))
        return written

    @staticmethod
    def cut_note() -> str:
        return f"<cut: more than {MAX_VALUES:,} values>"


def display_text(value: Any) -> str:
    """The text a report shows for a value: a string as it is, None as nothing, anything else as the
    indented JSON of :func:`jsonable` (which always encodes)."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    import json

    return json.dumps(jsonable(value), ensure_ascii=False, indent=2)


def _key(key: Any) -> str:
    """A mapping's key as JSON's text: ``str(key)``, safely (``None`` is ``"None"``, as ``str`` makes it)."""
    return _text(text_of(key) if key is not None else "None")


def _text(text: str) -> str:
    """``text`` with lone surrogates replaced (pairs of them joined), so that it encodes as UTF-8."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def tuple_of(items: Iterable[Any]) -> tuple[Any, ...]:
    """A converter for tuple fields.

    A Python function rather than the builtin ``tuple``: attrs inspects a converter's signature, and for
    a builtin that means tokenizing its text signature (9 ms at import).
    """
    return tuple(items)
