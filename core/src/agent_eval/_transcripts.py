"""Reading chat transcripts: OpenAI chat completions and Anthropic messages, as calls, answer and tokens.

The readers return plain parts (:class:`Transcript`, :class:`Call`) that ``AgentRun.from_openai_messages``
and ``AgentRun.from_anthropic_messages`` turn into records; this module imports none of the records, so
the records' module reaches it with no import circle.

The rules, as the README states them:

- Messages may be dicts or the SDKs' objects (anything with ``model_dump()``, at any depth); the run
  keeps them as plain dicts.
- Calls keep the order they were made in (several in one message are parallel calls, in their order).
  A result is matched to its call by id; a call with no result keeps ``result=None``. A result whose id
  no earlier call has (or whose call was already answered) is a malformed transcript: ``ValueError``,
  as the providers' APIs refuse such a conversation too.
- Arguments: JSON text is parsed; text that is not a JSON object is kept as it is (``arguments_valid``
  is then False); empty text means no arguments.
- A result is its text (text parts joined with nothing between them), not parsed as JSON; content
  that is not all text is kept as plain data.
- OpenAI has no field for a failed tool: a ``tool`` message is an error when its text starts with
  ``Error:`` (the whole text is the error) or is a JSON object with a non-null ``"error"`` (its value
  is the error, as JSON text unless it is a string). Anthropic: ``is_error: true`` puts the text in
  ``error``; a server tool's result with an ``error_code`` puts that code there.
- The output is the text of the last assistant message that has text (an OpenAI refusal counts);
  ``""`` when there is none.
- Usage: OpenAI's ``prompt_tokens``/``completion_tokens`` or Anthropic's ``input_tokens`` (plus its
  cache reads and writes, which OpenAI's prompt tokens already include)/``output_tokens``, from a
  mapping or an object (a ``Usage`` too); a list of them is added up.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NamedTuple

import attrs

#: Anthropic content blocks that are calls: the client's tools, the server's tools, MCP servers' tools.
ANTHROPIC_CALLS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})


class Call(NamedTuple):
    """One tool call read from a transcript, with its outcome once its result was found."""

    name: str
    arguments: Mapping[str, Any] | str
    id: str | None
    result: Any = None
    error: str | None = None


@attrs.frozen
class Transcript:
    """What a transcript says the agent did."""

    output: str
    calls: tuple[Call, ...]
    messages: tuple[dict[str, Any], ...]
    #: (input tokens, output tokens), or None when no usage was given.
    tokens: tuple[int, int] | None


def read_openai(messages: Any, usage: Any = None) -> Transcript:
    """Read an OpenAI chat-completions transcript (``tool_calls`` and ``tool`` messages)."""
    plain = _messages(messages)
    calls = _Calls()
    output = ""
    for index, message in enumerate(plain):
        role = _role(message, index)
        if role == "assistant":
            output = _openai_text(message.get("content"), message.get("refusal")) or output
            for position, call in enumerate(_listed(message.get("tool_calls"), index, "tool_calls")):
                calls.add(_openai_call(call, index, position))
        elif role == "tool":
            calls.answer(index, message.get("tool_call_id"), "tool_call_id", *_openai_outcome(message.get("content")))
    return Transcript(output, calls.done(), plain, tokens(usage))


def read_anthropic(messages: Any, usage: Any = None) -> Transcript:
    """Read an Anthropic messages transcript (``tool_use`` and ``tool_result`` content blocks)."""
    plain = _messages(messages)
    calls = _Calls()
    output = ""
    for index, message in enumerate(plain):
        role = _role(message, index)
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        texts: list[str] = []
        for position, block in enumerate(_listed(blocks, index, "content")):
            if not isinstance(block, Mapping):
                raise ValueError(
                    f"message {index}: content block {position} must be a mapping, got {type(block).__name__}"
                )
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind in ANTHROPIC_CALLS:
                calls.add(_anthropic_call(block, index, position))
            elif isinstance(kind, str) and kind.endswith("tool_result"):
                calls.answer(index, block.get("tool_use_id"), "tool_use_id", *_anthropic_outcome(block))
        if role == "assistant":
            output = "".join(texts) or output
    return Transcript(output, calls.done(), plain, tokens(usage))


def tokens(usage: Any) -> tuple[int, int] | None:
    """(input, output) tokens of an OpenAI or Anthropic usage (mapping or object), or of a list of them."""
    if usage is None:
        return None
    if isinstance(usage, list | tuple):
        counted = [found for found in (tokens(item) for item in usage) if found is not None]
        return (sum(c[0] for c in counted), sum(c[1] for c in counted)) if counted else None
    data = plain(usage)
    fields = data if isinstance(data, Mapping) else {name: getattr(usage, name, None) for name in _USAGE_FIELDS}
    if fields.get("prompt_tokens") is not None or fields.get("completion_tokens") is not None:
        return _count(fields, "prompt_tokens"), _count(fields, "completion_tokens")
    if fields.get("input_tokens") is not None or fields.get("output_tokens") is not None:
        cached = _count(fields, "cache_creation_input_tokens") + _count(fields, "cache_read_input_tokens")
        return _count(fields, "input_tokens") + cached, _count(fields, "output_tokens")
    raise ValueError(
        f"usage must have prompt_tokens and completion_tokens (OpenAI) or input_tokens and output_tokens "
        f"(Anthropic), got {type(usage).__name__}"
    )


_USAGE_FIELDS = (
    "prompt_tokens",
    "completion_tokens",
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)


def _count(fields: Mapping[str, Any], name: str) -> int:
    value = fields.get(name)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"usage {name} must be a whole number of tokens, got {value!r}")
    return value


def plain(value: Any) -> Any:
    """``value`` with SDK objects (``model_dump()``) turned into dicts, and mappings and lists copied."""
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        value = dump()
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


def _messages(messages: Any) -> tuple[dict[str, Any], ...]:
    if not isinstance(messages, list | tuple):
        raise ValueError(f"messages must be a list of messages, got {type(messages).__name__}")
    found: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        data = plain(message)
        if not isinstance(data, dict):
            raise ValueError(f"message {index} must be a mapping with a 'role', got {type(message).__name__}")
        found.append(data)
    return tuple(found)


def _role(message: Mapping[str, Any], index: int) -> str:
    role = message.get("role")
    if not isinstance(role, str):
        raise ValueError(f"message {index} has no 'role' (a message is a mapping such as {{'role': 'user', ...}})")
    return role


def _listed(value: Any, index: int, key: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"message {index}: {key!r} must be a list, got {type(value).__name__}")
    return value


def _openai_text(content: Any, refusal: Any) -> str:
    if isinstance(content, list):
        content = "".join(
            part.get("text") or part.get("refusal") or ""
            for part in content
            if isinstance(part, Mapping) and part.get("type") in ("text", "refusal")
        )
    if isinstance(content, str) and content:
        return content
    return refusal if isinstance(refusal, str) else ""


def _openai_call(call: Any, index: int, position: int) -> Call:
    if not isinstance(call, Mapping):
        raise ValueError(f"message {index}: tool call {position} must be a mapping, got {type(call).__name__}")
    custom = call.get("custom")
    if call.get("type") == "custom" and isinstance(custom, Mapping):
        # a custom tool takes free text, not JSON: kept as text
        name, arguments = custom.get("name"), custom.get("input")
    else:
        function = call.get("function")
        function = function if isinstance(function, Mapping) else {}
        name, arguments = function.get("name"), function.get("arguments")
    if not isinstance(name, str) or not name:
        raise ValueError(f"message {index}: tool call {position} has no function name")
    return Call(name, _arguments(arguments, index, position), _id(call.get("id")))


def _anthropic_call(block: Mapping[str, Any], index: int, position: int) -> Call:
    name = block.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"message {index}: {block.get('type')} block {position} has no name")
    return Call(name, _arguments(block.get("input"), index, position), _id(block.get("id")))


def _arguments(raw: Any, index: int, position: int) -> Mapping[str, Any] | str:
    if raw is None:
        return {}
    if isinstance(raw, Mapping):
        return dict(raw)
    if not isinstance(raw, str):
        raise ValueError(
            f"message {index}: tool call {position} has arguments of type {type(raw).__name__}, "
            f"expected JSON text or a mapping"
        )
    if not raw.strip():
        return {}
    try:
        parsed = json.loads(raw)
    except ValueError:
        return raw
    return parsed if isinstance(parsed, dict) else raw


def _id(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _text(content: Any) -> Any:
    """A result's text (text parts joined); content that is not all text is kept as it is."""
    if isinstance(content, list) and all(
        isinstance(part, Mapping) and part.get("type") == "text" and isinstance(part.get("text"), str)
        for part in content
    ):
        return "".join(part["text"] for part in content)
    return content


