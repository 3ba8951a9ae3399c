"""Checking evaluator options, and showing phrases in reasons."""

from __future__ import annotations

from collections.abc import Sequence

from agent_eval import short_repr

#: How many phrases a reason lists before it says how many more there are.
LISTED = 5


def flag(option: str, value: object) -> bool:
    """``value`` when it is a bool; anything else is a TypeError naming the option."""
    if not isinstance(value, bool):
        raise TypeError(f"{option} must be true or false, got {short_repr(value, 80)}")
    return value


def phrases(option: str, value: object) -> tuple[str, ...]:
    """A string as one phrase, or a list or tuple of non-empty strings."""
    if isinstance(value, str):
        items: tuple[object, ...] = (value,)
    elif isinstance(value, list | tuple):
        items = tuple(value)
    else:
        raise TypeError(f"{option} must be a string or a list of strings, got {short_repr(value, 80)}{_hint(value)}")
    checked = []
    for item in items:
        if not isinstance(item, str):
            shown = f"{short_repr(item, 80)}{_hint(item)} in {short_repr(value, 80)}"
            raise TypeError(f"{option} must be strings, got {shown}")
        if not item:
            raise ValueError(f"{option} must not be empty strings, got {short_repr(value, 80)}")
        checked.append(item)
    return tuple(checked)


def _hint(value: object) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f" (a number; quote it to search for the text: '{value}')"
    return ""


def quote(text: str, limit: int = 40) -> str:
    """``text`` quoted as Python would, cut inside the quotes when longer than ``limit``."""
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def listing(items: Sequence[str]) -> str:
    """Quoted items, each once, in order; past the first few, how many more."""
    unique = list(dict.fromkeys(items))
    shown = ", ".join(quote(item) for item in unique[:LISTED])
    rest = len(unique) - LISTED
    return f"{shown} and {rest} more" if rest > 0 else shown
