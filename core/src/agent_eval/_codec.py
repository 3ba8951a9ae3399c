"""Records to JSON-ready dicts and back, from one description: the attrs fields of the record.

A field's ``metadata`` says how its value travels: :data:`ANY` (any Python value, made JSON-safe on
the way out by :func:`jsonable`), :func:`records` (a tuple of records of another class), or nothing (a
plain JSON value as it is). A record class may add read-only keys to what it writes (``passed``,
counts) through ``_derived``: they are written, never read back.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

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
        self._out: list[tuple[str, Callable[[Any], Any]]] = []
        self._in: list[tuple[str, Callable[[Any], Any] | None, Any]] = []
        for field in fields:
            if not field.init:
                continue
            kind = field.metadata.get("codec")
            self._out.append((field.name, _writer(kind, field.metadata)))
            default = field.default
            if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
                default = default.factory()
            self._in.append((field.name, _reader(kind, field.metadata), default))

    def to_dict(self, record: Any, derived: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The record as a JSON-ready dict; ``derived`` keys are added after the fields."""
        data = {name: write(getattr(record, name)) for name, write in self._out}
        if derived:
            data.update(derived)
        return data

    def from_dict(self, data: Mapping[str, Any]) -> Any:
        """A record from what :meth:`to_dict` wrote; missing keys take the field's default."""
        if not isinstance(data, Mapping):
            raise TypeError(f"expected an object for a {self.cls.__name__}, got {type(data).__name__}")
        values = {}
        for name, read, default in self._in:
            if name in data:
                value = data[name]
                values[name] = read(value) if read is not None and value is not None else value
            elif default is not attrs.NOTHING:
                values[name] = default
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


def _reader(kind: str | None, metadata: Mapping[str, Any]) -> Callable[[Any], Any] | None:
    if kind == "mapping":
        return _mapping
    if kind == "records":
        inner = codec_of(metadata["class"])
        return lambda items: tuple(inner.from_dict(item) for item in _sequence(items))
    if kind == "record":
        return codec_of(metadata["class"]).from_dict
    return None


def _mapping(value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"expected an object, got {type(value).__name__}")
    return dict(value)


def _sequence(value: Any) -> Sequence[Any]:
    if not isinstance(value, list | tuple):
        raise TypeError(f"expected a list, got {type(value).__name__}")
    return value


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