def _openai_outcome(content: Any) -> tuple[Any, str | None]:
    text = _text(content)
    if not isinstance(text, str):
        return text, None
    if text.startswith("Error:"):
        return None, text
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict) and data.get("error") is not None:
            error = data["error"]
            return None, error if isinstance(error, str) else json.dumps(error, ensure_ascii=False)
    return text, None


def _anthropic_outcome(block: Mapping[str, Any]) -> tuple[Any, str | None]:
    content = _text(block.get("content"))
    if block.get("is_error") is True:
        return None, content if isinstance(content, str) and content else _NO_TEXT
    if isinstance(content, Mapping) and isinstance(content.get("error_code"), str):
        return None, content["error_code"]
    return content, None


_NO_TEXT = "the tool reported an error with no text"


class _Calls:
    """Calls in the order made, each answered once by the result that names its id."""

    def __init__(self) -> None:
        self._calls: list[Call] = []
        self._waiting: dict[str, list[int]] = {}
        self._answered: dict[str, int] = {}

    def add(self, call: Call) -> None:
        if call.id is not None:
            self._waiting.setdefault(call.id, []).append(len(self._calls))
        self._calls.append(call)

    def answer(self, index: int, call_id: Any, key: str, result: Any, error: str | None) -> None:
        if not isinstance(call_id, str) or not call_id:
            raise ValueError(f"message {index} is a tool result with no {key!r}: it must name the call it answers")
        waiting = self._waiting.get(call_id)
        if not waiting:
            if call_id in self._answered:
                raise ValueError(
                    f"message {index} answers tool call {call_id!r} again (message {self._answered[call_id]} did)"
                )
            raise ValueError(f"message {index} answers tool call {call_id!r}, which no earlier message made")
        position = waiting.pop(0)
        self._answered[call_id] = index
        self._calls[position] = self._calls[position]._replace(result=result, error=error)

    def done(self) -> tuple[Call, ...]:
        return tuple(self._calls)
