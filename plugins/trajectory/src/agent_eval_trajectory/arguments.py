"""Comparing one call's arguments with the arguments expected of it.

Arguments are compared by their top-level keys; a value under a key is compared whole, as JSON
would: ``true`` is not ``1`` (though Python says ``True == 1``), ``1`` is ``1.0``, a list equals a
tuple with the same items, ``NaN`` equals ``NaN``. To compare many calls quickly, each set of
arguments is turned once into :data:`Items`, a frozenset of ``(key, value)`` with every value in a
hashable form for which ``==`` is that comparison; the rules are then set comparisons.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, Final

#: A call's arguments in comparable form; None for arguments kept as raw text (not valid JSON).
Items = frozenset[tuple[Any, Hashable]]

#: Tags that keep the forms of different JSON kinds apart (a list never equals a mapping).
_BOOL: Final = 0
_LIST: Final = 1
_MAP: Final = 2
_OTHER: Final = 3
_NAN: Final = (4,)


class _Opaque:
    """A value that cannot be hashed, compared with ``==`` (every one hashes alike, which is rare)."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Opaque):
            return False
        try:
            return bool(self.value == other.value)
        except Exception:  # a value whose == raises is equal to no other
            return False

    def __hash__(self) -> int:
        return 0


def form(value: Any) -> Hashable:
    """``value`` in a hashable form; two forms are equal exactly when the values are equal as JSON."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return (_BOOL, value)
    if isinstance(value, int | float):
        return _NAN if value != value else value
    if isinstance(value, Mapping):
        return (_MAP, frozenset((key, form(item)) for key, item in value.items()))
    if isinstance(value, list | tuple):
        return (_LIST, tuple(form(item) for item in value))
    try:
        hash(value)
    except TypeError:
        return _Opaque(value)
    return (_OTHER, value)


def items_of(arguments: Mapping[str, Any] | str) -> Items | None:
    """The comparable form of a call's arguments; None when they are raw text."""
    if isinstance(arguments, str):
        return None
    return frozenset((key, form(value)) for key, value in arguments.items())


def agrees(made: Items | None, expected: Items | None, rule: str) -> bool:
    """Whether arguments ``made`` satisfy ``expected`` under ``rule``.

    ``expected`` None means no arguments were given to compare with: any arguments do, raw text
    included. Raw text (``made`` None) satisfies no mapping of arguments but under ``ignore``.
    """
    if expected is None or rule == "ignore":
        return True
    if made is None:
        return False
    if rule == "exact":
        return made == expected
    if rule == "subset":
        return made <= expected
    return made >= expected
