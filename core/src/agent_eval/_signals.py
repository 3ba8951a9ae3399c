"""Ctrl-C and SIGTERM during a run, and a watchdog for an event loop that an async agent blocks.

An ``async def`` agent that makes a blocking call (``time.sleep``, a sync HTTP client) holds the event
loop: no other case runs, no timeout fires, and a signal handler on the loop never runs. So the
handlers here are Python-level (they run in the main thread between bytecodes, even while the loop is
blocked), and a watchdog thread watches the loop's heartbeat:

- the first Ctrl-C stops the run; when the loop is blocked inside an agent (or evaluator), the blocked
  call is interrupted with :class:`LoopBlocked`, so that the case ends as what it is and the cases that
  finished are written; a second Ctrl-C exits at once (130), blocked or not;
- with a timeout, a call that holds the loop longer than the timeout is interrupted the same way (a
  real signal sent to the main thread breaks the blocking system call); a call blocked in C code that
  does not return to Python (it retries on EINTR) cannot be interrupted until it returns;
- without a timeout, a call that held the loop for over :data:`NOTICE_AFTER` seconds is reported;
- what must not wait for the loop to turn (the --jsonl lines of the cases that finished) is handed on
  from the watchdog's thread when the loop is blocked, and before a second Ctrl-C exits
  (:func:`done_while_blocked`).
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol

#: How often the loop's heartbeat is taken, in seconds.
BEAT = 0.05
#: A loop whose heartbeat is older than this is blocked, for interrupting on Ctrl-C.
BLOCKED_AFTER = 0.25
#: A blocked stretch longer than this is reported once the call returns.
NOTICE_AFTER = 1.0
#: A loop whose heartbeat is older than this has the calls of :func:`done_while_blocked` made from the
#: watchdog's thread, at each of its looks.
STUCK_AFTER = 2 * BEAT
#: The calls :func:`done_while_blocked` registered.
_while_blocked: list[Callable[[], None]] = []


@contextlib.contextmanager
def done_while_blocked(call: Callable[[], None]) -> Iterator[None]:
    """Have ``call`` made (from another thread: it must be safe there) while the loop of a run is blocked
    for :data:`STUCK_AFTER` or more, and before a second Ctrl-C exits; for as long as the context lasts."""
    _while_blocked.append(call)
    try:
        yield
    finally:
        _while_blocked.remove(call)


def _call_while_blocked() -> None:
    for call in list(_while_blocked):
        with contextlib.suppress(Exception):  # the watchdog, and an exit, go on whatever it raised
            call()


class LoopBlocked(BaseException):
    """Raised inside an agent (or evaluator) call that held the event loop: interrupted or past its timeout."""

    def __init__(self, seconds: float, *, timeout: float | None = None, role: str = "agent") -> None:
        self.seconds = seconds
        self.timeout = timeout
        self.role = role
        super().__init__(self.message())

    def message(self) -> str:
        """``the agent blocked the event loop for N s: a blocking call inside async def?``."""
        blocked = blocked_message(self.role, self.seconds)
        if self.timeout is not None:
            return f"timed out after {self.timeout:g} s: {blocked}"
        return f"interrupted: {blocked}"


def blocked_message(role: str, seconds: float) -> str:
    """What a call that held the event loop is told: ``the agent blocked the event loop for 2.0 s: ...``."""
    return f"the {role} blocked the event loop for {seconds:.1f} s: a blocking call inside async def?"


class Stoppable(Protocol):
    """What the signal handlers and the watchdog need of a run."""

    stopping: bool
    timeout: float | None

    def stop(self) -> None: ...

    def busy(self, task: asyncio.Task[Any] | None) -> tuple[str, str] | None:
        """(case name, "agent" or "evaluator") of the call ``task`` is making, or None."""
        ...

    def note_blocked(self, case: str, role: str, seconds: float) -> None: ...


class Watchdog:
    """Takes the loop's heartbeat and, from a thread, notices when the loop stops turning."""

    def __init__(self, loop: asyncio.AbstractEventLoop, run: Stoppable, interrupt: Callable[[], None] | None) -> None:
        self.loop = loop
        self.run = run
        self.beat = time.monotonic()
        #: Breaks a blocking call in the main thread (a real signal to it), when that is possible.
        self.interrupt = interrupt
        self._handle: asyncio.TimerHandle | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="agent-eval-watchdog", daemon=True)
        self._signalled_at = 0.0

    def start(self) -> None:
        self._tick()
        self._thread.start()

    def stop(self) -> None:
        self._done.set()
        if self._handle is not None:
            self._handle.cancel()

    def blocked_for(self) -> float:
        """Seconds since the loop last turned."""
        return time.monotonic() - self.beat

    def _tick(self) -> None:
        self.beat = time.monotonic()
        self._handle = self.loop.call_later(BEAT, self._tick)

    def _watch(self) -> None:
        while not self._done.wait(BEAT):
            stale = self.blocked_for()
            if stale >= STUCK_AFTER and _while_blocked:
                _call_while_blocked()
            if stale < NOTICE_AFTER and (self.run.timeout is None or stale < self.run.timeout):
                continue
            busy = self.run.busy(asyncio.current_task(self.loop))
            if busy is None:
                continue
            self.run.note_blocked(*busy, stale)
            timeout = self.run.timeout
            once = self._signalled_at != self.beat  # one signal per blocked stretch
            if timeout is not None and stale > timeout and self.interrupt is not None and once:
                self._signalled_at = self.beat
                self.interrupt()

    def check(self) -> None:
        """In the main thread, from a signal handler: raise LoopBlocked into a blocked agent call."""
        stale = self.blocked_for()
        if stale < BLOCKED_AFTER:
            return
        try:
            task = asyncio.current_task(self.loop)
        except RuntimeError:
            return
        busy = self.run.busy(task)
        if busy is None:
            return
        timeout = self.run.timeout
        if self.run.stopping:
            raise LoopBlocked(stale, role=busy[1])
        if timeout is not None and stale > timeout:
            raise LoopBlocked(stale, timeout=timeout, role=busy[1])


