"""Where two answers first differ, told in a few words."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

#: Characters shown on each side of the first difference between two texts.
CONTEXT = 20


def text_difference(expected: str, got: str, *, ignore_case: bool = False) -> int | None:
    """The index of the first character where the texts differ, or None when they are equal."""
    if (expected.casefold() == got.casefold()) if ignore_case else (expected == got):
        return None
    for index, (want, have) in enumerate(zip(expected, got, strict=False)):
        if want != have and not (ignore_case and want.casefold() == have.casefold()):
            return index
    # Equal as far as the shorter goes, or equal only once folded as a whole ("ß" and "ss").
    return min(len(expected), len(got))


def describe_text_difference(expected: str, got: str, index: int) -> str:
    """``differs at character N: expected '…' got '…'``, both sides cut around ``index``."""
    where = f"character {index + 1}"
    line = expected.count("\n", 0, index) + 1
    if line > 1:
        where += f" (line {line}, column {index - expected.rfind(chr(10), 0, index)})"
    ends = " (ends)" if index >= len(got) else ""
    return f"differs at {where}: expected {excerpt(expected, index)} got {excerpt(got, index)}{ends}"


def excerpt(text: str, index: int) -> str:
    """``text`` around ``index``, quoted, with an ellipsis where it was cut."""
    start, end = max(0, index - CONTEXT), min(len(text), index + CONTEXT)
    return repr(("…" if start else "") + text[start:end] + ("…" if end < len(text) else ""))


def value_difference(expected: Any, got: Any, path: str = "$") -> str | None:
    """``differs at $.a[2]: expected 3 got 4`` for the first difference, or None when equal."""
    if isinstance(expected, Mapping) and isinstance(got, Mapping):
        return _mapping_difference(expected, got, path)
    if isinstance(expected, list | tuple) and isinstance(got, list | tuple):
        for index, (want, have) in enumerate(zip(expected, got, strict=False)):
            found = value_difference(want, have, f"{path}[{index}]")
            if found:
                return found
        if len(expected) != len(got):
            return f"differs at {path}: expected {len(expected)} items got {len(got)}"
        return None
    if _same(expected, got):
        return None
    return f"differs at {path}: expected {show(expected)} got {show(got)}"


def _mapping_difference(expected: Mapping[Any, Any], got: Mapping[Any, Any], path: str) -> str | None:
    for key, want in expected.items():
        if key not in got:
            return f"differs at {_step(path, key)}: expected {show(want)} got nothing"
        found = value_difference(want, got[key], _step(path, key))
        if found:
            return found
    for key, have in got.items():
        if key not in expected:
            return f"differs at {_step(path, key)}: expected nothing got {show(have)}"
    return None


def _same(expected: Any, got: Any) -> bool:
    # In JSON, true is not 1 (though Python says True == 1).
    if isinstance(expected, bool) or isinstance(got, bool):
        return type(expected) is type(got) and expected == got
    return bool(expected == got)


def _step(path: str, key: Any) -> str:
    return f"{path}.{key}" if isinstance(key, str) and key.isidentifier() else f"{path}[{key!r}]"


def show(value: Any, limit: int = 40) -> str:
    """A value as JSON text (``repr`` when it has none), cut to ``limit`` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
