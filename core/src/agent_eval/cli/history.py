"""``agent-eval runs``, ``show`` and ``compare``: the commands that read the run history.

This module is imported every time the ``agent-eval`` command starts, so it imports nothing heavy
(pathlib, sqlite3, rich, the report writers) until a command runs.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from agent_eval.cli._common import (
    DEFAULT_HISTORY,
    HISTORY_HELP,
    FilePath,
    FiniteFloatRange,
    UsageProblem,
    check_targets,
    exit_code,
    load_run,
    write_reports,
)

if TYPE_CHECKING:
    from pathlib import Path

    from rich.console import Console
    from rich.text import Text

    from agent_eval._history import CaseChange, Comparison, History, PairedFigures, RunSummary, ToolChange
    from agent_eval._model import EvalReport

# Paths arrive as strings (pathlib is not imported at start-up) and become Path objects where used.
_PATH = FilePath()


@click.command()
@click.option("--history", "history_path", type=_PATH, help=HISTORY_HELP)
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True, help="Show this many runs.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list for tools instead of a table.")
def runs(history_path: str | None, limit: int, as_json: bool) -> None:
    """List the recorded runs, newest first: id, time, suite, pass rate, counts."""
    history = _history(history_path)
    summaries = _call(lambda: history.runs(limit=limit))
    if as_json:
        click.echo(json.dumps([summary.to_dict() for summary in summaries], indent=2))
        return
    if not summaries:
        click.echo(f"No runs recorded in {history.path} yet; `agent-eval run SUITE` records one.")
        return
    _print_runs(summaries)


@click.command()
@click.argument("run_ref", metavar="RUN")
@click.option("--history", "history_path", type=_PATH, help=HISTORY_HELP)
@click.option("--json", "json_path", type=_PATH, help="Write the stored report as JSON.")
@click.option("--html", "html_path", type=_PATH, help="Write the stored report as a self-contained HTML page.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the summary line.")
@click.option("--verbose", "-v", is_flag=True, help="Print every reason and error whole, and where errors were raised.")
def show(
    run_ref: str, history_path: str | None, json_path: str | None, html_path: str | None, quiet: bool, verbose: bool
) -> None:
    """Print a recorded RUN (an id, a prefix of one, latest or latest~N) as `run` printed it."""
    from agent_eval._report.console import print_report
    from agent_eval._report.markdown import gate, recorded_bar

    check_targets([("--json", _path(json_path), "json"), ("--html", _path(html_path), "html")])
    history = _history(history_path)
    stored = _call(lambda: history.load(run_ref))
    report = stored.report
    if not quiet:
        click.echo(_run_line(stored.summary))
    print_report(report, quiet=quiet, strict=gate(report).strict, bar=recorded_bar(report), verbose=verbose)
    targets = [("--json", _path(json_path), "json"), ("--html", _path(html_path), "html")]
    written, failed = write_reports(report, targets)
    code = exit_code(0, written, failed)
    if code:
        raise SystemExit(code)


@click.command()
@click.argument("base_ref", metavar="BASE")
@click.argument("head_ref", metavar="HEAD")
@click.option("--history", "history_path", type=_PATH, help=HISTORY_HELP)
@click.option(
    "--alpha",
    type=FiniteFloatRange(0, 1, min_open=True, max_open=True),
    help="Gate on the paired test instead: exit 1 only when HEAD is worse with a p-value below this level.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@click.pass_context
def compare(
    ctx: click.Context, base_ref: str, head_ref: str, history_path: str | None, alpha: float | None, as_json: bool
) -> None:
    """Show what changed per case from BASE to HEAD, and a paired test; exit 1 when any case regressed.

    BASE and HEAD are run ids, `latest`, `latest~N`, or JSON reports written by `run --json`. Cases
    are paired by name; the difference in pass rate, its 95% interval, the paired test (McNemar's, or a
    paired t-test on pass fractions with repeats) and the correlation are over the cases that ran in
    both. With --alpha, exit 1 only when HEAD is worse with a p-value below it.
    """
    from agent_eval._codec import paused_gc

    # what a comparison builds holds no cycles, and the collector would walk both runs' cases again and
    # again (a third of the time of comparing two runs of 100,000 cases)
    with paused_gc():
        failed = _compare(base_ref, head_ref, history_path, alpha, as_json)
    ctx.exit(1 if failed else 0)


def _compare(base_ref: str, head_ref: str, history_path: str | None, alpha: float | None, as_json: bool) -> bool:
    """Compare and print; True when the gate fails."""
    from agent_eval._history import DEFAULT_ALPHA
    from agent_eval._history import compare as compare_reports

    base = _report(base_ref, history_path)
    head = _report(head_ref, history_path)
    comparison: Comparison = _call(lambda: compare_reports(base, head, labels=(f"BASE {base_ref}", f"HEAD {head_ref}")))
    if as_json:
        from agent_eval._codec import jsonable

        data = comparison.to_dict(alpha=DEFAULT_ALPHA if alpha is None else alpha)
        click.echo(json.dumps(jsonable(data), indent=2, ensure_ascii=False))
    else:
        _print_comparison(comparison, base_ref, head_ref, alpha)
    return comparison.regressed if alpha is None else comparison.paired.significant(alpha)


# --- helpers -------------------------------------------------------------------------------------------


def _history(path: str | None) -> History:
    from agent_eval._history import History

    return History(path or DEFAULT_HISTORY)


def _path(value: str | None) -> Path | None:
    from pathlib import Path

    return None if value is None else Path(value)


def _call(action: Any) -> Any:
    """Run a history read, turning its errors into one line and exit 2."""
    from agent_eval._history import HistoryError

    try:
        return action()
    except HistoryError as error:
        raise UsageProblem(str(error)) from None


def _report(ref: str, history_path: str | None) -> EvalReport:
    """A run to compare: from a JSON file when ``ref`` names one (only what compare uses), else from the history."""
    return load_run(ref, history_path, lines=False, outcomes=True)


def _console() -> Console:
    from agent_eval._report.console import make_console

    return make_console()


def _print_runs(summaries: list[RunSummary]) -> None:
    """The table of runs; columns the console has no room for are left out, least useful first.

    The run id and the pass rate are always there and never cut; the suite's name folds onto more lines.
    """
    from rich.table import Table

    console = _console()
    columns: tuple[tuple[str, str], ...] = _RUN_COLUMNS
    # the agents' tokens and cost only when some run recorded them
    agents = any(summary.agent_tokens is not None or summary.cost_usd is not None for summary in summaries)
    if agents:
        columns += _AGENT_COLUMNS
    rows = [_run_row(summary, agents=agents) for summary in summaries]
    shown = _run_columns(console.width, rows, columns)
    table = Table(title="Recorded runs (newest first)", title_justify="left")
    for index in shown:
        name, justify = columns[index]
        suite = name == "Suite"
        table.add_column(
            name,
            justify=justify,  # type: ignore[arg-type]
            no_wrap=not suite,
            overflow="fold",
            min_width=_SUITE_MIN if suite else None,
        )
    for row in rows:
        table.add_row(*(row[index] for index in shown))
    console.print(table)


def _run_row(summary: RunSummary, *, agents: bool = False) -> list[Text]:
    from rich.text import Text

    from agent_eval._report.console import format_duration
    from agent_eval._text import cell

    # coloured by the bar the run was held to: green when it met it, as its exit code said
    rate = Text(f"{summary.pass_rate:.1%}", style="green" if summary.met and not summary.interrupted else "red")
    if summary.strict:
        rate.append(" strict")
    if summary.interrupted:
        rate.append(" interrupted", style="magenta")
    counts = (summary.total, summary.passed, summary.failed, summary.errored, summary.skipped)
    row = [
        Text(cell(summary.id, 100)),
        _local_time(summary.started_at or summary.recorded_at),
        Text(cell(summary.suite, 200)),
        rate,
        *(Text(str(count)) for count in counts),
        Text(format_duration(summary.total_ms)),
    ]
    if agents:
        from agent_eval._report.steps import format_cost

        row.append(Text("" if summary.agent_tokens is None else f"{summary.agent_tokens:,}"))
        row.append(Text("" if summary.cost_usd is None else format_cost(summary.cost_usd)))
    return row


def _run_columns(width: int, rows: list[list[Text]], columns: tuple[tuple[str, str], ...]) -> list[int]:
    """Which of ``columns`` fit ``width``: all of them, or all but those a narrow console leaves out first
    (the agents' cost and tokens, then _DROPPED_FIRST in order)."""
    widths = [max([len(name), *(row[index].cell_len for row in rows)]) for index, (name, _) in enumerate(columns)]
    suite = columns.index(("Suite", "left"))
    widths[suite] = min(widths[suite], _SUITE_MIN)
    shown = list(range(len(columns)))
    dropping = [column for column in _AGENT_COLUMNS[::-1] + _DROPPED_FIRST if column in columns]
    # each column takes its width, two of padding and one bar; the table one more bar
    while sum(widths[index] + 3 for index in shown) + 1 > width and dropping:
        shown.remove(columns.index(dropping.pop(0)))
    return shown


_RUN_COLUMNS = (
    ("Run", "left"),
    ("Started", "left"),
    ("Suite", "left"),
    ("Pass rate", "right"),
    ("Cases", "right"),
    ("Passed", "right"),
    ("Failed", "right"),
    ("Errors", "right"),
    ("Skipped", "right"),
    ("Time", "right"),
)
#: The columns added when some run recorded what its agents used and cost.
_AGENT_COLUMNS = (("Agent tokens", "right"), ("Cost", "right"))
#: The columns a narrow console leaves out, in this order: the pass rate says most of what they say.
_DROPPED_FIRST = (
    ("Time", "right"),
    ("Skipped", "right"),
    ("Errors", "right"),
    ("Failed", "right"),
    ("Passed", "right"),
    ("Cases", "right"),
    ("Started", "left"),
)
_SUITE_MIN = 12


def _local_time(stamp: str) -> Text:
    from datetime import datetime

    from rich.text import Text

    from agent_eval._text import cell

    try:
        return Text(datetime.fromisoformat(stamp).astimezone().strftime("%Y-%m-%d %H:%M:%S"))
    except (TypeError, ValueError):
        return Text(cell(stamp, 40))


def _run_line(summary: RunSummary) -> str:
    from agent_eval._text import cell

    parts = [f"Run {summary.id}", str(_local_time(summary.started_at or summary.recorded_at))]
    if summary.suite_file:
        parts.append(summary.suite_file)
    if summary.agent:
        parts.append(f"agent {summary.agent}")
    return cell(" · ".join(parts))


# --- the comparison as text ----------------------------------------------------------------------------

_STYLES = {"passed": "green", "failed": "red", "error": "magenta", "skipped": "yellow"}


def _print_comparison(comparison: Comparison, base_ref: str, head_ref: str, alpha: float | None = None) -> None:
    from rich.text import Text

    console = _console()
    console.print(Text(f"BASE {_describe(comparison.base, base_ref)}"))
    console.print(Text(f"HEAD {_describe(comparison.head, head_ref)}"))
    base_rate, head_rate = comparison.base.pass_rate, comparison.head.pass_rate
    console.print(
        Text(f"pass rate {base_rate:.1%} → {head_rate:.1%} ({(head_rate - base_rate) * 100:+.1f} points)"),
    )
    sections = [
        ("Newly failing", comparison.regressions, "bold red"),
        ("Newly passing", comparison.fixed, "bold green"),
        ("Other status changes", comparison.status_changes, "bold yellow"),
        ("Score changes", comparison.score_changes, "bold"),
        ("Added", comparison.added, "bold"),
        ("Removed", comparison.removed, "bold"),
    ]
    for title, changes, style in sections:
        if changes:
            console.print()
            console.print(Text(f"{title} ({len(changes)})", style=style))
            # one print per section: rich's cost per print, not per line, is what 100,000 changes add up to;
            # and the terminal folds a long line, not rich (its wrapping was a third of printing them)
            console.print(Text("\n").join(_change_line(change) for change in changes), soft_wrap=True)
    if comparison.tool_changes:
        console.print()
        console.print(Text(f"Tool calls changed ({len(comparison.tool_changes)})", style="bold"))
        console.print(Text("\n").join(_tool_line(change) for change in comparison.tool_changes), soft_wrap=True)
    console.print()
    for line in _paired_lines(comparison, alpha):
        console.print(line)
    console.print()
    console.print(_verdict(comparison, alpha))


def _tool_line(change: ToolChange) -> Text:
    """``  case name  +search ×2 -get_warranty``: the calls HEAD made more (+) and fewer (-) of."""
    from rich.text import Text

    from agent_eval._text import cell

    line = Text("  ")
    line.append(cell(change.name, 80), style="bold")
    for sign, counts, style in (("+", change.added, "green"), ("-", change.lost, "red")):
        for tool, count in counts.items():
            line.append(f"  {sign}{cell(tool, 60)}" + (f" ×{count}" if count > 1 else ""), style=style)
    return line


def _describe(report: EvalReport, ref: str) -> str:
    from agent_eval._text import cell, plural

    run_id = report.metadata.get("run_id")
    label = ref if run_id is None or ref == run_id else f"{ref} = {run_id}"
    suite = f"{report.name}, " if report.name else ""
    note = ", interrupted" if report.interrupted else ""
    return cell(f"{label} ({suite}{plural(report.total, 'case')}, {report.passed} passed{note})")


def _change_line(change: CaseChange) -> Text:
    from rich.text import Text

    from agent_eval._text import cell

    line = Text("  ")
    line.append(cell(change.name), style="bold")
    line.append("  ")
    if change.head_status is None:
        line.append(f"was {cell(change.base_status, 10)}", style="dim")
        return line
    if change.base_status is not None:
        line.append(cell(change.base_status, 10), style=_STYLES.get(change.base_status, ""))
        line.append(" → ")
    line.append(cell(change.head_status, 10), style=_STYLES.get(change.head_status, ""))
    if change.base_status is None:
        line.append(f"  score {_score(change.head_score)}" if change.head_score is not None else "")
    elif change.base_score is not None or change.head_score is not None:
        line.append(f"  score {_score(change.base_score)} → {_score(change.head_score)}")
        if change.score_delta is not None:
            line.append(f" ({change.score_delta:+.2f})")
    if change.reason and change.head_status != "passed":
        line.append(f"  {cell(change.reason, 100)}", style="dim")
    return line


def _score(score: float | None) -> str:
    from agent_eval._report.console import format_score

    return "—" if score is None else format_score(score)


def _paired_lines(comparison: Comparison, alpha: float | None) -> list[Text]:
    """The paired figures: the difference over the cases that ran in both, its interval, the test, r."""
    from rich.text import Text

    from agent_eval._history import DEFAULT_ALPHA
    from agent_eval._text import plural

    paired = comparison.paired
    level = DEFAULT_ALPHA if alpha is None else alpha
    if not paired.cases or paired.diff is None:
        lines = [Text("No case ran in both runs: nothing to pair, and no test.")]
    else:
        rate = "pass@1" if paired.repeated else "pass rate"
        line = Text(f"{rate} {paired.base_rate:.1%} → {paired.head_rate:.1%} ")
        line.append(f"({_points(paired.diff)} points over {plural(paired.cases, 'paired case')}; ")
        if paired.test is None or paired.ci_low is None or paired.ci_high is None:
            line.append("too few for an interval or a test)")
        else:
            line.append(f"95% CI {_points(paired.ci_low)} to {_points(paired.ci_high)})")
            line.append(f" · {_TESTS[paired.test]} p = {_p_value(paired.p_value)}")
            line.append(" · r undefined" if paired.correlation is None else f" · r = {paired.correlation:.2f}")
            line.append(" · ")
            line.append(*_significance(paired, level))
        lines = [line]
    if paired.repeated:
        lines.append(Text(_repeats_note(paired), style="dim"))
    unpaired = _unpaired_note(comparison)
    if unpaired:
        lines.append(Text(unpaired, style="dim"))
    return lines


_TESTS = {"mcnemar": "McNemar", "paired-t": "paired t-test"}


def _points(fraction: float) -> str:
    text = f"{fraction * 100:+.1f}"
    return "+0.0" if text == "-0.0" else text  # a difference that sums to -1e-17 is no difference


def _p_value(p: float | None) -> str:
    if p is None:
        return "—"
    return f"{p:.3g}" if p >= 0.001 else f"{p:.1e}"


def _significance(paired: PairedFigures, alpha: float) -> tuple[str, str]:
    """The test's verdict at ``alpha``, and its style."""
    level = f"{alpha:g}"
    if paired.significant(alpha):
        return f"significantly worse at {level}", "bold red"
    if paired.p_value is not None and paired.p_value < alpha:
        return f"significantly better at {level}", "bold green"
    return f"not significant at {level}", ""


def _repeats_note(paired: PairedFigures) -> str:
    def times(repeat: int) -> str:
        return "once" if repeat == 1 else f"{repeat} times"

    runs = f"BASE ran each case {times(paired.base_repeat)} and HEAD {times(paired.head_repeat)}"
    once = " (1 or 0 for a case that ran once)" if min(paired.base_repeat, paired.head_repeat) == 1 else ""
    return (
        f"{runs}: each case counts by the share of its attempts that passed{once}, and the runs are compared "
        "with a paired t-test."
    )


def _unpaired_note(comparison: Comparison) -> str | None:
    from agent_eval._text import plural

    parts = []
    if comparison.paired.left_out:
        parts.append(f"{plural(comparison.paired.left_out, 'case')} skipped in BASE or HEAD")
    if comparison.added:
        parts.append(f"{len(comparison.added)} added")
    if comparison.removed:
        parts.append(f"{len(comparison.removed)} removed")
    return f"Not paired: {', '.join(parts)}." if parts else None


def _verdict(comparison: Comparison, alpha: float | None = None) -> Text:
    from rich.text import Text

    if comparison.unchanged:
        return Text("No case changed.", style="bold green")
    from agent_eval._text import plural

    counts = [
        f"{len(comparison.regressions)} regressed",
        f"{len(comparison.fixed)} newly passing",
        plural(len(comparison.status_changes), "other status change"),
        plural(len(comparison.score_changes), "score change"),
        f"{len(comparison.added)} added",
        f"{len(comparison.removed)} removed",
    ]
    text = " · ".join(count for count in counts if not count.startswith("0 "))
    if alpha is not None:
        if comparison.paired.significant(alpha):
            return Text(f"SIGNIFICANT REGRESSION at alpha {alpha:g}: {text}", style="bold red")
        untested = " (too few paired cases for a test)" if comparison.paired.test is None else ""
        return Text(f"No significant regression at alpha {alpha:g}{untested}: {text}", style="bold green")
    if comparison.regressed:
        return Text(f"REGRESSED: {text}", style="bold red")
    return Text(f"No regression: {text}", style="bold green")
