"""Checking the evaluators' options: each mistake is one sentence naming the value and the fix.

Only the standard library at import: the factories import this to validate a suite before any
agent runs, and listing evaluators imports the factories.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

MODES = ("strict", "unordered", "subset", "superset")
ARGUMENT_RULES = ("exact", "ignore", "subset", "superset")
#: ``tool_called`` leaves ``args`` out to accept any arguments, so it has no ``ignore``.
CALL_ARGUMENT_RULES = ("exact", "subset", "superset")
EXPECTED_KEYS = ("name", "args")

#: Characters of a value an error message shows.
SHOWN = 80


class Expected(NamedTuple):
    """One call expected: a tool's name and, unless None (any will do), its arguments."""

    name: str
    args: Mapping[str, Any] | None = None


def shown(value: object) -> str:
    """``repr(value)``, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def did_you_mean(value: str, choices: Sequence[str]) -> str:
    """`` Did you mean 'x'?`` for the closest choice, or nothing."""
    import difflib

    close = difflib.get_close_matches(value, list(choices), n=1, cutoff=0.6)
    return f" Did you mean {close[0]!r}?" if close else ""


def tool_name(option: str, value: object) -> str:
    """A tool's name: a non-empty string."""
    if not isinstance(value, str):
        raise TypeError(f"{option} must be a tool's name (a string), got {shown(value)}")
    if not value:
        raise ValueError(f"{option} must be a tool's name, got an empty string")
    return value


def choice(option: str, value: object, choices: Sequence[str], *, kind: str = "", hint: str = "") -> str:
    """One of ``choices``; an unknown one names the closest. ``kind`` names what they are in messages."""
    listed = ", ".join(choices)
    if not isinstance(value, str):
        raise TypeError(f"{option} must be one of {listed}{hint}, got {shown(value)}")
    if value not in choices:
        close = did_you_mean(value, choices)
        raise ValueError(f"unknown {kind or option} {value!r}{hint}.{close} Choose one of: {listed}")
    return value


def whole(option: str, value: object, meaning: str) -> int:
    """A whole number of at least 0 (not a bool, not 2.5)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{option} must be a whole number ({meaning}), got {shown(value)}")
    if value < 0:
        raise ValueError(f"{option} must be at least 0 ({meaning}), got {value}")
    return value


def amount(option: str, value: object, meaning: str, *, positive: bool = False) -> float:
    """A finite number, at least 0 (more than 0 when ``positive``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{option} must be a number ({meaning}), got {shown(value)}")
    if not math.isfinite(value):
        raise ValueError(f"{option} must be a finite number ({meaning}), got {shown(value)}")
    if value < 0 or (positive and value == 0):
        bound = "more than 0" if positive else "at least 0"
        raise ValueError(f"{option} must be {bound} ({meaning}), got {shown(value)}")
    return float(value)


def arguments(option: str, value: object) -> dict[str, Any] | None:
    """None (no arguments to compare) or a mapping of argument names to values."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(
            f"{option} must be a mapping of argument names to values, such as {{q: kettle}}, got {shown(value)}"
        )
    for key in value:
        if not isinstance(key, str):
            raise TypeError(f"{option} must have strings as argument names, got {shown(key)} in {shown(value)}")
    return dict(value)


def expected_calls(value: object) -> tuple[Expected, ...]:
    """The calls ``trajectory_match`` expects: mappings ``{name, args}``, bare names, or ``ToolCall``s."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        single = " (one call goes in a list too)" if isinstance(value, Mapping) else ""
        raise TypeError(
            f"expected must be a list of calls such as [{{name: search, args: {{q: kettle}}}}]{single}, "
            f"got {shown(value)}"
        )
    return tuple(_expected_call(position, item) for position, item in enumerate(value, start=1))


def _expected_call(position: int, item: object) -> Expected:
    label = f"expected call {position}"
    if isinstance(item, str):
        return Expected(tool_name(f"{label}'s name", item))
    if isinstance(item, Mapping):
        return _expected_mapping(label, item)
    from agent_eval import ToolCall

    if isinstance(item, ToolCall):
        if isinstance(item.arguments, str):
            raise ValueError(f"{label} ({item.name}) has arguments that are not valid JSON: {shown(item.arguments)}")
        return Expected(tool_name(f"{label}'s name", item.name), dict(item.arguments))
    raise TypeError(f"{label} must be a mapping such as {{name: search, args: {{q: kettle}}}}, got {shown(item)}")


def _expected_mapping(label: str, item: Mapping[Any, Any]) -> Expected:
    for key in item:
        if key not in EXPECTED_KEYS:
            hint = did_you_mean(key, EXPECTED_KEYS) if isinstance(key, str) else ""
            raise ValueError(f"{label} has an unknown key {shown(key)}.{hint} A call has: name, args")
    if "name" not in item:
        raise ValueError(f"{label} has no name: give each call one, such as {{name: search}}, got {shown(dict(item))}")
    name = tool_name(f"{label}'s name", item["name"])
    return Expected(name, arguments(f"{label}'s args ({name})", item.get("args")))
