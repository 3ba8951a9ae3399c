"""The agent's tool calls as the judge is shown them: one JSON object per call, in order, each part bounded.

JSON keeps a call on its line: a result holding newlines or text laid out like another call
cannot pass for one. Marker-like text is defused with the rest of the block (see ``prompt``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent_eval import as_text
from agent_eval_judge.prompt import clip

if TYPE_CHECKING:
    from agent_eval import ToolCall

#: Each call's arguments, result or error is cut to this many characters.
FIELD_LIMIT = 4000
#: What the block says when the agent called no tool.
NO_CALLS = "(no tool calls)"

# Made once: json.dumps with options builds a new encoder on every call.
_encode = json.JSONEncoder(ensure_ascii=False, sort_keys=True, allow_nan=False).encode


def render_trajectory(calls: Sequence[ToolCall], limit: int) -> tuple[str, bool]:
    """The calls as lines of JSON, at most about ``limit`` characters in all; True when something was cut."""
    if not calls:
        return NO_CALLS, False
    lines: list[str] = []
    used = 0
    clipped = False
    for step, call in enumerate(calls, 1):
        line, cut = _line(step, call)
        if used + len(line) > limit and lines:
            lines.append(f"[... {len(calls) - step + 1} more tool calls not shown ...]")
            return "\n".join(lines), True
        if used + len(line) > limit:  # a first call longer than everything allowed: cut it like any text
            line, _ = clip(line, limit)
            cut = True
        lines.append(line)
        used += len(line) + 1
        clipped = clipped or cut
    return "\n".join(lines), clipped


def _line(step: int, call: ToolCall) -> tuple[str, bool]:
    name, name_cut = clip(str(call.name), 200)
    arguments, arguments_cut = _value(call.arguments)
    parts = ['{"step": ', str(step), ', "tool": ', _encode(name), ', "arguments": ', arguments]
    if call.error is not None:
        outcome, outcome_cut = _value(call.error)
        parts += [', "error": ', outcome, "}"]
    else:
        outcome, outcome_cut = _value(call.result)
        parts += [', "result": ', outcome, "}"]
    return "".join(parts), name_cut or arguments_cut or outcome_cut


def _value(value: Any) -> tuple[str, bool]:
    """``value`` as JSON text: itself when it is JSON and short enough, else its text (cut) as a string."""
    if not isinstance(value, str):
        try:
            text = _encode(value)
        except (TypeError, ValueError, RecursionError):  # not JSON (an object, NaN): shown as its text
            text = None
        if text is not None and len(text) <= FIELD_LIMIT:
            return text, False
        value = text if text is not None else as_text(value)
    shown, cut = clip(value, FIELD_LIMIT)
    return _encode(shown), cut
