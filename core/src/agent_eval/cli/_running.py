"""What ``agent-eval run`` does: load, run, print, write reports, record, and pick the exit code.

Imported when the command runs, not at start-up: it loads the suite machinery and the runner.
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs

from agent_eval._errors import AgentEvalError, SuiteError, did_you_mean
from agent_eval._execution import Executor, RunPlan, RunSettings, run_plan
from agent_eval._model import AgentContext, EvalReport, EvalResult
from agent_eval._plugins import Registry, get_registry
from agent_eval._report.console import print_report
from agent_eval._suite import SuiteFile, load_suite
from agent_eval._text import cell, plural, text_of
from agent_eval._version import __version__
from agent_eval.cli._common import (
    DEFAULT_HISTORY,
    EXIT_BELOW_BAR,
    EXIT_INTERRUPTED,
    UsageProblem,
    check_targets,
    collect_now_and_then,
    describe_os_error,
    exit_code,
    phase,
    set_aside_loaded,
    warn,
    write_phases,
    write_reports,
    young_garbage_only,
)


@attrs.frozen
class RunOptions:
    """The options of ``agent-eval run``."""

    concurrency: int | None = None
    timeout: float | None = None
    repeat: int | None = None
    case_pass_rate: float | None = None
    json_path: Path | None = None
    jsonl_path: Path | None = None
    junit_path: Path | None = None
    html_path: Path | None = None
    markdown_path: Path | None = None
    min_pass_rate: float | None = None
    strict: bool = False
    history_path: Path | None = None
    no_history: bool = False
    quiet: bool = False
    verbose: bool = False
    filters: tuple[str, ...] = ()
    executor: str | None = None
    executor_options: dict[str, str] = attrs.Factory(dict)
    shard: tuple[int, int] | None = None
    resume: str | None = None
    retry_errors: str | None = None


def execute(suite_path: Path, agent_ref: str | None, options: RunOptions) -> int:
    """Run a suite file as the CLI does and return the exit code."""
    try:
        with young_garbage_only():
            return _execute(suite_path, agent_ref, options)
    finally:
        write_phases()


def _execute(suite_path: Path, agent_ref: str | None, options: RunOptions) -> int:
    check_targets([*_reports(options), ("--jsonl", options.jsonl_path, "jsonl")])
    registry = get_registry()
    with phase("load"):
        suite = _load(suite_path, registry)
    set_aside_loaded()
    selected = _select(suite, options.filters)
    positions = _shard_positions(suite, selected, options.shard)
    taken = _taken(suite, positions, options)
    to_run = [position for position in positions if position not in taken]
    reference, agent = _agent(agent_ref, suite)
    for broken in registry.broken:
        print(f"warning: {cell(broken.message())}", file=sys.stderr)
    executor = _executor(options, suite, registry)
    plan = _plan(suite, to_run, agent, reference, options)
    run_info = _run_info(suite, reference, options) | _scope_info(suite, selected, positions, taken, options)
    stream = _case_stream(options.jsonl_path, run_info)
    if stream is not None and not _same_file(options.jsonl_path, options.resume or options.retry_errors):
        for index, position in enumerate(positions):  # the taken-over cases too: the new file is whole
            if position in taken:
                stream.case(index, taken[position])
    # a case's line in the stream holds its place among all the run's cases, the taken-over ones included
    index_of = {position: index for index, position in enumerate(positions)} if taken else None
    with _progress(len(plan.cases), enabled=not options.quiet) as advance:

        def on_result(index: int, result: EvalResult) -> None:
            if stream is not None:
                stream.case(index if index_of is None else index_of[to_run[index]], result)
            advance()
            collect_now_and_then()

        with phase("run"), _written_out(stream):
            report = _run(plan, executor, options, suite, on_result)
    if taken:
        report = _joined(report, suite, positions, taken)
    report = report.with_metadata({**run_info, **_used(report, registry)})
    bar, empty_shard = _bar(options, suite), not positions and options.shard is not None
    # the reports need the results only: the cases and what found them go before the reports are made
    del suite, plan, executor, on_result, selected
    code = _finish(report, bar, options, stream)
    if empty_shard and options.shard is not None:
        print(f"shard {options.shard[0]}/{options.shard[1]} holds no case of this suite", file=sys.stderr)
        return 0  # an empty shard is not an error: its matrix job has nothing to do
    return code


def rescore_run(run_ref: str, suite_path: Path | None, options: RunOptions) -> int:
    """Grade the outputs a recorded run stored with the suite's evaluators now; no agent is called."""
    from agent_eval._replay import ReplayExecutor, no_agent
    from agent_eval.cli._common import load_run

    check_targets([*_reports(options), ("--jsonl", options.jsonl_path, "jsonl")])
    previous = load_run(run_ref, str(options.history_path) if options.history_path else None)
    if suite_path is None:
        recorded = previous.metadata.get("suite_file")
        if not isinstance(recorded, str) or not recorded:
            raise UsageProblem(f"{run_ref}: the run does not say which suite file it ran; give SUITE")
        suite_path = Path(recorded)
    registry = get_registry()
    suite = _load(suite_path, registry)
    stored = {result.name: result for result in previous.cases}
    positions = [position for position, case in enumerate(suite.cases) if case.name in stored]
    missing = len(suite.cases) - len(positions)
    if missing:
        warn(
            f"{plural(missing, 'case')} of {suite.path} {'is' if missing == 1 else 'are'} not in {run_ref}: not graded"
        )
    # a case whose agent failed stored no answer to grade: it stays as it was
    unanswered = {p: stored[suite.cases[p].name] for p in positions if _unanswered(stored[suite.cases[p].name])}
    to_run = [position for position in positions if position not in unanswered]
    repeat = max((len(stored[suite.cases[p].name].attempts) for p in to_run), default=0) or 1
    options = attrs.evolve(options, repeat=repeat, executor=None)
    plan = _plan(suite, to_run, no_agent, "(rescored)", options)
    run_info = _run_info(suite, str(previous.metadata.get("agent") or ""), options)
    run_info.update(rescored_from=str(previous.metadata.get("run_id") or run_ref), executor="replay")
    stream = _case_stream(options.jsonl_path, run_info)
    index_of = {position: index for index, position in enumerate(positions)}
    with _progress(len(plan.cases), enabled=not options.quiet) as advance:

        def on_result(index: int, result: EvalResult) -> None:
            if stream is not None:
                stream.case(index_of[to_run[index]], result)
            advance()

        with _written_out(stream):
            report = run_plan(plan, ReplayExecutor(stored), on_result=on_result)
    report = _joined(report, suite, positions, unanswered)
    report = report.with_metadata({**run_info, **_used(report, registry)})
    return _finish(report, _bar(options, suite), options, stream)


