"""The report for people: a rich table of cases and a one-line summary.

Nothing from a case (names, reasons, errors, the suite's name) is ever handed to rich as a string: rich
would read ``[/bold]`` or ``[link=…]`` in it as markup. Every such text becomes a :class:`rich.text.Text`
from :func:`agent_eval._text.cell` or :func:`~agent_eval._text.block`, with its control characters escaped.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any

import attrs

from agent_eval._agent_run import ToolCall
from agent_eval._model import Attempt, EvalReport, EvalResult, Evaluation
from agent_eval._report.steps import agent_figures, outcome_text, step_call
from agent_eval._text import block, cell, plural

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

#: Above this many cases, the table shows only the cases that did not pass.
FULL_TABLE_LIMIT = 200
#: Width of the table when the output is not a terminal and ``COLUMNS`` is not set.
DEFAULT_WIDTH = 120
#: A reason takes at most this many lines of its cell; ``--verbose`` shows it whole.
REASON_LINES = 4

STYLES = {"passed": "green", "failed": "red", "error": "magenta", "skipped": "yellow"}
#: A row's status.
LABELS = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "skipped": "SKIP"}

# The table's columns are Case, Status, Score, Reason, Time; its box takes 6 columns of bars and 2 of
# padding per column.
_BOX = 6 + 2 * 5
_STATUS_WIDTH = max(len("Status"), *(len(label) for label in LABELS.values()))
_SCORE_WIDTH = len("Score")
#: The case column may take up to this share of what the reason does not need; a name never gets less
#: than _CASE_MIN columns (it folds onto more lines rather than being cut).
_CASE_SHARE = 0.4
_CASE_MIN = 16
_REASON_MIN = 12
#: Longest case name shown: a longer one is cut (the reports hold it whole).
_NAME_LIMIT = 1000
#: What starts the reason of a case whose attempts did not all agree.
FLAKY = "flaky · "


def make_console(file: IO[str] | None = None, *, stderr: bool = False) -> Console:
    """A rich Console that follows NO_COLOR and whether the stream is a terminal (else ``COLUMNS`` wide)."""
    from rich.console import Console

    stream = file or (sys.stderr if stderr else sys.stdout)
    is_terminal = hasattr(stream, "isatty") and stream.isatty()
    width = None if is_terminal else _columns()
    return Console(file=stream, highlight=False, soft_wrap=False, width=width, emoji=False, markup=False)


def _columns() -> int:
    try:
        return max(int(os.environ.get("COLUMNS", "")), 20)
    except ValueError:
        return DEFAULT_WIDTH


def summary_line(report: EvalReport, *, strict: bool = False, bar: float | None = None) -> str:
    """``3 passed, 1 failed, 0 errors, 1 skipped · pass rate 75.0% · 1.2 s``."""
    parts = [
        f"{report.passed} passed",
        f"{report.failed} failed",
        plural(report.errored, "error"),
        f"{report.skipped} skipped",
    ]
    rate = report.rate(strict=strict)
    stats = report.stats
    text = ", ".join(parts) + f" · pass rate {rate:.1%}" + (" (strict)" if strict else "")
    if not strict and stats["ci_low"] is not None:
        text += f" (95% CI {interval(stats['ci_low'], stats['ci_high'])})"
    if bar is not None:
        text += f" ≥ bar {bar:.0%}" if rate >= bar else f" < bar {bar:.0%}"
    text += repeat_figures(stats)
    text += f" · {format_duration(report.total_ms)}"
    text += "".join(f" · {figure}" for figure in agent_figures(report.agent_usage, report.cost_usd))
    usage = report.usage
    if usage.get("total_tokens"):
        text += f" · {usage['total_tokens']:,} judge tokens"
    if report.interrupted:
        planned = report.planned if report.planned is not None else report.total
        text = f"INTERRUPTED: {report.total}/{plural(planned, 'case')} finished · " + text
    return text


def interval(low: float, high: float) -> str:
    """``74.1-88.0%``."""
    return f"{low * 100:.1f}-{high * 100:.1f}%"


def repeat_figures(stats: dict[str, Any]) -> str:
    """`` · pass@1 80.0% · pass^5 52.0%`` for a repeated run, else nothing."""
    at, hat = stats.get("pass_at_k") or {}, stats.get("pass_hat_k") or {}
    if not at:
        return ""
    largest = max(hat, key=int) if hat else None
    text = f" · pass@1 {at['1']:.1%}"
    if largest is not None and largest != "1":
        text += f" · pass^{largest} {hat[largest]:.1%}"
    return text


def format_duration(ms: Any) -> str:
    """Milliseconds as ``12 ms`` or ``1.5 s``."""
    if not isinstance(ms, int | float) or isinstance(ms, bool):
        return cell(ms, 12)  # only a hand-written report holds anything else
    if ms < 1:
        return f"{ms:.2f} ms"
    if ms < 1000:
        return f"{ms:.0f} ms"
    return f"{ms / 1000:.2f} s"


def format_score(score: Any, spec: str = ".2f") -> str:
    """A score as ``0.75`` (``spec`` is its format); none as nothing."""
    if score is None:
        return ""
    if not isinstance(score, int | float) or isinstance(score, bool):
        return cell(score, 12)  # only a hand-written report holds anything else
    return format(score, spec)


@attrs.frozen
class _Layout:
    """How wide each column of the table is, from the console's width and what the rows hold."""

    case: int
    reason: int
    time: int

    @classmethod
    def of(cls, width: int, names: Sequence[str], reasons: Sequence[str], times: Sequence[str]) -> _Layout:
        from rich.cells import cell_len

        time = max([len("Time"), *(len(text) for text in times)])
        room = width - _BOX - _STATUS_WIDTH - _SCORE_WIDTH - time
        case_wanted = max([len("Case"), *(cell_len(name) for name in names)])
        reason_wanted = max([len("Reason"), *(cell_len(reason) for reason in reasons)])
        if case_wanted + reason_wanted <= room:
            return cls(case_wanted, reason_wanted, time)
        case = min(case_wanted, max(_CASE_MIN, room - reason_wanted, int(room * _CASE_SHARE)))
        return cls(case, max(_REASON_MIN, room - case), time)


