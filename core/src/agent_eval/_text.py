"""Text for people: an output as text, values and errors in one bounded line.

Every report, message and reason that shows a value it did not make goes through these helpers, so a
value of any type (or one whose ``repr`` raises) comes out as a bounded line of text.
"""

from __future__ import annotations

from typing import Any

#: What ends a shortened text.
ELLIPSIS = "…"


def as_text(output: Any) -> str:
    """The agent's output as text: strings as they are, bytes decoded, dicts and lists as JSON."""
    if isinstance(output, str):
        return output
    if output is None:
        return ""
    if isinstance(output, bytes | bytearray):
        return bytes(output).decode("utf-8", errors="replace")
    if isinstance(output, dict | list | tuple):
        import json

        try:
            return json.dumps(output, ensure_ascii=False)
        except (TypeError, ValueError):
            return str(output)
    return str(output)


def shorten(text: str | None, limit: int = 80) -> str:
    """``text`` on one line (runs of whitespace become one space), at most ``limit`` characters."""
    if not text:
        return ""
    line = " ".join(str(text).split())
    return cut(line, limit)


def cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the last being ``…`` when something was cut."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + ELLIPSIS


def short_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters; a broken ``__repr__`` gives ``<Type object>``."""
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not break the report
        text = f"<{type(value).__name__} object>"
    return cut(text, limit)


def describe_error(error: BaseException) -> str:
    """``Type: message`` on one line."""
    try:
        text = " ".join(str(error).split())
    except Exception:  # an exception whose __str__ raises is still an error to report
        text = ""
    name = type(error).__name__
    return f"{name}: {text}" if text else name


def kind_of(value: Any) -> str:
    """What ``value`` is, in words, for messages: ``a string ('x')``, ``a list``, ``nothing (null)``."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int | float):
        return f"a number ({short_repr(value, 40)})"
    if isinstance(value, str):
        return f"a string ({short_repr(value, 40)})"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__
