"""The core's executor, ``local``: the cases of a plan run by asyncio workers in this process."""

from __future__ import annotations

import asyncio
import builtins
import collections
import contextvars
import functools
import inspect
import itertools
import sys
import time
from collections.abc import Callable, Coroutine, Iterator, Mapping, Sequence
from typing import Any

import attrs

from agent_eval._agent_run import AgentRun, ToolCall
from agent_eval._attempts import combine_attempts
from agent_eval._calling import Call, to_evaluation
from agent_eval._errors import Skip
from agent_eval._execution import ResultCallback, RunPlan
from agent_eval._grading import grade
from agent_eval._model import (
    Case,
    EvalResult,
    Evaluation,
    EvaluatorContext,
    Verdict,
    graded_json,
    make_context,
    make_result,
)
from agent_eval._recording import trajectory
from agent_eval._signals import NOTICE_AFTER, LoopBlocked, blocked_message
from agent_eval._text import describe_error, frames_of
from agent_eval._threads import Raised, ThreadPool

# Workers whose agent answers without ever suspending yield to the loop this often,
# so that signals, progress and other workers get their turn.
_YIELD_EVERY = 64


class LocalExecutor:
    """The core's executor, ``local``: workers on this event loop pull cases from one shared iterator.

    Async agents and evaluators run on the loop, sync ones in a pool of worker threads the size of the
    concurrency; at most ``concurrency`` cases are in flight (a 100,000-case suite makes no task per
    case). One executor runs one plan.
    """

    #: A sync agent without a timeout is called in batches by its thread (:meth:`_work_in_thread`);
    #: False for a subclass whose :meth:`_call_agent` answers otherwise.
    batches_agent_calls = True

    def __init__(self) -> None:
        self.stopping = False
        self.timeout: float | None = None
        self.json = False
        #: The attempts of each repeated case that finished so far, by case index.
        self._attempts: dict[int, list[tuple[int, EvalResult]]] = {}
        #: The call each worker task is making: (case name, "agent" or "evaluator").
        self._busy: dict[asyncio.Task[Any], list[str]] = {}
        #: The longest time each (case, role) held the event loop, when it did for long.
        self.blocked: dict[tuple[str, str], float] = {}
        self._said: set[tuple[str, str]] = set()
        self._workers: list[asyncio.Task[None]] = []
        self._pool: ThreadPool | None = None
        self._calls: dict[int, tuple[Any, Call]] = {}
        #: Cases a worker claimed for its thread but did not reach (:meth:`_work_in_thread`), first in line.
        self._handed_back: collections.deque[tuple[int, Case, int]] = collections.deque()
        #: How many workers' threads are answering a batch; the workers with nothing to take wait their turn.
        self._batches_out = 0
        self._turn = asyncio.Condition()

    async def execute(self, plan: RunPlan, emit: ResultCallback) -> None:
        """Run every case of ``plan`` (each ``repeat`` times), calling ``emit`` as each case finishes."""
        if plan.agent is None:
            raise ValueError("the local executor needs the agent itself (RunPlan.agent)")
        self.agent = Call.of(plan.agent)
        self.cases = plan.cases
        self.ctx = plan.ctx
        self.settings = plan.settings
        self.concurrency = plan.settings.concurrency
        self.timeout = plan.settings.timeout
        #: Make each result's JSON with the result, from the values that make it (the caller writes it out).
        self.json = plan.results_as_json
        self.emit = emit
        repeat = self.settings.repeat
        if repeat == 1:  # made in C: one shared iterator of (index, case, attempt 0)
            pending: Iterator[tuple[int, Case, int]] = zip(itertools.count(), self.cases, itertools.repeat(0))
        else:
            pending = ((index, case, n) for index, case in enumerate(self.cases) for n in range(repeat))
        count = min(self.concurrency, len(self.cases) * repeat)
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
        self._report_blocked()

    def _report_blocked(self) -> None:
        """A call that held the event loop for long is worth a line, even when it finished in the end."""
        for (case, role), seconds in self.blocked.items():
            if seconds >= NOTICE_AFTER and (case, role) not in self._said:
                builtins.print(
                    f"warning: case {case!r}: {blocked_message(role, seconds)} Other cases could not run meanwhile.",
                    file=sys.stderr,
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

    def busy(self, task: asyncio.Task[Any] | None) -> tuple[str, str] | None:
        """(case name, role) of the call ``task`` is making, or None."""
        slot = None if task is None else self._busy.get(task)
        return (slot[0], slot[1]) if slot and slot[0] else None

    def note_blocked(self, case: str, role: str, seconds: float) -> None:
        """The watchdog saw (case, role) hold the event loop for ``seconds``."""
        key = (case, role)
        self.blocked[key] = max(seconds, self.blocked.get(key, 0.0))

    def stop(self) -> None:
        """Stop scheduling cases and cancel the ones in flight."""
        self.stopping = True
        for worker in self._workers:
            worker.cancel()

    async def _work(self, pending: Iterator[tuple[int, Case, int]]) -> None:
        task = asyncio.current_task()
        assert task is not None
        # what this worker is doing, for the watchdog: [case name ("" between cases), "agent" or "evaluator"]
        slot = self._busy[task] = ["", "agent"]
        try:
            if self.batches_agent_calls and self.timeout is None and not self.agent.inline:
                await self._work_in_thread(pending, slot)
                return
            for done, (index, case, attempt) in enumerate(pending, start=1):
                if self.stopping:
                    return
                result = await self._run_case(case, slot, attempt)
                slot[0] = ""
                self._done(index, case, attempt, result)
                if done % _YIELD_EVERY == 0:
                    await asyncio.sleep(0)
        finally:
            del self._busy[task]

    async def _work_in_thread(self, pending: Iterator[tuple[int, Case, int]], slot: list[str]) -> None:
        """A worker for a sync agent without a timeout: its thread makes several agent calls in a row.

        One call per hand-off costs two thread switches, much more than an instant agent itself; so
        while the calls are quick the worker takes the next cases in twos, fours, ... (up to
        :data:`_BATCH`), and its thread answers them one after another until :data:`_BATCH_SECONDS`
        have gone. What a batch did not reach is handed back, first in line for whichever worker is free
        (so an agent that turns slow leaves no worker with a queue of its own); a slow agent is handed
        one case at a time, as every other worker's; a stopped run makes no further call.
        """
        size = 1
        handed_back = self._handed_back
        turn = self._turn
        while not self.stopping:
            if handed_back:  # a case the agent was slow to reach: one at a time, as a slow agent's
                claimed, size = [handed_back.popleft()], 1
            else:
                claimed = list(itertools.islice(pending, size))
            if not claimed:
                if not self._batches_out:
                    return
                async with turn:  # a batch still out may hand cases back
                    await turn.wait()
                continue
            inputs = [case.input for _, case, _ in claimed]
            answers: list[_Answer] = []  # filled by the thread as it answers
            graded = [0]  # how many of them are graded and emitted
            self._batches_out += 1
            call = self._thread(functools.partial(_answer_quickly, self.agent, inputs, self.ctx, self, answers))
            try:
                if len(claimed) > 1:
                    # a later call of the batch that turns slow does not hold back the cases answered before it
                    while not (await asyncio.wait((call,), timeout=_BATCH_LATE))[0]:
                        await self._finish(claimed, answers, slot, graded)
                await call
            except asyncio.CancelledError:
                # stopped while a later call of the batch goes on: what was answered more than _BATCH_LATE
                # before is already graded; the rest goes as a case being graded does (grading it now could
                # wait for a thread that the stuck call holds)
                call.cancel()
                raise
            finally:
                self._batches_out -= 1
            if len(answers) < len(claimed):
                # the agent got slow: what this batch did not reach goes to whichever worker is free first
                handed_back.extend(claimed[len(answers) :])
                size = 1
            else:
                size = min(size * 2, _BATCH)
            if handed_back or not self._batches_out:
                async with turn:
                    turn.notify_all()
            await self._finish(claimed, answers, slot, graded)

    async def _finish(
        self, claimed: list[tuple[int, Case, int]], answers: list[_Answer], slot: list[str], graded: list[int]
    ) -> None:
        """Grade and emit the cases of a batch its thread has answered so far (the first of ``claimed`` have
        the first of ``answers``), from the ``graded[0]``-th on, counting each in ``graded`` as it is emitted."""
        end = len(answers)  # the thread may be adding more meanwhile
        while graded[0] < end:
            index, case, attempt = claimed[graded[0]]
            result = await self._answered(case, slot, attempt, answers[graded[0]])
            slot[0] = ""
            graded[0] += 1
            self._done(index, case, attempt, result)

    def _done(self, index: int, case: Case, attempt: int, result: EvalResult) -> None:
        """Emit a finished case (a repeated one once its last attempt is in)."""
        if self.settings.repeat > 1:
            combined = self._attempt_done(index, case, attempt, result)
            if combined is None:
                return
            result = combined
        self.emit(index, result)

    def _attempt_done(self, index: int, case: Case, attempt: int, result: EvalResult) -> EvalResult | None:
        """Keep one attempt; the case's result once its last attempt is in (attempts finish in any order)."""
        done = self._attempts.setdefault(index, [])
        done.append((attempt, result))
        if len(done) < self.settings.repeat:
            return None
        del self._attempts[index]
        return combine_attempts(
            case, [result for _, result in sorted(done, key=lambda pair: pair[0])], self.settings.case_pass_rate
        )

    async def _run_case(self, case: Case, slot: list[str], attempt: int = 0) -> EvalResult:
        start = time.perf_counter()
        calls: list[ToolCall] = []
        # The case's own trajectory, for record_tool_call and @tool. Not reset after: the next case of
        # this worker sets its own, and a thread left running past a timeout keeps writing to this one.
        trajectory.set(calls)
        slot[0] = case.name
        slot[1] = "agent"
        agent = self.agent
        try:
            if self.timeout is None and agent.is_async:  # the common case, without a coroutine in between
                output = await (agent.func(case.input, self.ctx) if agent.with_context else agent.func(case.input))
            else:
                output = await self._call_agent(case, attempt)
        except _Timeout:
            return _errored(case, f"timed out after {self.timeout:g} s", start, calls)
        except BaseException as error:  # whatever the agent raised is its case's error, but a real cancel
            return self._agent_failed(case, error, start, calls)
        return await self._grade(case, slot, attempt, output, start, calls)

    async def _answered(self, case: Case, slot: list[str], attempt: int, answer: _Answer) -> EvalResult:
        """The result of a case whose agent call a thread made (:func:`_answer_quickly`)."""
        ok, value, calls, seconds = answer
        start = time.perf_counter() - seconds  # the case's time is the call's, not its wait in the batch
        slot[0] = case.name
        slot[1] = "agent"
        trajectory.set(calls)
        try:
            if not ok:
                raise value
            # a plain function may still hand back a coroutine: await it rather than grade it
            output = await value if type(value) not in _PLAIN and inspect.isawaitable(value) else value
        except BaseException as error:
            return self._agent_failed(case, error, start, calls)
        return await self._grade(case, slot, attempt, output, start, calls)

    def _agent_failed(self, case: Case, error: BaseException, start: float, calls: list[ToolCall]) -> EvalResult:
        """The result of a case whose agent raised ``error``; a real cancel is raised on."""
        if _is_cancel(error):
            raise error
        if isinstance(error, LoopBlocked):
            self._said.add((case.name, "agent"))  # the case's error says it already
        original = _original(error)
        return _errored(case, _error_text(original), start, calls, frames_of(original))

    async def _grade(
        self, case: Case, slot: list[str], attempt: int, output: Any, start: float, calls: list[ToolCall]
    ) -> EvalResult:
        """The result of a case whose agent answered ``output``: its evaluators run on it."""
        slot[1] = "evaluator"
        run = _agent_run(output, calls) if calls or isinstance(output, AgentRun) else None
        if run is not None:
            output = run.output
        if output is None:
            return _errored(case, "the agent returned None; it must return its answer", start, calls)
        agent_ms = (time.perf_counter() - start) * 1000
        evaluators = case.all_evaluators
        if not evaluators:
            skipped = EvalResult(
                case.name,
                case.input,
                output=output,
                expected=case.expected,
                status="skipped",
                reason="no evaluators",
                duration_ms=agent_ms,
                metadata=case.metadata,
                fingerprint=case.fingerprint,
            )
            return skipped if run is None else _with_run(skipped, run)
        # an evaluator that takes no context is not given one: a case whose evaluators take none makes none
        if len(evaluators) == 1:
            call = self._call_of(evaluators[0])
            ectx = self._context(case, output, agent_ms, run, attempt) if call.with_context else None
            only = self._evaluate_now(call, output, case.name, ectx)
            evaluations: Sequence[Evaluation] = (only if type(only) is Evaluation else await only,)  # type: ignore[misc]
        else:
            each = [self._call_of(evaluator) for evaluator in evaluators]
            wanted = any(call.with_context for call in each)
            ectx = self._context(case, output, agent_ms, run, attempt) if wanted else None
            evaluations = await self._evaluate_all(each, output, case.name, ectx)
        result = _assemble(case, output, evaluations, (time.perf_counter() - start) * 1000, self.json and run is None)
        return result if run is None else _with_run(result, run)

    def _context(
        self, case: Case, output: Any, agent_ms: float, run: AgentRun | None, attempt: int
    ) -> EvaluatorContext:
        return make_context(case, output, self.ctx, agent_ms, run, attempt)  # in the order of CONTEXT_FIELDS

    async def _call_agent(self, case: Case, attempt: int) -> Any:
        """What the agent answers to ``case`` (attempt ``attempt``), under the run's timeout."""
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
        # in the case's context: a sync agent's recorded tool calls land in its own case
        return self._pool.submit(functools.partial(contextvars.copy_context().run, func))

    def _call_of(self, evaluator: Any) -> Call:
        cached = self._calls.get(id(evaluator))
        if cached is None:
            cached = (evaluator, Call.of(evaluator))
            self._calls[id(evaluator)] = cached
        return cached[1]

    def _evaluate_now(
        self, call: Call, output: Any, case: str, ectx: EvaluatorContext | None
    ) -> Evaluation | Coroutine[Any, Any, Evaluation]:
        """What the evaluator of ``call`` makes of ``output``, the answer to ``case`` (given ``ectx`` if it takes
        it): a cheap sync evaluator's evaluation made here, without a coroutine; otherwise (or when it hands
        back an awaitable) a coroutine to await for it."""
        start = time.perf_counter()
        if not call.inline or call.is_async:
            return self._awaited(call, self._invoke(call, output, ectx), start, case)
        try:
            value = call.func(output, ectx) if call.with_context else call.func(output)
            # (a value may raise when asked, as anything the evaluator did: its evaluation's error too)
            awaitable = type(value) not in _PLAIN and inspect.isawaitable(value)
        except BaseException as error:
            return self._evaluation_failed(call, error, start, case)
        if awaitable:
            return self._awaited(call, value, start, case)
        return to_evaluation(call.name, value, (time.perf_counter() - start) * 1000)

    async def _evaluated(self, call: Call, output: Any, case: str, ectx: EvaluatorContext | None) -> Evaluation:
        evaluation = self._evaluate_now(call, output, case, ectx)
        return evaluation if type(evaluation) is Evaluation else await evaluation  # type: ignore[misc]

    async def _awaited(self, call: Call, value: Any, start: float, case: str) -> Evaluation:
        """The evaluation of the awaitable ``value``: the call of an async or threaded evaluator, or what a
        sync one handed back to await (a plain function may)."""
        try:
            value = await value
        except BaseException as error:
            return self._evaluation_failed(call, error, start, case)
        return to_evaluation(call.name, value, (time.perf_counter() - start) * 1000)

    def _evaluation_failed(self, call: Call, error: BaseException, start: float, case: str) -> Evaluation:
        """The evaluation of an evaluator that raised ``error`` (skipped for :class:`Skip`); a real cancel is
        raised on."""
        if isinstance(error, Skip):
            return Evaluation(call.name, "skipped", reason=error.reason, duration_ms=_ms(start))
        if _is_cancel(error):
            raise error
        error = _original(error)
        if isinstance(error, LoopBlocked):
            self._said.add((case, "evaluator"))  # the evaluation's error says it already
        # an error may carry facts worth keeping, such as the tokens a judge spent before failing
        facts = getattr(error, "metadata", None)
        metadata = dict(facts) if isinstance(facts, Mapping) else {}
        return Evaluation(
            call.name,
            "error",
            error=_error_text(error),
            duration_ms=_ms(start),
            metadata=metadata,
            frames=frames_of(error),
        )

    async def _evaluate_all(
        self, calls: Sequence[Call], output: Any, case: str, ectx: EvaluatorContext | None
    ) -> Sequence[Evaluation]:
        if all(call.inline and not call.is_async for call in calls):
            return [await self._evaluated(call, output, case, ectx) for call in calls]
        return await asyncio.gather(*(self._evaluated(call, output, case, ectx) for call in calls))


_PLAIN = frozenset({str, bool, Verdict, dict, list, int, float})

#: The most cases a worker thread is handed at once, and how long it goes on answering them (an instant
#: agent's 100,000 cases: 256 a batch take 0.90-0.94x the time of 64, each hand-off costing two thread switches).
_BATCH = 256
_BATCH_SECONDS = 0.002
#: How long a batch's answers wait for the rest of it before they are graded anyway.
_BATCH_LATE = 0.05

#: One agent call made in a thread: (answered, the answer or what was raised, the calls it recorded, seconds).
_Answer = tuple[bool, Any, list[ToolCall], float]


def _answer_quickly(agent: Call, inputs: list[Any], ctx: Any, executor: LocalExecutor, answers: list[_Answer]) -> None:
    """The agent's answers to the first of ``inputs``, called one after another in this thread and added to
    ``answers`` as they come, until :data:`_BATCH_SECONDS` have gone or the run stops (at least one)."""
    began = time.perf_counter()
    for first in inputs:
        # each call in a context of its own, as a call handed over alone: its tool calls land in its case
        answers.append(contextvars.copy_context().run(_answer, agent, first, ctx))
        if executor.stopping or time.perf_counter() - began > _BATCH_SECONDS:
            break


def _answer(agent: Call, first: Any, ctx: Any) -> _Answer:
    calls: list[ToolCall] = []
    trajectory.set(calls)
    start = time.perf_counter()
    try:
        value = agent(first, ctx)
    except Exception as error:
        return False, error, calls, time.perf_counter() - start
    except BaseException as error:  # carried as an ordinary exception, as the thread pool does
        return False, Raised(error), calls, time.perf_counter() - start
    return True, value, calls, time.perf_counter() - start


class _Timeout(Exception):
    """The agent did not answer within the run's timeout."""


def _name(evaluator: Any) -> str:
    return Call.of(evaluator).name


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def _errored(
    case: Case, error: str, start: float, calls: Sequence[ToolCall] = (), frames: tuple[str, ...] = ()
) -> EvalResult:
    return EvalResult(
        case.name,
        case.input,
        expected=case.expected,
        status="error",
        error=error,
        duration_ms=_ms(start),
        metadata=case.metadata,
        tool_calls=tuple(calls),
        fingerprint=case.fingerprint,
        frames=frames,
    )


def _is_cancel(error: BaseException) -> bool:
    """True for a cancellation of this task (Ctrl-C, a timeout), not a CancelledError the code raised itself."""
    if not isinstance(error, asyncio.CancelledError):
        return False
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _error_text(error: BaseException) -> str:
    """How an error of a call is reported; a call interrupted for blocking the loop says just that."""
    if isinstance(error, LoopBlocked):
        return error.message()
    return describe_error(error)


def _original(error: BaseException) -> BaseException:
    """What the called code raised (a worker thread carries non-Exceptions inside :class:`Raised`)."""
    return error.error if isinstance(error, Raised) else error


def _agent_run(output: Any, calls: list[ToolCall]) -> AgentRun:
    """What the agent did: the AgentRun it returned, or one built around its answer and recorded calls."""
    if isinstance(output, AgentRun):
        if calls and not output.tool_calls:
            return attrs.evolve(output, tool_calls=calls)
        return output
    return AgentRun(output, tool_calls=calls)


def _with_run(result: EvalResult, run: AgentRun) -> EvalResult:
    return attrs.evolve(result, tool_calls=run.tool_calls, usage=run.usage, cost_usd=run.cost_usd)


def _assemble(
    case: Case, output: Any, evaluations: Sequence[Evaluation], duration_ms: float, json: bool = False
) -> EvalResult:
    """One case's result from its evaluations, by the rules of the contract (see :func:`agent_eval._grading.grade`);
    with ``json``, its JSON too when it can be made from these at once (:func:`graded_json`)."""
    text = None
    if len(evaluations) == 1 and case.threshold is None:  # graded as grade() does, without its record
        only = evaluations[0]
        status, score, reason = only.status, only.score, only.reason
        error = f"{only.name}: {only.error}" if only.error else None
        if json:
            text = graded_json(case, output, only, duration_ms)
    else:
        graded = grade(evaluations, case.weights, case.threshold)
        status, score, reason, error = graded.status, graded.score, graded.reason, graded.error
    # in the order of RESULT_FIELDS: name, input, output, expected, status, score, reason, error, frames,
    # duration_ms, metadata, evaluations, tool_calls, usage, cost_usd, attempts, fingerprint, _json
    return make_result(
        case.name, case.input, output, case.expected, status, score, reason, error, (),
        duration_ms, case.metadata, tuple(evaluations), (), None, None, (), case.fingerprint, text,
    )  # fmt: skip