def _unanswered(result: EvalResult) -> bool:
    """True when the agent gave no answer to grade (it raised or timed out, in every attempt)."""
    if result.attempts:
        return all(attempt.output is None for attempt in result.attempts)
    return result.output is None


def _shard_positions(suite: SuiteFile, positions: list[int], shard: tuple[int, int] | None) -> list[int]:
    if shard is None:
        return positions
    from agent_eval._resume import in_shard

    return in_shard(suite.cases, positions, *shard)


def _taken(suite: SuiteFile, positions: list[int], options: RunOptions) -> dict[int, EvalResult]:
    """The cases an earlier run finished that this one takes over (``--resume``, ``--retry-errors``)."""
    source = options.resume or options.retry_errors
    if source is None:
        return {}
    from agent_eval._resume import finished
    from agent_eval.cli._common import load_run

    previous = load_run(source, str(options.history_path) if options.history_path else None)
    repeat = _repeat(options, suite)
    return finished(
        previous.cases, suite.cases, positions, repeat=repeat, retry_errors=options.retry_errors is not None
    )


def _joined(report: EvalReport, suite: SuiteFile, positions: list[int], taken: dict[int, EvalResult]) -> EvalReport:
    """This run's results and the taken-over ones, in the suite's order (names are unique in a suite)."""
    fresh = {result.name: result for result in report.cases}
    ordered = []
    for position in positions:
        result = taken.get(position) or fresh.get(suite.cases[position].name)
        if result is not None:
            ordered.append(result)
    return attrs.evolve(report, cases=ordered, planned=len(positions), interrupted=len(ordered) < len(positions))


