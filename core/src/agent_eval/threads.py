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


class ThreadPool:
    """Runs callables in up to ``size`` daemon threads; results come back as asyncio futures."""

    def __init__(self, size: int, loop: asyncio.AbstractEventLoop) -> None:
        self._size = size
        self._loop = loop
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._started = 0
        self._surplus = 0

    def submit(self, func: Callable[[], Any]) -> asyncio.Future[Any]:
        """Queue ``func()``; the returned future gets its result or exception."""
        future = self._loop.create_future()
        self._queue.put((future, func))
        if self._started < self._size:
            self._spawn()
        return future

    def abandon_one(self) -> None:
        """A call was given up on (timed out): start a thread to take the stuck one's place."""
        with self._lock:
            self._surplus += 1
        self._spawn()

    def shutdown(self) -> None:
        """Let idle threads exit; stuck ones are daemons and die with the process."""
        for _ in range(self._started):
            self._queue.put(_STOP)

    def _spawn(self) -> None:
        self._started += 1
        threading.Thread(target=self._work, name="agent-eval-worker", daemon=True).start()

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            future, func = item
            if not future.cancelled():
                self._run(future, func)
            with self._lock:
                if self._surplus:
                    self._surplus -= 1
                    return

    def _run(self, future: asyncio.Future[Any], func: Callable[[], Any]) -> None:
        try:
            result = func()
        except BaseException as error:  # handed to the loop, which decides
            self._deliver(future, None, error)
        else:
            self._deliver(future, result, None)

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
