"""EvalSuite: runs an agent over cases, grades each answer, and reports."""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import inspect
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from agent_eval._calling import Call, to_evaluation
from agent_eval._cases import Cases, check_cases
from agent_eval._errors import AgentEvalError, Skip
from agent_eval._model import AgentContext, Case, EvalReport, EvalResult, Evaluation, EvaluatorContext, Status, Verdict
from agent_eval._text import describe_error, frames_of, short_repr
from agent_eval._threads import ThreadPool

#: Called with (index, result) as each case finishes.
ResultCallback = Callable[[int, EvalResult], None]

# Workers whose agent answers without ever suspending yield to the loop this often,
# so that signals, progress and other workers get their turn.
_YIELD_EVERY = 64


class EvalSuite:
    """An agent and the cases to grade it on."""

    def __init__(
        self, agent: Callable[..., Any], cases: Iterable[Case | Mapping[str, Any]], *, name: str | None = None
    ) -> None:
        if not callable(agent):
            raise TypeError(f"agent must be callable, got {short_repr(agent)}")
        self.agent = agent
        #: The cases, checked once (cases loaded from a suite file already were).
        self.cases: Cases = check_cases(cases)
        self.name = name

    def run(
        self,
        ctx: AgentContext | None = None,
        *,
        print: bool = True,
        concurrency: int = 1,
        timeout: float | None = None,
        on_result: ResultCallback | None = None,
    ) -> EvalReport:
        """Run every case and return the report; prints the table unless ``print=False``.

        Ctrl-C (or SIGTERM) stops the run: cases in flight are cancelled and the
        report holds the cases that finished, with ``interrupted`` set. A second
        Ctrl-C exits at once.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise AgentEvalError(
                "EvalSuite.run() cannot be called from a running event loop; use `await suite.arun(...)`."
            )
        reports: list[EvalReport] = []

        async def main() -> None:
            # The report is handed out through a list, not as the main task's result: asyncio may
            # build the task's repr (its result's included) when it restores its SIGINT handler.
            reports.append(
                await self.arun(
                    ctx, print=print, concurrency=concurrency, timeout=timeout, on_result=on_result, handle_signals=True
                )
            )

        asyncio.run(main())
        return reports[0]

    async def arun(
        self,
        ctx: AgentContext | None = None,
        *,
        print: bool = True,
        concurrency: int = 1,
        timeout: float | None = None,
        on_result: ResultCallback | None = None,
        handle_signals: bool = False,
    ) -> EvalReport:
        """Async form of :meth:`run`. ``handle_signals`` makes Ctrl-C stop the run gracefully."""
        _check_options(concurrency, timeout)
        runner = _Runner(self.agent, self.cases, ctx or AgentContext(), concurrency, timeout, on_result)
        with _graceful_signals(runner) if handle_signals else contextlib.nullcontext():
            report = await runner.run(self.name)
        if print:
            from agent_eval._report.console import print_report

            print_report(report)
        return report


def _check_options(concurrency: int, timeout: float | None) -> None:
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency must be a whole number of at least 1, got {concurrency!r}")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0):
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")


class _Runner:
    """One run: workers pull cases from a shared iterator; results land by index."""

    def __init__(
        self,
        agent: Callable[..., Any],
        cases: Sequence[Case],
        ctx: AgentContext,
        concurrency: int,
        timeout: float | None,
        on_result: ResultCallback | None,
    ) -> None:
        self.agent = Call.of(agent)
        self.cases = cases
        self.ctx = ctx
        self.concurrency = concurrency
        self.timeout = timeout
        self.on_result = on_result
        self.results: list[EvalResult | None] = [None] * len(cases)
        self.stopping = False
        self._workers: list[asyncio.Task[None]] = []
        self._pool: ThreadPool | None = None
        self._calls: dict[int, tuple[Any, Call]] = {}

    async def run(self, name: str | None) -> EvalReport:
        started_at = datetime.now(UTC).isoformat(timespec="seconds")
        start = time.perf_counter()
        pending: Iterator[tuple[int, Case]] = iter(enumerate(self.cases))
        count = min(self.concurrency, len(self.cases))
        self._workers = [asyncio.create_task(self._work(pending)) for _ in range(count)]
        try:
            outcomes = await asyncio.gather(*self._workers, return_exceptions=True)
        finally:
            if self._pool is not None:
                self._pool.shutdown()
            await self._close_evaluators()
        for outcome in outcomes:
            if isinstance(outcome, BaseException) and not isinstance(outcome, asyncio.CancelledError):
                raise outcome
        finished = [result for result in self.results if result is not None]
        return EvalReport(
            cases=finished,
            name=name,
            total_ms=(time.perf_counter() - start) * 1000,
            started_at=started_at,
            interrupted=len(finished) < len(self.cases),
            planned=len(self.cases),
        )

    async def _close_evaluators(self) -> None:
        """Let evaluators that hold resources for the run (HTTP clients) release them."""
        for evaluator, _ in self._calls.values():
            close = getattr(evaluator, "aclose", None)
            if close is None:
                continue
            try:
                await close()
            except Exception as error:  # closing must not lose the results
                builtins.print(
                    f"warning: closing evaluator {_name(evaluator)}: {describe_error(error)}", file=sys.stderr
                )

    def stop(self) -> None:
        """Stop scheduling cases and cancel the ones in flight."""
        self.stopping = True
        for worker in self._workers:
            worker.cancel()

    async def _work(self, pending: Iterator[tuple[int, Case]]) -> None:
        for done, (index, case) in enumerate(pending, start=1):
            if self.stopping:
                return
            result = await self._run_case(case)
            self.results[index] = result
            if self.on_result is not None:
                self.on_result(index, result)
            if done % _YIELD_EVERY == 0:
                await asyncio.sleep(0)

    async def _run_case(self, case: Case) -> EvalResult:
        start = time.perf_counter()
        try:
            output = await self._call_agent(case)
        except _Timeout:
            return _errored(case, None, f"timed out after {self.timeout:g} s", start)
        except asyncio.CancelledError:
            raise
        except (Exception, SystemExit) as error:
            return _errored(case, None, describe_error(error), start, frames_of(error))
        if output is None:
            return _errored(case, None, "the agent returned None; it must return its answer", start)
        agent_ms = (time.perf_counter() - start) * 1000
        evaluators = case.all_evaluators
        if not evaluators:
            return EvalResult(
                case.name,
                case.input,
                output=output,
                expected=case.expected,
                status="skipped",
                reason="no evaluators",
                duration_ms=agent_ms,
                metadata=case.metadata,
            )
        ectx = EvaluatorContext(case, output, agent_ctx=self.ctx, duration_ms=agent_ms)
        if len(evaluators) == 1:
            evaluations: Sequence[Evaluation] = (await self._evaluate(evaluators[0], output, ectx),)
        else:
            evaluations = await self._evaluate_all(evaluators, output, ectx)
        return _assemble(case, output, evaluations, (time.perf_counter() - start) * 1000)

    async def _call_agent(self, case: Case) -> Any:
        agent = self.agent
        if self.timeout is None:
            return await self._invoke(agent, case.input)
        if agent.inline:
            try:
                async with asyncio.timeout(self.timeout) as deadline:
                    return await self._invoke(agent, case.input)
            except TimeoutError:
                if deadline.expired():
                    raise _Timeout from None
                raise
        future = self._thread(agent.bind(case.input, self.ctx))
        try:
            async with asyncio.timeout(self.timeout):
                output = await future
        except TimeoutError:
            if future.cancelled():
                assert self._pool is not None
                self._pool.abandon(future)
                raise _Timeout from None
            raise
        return await output if inspect.isawaitable(output) else output

    async def _invoke(self, call: Call, first: Any, ctx: Any = None) -> Any:
        ctx = self.ctx if ctx is None else ctx
        if call.is_async:
            return await (call.func(first, ctx) if call.with_context else call.func(first))
        if call.inline:
            value = call.func(first, ctx) if call.with_context else call.func(first)
        else:
            value = await self._thread(call.bind(first, ctx))
        # a plain function may still hand back a coroutine: await it rather than grade it
        if type(value) not in _PLAIN and inspect.isawaitable(value):
            value = await value
        return value

    def _thread(self, func: Callable[[], Any]) -> asyncio.Future[Any]:
        if self._pool is None:
            self._pool = ThreadPool(self.concurrency, asyncio.get_running_loop())
        return self._pool.submit(func)

    def _call_of(self, evaluator: Any) -> Call:
        cached = self._calls.get(id(evaluator))
        if cached is None:
            cached = (evaluator, Call.of(evaluator))
            self._calls[id(evaluator)] = cached
        return cached[1]

    async def _evaluate(self, evaluator: Any, output: Any, ectx: EvaluatorContext) -> Evaluation:
        call = self._call_of(evaluator)
        start = time.perf_counter()
        try:
            value = await self._invoke(call, output, ectx)
        except Skip as skip:
            return Evaluation(call.name, "skipped", reason=skip.reason, duration_ms=_ms(start))
        except asyncio.CancelledError:
            raise
        except (Exception, SystemExit) as error:
            # an error may carry facts worth keeping, such as the tokens a judge spent before failing
            facts = getattr(error, "metadata", None)
            metadata = dict(facts) if isinstance(facts, Mapping) else {}
            return Evaluation(
                call.name,
                "error",
                error=describe_error(error),
                frames=frames_of(error),
                duration_ms=_ms(start),
                metadata=metadata,
            )
        return to_evaluation(call.name, value, _ms(start))

    async def _evaluate_all(
        self, evaluators: Sequence[Any], output: Any, ectx: EvaluatorContext
    ) -> Sequence[Evaluation]:
        calls = [self._call_of(evaluator) for evaluator in evaluators]
        if all(call.inline and not call.is_async for call in calls):
            return [await self._evaluate(evaluator, output, ectx) for evaluator in evaluators]
        return await asyncio.gather(*(self._evaluate(evaluator, output, ectx) for evaluator in evaluators))


_PLAIN = frozenset({str, bool, Verdict, dict, list, int, float})


class _Timeout(Exception):
    """The agent did not answer within the run's timeout."""


