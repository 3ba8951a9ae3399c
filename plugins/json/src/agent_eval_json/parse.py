"""Reading an agent's output as JSON, and saying precisely why it is not."""

from __future__ import annotations

import json
import re
from typing import Any

import attrs

from agent_eval import as_text

#: Characters shown on each side of a parse error.
CONTEXT = 12

_FENCE = re.compile(r"\A\s*```(?:json)?[ \t]*\r?\n(.*?)\r?\n[ \t]*```\s*\Z", re.DOTALL | re.IGNORECASE)
_FENCE_START = re.compile(r"\A\s*```")


@attrs.frozen
class Parsed:
    """The output as a JSON value, or why it is not one."""

    value: Any = None
    error: str | None = None
    fenced: bool = False


class _NotJson(ValueError):
    """A constant Python's parser accepts but JSON does not (NaN, Infinity)."""


def parse_output(output: Any, *, allow_fence: bool = False) -> Parsed:
    """Parse ``output``: dicts and lists are JSON already; anything else is parsed as text."""
    if isinstance(output, dict | list):
        return Parsed(output)
    text = as_text(output)
    if allow_fence:
        fence = _FENCE.match(text)
        if fence:
            parsed = parse_text(fence.group(1))
            return attrs.evolve(parsed, fenced=True)
    parsed = parse_text(text)
    if parsed.error and not allow_fence and _FENCE_START.match(text):
        return attrs.evolve(
            parsed, error=f"{parsed.error} (the output is in a ``` fence; allow_fence=True accepts that)"
        )
    return parsed


def parse_text(text: str) -> Parsed:
    """Parse ``text`` as strict JSON."""
    if not text.strip():
        return Parsed(error="invalid JSON: the output is empty")
    try:
        return Parsed(json.loads(text, parse_constant=_reject_constant))
    except json.JSONDecodeError as error:
        near = _excerpt(text, error.pos)
        return Parsed(error=f"invalid JSON: {error.msg} at line {error.lineno} column {error.colno} near {near}")
    except _NotJson as error:
        return Parsed(error=f"invalid JSON: {error}")
    except RecursionError:
        return Parsed(error="invalid JSON: nested too deeply to read")
    except ValueError as error:  # an integer with more digits than Python converts
        # The message ends with advice for Python programmers ("; use sys.set_int_max_str_digits()").
        return Parsed(error=f"invalid JSON: {str(error).split(';')[0]}")


def _reject_constant(name: str) -> Any:
    raise _NotJson(f"{name} is not a JSON value")


def _excerpt(text: str, index: int) -> str:
    start, end = max(0, index - CONTEXT), min(len(text), index + CONTEXT + 1)
    return repr(("…" if start else "") + text[start:end] + ("…" if end < len(text) else ""))
