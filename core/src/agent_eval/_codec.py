"""Records to JSON-ready dicts and back, from one description: the attrs fields of the record.

A field's ``metadata`` says how its value travels: :data:`ANY` (any Python value, made JSON-safe on
the way out by :func:`jsonable`), :func:`records` (a tuple of records of another class),
:func:`record` (one record, or None), or nothing (a plain JSON value as it is). A record class may add
read-only keys to what it writes (``passed``, counts) through ``_derived``: they are written, never
read back.

Reading checks each value against its field's annotation (``str``, ``float | None``, a ``Literal``, a
mapping), so a file that holds ``"score": "high"`` is refused with the field's path instead of
becoming a record that breaks whatever uses it.
"""

from __future__ import annotations

import math
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from agent_eval._text import kind_of


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
        self._in: list[tuple[str, Callable[[Any, str], Any] | None, _Check | None, Any]] = []
        for field in fields:
            if not field.init:
                continue
            kind = field.metadata.get("codec")
            self._out.append((field.name, _writer(kind, field.metadata)))
            default = field.default
            if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
                default = default.factory()
            check = None if kind in ("any", "records", "record") else _check_of(hints.get(field.name, Any))
            self._in.append((field.name, _reader(kind, field.metadata), check, default))

    def to_dict(self, record: Any, derived: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The record as a JSON-ready dict; ``derived`` keys are added after the fields."""
        data = {name: write(getattr(record, name)) for name, write in self._out}
        if derived:
            data.update(derived)
        return data

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


def _plain(value: Any) -> Any:
    return value


def _writer(kind: str | None, metadata: Mapping[str, Any]) -> Callable[[Any], Any]:
    if kind in ("any", "mapping"):
        return jsonable
    if kind == "records":
        return _records_out
    if kind == "record":
        return _record_out
    return _plain


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


_codecs: dict[type, Codec] = {}


def codec_of(cls: type) -> Codec:
    """The codec of ``cls``, made on first use."""
    codec = _codecs.get(cls)
    if codec is None:
        codec = _codecs[cls] = Codec(cls)
    return codec


def jsonable(value: Any) -> Any:
    """``value`` with everything JSON cannot hold replaced by its ``repr``."""
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, Mapping):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return [jsonable(item) for item in value]
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", errors="replace")
    return repr(value)


def tuple_of(items: Iterable[Any]) -> tuple[Any, ...]:
    """A converter for tuple fields.

    A Python function rather than the builtin ``tuple``: attrs inspects a converter's signature, and for
    a builtin that means tokenizing its text signature (9 ms at import).
    """
    return tuple(items)