def _scope_info(
    suite: SuiteFile, selected: list[int], positions: list[int], taken: dict[int, EvalResult], options: RunOptions
) -> dict[str, Any]:
    """What part of the suite the run covered: the shard, the digest shards share, what was taken over."""
    from agent_eval._resume import suite_digest

    info: dict[str, Any] = {"suite_digest": suite_digest(suite.cases, selected), "suite_cases": len(selected)}
    if options.shard is not None:
        info["shard"] = f"{options.shard[0]}/{options.shard[1]}"
        info["positions"] = positions
    source = options.resume or options.retry_errors
    if source is not None:
        info["resumed_from"] = source
        info["taken_over"] = len(taken)
    return info


def _same_file(path: Path | None, ref: str | None) -> bool:
    if path is None or ref is None:
        return False
    import os.path

    return os.path.lexists(ref) and os.path.realpath(ref) == os.path.realpath(path)


def _run(
    plan: RunPlan,
    executor: Executor,
    options: RunOptions,
    suite: SuiteFile,
    on_result: Callable[[int, EvalResult], None],
) -> EvalReport:
    """The run itself; an executor that cannot start (a cluster address that does not answer) is exit 2."""
    try:
        return run_plan(plan, executor, on_result=on_result)
    except AgentEvalError as error:
        name = options.executor or suite.executor or "local"
        raise UsageProblem(f"executor {name!r}: {error}") from None


def _plan(
    suite: SuiteFile, positions: list[int], agent: Callable[..., Any], reference: str, options: RunOptions
) -> RunPlan:
    settings = RunSettings(
        concurrency=options.concurrency or suite.concurrency or 1,
        timeout=options.timeout or suite.timeout,
        repeat=_repeat(options, suite),
        case_pass_rate=_case_pass_rate(options, suite),
    )
    whole = len(positions) == len(suite.cases)  # positions are in order and unique: every case
    return RunPlan(
        cases=suite.cases if whole else suite.cases.select(suite.cases[position] for position in positions),
        agent=agent,
        ctx=AgentContext(),
        settings=settings,
        name=suite.name,
        suite_path=str(suite.path),
        agent_reference=reference,
        positions=tuple(positions),
        # the history, a report or --jsonl writes every result; a small run's are made as they are written
        results_as_json=len(positions) >= RESULTS_AS_JSON_FROM
        and (not options.no_history or any(path for _, path, _ in _reports(options)) or bool(options.jsonl_path)),
    )


#: A run of at least this many cases has the executor make each result's JSON as it makes the result (the
#: local one writes it with msgspec, whose import, 6-10 ms, this many cases make up for).
RESULTS_AS_JSON_FROM = 10_000


def _finish(report: EvalReport, bar: float, options: RunOptions, stream: Any) -> int:
    """Print, record and write the report; the exit code (``bar``: the pass rate the run is held to)."""
    if stream is not None:
        stream.finish(report)
    with phase("console"):
        print_report(report, quiet=options.quiet, strict=options.strict, bar=bar, verbose=options.verbose)
    # The run is recorded while the report files are written, in a thread of its own: compressing the report
    # and SQLite's work let go of the interpreter, so the history takes the other processor. A report path
    # that cannot be written loses nothing: the recording goes on, and is waited for.
    recording = _Recording(report, options) if not options.no_history else None
    try:
        written, failed = write_reports(report, _reports(options))
        _github_summary(report)
    finally:
        if recording is not None:
            with phase("history"):  # what the writing of the reports did not cover
                recording.wait()
    if recording is not None:
        recording.raise_what_it_raised()  # after the reports' own error, if any: that one goes first
    if stream is not None:
        written, failed = (written, failed + 1) if stream.failed else (written + 1, failed)
    if report.interrupted:
        return exit_code(EXIT_INTERRUPTED, written, failed)
    return exit_code(0 if report.rate(strict=options.strict) >= bar else EXIT_BELOW_BAR, written, failed)


