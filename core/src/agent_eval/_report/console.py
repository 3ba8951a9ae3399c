"""The report for people: a rich table of cases and a one-line summary."""

from __future__ import annotations

import os
import sys
from typing import IO, TYPE_CHECKING, Any

from agent_eval._model import EvalReport, EvalResult
from agent_eval._text import shorten

if TYPE_CHECKING:
    from rich.console import Console

#: Above this many cases, the table shows only the cases that did not pass.
FULL_TABLE_LIMIT = 200

_STYLES = {"passed": "green", "failed": "red", "error": "magenta", "skipped": "yellow"}
_LABELS = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "skipped": "SKIP"}


def make_console(file: IO[str] | None = None, *, stderr: bool = False) -> Console:
    """A rich Console that follows NO_COLOR and whether the stream is a terminal."""
    from rich.console import Console

    stream = file or (sys.stderr if stderr else sys.stdout)
    is_terminal = hasattr(stream, "isatty") and stream.isatty()
    width = None if is_terminal else int(os.environ.get("COLUMNS", "120"))
    return Console(file=stream, highlight=False, soft_wrap=False, width=width, emoji=False)


def summary_line(report: EvalReport, *, strict: bool = False, bar: float | None = None) -> str:
    """``3 passed, 1 failed, 0 errors, 1 skipped · pass rate 75.0% · 1.2 s``."""
    parts = [
        f"{report.passed} passed",
        f"{report.failed} failed",
        f"{report.errored} error{'' if report.errored == 1 else 's'}",
        f"{report.skipped} skipped",
    ]
    rate = report.rate(strict=strict)
    text = ", ".join(parts) + f" · pass rate {rate:.1%}" + (" (strict)" if strict else "")
    if bar is not None:
        text += f" ≥ bar {bar:.0%}" if rate >= bar else f" < bar {bar:.0%}"
    text += f" · {format_duration(report.total_ms)}"
    usage = report.usage
    if usage.get("total_tokens"):
        text += f" · {usage['total_tokens']:,} judge tokens"
    if report.interrupted:
        planned = report.planned if report.planned is not None else report.total
        text = f"INTERRUPTED: {report.total}/{planned} cases finished · " + text
    return text


def format_duration(ms: float) -> str:
    """Milliseconds as ``12 ms`` or ``1.5 s``."""
    if ms < 1:
        return f"{ms:.2f} ms"
    if ms < 1000:
        return f"{ms:.0f} ms"
    return f"{ms / 1000:.2f} s"


def render_table(report: EvalReport, console: Console) -> None:
    """Print the table of cases (only those that did not pass, for big reports)."""
    from rich.table import Table
    from rich.text import Text

    rows: list[EvalResult] = list(report.cases)
    hidden = 0
    if len(rows) > FULL_TABLE_LIMIT:
        rows = [result for result in rows if not result.passed]
        hidden = report.total - len(rows)
    title = f"{report.name} — {report.total} cases" if report.name else f"{report.total} cases"
    table = Table(title=title, title_justify="left", expand=False)
    table.add_column("Case", overflow="fold", max_width=40)
    table.add_column("Status", no_wrap=True)
    table.add_column("Score", justify="right", no_wrap=True)
    table.add_column("Reason", overflow="ellipsis", no_wrap=True, max_width=70)
    table.add_column("Time", justify="right", no_wrap=True)
    for result in rows:
        table.add_row(
            result.name,
            Text(_LABELS[result.status], style=_STYLES[result.status]),
            "" if result.score is None else f"{result.score:.2f}",
            shorten(result.error or result.reason, 140),
            format_duration(result.duration_ms),
        )
    console.print(table)
    if hidden:
        console.print(f"({hidden} passed cases not shown; write them all with --json PATH)")


def print_report(
    report: EvalReport,
    *,
    file: IO[str] | None = None,
    quiet: bool = False,
    strict: bool = False,
    bar: float | None = None,
) -> None:
    """Print the table (unless ``quiet``) and the summary line."""
    console = make_console(file)
    if not quiet:
        render_table(report, console)
    console.print(summary_line(report, strict=strict, bar=bar), style=_summary_style(report, strict, bar))


def _summary_style(report: EvalReport, strict: bool, bar: float | None) -> Any:
    if report.interrupted or report.errored:
        return "bold magenta"
    met = report.rate(strict=strict) >= bar if bar is not None else report.failed == 0 and report.passed > 0
    return "bold green" if met else "bold red"
