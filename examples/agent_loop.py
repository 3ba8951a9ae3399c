"""A tiny tool-using agent loop, and how to test its wiring with a scripted model (no network).

The loop sends the conversation to the model; when the model asks for a tool, the tool runs
and its result goes back into the conversation; when the model answers with text, the loop ends.
``tests/core/test_testing.py`` drives it with ``agent_eval.testing.ScriptedModel``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from agent_eval.testing import ModelTurn

Model = Callable[[list[dict[str, Any]]], ModelTurn]
Tool = Callable[..., Any]


def run_agent_loop(question: str, model: Model, tools: Mapping[str, Tool], *, max_steps: int = 8) -> str:
    """Answer ``question`` with ``model``, running the ``tools`` it asks for."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        turn = model(messages)
        if turn.finished:
            return turn.text or ""
        messages.append({"role": "assistant", "tool_calls": [call.name for call in turn.tool_calls]})
        for call in turn.tool_calls:
            result = tools[call.name](**call.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})
    raise RuntimeError(f"the model did not answer within {max_steps} steps")


WARRANTIES = {"kettle": "2 years, extendable to 4"}


def get_warranty(product: str) -> str:
    """The warranty of a product."""
    return WARRANTIES.get(product, "unknown")