#: The signal the watchdog sends the main thread to break a blocking call (None: cannot interrupt).
_WAKE = (signal.SIGRTMIN + 3) if hasattr(signal, "SIGRTMIN") else getattr(signal, "SIGUSR2", None)


@contextlib.contextmanager
def graceful_signals(run: Stoppable) -> Iterator[None]:
    """First SIGINT/SIGTERM stops the run gracefully; a second one exits at once with 130."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set in the main thread
        return
    loop = asyncio.get_running_loop()
    watchdog = Watchdog(loop, run, None)

    def on_signal(signum: int, frame: Any) -> None:
        if run.stopping:
            _call_while_blocked()
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
        run.stopping = True
        loop.call_soon_threadsafe(run.stop)
        watchdog.check()

    def on_wake(signum: int, frame: Any) -> None:
        watchdog.check()

    previous: dict[int, Any] = {}
    wanted: list[tuple[int, Callable[[int, Any], None]]] = [(signal.SIGINT, on_signal), (signal.SIGTERM, on_signal)]
    if _WAKE is not None and hasattr(signal, "pthread_kill") and signal.getsignal(_WAKE) == signal.SIG_DFL:
        wanted.append((_WAKE, on_wake))  # only when the program does not use that signal itself
    for number, handler in wanted:
        try:
            previous[number] = signal.signal(number, handler)
        except (ValueError, OSError):
            continue
    main = threading.main_thread().ident
    if _WAKE is not None and _WAKE in previous and main is not None:
        watchdog.interrupt = lambda: signal.pthread_kill(main, _WAKE)
    watchdog.start()
    try:
        yield
    finally:
        watchdog.stop()
        for number, before in previous.items():
            signal.signal(number, before if before is not None else signal.SIG_DFL)
