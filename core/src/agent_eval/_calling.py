"""Working out, once per callable, how to call an agent or an evaluator."""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from agent_eval._model import Evaluation, Status, Verdict, make_evaluation
from agent_eval._text import short_repr

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def takes_context(func: Callable[..., Any]) -> bool:
    """True when ``func`` accepts a second positional argument (``ctx``)."""
    try:
        parameters = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return True
    count = 0
    for parameter in parameters:
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            return True
        if parameter.kind in _POSITIONAL:
            count += 1
    return count >= 2


def agent_problem(func: Callable[..., Any]) -> str | None:
    """Why ``func`` cannot be called as an agent is (``agent(input, ctx)`` or ``agent(input)``), or None."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):  # no signature to read (some builtins): it is tried when called
        return None
    arguments = ("input", "ctx") if takes_context(func) else ("input",)
    try:
        signature.bind(*arguments)
    except TypeError:
        shown = short_repr(str(signature), 80).strip("'")
        return f"takes {shown}; an agent takes (input, ctx) or (input)"
    return None


def is_async(func: Callable[..., Any]) -> bool:
    """True when calling ``func`` returns a coroutine (async def, or an object with async __call__)."""
    while isinstance(func, functools.partial):
        func = func.func
    if inspect.iscoroutinefunction(func):
        return True
    call = getattr(func, "__call__", None)  # noqa: B004 - the method itself is what we inspect
    return call is not None and inspect.iscoroutinefunction(call)


def callable_name(func: Any) -> str:
    """A short name for an evaluator: its ``name`` attribute, ``__name__``, or its class."""
    name = getattr(func, "name", None)
    if isinstance(name, str) and name:
        return name
    while isinstance(func, functools.partial):
        func = func.func
    name = getattr(func, "__name__", None)
    if isinstance(name, str) and name and name != "<lambda>":
        return name
    if name == "<lambda>":
        return "lambda"
    return type(func).__name__


class NamedEvaluator:
    """An evaluator under the name it was registered as (for evaluators that carry no ``name``).

    Everything but the name is the wrapped evaluator's: :meth:`Call.of` looks through the wrapper,
    so calls go straight to the evaluator.
    """

    __slots__ = ("evaluator", "name")

    def __init__(self, evaluator: Callable[..., Any], name: str) -> None:
        self.evaluator = evaluator
        self.name = name

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.evaluator, attribute)

    def __call__(self, *args: Any) -> Any:
        return self.evaluator(*args)

    def __repr__(self) -> str:
        return f"{self.name}({self.evaluator!r})"


@attrs.frozen
class Call:
    """A callable with its call shape worked out: async or not, with or without ``ctx`` (without when it takes
    none, or says it needs none: ``needs_context = False``)."""

    func: Callable[..., Any]
    name: str
    with_context: bool
    is_async: bool
    #: Cheap and non-blocking: called on the event loop instead of in a worker thread.
    inline: bool

    @classmethod
    def of(cls, func: Callable[..., Any]) -> Call:
        """Inspect ``func`` once."""
        if not callable(func):
            raise TypeError(f"{func!r} is not callable")
        name = callable_name(func)
        if isinstance(func, NamedEvaluator):
            func = func.evaluator
        asynchronous = is_async(func)
        return cls(
            func=func,
            name=name,
            # an evaluator that takes a ctx it never reads may say so (needs_context = False): none is made for it
            with_context=takes_context(func) and _needs_context(func),
            is_async=asynchronous,
            inline=asynchronous or bool(getattr(func, "inline", False)),
        )

    def bind(self, first: Any, ctx: Any) -> Callable[[], Any]:
        """A no-argument callable that calls ``func`` with the right arguments."""
        if self.with_context:
            return functools.partial(self.func, first, ctx)
        return functools.partial(self.func, first)

    def __call__(self, first: Any, ctx: Any) -> Any:
        if self.with_context:
            return self.func(first, ctx)
        return self.func(first)


def _needs_context(func: Callable[..., Any]) -> bool:
    """False only when ``func`` says ``needs_context = False``; whatever else it says, or raises saying it, is
    True (it is given its ctx, as before the attribute was asked)."""
    try:
        return getattr(func, "needs_context", True) is not False
    except Exception:
        return True


def to_evaluation(name: str, value: Any, duration_ms: float) -> Evaluation:
    """Turn what an evaluator returned into an Evaluation; anything but bool or Verdict is an error."""
    if value is True:
        return Evaluation(name, "passed", score=1.0, duration_ms=duration_ms)
    if value is False:
        return Evaluation(name, "failed", score=0.0, duration_ms=duration_ms)
    if isinstance(value, Verdict):
        problem = _verdict_problem(value)
        if problem:
            return Evaluation(name, "error", error=problem, duration_ms=duration_ms)
        score = value.score if value.score is not None else (1.0 if value.passed else 0.0)
        status: Status = "passed" if value.passed else "failed"
        # in the order of EVALUATION_FIELDS: name, status, score, reason, error, frames, duration_ms, metadata
        return make_evaluation(name, status, float(score), value.reason, None, (), duration_ms, value.metadata)
    problem = f"returned {short_repr(value)}; an evaluator must return a bool or a Verdict"
    return Evaluation(name, "error", error=problem, duration_ms=duration_ms)


def _verdict_problem(verdict: Verdict) -> str | None:
    """What is wrong with a Verdict an evaluator returned, or None: each field is checked for its type."""
    passed: Any = verdict.passed
    score: Any = verdict.score
    # the common verdict, checked at a glance: the rest of the checks say the same of it
    if (
        type(passed) is bool
        and (verdict.reason is None or type(verdict.reason) is str)
        and type(verdict.metadata) is dict
        and (score is None or (type(score) is float and 0.0 <= score <= 1.0))
    ):
        return None
    if not isinstance(passed, bool):
        return f"returned Verdict(passed={short_repr(passed)}); passed must be a bool"
    reason: Any = verdict.reason
    if reason is not None and not isinstance(reason, str):
        return f"returned Verdict(reason={short_repr(reason)}); reason must be a string or None"
    metadata: Any = verdict.metadata
    if not isinstance(metadata, Mapping):
        return f"returned Verdict(metadata={short_repr(metadata)}); metadata must be a mapping"
    if score is None:
        return None
    number = isinstance(score, int | float) and not isinstance(score, bool)
    if not number or (isinstance(score, float) and not math.isfinite(score)):
        return f"returned Verdict(score={short_repr(score)}); score must be a number from 0 to 1"
    if not 0 <= score <= 1:  # compared as they are: an int too big for a float still compares
        return f"returned Verdict(score={short_repr(score)}); score must be from 0 to 1"
    return None


async def invoke(func: Callable[..., Any], first: Any, ctx: Any = None) -> Any:
    """Call an agent or an evaluator as the runner does: ``func(first, ctx)`` or ``func(first)``.

    Async callables are awaited; sync ones run in a worker thread (unless marked ``inline``); a sync
    callable that hands back an awaitable has it awaited too.
    """
    import asyncio
    import inspect

    from agent_eval._threads import Raised

    call = Call.of(func)
    if call.is_async:
        value = await call(first, ctx)
    elif call.inline:
        value = call(first, ctx)
    else:
        try:
            value = await asyncio.to_thread(_carried, call, first, ctx)
        except Raised as raised:
            raise raised.error from None
    if inspect.isawaitable(value):
        value = await value
    return value


def _carried(call: Call, first: Any, ctx: Any) -> Any:
    """``call(first, ctx)`` in a worker thread, a non-Exception it raises carried as an Exception.

    A GeneratorExit or CancelledError set on the future would close or cancel the awaiting task instead
    of reaching the awaiting code as what the call raised.
    """
    from agent_eval._threads import Raised

    try:
        return call(first, ctx)
    except Exception:
        raise
    except BaseException as error:
        raise Raised(error) from None