def render_table(report: EvalReport, console: Console, *, verbose: bool = False) -> None:
    """Print the table of cases: only those that did not pass for big reports, and at most FULL_TABLE_LIMIT.

    A reason takes at most :data:`REASON_LINES` lines of its cell; with ``verbose`` every reason and error
    is shown whole, each evaluation's on rows of its own under its case, with where an error was raised,
    then each tool call the agent made (a repeated case: each attempt, with its evaluations and tool calls).
    A case whose attempts did not all agree has ``flaky ·`` before its reason.
    """
    from rich.text import Text

    rows: list[EvalResult] = list(report.cases)
    if len(rows) > FULL_TABLE_LIMIT:
        rows = [result for result in rows if not result.passed]
    unshown = rows[FULL_TABLE_LIMIT:]  # a table of more rows than this is read by no one: the reports hold them
    rows = rows[:FULL_TABLE_LIMIT]
    names = [cell(result.name, _NAME_LIMIT) for result in rows]
    times = [format_duration(result.duration_ms) for result in rows]
    # one line each, no longer than the console is wide: all the layout needs to know
    reasons = [_flaky(result) + cell(_why(result), console.width) for result in rows]
    if verbose:  # the rows under the cases need room too
        names = names + [label for result in rows for label in _sub_labels(result)]
        reasons = reasons + [cell(step_call(call), console.width) for result in rows for call in _all_calls(result)]
    layout = _Layout.of(console.width, names, reasons, times)
    names = names[: len(rows)]
    title = plural(report.total, "case")
    table = _table(Text(f"{cell(report.name)} — {title}" if report.name else title), layout)
    for result, name, time in zip(rows, names, times, strict=True):
        if verbose:
            _verbose_rows(table, result, name, time)
            continue
        reason = _flag(result, Text(cell(_why(result), layout.reason * REASON_LINES)))
        reason = _clamp(reason, console, layout.reason)
        table.add_row(Text(name), _case_status(result), Text(format_score(result.score)), reason, Text(time))
    console.print(table)
    hidden = report.total - len(rows)
    if hidden:
        console.print(Text(f"({_hidden(hidden, len(unshown))} not shown; write them all with --json PATH)"))