def _executor(options: RunOptions, suite: SuiteFile, registry: Registry) -> Executor:
    """The executor the run asked for (``--executor``, else the suite's, else ``local``), built with its options."""
    import inspect

    name = options.executor or suite.executor or "local"
    given: dict[str, Any] = dict(suite.executor_options) if not options.executor else {}
    given.update(options.executor_options)
    try:
        factory = registry.executor(name).factory
    except AgentEvalError as error:
        raise UsageProblem(str(error)) from None
    try:
        accepted = [p for p in inspect.signature(factory).parameters.values() if p.kind is not p.VAR_POSITIONAL]
    except (TypeError, ValueError):
        accepted = []
    names = [p.name for p in accepted]
    takes_any = any(p.kind is p.VAR_KEYWORD for p in accepted)
    for key in given:
        if key not in names and not takes_any:
            flag = "--" + key.replace("_", "-")
            known = ", ".join("--" + n.replace("_", "-") for n in names) or "none"
            hint = did_you_mean(flag, ["--" + n.replace("_", "-") for n in names])
            raise UsageProblem(f"no such option: {flag} (executor {name!r} takes: {known}).{hint}")
    try:
        executor: Executor = factory(**given)
    except (TypeError, ValueError, AgentEvalError) as error:
        raise UsageProblem(f"executor {name!r}: {error}") from None
    return executor


def _load(path: Path, registry: Registry) -> SuiteFile:
    try:
        return load_suite(path, registry=registry)
    except SuiteError as error:
        raise UsageProblem(error.problems) from None


def _select(suite: SuiteFile, filters: tuple[str, ...]) -> list[int]:
    """The positions of the cases whose names match one of ``filters`` (all when none given)."""
    if not filters:
        return list(range(len(suite.cases)))
    import fnmatch

    def wanted(name: str) -> bool:
        lowered = name.lower()
        for pattern in filters:
            pattern = pattern.lower()
            if any(char in pattern for char in "*?[") and fnmatch.fnmatchcase(lowered, pattern):
                return True
            if pattern in lowered:
                return True
        return False

    positions = [position for position, case in enumerate(suite.cases) if wanted(case.name)]
    if not positions:
        shown = ", ".join(repr(f) for f in filters)
        raise UsageProblem(f"{suite.path}: no case matches --filter {shown} ({len(suite.cases)} cases in the suite)")
    return positions


def _agent(agent_ref: str | None, suite: SuiteFile) -> tuple[str, Callable[..., Any]]:
    from agent_eval._references import load_agent

    reference = agent_ref or suite.agent
    if not reference:
        raise UsageProblem(f"{suite.path}: no agent to run; pass --agent MODULE:ATTR or set `agent:` in the suite")
    origin = "--agent" if agent_ref else f"{suite.path}"
    # The suite's own `agent:` is found beside the suite first; --agent, typed here, in this folder first.
    here, beside = Path.cwd(), suite.path.parent.absolute()
    folders = [here, beside] if agent_ref else [beside, here]
    try:
        return reference, load_agent(reference, origin=origin, folders=folders)
    except AgentEvalError as error:
        raise UsageProblem(str(error)) from None


def _repeat(options: RunOptions, suite: SuiteFile) -> int:
    return options.repeat or suite.repeat or 1


def _case_pass_rate(options: RunOptions, suite: SuiteFile) -> float:
    if options.case_pass_rate is not None:
        return options.case_pass_rate
    return suite.case_pass_rate if suite.case_pass_rate is not None else 1.0


def _bar(options: RunOptions, suite: SuiteFile) -> float:
    if options.min_pass_rate is not None:
        return options.min_pass_rate
    return suite.min_pass_rate if suite.min_pass_rate is not None else 1.0


def _run_info(suite: SuiteFile, reference: str, options: RunOptions) -> dict[str, Any]:
    now = datetime.now(UTC)
    return {
        "run_id": f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}",
        "suite": suite.name,
        "suite_file": str(suite.path),
        "agent": reference,
        "agent_eval_version": __version__,
        "min_pass_rate": _bar(options, suite),
        "strict": options.strict,
        "concurrency": options.concurrency or suite.concurrency or 1,
        "timeout": options.timeout or suite.timeout,
        "repeat": _repeat(options, suite),
        "case_pass_rate": _case_pass_rate(options, suite),
        "filters": list(options.filters),
        "executor": options.executor or suite.executor or "local",
    }


