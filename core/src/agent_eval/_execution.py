"""Running a plan of cases with an executor: the plan, the executor protocol, and the run around it.

An executor runs the cases of a :class:`RunPlan` and hands each result back as it finishes; the run
around it (timing, the report, Ctrl-C) is the same whatever the executor. The core's own executor,
``local``, runs the cases in this process (:class:`agent_eval._runner.LocalExecutor`); plugins
register others (``agent-eval-ray``) through ``register_executors``.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Protocol, runtime_checkable

import attrs

from agent_eval._cases import Cases
from agent_eval._model import AgentContext, EvalReport, EvalResult

#: Called with (index, result) as each case finishes.
ResultCallback = Callable[[int, EvalResult], None]


def _whole(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}")
    return value


def _concurrency(value: Any) -> int:
    return _whole("concurrency", value)


def _repeat(value: Any) -> int:
    return _whole("repeat", value)


def _timeout(value: Any) -> float | None:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if value is not None and (not number or not math.isfinite(value) or value <= 0):
        raise ValueError(f"timeout must be a positive number of seconds, got {value!r}")
    return value  # type: ignore[no-any-return]


def _rate(value: Any) -> float:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or not 0.0 <= value <= 1.0:
        raise ValueError(f"case_pass_rate must be a number from 0 to 1, got {value!r}")
    return float(value)


@attrs.frozen(kw_only=True)
class RunSettings:
    """How a run runs its cases: checked when made."""

    concurrency: int = attrs.field(default=1, converter=_concurrency)
    timeout: float | None = attrs.field(default=None, converter=_timeout)
    repeat: int = attrs.field(default=1, converter=_repeat)
    case_pass_rate: float = attrs.field(default=1.0, converter=_rate)


@attrs.frozen(kw_only=True)
class RunPlan:
    """What a run is to do: its cases, the agent, and how to run them.

    ``agent`` is the agent as an object (``None`` when the executor rebuilds it); ``suite_path`` and
    ``agent_reference`` say where a worker in another process finds them again, and ``positions``
    which of the suite file's cases (by index) each of ``cases`` is.
    """

    cases: Cases
    agent: Callable[..., Any] | None = None
    ctx: AgentContext = attrs.Factory(AgentContext)
    settings: RunSettings = attrs.Factory(RunSettings)
    name: str | None = None
    suite_path: str | None = None
    agent_reference: str | None = None
    positions: tuple[int, ...] = ()
    #: The caller writes every result out as JSON (reports, the history): an executor may make each result's
    #: JSON as it makes the result (the local one does), which is cheaper than reading the result again.
    results_as_json: bool = False


@runtime_checkable
class Executor(Protocol):
    """Runs a plan's cases; a factory registered with ``register_executors`` returns one per run."""

    async def execute(self, plan: RunPlan, emit: ResultCallback) -> None:
        """Run ``plan``: call ``emit(index, result)`` as each case finishes (``index`` into ``plan.cases``)."""
        ...

    def stop(self) -> None:
        """Stop: schedule no more cases, cancel those in flight; ``execute`` then returns soon."""
        ...


class _Stoppable:
    """What the signal handlers need of a run, for an executor that has no watchdog of its own."""

    def __init__(self, executor: Executor) -> None:
        self.executor = executor
        self.stopping = False
        self.timeout: float | None = None

    def stop(self) -> None:
        self.stopping = True
        self.executor.stop()

    def busy(self, task: Any) -> tuple[str, str] | None:
        return None

    def note_blocked(self, case: str, role: str, seconds: float) -> None:
        pass


async def execute_plan(
    plan: RunPlan, executor: Executor, *, on_result: ResultCallback | None = None, handle_signals: bool = False
) -> EvalReport:
    """Run ``plan`` with ``executor`` and return the report: results in input order, whatever the executor.

    ``handle_signals`` makes Ctrl-C (and SIGTERM) stop the run gracefully: the report holds the cases
    that finished, marked interrupted; a second Ctrl-C exits at once.
    """
    from agent_eval._signals import graceful_signals

    results: list[EvalResult | None] = [None] * len(plan.cases)

    def emit(index: int, result: EvalResult) -> None:
        results[index] = result
        if on_result is not None:
            on_result(index, result)

    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    start = time.perf_counter()
    stoppable = executor if hasattr(executor, "busy") else _Stoppable(executor)
    with graceful_signals(stoppable) if handle_signals else contextlib.nullcontext():  # type: ignore[arg-type]
        await executor.execute(plan, emit)
    finished = [result for result in results if result is not None]
    return EvalReport(
        cases=finished,
        name=plan.name,
        total_ms=(time.perf_counter() - start) * 1000,
        started_at=started_at,
        interrupted=len(finished) < len(plan.cases),
        planned=len(plan.cases),
    )


def run_plan(plan: RunPlan, executor: Executor, *, on_result: ResultCallback | None = None) -> EvalReport:
    """:func:`execute_plan` from synchronous code, with Ctrl-C handled; not from inside a running event loop."""
    import asyncio

    from agent_eval._errors import AgentEvalError

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise AgentEvalError("EvalSuite.run() cannot be called from a running event loop; use `await suite.arun(...)`.")
    reports: list[EvalReport] = []

    async def main() -> None:
        # The report is handed out through a list, not as the main task's result: asyncio may build the
        # task's repr (its result's included) when it restores its SIGINT handler.
        reports.append(await execute_plan(plan, executor, on_result=on_result, handle_signals=True))

    asyncio.run(main())
    return reports[0]
