"""What one ``llm_judge`` evaluator was asked to do: its options, checked once when it is made."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

#: The most samples one evaluation may ask for.
MAX_SAMPLES = 100

#: What ``similar`` says of a case it has nothing to compare with.
NO_REFERENCE = (
    'needs a reference to compare with: give one (similar: "The warranty lasts two years.") '
    "or give the case an 'expected'"
)


def _criteria(_options: object, _field: object, value: Any) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"criteria must be a non-empty string saying what a passing answer does, got {value!r}")


def _judge_agent(value: Callable[..., Any] | str | None) -> Callable[..., Any] | None:
    """The agent itself: a callable as it is, ``"module:attr"`` loaded now (so a bad one fails at load)."""
    if value is None or callable(value):
        return value
    if isinstance(value, str):
        from agent_eval import AgentEvalError, load_agent

        try:
            return load_agent(value, origin="llm_judge(judge_agent=...)")
        except AgentEvalError as error:
            raise ValueError(str(error)) from None
    raise TypeError(f"judge_agent must be an agent callable or 'module:attr', got {value!r}")


def _model(value: str | None) -> str | None:
    """The model name without surrounding blanks; the message shows the value as it was given."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"model must be a model name such as 'llama3.1:8b', got {value!r}")
    return value.strip()


def _flag(_options: object, field: attrs.Attribute[bool], value: Any) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{field.name} must be true or false, got {value!r}")


def _samples(_options: object, _field: object, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SAMPLES:
        raise ValueError(f"samples must be a whole number from 1 to {MAX_SAMPLES}, got {value!r}")


@attrs.frozen
class JudgeOptions:
    """The options of ``llm_judge``, as checked values (see its docstring for each one's meaning)."""

    criteria: str = attrs.field(validator=_criteria)
    judge_agent: Callable[..., Any] | None = attrs.field(default=None, kw_only=True, converter=_judge_agent)
    model: str | None = attrs.field(default=None, kw_only=True, converter=_model)
    include_input: bool = attrs.field(default=True, kw_only=True, validator=_flag)
    include_expected: bool = attrs.field(default=True, kw_only=True, validator=_flag)
    samples: int = attrs.field(default=1, kw_only=True, validator=_samples)
    cache: bool = attrs.field(default=True, kw_only=True, validator=_flag)
    include_trajectory: bool = attrs.field(default=False, kw_only=True, validator=_flag)


def _reference(_options: object, _field: object, value: Any) -> None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise ValueError(f"reference must be the text to compare with (none: the case's expected), got {value!r}")


def _threshold(value: Any) -> float:
    """The threshold as a float, once checked (a converter, so that ``True`` is refused, not taken for 1)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ValueError(f"threshold must be a number from 0 to 1 (the least cosine similarity to pass), got {value!r}")
    return float(value)


@attrs.frozen
class SimilarOptions:
    """The options of ``similar``, as checked values (see its docstring for each one's meaning)."""

    reference: str | None = attrs.field(default=None, validator=_reference)
    threshold: float = attrs.field(default=0.8, kw_only=True, converter=_threshold)
