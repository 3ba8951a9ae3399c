"""Recording tool calls without a framework: ``record_tool_call`` and the ``@tool`` decorator.

The runner gives each case a trajectory of its own in a context variable. Context variables follow a
case across awaits, into the tasks an async agent starts and into the worker thread a sync agent runs
in, and two cases never share one, so calls made at any concurrency land in their own case.
A thread the agent starts itself does not inherit the context (start it with
``contextvars.copy_context().run`` to record from it). Outside a run, recording does nothing.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, overload

from agent_eval._agent_run import ToolCall
from agent_eval._text import describe_error

F = TypeVar("F", bound=Callable[..., Any])

#: The tool calls of the case being run, in the order made; None outside a run.
trajectory: contextvars.ContextVar[list[ToolCall] | None] = contextvars.ContextVar(
    "agent_eval_trajectory", default=None
)


def record_tool_call(
    name: str, arguments: Mapping[str, Any] | str | None = None, *, result: Any = None, error: str | None = None
) -> None:
    """Add one tool call to the trajectory of the case being run (nothing happens outside a run)."""
    calls = trajectory.get()
    if calls is not None:
        calls.append(ToolCall(name, {} if arguments is None else arguments, result=result, error=error))


@overload
def tool(func: F, /) -> F: ...
@overload
def tool(*, name: str | None = None) -> Callable[[F], F]: ...


def tool(func: Any = None, /, *, name: str | None = None) -> Any:
    """Record every call of the decorated function (sync or async) as a tool call of the running case.

    Arguments are recorded by parameter name, as passed (``self`` and ``cls`` left out); the return value
    is the call's result; an exception is recorded as the call's error and raised again.
    ``@tool(name="search_web")`` records under another name.
    """
    if func is None:
        return functools.partial(_decorate, name=name)
    return _decorate(func, name=name)


def _decorate(func: Callable[..., Any], *, name: str | None) -> Callable[..., Any]:
    tool_name = name or getattr(func, "__name__", None) or type(func).__name__
    try:
        signature: inspect.Signature | None = inspect.signature(func)
    except (TypeError, ValueError):
        signature = None

    # Parameters that positional arguments fill, in order, when the signature is plain (no *args):
    # then binding is a zip, several times cheaper than Signature.bind.
    positional: list[str] | None = None
    if signature is not None:
        kinds = [p.kind for p in signature.parameters.values()]
        if inspect.Parameter.VAR_POSITIONAL not in kinds:
            positional = [
                p.name for p in signature.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            ]
    skipped = ("self", "cls")

    def arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        if positional is not None and len(args) <= len(positional):
            made = dict(zip(positional, args, strict=False))
            made.update(kwargs)
        elif signature is not None:
            try:
                made = dict(signature.bind(*args, **kwargs).arguments)
            except TypeError:
                made = {**{f"arg{index}": value for index, value in enumerate(args)}, **kwargs}
        else:
            made = {**{f"arg{index}": value for index, value in enumerate(args)}, **kwargs}
        if positional and positional[0] in skipped:
            made.pop(positional[0], None)
        return made

    if inspect.iscoroutinefunction(func):

        @functools.wraps(func)
        async def call_async(*args: Any, **kwargs: Any) -> Any:
            calls = trajectory.get()
            if calls is None:
                return await func(*args, **kwargs)
            started = _start(calls, tool_name, arguments(args, kwargs))
            try:
                value = await func(*args, **kwargs)
            except BaseException as error:
                _finish(calls, started, error=describe_error(error))
                raise
            _finish(calls, started, result=value)
            return value

        return call_async

    @functools.wraps(func)
    def call(*args: Any, **kwargs: Any) -> Any:
        calls = trajectory.get()
        if calls is None:
            return func(*args, **kwargs)
        started = _start(calls, tool_name, arguments(args, kwargs))
        try:
            value = func(*args, **kwargs)
        except BaseException as error:
            _finish(calls, started, error=describe_error(error))
            raise
        _finish(calls, started, result=value)
        return value

    return call


def _start(calls: list[ToolCall], name: str, arguments: dict[str, Any]) -> ToolCall:
    """Record a call as it starts, so that calls made in parallel keep the order they were made in."""
    started = ToolCall(name, arguments)
    calls.append(started)
    return started


def _finish(calls: list[ToolCall], started: ToolCall, *, result: Any = None, error: str | None = None) -> None:
    """Fill in the outcome of a call recorded by :func:`_start` (found by identity: threads may append)."""
    for index in range(len(calls) - 1, -1, -1):
        if calls[index] is started:
            calls[index] = ToolCall(started.name, started.arguments, result=result, error=error)
            return