def _sub_labels(result: EvalResult) -> list[str]:
    """The longest labels of the rows under a case in ``verbose`` (attempts, steps), for the layout."""
    labels = []
    if result.attempts:
        labels.append(f"  └ attempt {len(result.attempts)}")
        steps = max(len(attempt.tool_calls) for attempt in result.attempts)
        if steps:
            labels.append(f"    └ step {steps}")
        names = {evaluation.name for attempt in result.attempts for evaluation in attempt.evaluations}
        if any(len(attempt.evaluations) > 1 for attempt in result.attempts):
            labels += [f"    └ {cell(name, _NAME_LIMIT)}" for name in names]
    elif result.tool_calls:
        labels.append(f"  └ step {len(result.tool_calls)}")
    return labels


def _all_calls(result: EvalResult) -> list[ToolCall]:
    if result.attempts:
        return [call for attempt in result.attempts for call in attempt.tool_calls]
    return list(result.tool_calls)


def _hidden(hidden: int, failing: int) -> str:
    """``3 passed cases``, or ``250 cases (50 passed, 200 that did not pass)``."""
    if not failing:
        return plural(hidden, "passed case")
    return f"{plural(hidden, 'case')} ({hidden - failing} passed, {failing} that did not pass)"


def _table(title: Text, layout: _Layout) -> Table:
    from rich.table import Table

    table = Table(title=title, title_justify="left", expand=False)
    table.add_column("Case", width=layout.case, overflow="fold")
    table.add_column("Status", width=_STATUS_WIDTH, no_wrap=True)
    table.add_column("Score", width=_SCORE_WIDTH, justify="right", no_wrap=True)
    table.add_column("Reason", width=layout.reason, overflow="fold")
    table.add_column("Time", width=layout.time, justify="right", no_wrap=True)
    return table


def _why(result: EvalResult) -> Any:
    return result.error or result.reason


def _flaky(result: EvalResult) -> str:
    return FLAKY if result.attempts and result.flaky else ""


def _flag(result: EvalResult, reason: Text) -> Text:
    """``reason`` after a dim ``flaky ·`` when some of the case's attempts passed and some did not."""
    if not (result.attempts and result.flaky):
        return reason
    from rich.text import Text

    flagged = Text(FLAKY, style="dim")
    flagged.append_text(reason)
    return flagged


def status_label(result: EvalResult) -> str:
    """``PASS``, ``FAIL``, ...; for a repeated case the attempts that passed, ``3/5``."""
    if result.attempts:
        outcomes = result.outcomes()
        return f"{sum(outcomes)}/{len(outcomes)}" if outcomes else LABELS["skipped"]
    return LABELS.get(result.status, cell(result.status, 8))


def _case_status(result: EvalResult) -> Text:
    from rich.text import Text

    return Text(status_label(result), style=STYLES.get(result.status, ""))


def _status(status: str) -> Text:
    from rich.text import Text

    return Text(LABELS.get(status, cell(status, 8)), style=STYLES.get(status, ""))


def _clamp(text: Text, console: Console, width: int) -> Text:
    """``text`` as it wraps in a cell ``width`` wide, cut after :data:`REASON_LINES` lines with ``…``."""
    from rich.text import Text

    lines = list(text.wrap(console, width, overflow="fold"))
    if len(lines) <= REASON_LINES:
        return text
    last = lines[REASON_LINES - 1]
    last.truncate(width - 1)
    last.append("…")
    return Text("\n").join(lines[:REASON_LINES])


def _verbose_rows(table: Table, result: EvalResult, name: str, time: str) -> None:
    """The case's row with its reason or error whole, then one row per evaluation when it has several, then
    one per tool call; a repeated case's row is followed by each attempt's rows instead."""
    from rich.text import Text

    status, score = _case_status(result), Text(format_score(result.score))
    if result.attempts:
        table.add_row(Text(name), status, score, _flag(result, _details(_why(result), result.frames)), Text(time))
        for attempt in result.attempts:
            _attempt_rows(table, attempt)
        return
    several = len(result.evaluations) > 1
    frames = result.frames or (result.evaluations[0].frames if len(result.evaluations) == 1 else ())
    # with several evaluations, each one's row below says it; the case's row would only repeat them
    reason = _details(None if several else _why(result), frames)
    table.add_row(Text(name), status, score, reason, Text(time))
    if several:
        for evaluation in result.evaluations:
            _evaluation_row(table, evaluation)
    _step_rows(table, result.tool_calls, "  ")


