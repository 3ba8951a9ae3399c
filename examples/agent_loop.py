"""A tiny tool-using agent loop, and how to test its wiring with a scripted model (no network).

The loop sends the conversation to the model; when the model asks for tools, they run and their
results go back into the conversation; when the model answers with text, the loop ends. The
conversation is kept in OpenAI's chat-completions shape, so the loop returns
``AgentRun.from_openai_messages(messages)``: the answer and the tool calls it took, which the
trajectory evaluators grade. ``tests/core/test_testing.py`` drives it with
``agent_eval.testing.ScriptedModel``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from agent_eval import AgentRun, ToolCall
from agent_eval.testing import ModelTurn

Model = Callable[[list[dict[str, Any]]], ModelTurn]
Tool = Callable[..., Any]


def run_agent_loop(question: str, model: Model, tools: Mapping[str, Tool], *, max_steps: int = 8) -> AgentRun:
    """Answer ``question`` with ``model``, running the ``tools`` it asks for."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    for _ in range(max_steps):
        turn = model(messages)
        if turn.finished:
            messages.append({"role": "assistant", "content": turn.text or ""})
            return AgentRun.from_openai_messages(messages)
        messages.append({"role": "assistant", "content": turn.text, "tool_calls": [_sent(c) for c in turn.tool_calls]})
        for call in turn.tool_calls:
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": _run(tools, call.name, call.arguments)}
            )
    raise RuntimeError(f"the model did not answer within {max_steps} steps")


def _sent(call: ToolCall) -> dict[str, Any]:
    """A call as the model sent it: its arguments as JSON text."""
    arguments = call.arguments if isinstance(call.arguments, str) else json.dumps(dict(call.arguments))
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": arguments}}


def _run(tools: Mapping[str, Tool], name: str, arguments: Any) -> str:
    """What goes back to the model: the result as JSON, or ``Error: ...`` so that it can recover."""
    try:
        return json.dumps(tools[name](**arguments))
    except Exception as error:
        return f"Error: {type(error).__name__}: {error}"


WARRANTIES = {"kettle": "2 years, extendable to 4"}


def get_warranty(product: str) -> str:
    """The warranty of a product."""
    return WARRANTIES.get(product, "unknown")
