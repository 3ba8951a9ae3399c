"""What every command of the ``agent-eval`` command line shares: exit codes, errors, report writing.

A leaf: the command modules import it, it imports none of them.
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import click

from agent_eval._runs import DEFAULT_HISTORY as DEFAULT_HISTORY  # re-exported for the commands

if TYPE_CHECKING:
    from pathlib import Path

    from agent_eval._model import EvalReport

EXIT_BELOW_BAR = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130
DEBUG_ENV = "AGENT_EVAL_DEBUG"
HISTORY_HELP = f"Run history database (default {DEFAULT_HISTORY})."

#: Report formats by name: the ``agent_eval._report`` module that writes each.
FORMATS = ("json", "junit", "html", "markdown")

#: A report to write: the option that asked for it (``--json``), the path, the format's name.
Target = tuple[str, "Path | None", str]


class UsageProblem(click.ClickException):
    """A user mistake: printed as one line per problem, exit 2, no traceback."""

    exit_code = EXIT_USAGE

    def __init__(self, lines: list[str] | str) -> None:
        self.lines = [lines] if isinstance(lines, str) else list(lines)
        super().__init__("\n".join(self.lines))

    def show(self, file: Any = None) -> None:
        from agent_eval._text import cell

        stream = file or sys.stderr
        if len(self.lines) > 1:
            click.echo(f"error: {len(self.lines)} problems:", file=stream)
        for line in self.lines:
            click.echo(f"error: {cell(line)}", file=stream)  # a case name or a path may hold any character


class FilePath(click.Path):
    """A path of a file to read or write: not a folder, and never empty (which would name none)."""

    def __init__(self) -> None:
        super().__init__(dir_okay=False)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail(f"{value!r} names no file; give a path", param, ctx)
        return super().convert(value, param, ctx)


class FiniteFloatRange(click.FloatRange):
    """A number in a range, refusing nan and infinities (a range lets nan through: it compares false)."""

    name = "number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


def check_targets(targets: Iterable[Target]) -> None:
    """Refuse, before any work, report paths that can never be written: empty, or under a file."""
    import os

    problems = []
    for flag, path, _ in targets:
        if path is None:
            continue
        if not str(path).strip():
            problems.append(f"{flag}: the path is empty; give a file to write")
            continue
        for parent in path.parents:
            if os.path.lexists(parent) and not parent.is_dir():
                problems.append(f"{flag} {path}: {str(parent)!r} is a file, not a folder")
                break
    if problems:
        raise UsageProblem(problems)


def write_reports(report: EvalReport, targets: Iterable[Target]) -> tuple[int, int]:
    """Write ``report`` to each target that has a path: (written, failed).

    A path that cannot be written is a one-line warning; the other reports are still written.
    """
    import importlib

    written = failed = 0
    for flag, path, kind in targets:
        if path is None:
            continue
        try:
            with phase(kind):
                importlib.import_module(f"agent_eval._report.{kind}").write(report, path)
        except OSError as error:
            warn(f"{flag} {path}: cannot write: {describe_os_error(error)}")
            failed += 1
        else:
            written += 1
    return written, failed


def warn(message: str) -> None:
    """One ``warning:`` line on stderr."""
    click.echo(f"warning: {message}", err=True)


def describe_os_error(error: OSError) -> str:
    """The reason an OSError gives, without Python's ``[Errno 28]`` and the path the line already names."""
    return str(error.strerror or error)


def exit_code(rate_code: int, written: int, failed: int) -> int:
    """The run's exit code: as the pass rate says, unless every report asked for failed to be written (3)."""
    if failed and not written:
        click.echo("error: none of the reports asked for could be written (see the warnings above)", err=True)
        return EXIT_INTERNAL
    return rate_code


def load_run(ref: str, history_path: str | None, *, lines: bool = True, outcomes: bool = False) -> EvalReport:
    """:func:`agent_eval.load_run`, its errors one line and exit 2."""
    from agent_eval._runs import RunNotFound
    from agent_eval._runs import load_run as load

    try:
        return load(ref, history=history_path, lines=lines, outcomes=outcomes)
    except RunNotFound as error:
        raise UsageProblem(str(error)) from None


#: With the collector off, the young objects are collected every this many cases.
COLLECT_EVERY = 5_000
_ticks = [0]