def _used(report: EvalReport, registry: Registry) -> dict[str, Any]:
    """The plugin distributions and judge models the run's evaluations came from."""
    tally = report.tally()
    plugins: dict[str, str | None] = {}
    for name in sorted(tally.evaluators):
        for info in registry.entries.get(name, ()):
            if info.distribution:
                plugins[info.distribution] = info.version
    return {"plugins": plugins, "judge_models": sorted({text_of(model) for model in tally.models})}


def _case_stream(path: Path | None, run_info: dict[str, Any]) -> Any:
    if path is None:
        return None
    from agent_eval._report.json import CaseStream

    def failed(error: OSError) -> None:
        warn(f"--jsonl {path}: cannot write: {describe_os_error(error)}; the run goes on without it")

    try:
        return CaseStream(path, run_info, on_error=failed)
    except OSError as error:
        raise UsageProblem(f"--jsonl {path}: cannot open: {describe_os_error(error)}") from None


@contextmanager
def _written_out(stream: Any) -> Iterator[None]:
    """The --jsonl lines of the cases that finished are written when the run ends, whatever ends it, and while
    an agent holds the event loop (a line may wait a moment for the lines of the cases that finish with it)."""
    if stream is None:
        yield
        return
    from agent_eval._signals import done_while_blocked

    try:
        with done_while_blocked(stream.flush_unless_busy):
            yield
    finally:
        stream.flush()


@contextmanager
def _progress(total: int, *, enabled: bool) -> Iterator[Callable[[], None]]:
    """A progress bar on stderr when it is a terminal; otherwise nothing."""
    if not (enabled and sys.stderr.isatty() and total > 1):
        yield lambda: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from agent_eval._report.console import make_console

    columns = (TextColumn("running"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=make_console(stderr=True), transient=True) as progress:
        task = progress.add_task("cases", total=total)
        yield lambda: progress.advance(task)


def _reports(options: RunOptions) -> list[tuple[str, Path | None, str]]:
    return [
        ("--json", options.json_path, "json"),
        ("--junit", options.junit_path, "junit"),
        ("--html", options.html_path, "html"),
        ("--markdown", options.markdown_path, "markdown"),
    ]


def _github_summary(report: EvalReport) -> None:
    """Append the Markdown summary to the job page when running in GitHub Actions."""
    import os

    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return
    from agent_eval._report import markdown

    try:
        with Path(target).open("a", encoding="utf-8") as stream:
            stream.write(markdown.render(report) + "\n\n")
    except OSError as error:
        print(f"warning: cannot append to GITHUB_STEP_SUMMARY {target}: {error.strerror}", file=sys.stderr)


class _Recording:
    """The run being recorded in the history, in a thread started at once; :meth:`wait` waits for it."""

    def __init__(self, report: EvalReport, options: RunOptions) -> None:
        import threading

        self._raised: list[BaseException] = []
        self._warning: list[str] = []
        self._thread = threading.Thread(target=self._record, args=(report, options), name="history")
        self._thread.start()

    def _record(self, report: EvalReport, options: RunOptions) -> None:
        from agent_eval._history import History

        path = options.history_path or Path(DEFAULT_HISTORY)
        try:
            History(path).record(report)
        except (OSError, AgentEvalError) as error:
            self._warning.append(f"warning: run not recorded in {path}: {error}")
        except BaseException as error:  # raised again where the command can report it
            self._raised.append(error)

    def wait(self) -> None:
        """Wait until the run is recorded, and say so when it could not be (after the reports' warnings,
        always: the warning is printed here, not from the thread)."""
        self._thread.join()
        for line in self._warning:
            print(line, file=sys.stderr)

    def raise_what_it_raised(self) -> None:
        """Raise what the recording raised, but a warning (once :meth:`wait` has returned)."""
        if self._raised:
            raise self._raised[0]
