"""How ``calibrate`` and ``review`` show what people and agents wrote: safe JSON, and text on one line."""

from __future__ import annotations

import json
import re
from typing import Any

# A Python string may hold a lone surrogate (from a JSON escape such as "\ud800"): no encoding writes one.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# Controls, and the format characters that reorder or hide text (bidirectional overrides, zero widths).
_INVISIBLE = re.compile("[\x00-\x1f\x7f-\x9f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def dumps(data: Any, *, indent: int | None = None) -> str:
    """``data`` as JSON with non-ASCII text as it is, but lone surrogates escaped (so any encoding writes it)."""
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, indent=indent)
    return _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def visible(value: Any, limit: int = 80) -> str:
    """``value`` as text on one line: controls and invisible characters as escapes, cut to ``limit``."""
    text = value if isinstance(value, str) else str(value)
    text = _INVISIBLE.sub(lambda found: found.group().encode("unicode_escape").decode("ascii"), text)
    text = _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def quoted(name: str, limit: int = 60) -> str:
    """A case's name for a message: in quotes, on one line."""
    return "'" + visible(name, limit) + "'"
