"""A trajectory as text for people: each tool call a numbered step with its arguments and result or error.

The console (``-v``) and the JUnit report show the same text. Every value goes through
:func:`agent_eval._text.block` or :func:`~agent_eval._text.cell`, so a tool's name, arguments or result
that hold markup or control characters come out as plain, visible text, capped.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agent_eval._agent_run import ToolCall, Usage
from agent_eval._codec import jsonable
from agent_eval._text import DISPLAY_LIMIT, block, cell, plural

#: Longest tool name shown.
NAME_LIMIT = 200
#: What marks a call that failed, before its error.
ERROR_MARK = "✗ error: "
#: What comes before a call's result.
RESULT_MARK = "→ "
#: What a call whose arguments are not valid JSON says before them.
RAW_NOTE = "(raw arguments, not valid JSON) "


def value_text(value: Any, *, indent: int | None = None) -> str:
    """A tool's arguments or result as text: a string as it is, anything else as JSON (never raising)."""
    if isinstance(value, str):
        return value
    return json.dumps(jsonable(value), ensure_ascii=False, indent=indent)


def arguments_text(call: ToolCall, limit: int = DISPLAY_LIMIT) -> str:
    """The call's arguments on one line (controls escaped), said to be raw when they are not valid JSON."""
    arguments = call.arguments
    if isinstance(arguments, str):
        return RAW_NOTE + cell(arguments, limit)
    return cell(value_text(arguments), limit) if arguments else "{}"


def outcome_text(call: ToolCall, limit: int = DISPLAY_LIMIT) -> str:
    """``✗ error: …`` for a call that failed, else ``→ result`` (several lines when the result has them)."""
    if call.error is not None:
        return ERROR_MARK + block(call.error, limit)
    if call.result is None:
        return RESULT_MARK + "(no result)"
    return RESULT_MARK + block(value_text(call.result), limit)


def step_call(call: ToolCall, limit: int = DISPLAY_LIMIT) -> str:
    """``get_warranty {"product": "kettle"}``: the tool's name and its arguments, on one line."""
    return f"{cell(call.name, NAME_LIMIT)} {arguments_text(call, limit)}"


def steps_text(calls: Sequence[ToolCall], *, indent: str = "", limit: int = DISPLAY_LIMIT) -> str:
    """Every call as ``1. name {arguments}`` and, indented under it, its result or error."""
    lines = []
    pad = indent + "   "
    for index, call in enumerate(calls):
        lines.append(f"{indent}{index + 1}. {step_call(call, limit)}")
        outcome = outcome_text(call, limit)
        lines.append(pad + outcome.replace("\n", "\n" + pad))
    return "\n".join(lines)


def calls_figure(calls: Sequence[ToolCall]) -> str:
    """``3``, or ``3 (1 failed)`` when some of the calls failed."""
    failed = sum(call.error is not None for call in calls)
    return f"{len(calls)} ({failed} failed)" if failed else str(len(calls))


def calls_count(calls: Sequence[ToolCall]) -> str:
    """``3 tool calls``, or ``3 tool calls (1 failed)``."""
    failed = sum(call.error is not None for call in calls)
    text = plural(len(calls), "tool call")
    return f"{text} ({failed} failed)" if failed else text


def format_cost(usd: float) -> str:
    """``$0.0123``, ``$12.34``; a cost too small to show in cents is ``<$0.0001``."""
    if 0 < usd < 0.0001:
        return "<$0.0001"
    return f"${usd:.4f}" if abs(usd) < 1 else f"${usd:,.2f}"


def agent_figures(usage: Usage | None, cost_usd: float | None) -> list[str]:
    """``1,234 agent tokens`` and ``$0.0123``, each when reported."""
    figures = []
    if usage is not None and usage.total_tokens:
        figures.append(f"{usage.total_tokens:,} agent tokens")
    if cost_usd is not None:
        figures.append(format_cost(cost_usd))
    return figures
