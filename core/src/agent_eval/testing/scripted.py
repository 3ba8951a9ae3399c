"""Scripted stand-ins for an agent and for a chat model, for deterministic tests."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import attrs

from agent_eval._agent_run import ToolCall

_NO_DEFAULT: Any = object()


@attrs.frozen
class AgentCall:
    """One call an agent received."""

    input: Any
    ctx: Any


class ScriptedAgent:
    """An agent that answers from a table (input → answer) or a sequence, and records its calls.

    An answer that is an exception instance is raised instead of returned, so
    failures can be scripted too. ``delay`` makes each answer take that long.

    >>> agent = ScriptedAgent({"Say hello": "hello there"})
    >>> agent.calls  # filled as the suite runs
    []
    """

    def __init__(
        self, answers: Mapping[Any, Any] | Iterable[Any], *, default: Any = _NO_DEFAULT, delay: float = 0.0
    ) -> None:
        self._table: Mapping[Any, Any] | None = answers if isinstance(answers, Mapping) else None
        self._sequence: Iterator[Any] | None = None if self._table is not None else iter(list(answers))
        self._default = default
        self.delay = delay
        self.calls: list[AgentCall] = []

    async def __call__(self, input: Any, ctx: Any = None) -> Any:
        self.calls.append(AgentCall(input, ctx))
        if self.delay:
            await asyncio.sleep(self.delay)
        answer = self._next(input)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def _next(self, input: Any) -> Any:
        if self._table is not None:
            try:
                return self._table[input]
            except (KeyError, TypeError):
                if self._default is not _NO_DEFAULT:
                    return self._default
                raise LookupError(f"ScriptedAgent has no answer for input {input!r}") from None
        assert self._sequence is not None
        try:
            return next(self._sequence)
        except StopIteration:
            if self._default is not _NO_DEFAULT:
                return self._default
            raise LookupError(f"ScriptedAgent ran out of answers after {len(self.calls) - 1} calls") from None


_ids = itertools.count(1)


def _next_id() -> str:
    return f"call_{next(_ids)}"


def _with_ids(calls: Iterable[ToolCall]) -> tuple[ToolCall, ...]:
    """The calls, each without an id given the next ``call_N`` (a model's calls always carry one)."""
    return tuple(call if call.id is not None else attrs.evolve(call, id=_next_id()) for call in calls)


@attrs.frozen
class ModelTurn:
    """What a chat model answers in one step: text, tool calls, or both."""

    text: str | None = None
    #: ``agent_eval.ToolCall``s; one without an ``id`` is given the next ``call_N``.
    tool_calls: tuple[ToolCall, ...] = attrs.field(default=(), converter=_with_ids)

    @property
    def finished(self) -> bool:
        """True when the model asked for no tool: the agent loop should stop."""
        return not self.tool_calls


class ScriptedModel:
    """A stand-in for a chat model: returns scripted turns in order and records what it was sent.

    Drive an agent loop with it to test the loop's wiring (a tool runs on a
    tool-call step, the loop stops on a text step) with no network::

        model = ScriptedModel.tool_then_text("get_warranty", {"product": "kettle"}, "2 years.")
        answer = run_agent_loop("How long is the warranty?", model, tools)
        assert model.requests[1][-1]["role"] == "tool"
    """

    def __init__(self, turns: Iterable[ModelTurn | str]) -> None:
        self._turns = [turn if isinstance(turn, ModelTurn) else ModelTurn(text=turn) for turn in turns]
        self.requests: list[list[dict[str, Any]]] = []

    @classmethod
    def tool_then_text(cls, tool: str, arguments: Mapping[str, Any], text: str) -> ScriptedModel:
        """A model that first calls ``tool`` with ``arguments``, then answers ``text``."""
        return cls([ModelTurn(tool_calls=(ToolCall(tool, dict(arguments)),)), ModelTurn(text=text)])

    def __call__(self, messages: Iterable[Mapping[str, Any]]) -> ModelTurn:
        """Answer the next scripted turn; ``messages`` is recorded as it was sent."""
        self.requests.append([dict(message) for message in messages])
        step = len(self.requests)
        if step > len(self._turns):
            raise LookupError(f"ScriptedModel has {len(self._turns)} turns but was called {step} times")
        return self._turns[step - 1]

    async def agenerate(self, messages: Iterable[Mapping[str, Any]]) -> ModelTurn:
        """Async form of calling the model."""
        return self(messages)