@contextlib.contextmanager
def young_garbage_only() -> Iterator[None]:
    """The cyclic garbage collector off for a command's work, but for :func:`collect_now_and_then`.

    A run keeps the loaded suite and every result alive to the end, so the collector would walk that
    growing heap again and again while loading, running and writing: that costs about as much as all
    the rest of a large run (100,000 instant cases with a --jsonl stream: 11 s against 5.5 s). Objects
    are still freed as ever when no longer used; only the detection of reference cycles waits, and the
    young ones (an agent's exception and its traceback) are collected every :data:`COLLECT_EVERY` cases.
    """
    import gc

    if not gc.isenabled():
        yield
        return
    gc.disable()
    _managed[0] = True
    _clean_growth[0] = None
    try:
        yield
    finally:
        _managed[0] = False
        if _set_aside[0]:
            _set_aside[0] = False
            gc.unfreeze()
        gc.enable()


#: True inside :func:`young_garbage_only` when it turned the collector off; True when
#: :func:`set_aside_loaded` froze what was made so far.
_managed = [False]
_set_aside = [False]


def set_aside_loaded() -> None:
    """Keep the objects made so far (the loaded suite, alive for the whole run) out of the collections of
    :func:`collect_now_and_then`, until the command ends (``gc.freeze``).

    Otherwise the first of them walks every object of the load once more: 0.07-0.09 s of 100,000 cases,
    a third of all the run's collections. Only under :func:`young_garbage_only`, and only when nothing
    else has frozen objects (``gc.unfreeze`` at the end lets go of every frozen object, not just these).
    """
    import gc

    if _managed[0] and not _set_aside[0] and gc.get_freeze_count() == 0:
        gc.freeze()
        _set_aside[0] = True
        _last_peak[0] = _peak_memory()


def collect_now_and_then() -> None:
    """Collect the young objects once every :data:`COLLECT_EVERY` calls (one call per finished case).

    While the loaded suite is set aside (:func:`set_aside_loaded`) and the last collection found no
    garbage, the young objects of a stretch are set aside as well (``gc.freeze``, which walks none of
    them) instead, unless the process's peak memory grew in it by more than twice as much as in the last
    stretch collected, and but for every :data:`LOOK_EVERY`-th: those are collected, to look again, and a
    collection that finds garbage makes every stretch collected again. So the garbage of a set-aside
    stretch, kept to the end of the command, is at most about twice what its results take. A run of
    instant cases walks a third of a million young objects in twenty collections otherwise (0.06 s of
    100,000 cases), none of them garbage.
    """
    _ticks[0] += 1
    if _ticks[0] % COLLECT_EVERY:
        return
    import gc

    peak = _peak_memory()
    grew = peak - _last_peak[0]
    _last_peak[0] = peak
    quiet = _clean_growth[0] is not None and grew <= 2 * _clean_growth[0]
    if _set_aside[0] and quiet and (_ticks[0] // COLLECT_EVERY) % LOOK_EVERY:
        gc.freeze()
        return
    _clean_growth[0] = grew if gc.collect(1) == 0 and peak >= 0 else None


#: While collections find no garbage, one stretch of COLLECT_EVERY cases in this many is collected.
LOOK_EVERY = 8
#: How much the peak memory grew in the last stretch collected, when that collection found no garbage (else
#: None); the peak when the last stretch ended.
_clean_growth: list[int | None] = [None]
_last_peak = [0]


def _peak_memory() -> int:
    """The process's peak memory so far, in the system's unit (-1 where it cannot be known: no stretch is then
    set aside)."""
    try:
        import resource
    except ImportError:  # Windows
        return -1
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


#: Set to a file path (or "-" for stderr), the run writes how long each of its phases took, as JSON.
PHASES_ENV = "AGENT_EVAL_PHASES"
_phases: dict[str, float] = {}
#: The process's peak memory (MB) when each phase ended: the phase that raised it is the one to look at.
_peaks: dict[str, float] = {}


@contextlib.contextmanager
def phase(name: str) -> Iterator[None]:
    """Time a phase of the command (load, run, each report, history) when AGENT_EVAL_PHASES is set."""
    import os

    if not os.environ.get(PHASES_ENV):
        yield
        return
    import resource
    import time

    start = time.perf_counter()
    try:
        yield
    finally:
        _phases[name] = _phases.get(name, 0.0) + time.perf_counter() - start
        _peaks[name] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def write_phases() -> None:
    """Write the phases' seconds where AGENT_EVAL_PHASES says (the benchmarks read them), and under
    ``peak_mb`` the peak memory of the process when each ended."""
    import os

    target = os.environ.get(PHASES_ENV)
    if not target or not _phases:
        return
    import json

    timings: dict[str, object] = {name: round(seconds, 4) for name, seconds in _phases.items()}
    timings["peak_mb"] = {name: round(peak, 1) for name, peak in _peaks.items()}
    text = json.dumps(timings)
    if target == "-":
        click.echo(text, err=True)
    else:
        with open(target, "a", encoding="utf-8") as stream:  # noqa: PTH123 - a path from the environment
            stream.write(text + "\n")
