"""A small pool of daemon threads for sync agents and evaluators.

Unlike ``concurrent.futures.ThreadPoolExecutor`` its threads are daemons: an
agent that hangs past its timeout is abandoned and cannot keep the process
alive, and a replacement thread keeps the pool at its size.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any

_STOP = None


class Raised(Exception):
    """What a call in a worker thread raised that is not an Exception (KeyboardInterrupt, GeneratorExit, ...)."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(error)
        self.error = error


class _Work:
    """One queued call, and whether the thread running it was given up on."""

    __slots__ = ("abandoned", "func", "future", "started")

    def __init__(self, future: asyncio.Future[Any], func: Callable[[], Any]) -> None:
        self.future = future
        self.func = func
        self.started = False
        self.abandoned = False


class ThreadPool:
    """Runs callables in up to ``size`` daemon threads; results come back as asyncio futures."""

    def __init__(self, size: int, loop: asyncio.AbstractEventLoop) -> None:
        self._size = size
        self._loop = loop
        self._queue: queue.SimpleQueue[_Work | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._started = 0
        self._work: dict[asyncio.Future[Any], _Work] = {}

    def submit(self, func: Callable[[], Any]) -> asyncio.Future[Any]:
        """Queue ``func()``; the returned future gets its result or exception."""
        future = self._loop.create_future()
        work = _Work(future, func)
        self._work[future] = work
        self._queue.put(work)
        if self._started < self._size:
            self._spawn()
        return future

    def abandon(self, future: asyncio.Future[Any]) -> None:
        """The call behind ``future`` was given up on (timed out): replace the thread stuck in it."""
        work = self._work.pop(future, None)
        if work is None:
            return
        with self._lock:
            if not work.started:
                return  # still queued: the cancelled future will be skipped
            work.abandoned = True
        self._spawn()

    def shutdown(self) -> None:
        """Let idle threads exit; stuck ones are daemons and die with the process."""
        for _ in range(self._started):
            self._queue.put(_STOP)

    def _spawn(self) -> None:
        self._started += 1
        threading.Thread(target=self._run, name="agent-eval-worker", daemon=True).start()

    def _run(self) -> None:
        while True:
            work = self._queue.get()
            if work is _STOP:
                return
            with self._lock:
                if work.future.cancelled():
                    self._work.pop(work.future, None)
                    continue
                work.started = True
            try:
                result = work.func()
            except Exception as error:  # handed to the loop, which decides
                self._deliver(work.future, None, error)
            except BaseException as error:
                # KeyboardInterrupt, GeneratorExit, CancelledError, ... raised by the called code: carried
                # as an ordinary exception, so that the waiting task is not interrupted, closed or cancelled
                self._deliver(work.future, None, Raised(error))
            else:
                self._deliver(work.future, result, None)
            self._work.pop(work.future, None)
            if work.abandoned:
                return  # a replacement took this thread's place

    def _deliver(self, future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            self._loop.call_soon_threadsafe(_settle, future, result, error)


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