def _attempt_rows(table: Table, attempt: Attempt) -> None:
    """An attempt's row (status, score, reason or error whole), its evaluations when several, its tool calls."""
    from rich.text import Text

    frames = attempt.evaluations[0].frames if len(attempt.evaluations) == 1 else ()
    table.add_row(
        Text(f"  └ attempt {attempt.index + 1}", style="dim"),
        _status(attempt.status),
        Text(format_score(attempt.score)),
        _details(attempt.error or attempt.reason, frames),
        Text(format_duration(attempt.duration_ms)),
    )
    if len(attempt.evaluations) > 1:
        for evaluation in attempt.evaluations:
            _evaluation_row(table, evaluation, "    ")
    _step_rows(table, attempt.tool_calls, "    ")


def _evaluation_row(table: Table, evaluation: Evaluation, indent: str = "  ") -> None:
    from rich.text import Text

    table.add_row(
        Text(f"{indent}└ {cell(evaluation.name, _NAME_LIMIT)}", style="dim"),
        _status(evaluation.status),
        Text(format_score(evaluation.score)),
        _details(evaluation.error or evaluation.reason, evaluation.frames),
        Text(format_duration(evaluation.duration_ms)),
    )


def _step_rows(table: Table, calls: tuple[ToolCall, ...], indent: str) -> None:
    """One row per tool call, in order: its number and tool, then its arguments and its result or error."""
    from rich.text import Text

    for index, call in enumerate(calls):
        failed = call.error is not None
        details = Text(step_call(call))
        details.append("\n")
        details.append(outcome_text(call), style=STYLES["error"] if failed else "dim")
        table.add_row(
            Text(f"{indent}└ step {index + 1}", style="dim"),
            Text(LABELS["error"], style=STYLES["error"]) if failed else Text(""),
            Text(""),
            details,
            Text(""),
        )


def _details(why: Any, frames: Sequence[str]) -> Text:
    """A reason or error whole (up to :data:`agent_eval._text.DISPLAY_LIMIT` characters), then where it was raised."""
    from rich.text import Text

    text = Text(block(why) if why else "")
    for frame in frames:
        text.append(f"\nat {cell(frame)}", style="dim")
    return text


def print_report(
    report: EvalReport,
    *,
    file: IO[str] | None = None,
    quiet: bool = False,
    strict: bool = False,
    bar: float | None = None,
    verbose: bool = False,
) -> None:
    """Print the table (unless ``quiet``) and the summary line; ``verbose`` shows reasons and errors whole."""
    line = summary_line(report, strict=strict, bar=bar)
    if quiet and _plain_stream(file or sys.stdout) and _plain_line(line):
        # what rich writes of it here, without importing rich (25 ms): no style on a stream that is not
        # a terminal, and no wrap in a line no wider than the console
        (file or sys.stdout).write(line + "\n")
        return
    from rich.text import Text

    console = make_console(file)
    if not quiet:
        render_table(report, console, verbose=verbose)
    console.print(Text(line, style=_summary_style(report, strict, bar)))


#: The characters of a summary line besides ASCII; each takes one cell (rich's ``cell_len``).
_NARROW = frozenset("·≥")


def _plain_line(line: str) -> bool:
    """True for a line no wider than the console, of ASCII and :data:`_NARROW` signs: rich writes it as it is."""
    return len(line) <= _columns() and all(char.isascii() or char in _NARROW for char in line)


def _plain_stream(stream: IO[str]) -> bool:
    """True when rich would write no style to ``stream``: not a terminal, and none forced by the environment
    (rich's ``TTY_COMPATIBLE`` and ``FORCE_COLOR``); and the stream writes UTF-8."""
    if os.environ.get("TTY_COMPATIBLE") or os.environ.get("FORCE_COLOR") is not None:
        return False
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
    if encoding != "utf8":  # rich then says how to make the line's signs writable: it goes that way
        return False
    try:
        return not stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream: rich's way, whatever it makes of it
        return False


def _summary_style(report: EvalReport, strict: bool, bar: float | None) -> Any:
    if report.interrupted or report.errored:
        return "bold magenta"
    met = report.rate(strict=strict) >= bar if bar is not None else report.failed == 0 and report.passed > 0
    return "bold green" if met else "bold red"
