"""Running the cases pytest runs: each suite's selected cases as one batch, in one event loop.

The first item of a suite to run starts a batch of that suite's items that pytest selected and that
are not scheduled yet, in the order pytest runs them, as one ``EvalSuite.arun`` in an event loop on a
background thread (one loop per session). As each case finishes, the runner's ``on_result`` settles
that case's future: an item waits only for its own case, so items report in order, each as soon as
its case is done. When pytest stops (``-x``, ``--maxfail``, Ctrl-C), every batch is cancelled: the
cases in flight are cancelled and no other case starts. Under pytest-xdist each worker is told which
items to run one at a time, so there every case is a batch of its own.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, InvalidStateError
from typing import Any, Protocol

import pytest

from agent_eval import Case, EvalResult, EvalSuite, SuiteFile, describe_error
from agent_eval_pytest.settings import repeats, run_options

#: Seconds the session waits at its end for cancelled cases to unwind; the thread is a daemon after that.
CLOSE_TIMEOUT = 3.0


class SuiteLike(Protocol):
    """What a batch needs of a suite file's collector."""

    suite: SuiteFile
    agent: Callable[..., Any]


class CaseLike(Protocol):
    """What a batch needs of an item."""

    case: Case

    @property
    def nodeid(self) -> str: ...

    @property
    def parent(self) -> SuiteLike: ...

    def siblings(self) -> Sequence[CaseLike]:
        """The items of the same suite that pytest will run, in order."""
        ...


class NotRun(Exception):
    """The case's batch was stopped before the case finished."""


class RunFailed(Exception):
    """The run itself raised (not the agent, whose errors are its cases' results)."""


class Scheduler:
    """The session's batches, their event loop, and one future per scheduled case."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        #: In a pytest-xdist worker the items to run arrive one by one: a batch is one case.
        self.alone = hasattr(config, "workerinput")
        self.stopped = False
        self._futures: dict[str, Future[EvalResult]] = {}
        self._scheduled: set[str] = set()
        self._batches: list[Future[None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def result(self, item: CaseLike) -> EvalResult:
        """Wait for the item's case (starting its suite's batch if need be) and return its result."""
        __tracebackhide__ = True
        if self.stopped:
            pytest.skip("not run: pytest was stopping")
        future = self._futures.pop(item.nodeid, None)
        if future is None:  # the suite's first item, or an item run again (a rerun): its own batch
            self._start(item)
            future = self._futures.pop(item.nodeid)
        try:
            return future.result()
        except NotRun as stopped:
            pytest.skip(str(stopped))
        except RunFailed as failed:
            pytest.fail(str(failed), pytrace=False)

    def stop(self) -> None:
        """Start no other case, and cancel those in flight."""
        self.stopped = True
        for batch in self._batches:
            batch.cancel()

    def close(self) -> None:
        """Stop, then end the loop's thread (waiting a little for cancelled cases to unwind)."""
        self.stop()
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        try:
            loop.call_soon_threadsafe(loop.stop)
        except RuntimeError:  # already closed
            return
        thread.join(CLOSE_TIMEOUT)

    def _start(self, item: CaseLike) -> None:
        batch = [item]
        if not self.alone:
            batch += [other for other in item.siblings() if other.nodeid not in self._scheduled and other is not item]
        futures: list[Future[EvalResult]] = [Future() for _ in batch]
        for node, future in zip(batch, futures, strict=True):
            self._scheduled.add(node.nodeid)
            self._futures[node.nodeid] = future
        holder = item.parent
        options = run_options(self.config, holder.suite)
        run = _run(holder.agent, holder.suite.name, [node.case for node in batch], options, futures)
        done = asyncio.run_coroutine_threadsafe(run, self._running_loop())
        done.add_done_callback(lambda finished: _settle_rest(finished, futures))
        self._batches.append(done)

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=_serve, args=(loop,), name="agent-eval-pytest", daemon=True)
            thread.start()
            self._loop, self._thread = loop, thread
        return self._loop


async def _run(
    agent: Callable[..., Any], name: str, cases: list[Case], options: dict[str, Any], futures: list[Future[EvalResult]]
) -> None:
    """One batch: its results settle the futures as the cases finish (with repeats: at the end)."""
    streamed = repeats(options) == 1  # with repeats, what on_result is given per attempt is not settled

    def on_result(index: int, result: EvalResult) -> None:
        if streamed:
            _settle(futures[index], result)

    report = await EvalSuite(agent, cases, name=name).arun(print=False, on_result=on_result, **options)
    by_name = {result.name: result for result in report.cases}
    for case, future in zip(cases, futures, strict=True):
        if case.name in by_name:
            _settle(future, by_name[case.name])


def _settle(future: Future[EvalResult], result: EvalResult | None = None, error: Exception | None = None) -> None:
    """Settle ``future`` unless it already is (the loop's thread and the main thread may race)."""
    try:
        if error is not None:
            future.set_exception(error)
        elif not future.done():
            future.set_result(result)  # type: ignore[arg-type]
    except InvalidStateError:
        pass


def _settle_rest(batch: Future[None], futures: list[Future[EvalResult]]) -> None:
    """The batch ended: the cases it did not finish are not run, or carry the run's own error."""
    if batch.cancelled():
        error: Exception = NotRun("not run: pytest stopped before this case finished")
    elif batch.exception() is not None:
        error = RunFailed(f"agent-eval could not run the suite: {describe_error(batch.exception())}")  # type: ignore[arg-type]
    else:
        error = NotRun("not run: the run ended before this case finished")
    for future in futures:
        if not future.done():
            _settle(future, error=error)


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    """The loop's thread: run until stopped, then let cancelled batches unwind and close."""
    asyncio.set_event_loop(loop)
    try:
        loop.run_forever()
    finally:
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.wait(pending, timeout=CLOSE_TIMEOUT))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
