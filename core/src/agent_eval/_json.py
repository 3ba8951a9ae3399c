"""JSON text of agent-eval's data: orjson where it can, the standard library where it cannot.

Only writing: orjson reads ints beyond 64 bits as floats, so reports are read with the standard library.

orjson encodes a large report about ten times faster than ``json`` (it is C, and writes UTF-8 directly);
it refuses a few things the standard library writes — ints beyond 64 bits, for one — so those
documents go through ``json`` instead, with the same result. Data reaching here went through
:func:`agent_eval._codec.jsonable`, so both always succeed.
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def dumps(data: Any, *, indent: bool = False) -> str:
    """``data`` as JSON text: compact, or indented by two spaces; non-ASCII characters as they are."""
    try:
        return orjson.dumps(data, option=orjson.OPT_INDENT_2 if indent else 0).decode("utf-8")
    except (TypeError, orjson.JSONEncodeError):
        separators = None if indent else (",", ":")
        return json.dumps(data, ensure_ascii=False, indent=2 if indent else None, separators=separators)