def _name(evaluator: Any) -> str:
    return Call.of(evaluator).name


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def _errored(case: Case, output: Any, error: str, start: float, frames: tuple[str, ...] = ()) -> EvalResult:
    return EvalResult(
        case.name,
        case.input,
        output=output,
        expected=case.expected,
        status="error",
        error=error,
        frames=frames,
        duration_ms=_ms(start),
        metadata=case.metadata,
    )


def _assemble(case: Case, output: Any, evaluations: Sequence[Evaluation], duration_ms: float) -> EvalResult:
    """One case's result from its evaluations, by the rules of the contract."""
    if len(evaluations) == 1:
        only = evaluations[0]
        error = f"{only.name}: {only.error}" if only.error else None
        return EvalResult(
            case.name,
            case.input,
            output=output,
            expected=case.expected,
            status=only.status,
            score=only.score,
            reason=only.reason,
            error=error,
            duration_ms=duration_ms,
            metadata=case.metadata,
            evaluations=evaluations,
        )
    statuses = {evaluation.status for evaluation in evaluations}
    status: Status
    if "error" in statuses:
        status = "error"
    elif "failed" in statuses:
        status = "failed"
    elif statuses == {"skipped"}:
        status = "skipped"
    else:
        status = "passed"
    scores = [e.score for e in evaluations if e.status in ("passed", "failed") and e.score is not None]
    failing = [f"{e.name}: {e.reason or 'failed'}" for e in evaluations if e.status == "failed"]
    errors = [f"{e.name}: {e.error}" for e in evaluations if e.status == "error"]
    return EvalResult(
        case.name,
        case.input,
        output=output,
        expected=case.expected,
        status=status,
        score=sum(scores) / len(scores) if scores else None,
        reason="; ".join(failing) or None,
        error="; ".join(errors) or None,
        duration_ms=duration_ms,
        metadata=case.metadata,
        evaluations=evaluations,
    )


@contextlib.contextmanager
def _graceful_signals(runner: _Runner) -> Iterator[None]:
    """First SIGINT/SIGTERM stops the run gracefully; a second one exits at once with 130."""
    loop = asyncio.get_running_loop()

    def on_signal(signum: int) -> None:
        if runner.stopping:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            os._exit(130)
        name = signal.Signals(signum).name
        builtins.print(
            f"\n{name}: stopping; keeping the cases that finished (press Ctrl-C again to quit at once)",
            file=sys.stderr,
            flush=True,
        )
        runner.stop()

    previous: dict[int, Any] = {}
    for wanted in (signal.SIGINT, signal.SIGTERM):
        before = signal.getsignal(wanted)
        try:
            loop.add_signal_handler(wanted, on_signal, int(wanted))
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no support
            continue
        previous[int(wanted)] = before
    try:
        yield
    finally:
        for number, before in previous.items():
            loop.remove_signal_handler(number)
            if before is not None:
                signal.signal(number, before)  # the program's own handler, as it was before the run
