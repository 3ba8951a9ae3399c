"""Calls and arguments as reasons show them: as JSON, cut short."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

#: Characters of a call's arguments a reason shows; longer ones end in an ellipsis.
ARGUMENTS_SHOWN = 60
#: Characters of a tool's name a reason shows.
NAME_SHOWN = 40

NOT_JSON = "arguments not valid JSON"


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending in an ellipsis when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def show_name(name: str) -> str:
    """A tool's name, cut short."""
    return clip(name, NAME_SHOWN)


def show_arguments(arguments: Mapping[str, Any] | str) -> str:
    """``{"q": "kettle"}`` for a mapping; raw text (invalid JSON) quoted as a string."""
    if isinstance(arguments, str):
        return clip(repr(arguments), ARGUMENTS_SHOWN)
    try:
        text = json.dumps(dict(arguments), ensure_ascii=False, default=repr)
    except (TypeError, ValueError):  # keys that are not strings, or values JSON cannot hold
        text = repr(dict(arguments))
    return clip(text, ARGUMENTS_SHOWN)


def show_call(name: str, arguments: Mapping[str, Any] | str | None) -> str:
    """``search({"q": "kettle"})``, ``search()`` without arguments, the bare name when none are given."""
    if arguments is None:
        return show_name(name)
    if not arguments:
        return f"{show_name(name)}()"
    shown = f"{show_name(name)}({show_arguments(arguments)})"
    return f"{shown} ({NOT_JSON})" if isinstance(arguments, str) else shown


def times(count: int) -> str:
    """``1 time``, ``2 times``."""
    return f"{count} time" if count == 1 else f"{count} times"


def calls(count: int) -> str:
    """``1 call``, ``2 calls``."""
    return f"{count} call" if count == 1 else f"{count} calls"
