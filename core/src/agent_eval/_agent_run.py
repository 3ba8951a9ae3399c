"""What an agent did on a case: its answer, the tools it called, the tokens it used and what it cost."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from agent_eval._codec import ANY, codec_of, record, records, tuple_of

if TYPE_CHECKING:
    from agent_eval._transcripts import Transcript


@attrs.frozen
class Usage:
    """Tokens an agent (or a judge) used; two usages add up with ``+``."""

    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (with ``total_tokens``)."""
        return codec_of(Usage).to_dict(self)

    def _derived(self) -> dict[str, Any]:
        return {"total_tokens": self.total_tokens}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Usage:
        """Load what :meth:`to_dict` wrote."""
        usage: Usage = codec_of(cls).from_dict(data)
        return usage


@attrs.frozen
class ToolCall:
    """One call of a tool, in the order the agent made it.

    ``arguments`` is a mapping of the call's arguments; arguments that came as text that is not valid
    JSON are kept as that raw ``str`` (never dropped). ``error`` is set when the call failed: it is still
    a call that was made.
    """

    name: str
    arguments: Mapping[str, Any] | str = attrs.field(factory=dict, metadata=ANY)
    result: Any = attrs.field(default=None, kw_only=True, metadata=ANY)
    error: str | None = attrs.field(default=None, kw_only=True)
    id: str | None = attrs.field(default=None, kw_only=True)

    @property
    def arguments_valid(self) -> bool:
        """False when the arguments could not be read as a mapping (they are kept as raw text)."""
        return not isinstance(self.arguments, str)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the call."""
        return codec_of(ToolCall).to_dict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolCall:
        """Load what :meth:`to_dict` wrote."""
        call: ToolCall = codec_of(cls).from_dict(data)
        return call


@attrs.frozen
class AgentRun:
    """What an agent may return instead of its bare answer: the answer and how it got there.

    ``output`` is what evaluators grade, as a bare answer would be.
    """

    output: Any
    tool_calls: tuple[ToolCall, ...] = attrs.field(
        default=(), converter=tuple_of, kw_only=True, metadata=records(ToolCall)
    )
    messages: tuple[Any, ...] = attrs.field(default=(), converter=tuple_of, kw_only=True)
    usage: Usage | None = attrs.field(default=None, kw_only=True, metadata=record(Usage))
    cost_usd: float | None = attrs.field(default=None, kw_only=True)
    metadata: Mapping[str, Any] = attrs.field(factory=dict, kw_only=True)

    @classmethod
    def from_openai_messages(cls, messages: Sequence[Any], *, usage: Any = None) -> AgentRun:
        """A run read from an OpenAI chat-completions transcript: ``tool_calls``, ``tool`` replies, last answer.

        ``messages`` may be dicts or the ``openai`` SDK's objects; ``usage`` a :class:`Usage`, an OpenAI
        usage (``prompt_tokens``, ``completion_tokens``), or a list of them, added up. A malformed
        transcript raises ``ValueError`` naming the message. The README's "Agent runs" gives every rule.
        """
        from agent_eval._transcripts import read_openai

        return cls._of(read_openai(messages, usage))

    @classmethod
    def from_anthropic_messages(cls, messages: Sequence[Any], *, usage: Any = None) -> AgentRun:
        """A run read from an Anthropic messages transcript: ``tool_use`` and ``tool_result`` blocks, last answer.

        ``messages`` may be dicts or the ``anthropic`` SDK's objects; ``usage`` a :class:`Usage`, an
        Anthropic usage (``input_tokens``, ``output_tokens``), or a list of them, added up. A malformed
        transcript raises ``ValueError`` naming the message.
        """
        from agent_eval._transcripts import read_anthropic

        return cls._of(read_anthropic(messages, usage))

    @classmethod
    def _of(cls, transcript: Transcript) -> AgentRun:
        calls = [ToolCall(c.name, c.arguments, result=c.result, error=c.error, id=c.id) for c in transcript.calls]
        usage = None if transcript.tokens is None else Usage(*transcript.tokens)
        return cls(transcript.output, tool_calls=calls, messages=transcript.messages, usage=usage)
