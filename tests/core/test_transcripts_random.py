"""Random transcripts (seeded): what the adapters read back is the calls that were written, in order."""

from __future__ import annotations

import json
import random
from typing import Any

import anthropic.types
import pytest
from openai.types.chat import ChatCompletionMessage

from agent_eval import AgentRun

NAMES = ["search", "get_warranty", "lookup", "send_email", "calc"]
WORDS = ["kettle", "toaster", "2 years", "", "ünïcode", 'quote"d', "Error", "{", "null"]


def value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(7 if depth < 2 else 4)
    if kind == 0:
        return rng.choice(WORDS)
    if kind == 1:
        return rng.randint(-5, 10**6)
    if kind == 2:
        return rng.choice([True, False, None, 1.5])
    if kind == 3:
        return rng.choice(WORDS) + str(rng.random())
    if kind in (4, 5):
        return {rng.choice(WORDS) or "k": value(rng, depth + 1) for _ in range(rng.randrange(3))}
    return [value(rng, depth + 1) for _ in range(rng.randrange(3))]


def planned_call(rng: random.Random) -> dict[str, Any]:
    """One call to write: its arguments (a mapping, or broken JSON text), and a result or an error."""
    arguments: Any = {f"a{i}": value(rng) for i in range(rng.randrange(4))}
    if rng.random() < 0.15:
        arguments = json.dumps(arguments)[:-1] or "{"  # cut short: not JSON
    if rng.random() < 0.2:
        return {"name": rng.choice(NAMES), "arguments": arguments, "result": None, "error": f"Error: {value(rng)}"}
    result = rng.choice([json.dumps(value(rng)), rng.choice(WORDS) or "ok", "line one\nline two"])
    return {"name": rng.choice(NAMES), "arguments": arguments, "result": result, "error": None}


def plan(rng: random.Random) -> tuple[list[list[dict[str, Any]]], str]:
    steps = [[planned_call(rng) for _ in range(rng.randint(1, 4))] for _ in range(rng.randrange(5))]
    return steps, f"answer {rng.random()}"


def openai_messages(rng: random.Random, steps: list[list[dict[str, Any]]], answer: str) -> list[Any]:
    messages: list[Any] = [{"role": "system", "content": "sys"}, {"role": "user", "content": "q"}]
    number = 0
    for step in steps:
        ids = []
        calls = []
        for call in step:
            number += 1
            ids.append(f"call_{number}")
            text = call["arguments"] if isinstance(call["arguments"], str) else json.dumps(call["arguments"])
            calls.append({"id": ids[-1], "type": "function", "function": {"name": call["name"], "arguments": text}})
        content = rng.choice([None, "", "thinking aloud"])
        message: Any = {"role": "assistant", "content": content, "tool_calls": calls}
        if rng.random() < 0.5:
            message = ChatCompletionMessage.model_validate(message)  # the SDK's object, as a client returns it
        messages.append(message)
        order = list(range(len(step)))
        rng.shuffle(order)  # results may come back in any order: they are matched by id
        for index in order:
            call = step[index]
            text = call["error"] if call["error"] is not None else call["result"]
            content = text if rng.random() < 0.7 else [{"type": "text", "text": text}]
            messages.append({"role": "tool", "tool_call_id": ids[index], "content": content})
    final = (
        answer if rng.random() < 0.5 else [{"type": "text", "text": answer[:3]}, {"type": "text", "text": answer[3:]}]
    )
    messages.append({"role": "assistant", "content": final})
    return messages


def anthropic_messages(rng: random.Random, steps: list[list[dict[str, Any]]], answer: str) -> list[Any]:
    messages: list[Any] = [{"role": "user", "content": "q"}]
    number = 0
    for step in steps:
        ids = []
        blocks: list[Any] = [{"type": "text", "text": "thinking aloud"}] if rng.random() < 0.5 else []
        for call in step:
            number += 1
            ids.append(f"toolu_{number}")
            arguments = call["arguments"] if isinstance(call["arguments"], dict) else {"raw": call["arguments"]}
            blocks.append({"type": "tool_use", "id": ids[-1], "name": call["name"], "input": arguments})
        if rng.random() < 0.5:
            blocks = [anthropic.types.ToolUseBlock.model_validate(b) if b["type"] == "tool_use" else b for b in blocks]
        messages.append({"role": "assistant", "content": blocks})
        results = []
        for index, call in enumerate(step):
            failed = call["error"] is not None
            text = call["error"] if failed else call["result"]
            content = text if rng.random() < 0.7 else [{"type": "text", "text": text}]
            results.append({"type": "tool_result", "tool_use_id": ids[index], "content": content, "is_error": failed})
        rng.shuffle(results)
        messages.append({"role": "user", "content": results})
    messages.append({"role": "assistant", "content": [{"type": "text", "text": answer}]})
    return messages


def made(run: AgentRun) -> list[tuple[Any, ...]]:
    return [(c.name, c.arguments, c.result, c.error) for c in run.tool_calls]


@pytest.mark.parametrize("seed", range(60))
def test_openai_transcripts_read_back_as_the_calls_written(seed: int) -> None:
    rng = random.Random(seed)
    steps, answer = plan(rng)
    run = AgentRun.from_openai_messages(openai_messages(rng, steps, answer))
    expected = [(c["name"], c["arguments"], c["result"], c["error"]) for step in steps for c in step]
    assert made(run) == expected
    assert [c.arguments_valid for c in run.tool_calls] == [isinstance(e[1], dict) for e in expected]
    assert run.output == answer


@pytest.mark.parametrize("seed", range(60))
def test_anthropic_transcripts_read_back_as_the_calls_written(seed: int) -> None:
    rng = random.Random(seed)
    steps, answer = plan(rng)
    run = AgentRun.from_anthropic_messages(anthropic_messages(rng, steps, answer))
    expected = [
        (
            c["name"],
            c["arguments"] if isinstance(c["arguments"], dict) else {"raw": c["arguments"]},
            c["result"],
            c["error"],
        )
        for step in steps
        for c in step
    ]
    assert made(run) == expected
    assert run.output == answer
