"""The Markdown summary (``--markdown``, and ``$GITHUB_STEP_SUMMARY``): counts and the failing cases."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import attrs

from agent_eval._model import EvalReport, EvalResult
from agent_eval._report.console import format_duration, format_score, interval, repeat_figures, status_label
from agent_eval._report.files import write_atomic
from agent_eval._report.steps import agent_figures, calls_figure
from agent_eval._text import cell, plural

#: At most this many failing cases are listed; the rest are counted.
FAILING_LIMIT = 50
#: Longest reason shown in a table cell.
REASON_LIMIT = 200

#: Characters that Markdown (or the HTML GitHub renders inside it) would interpret.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
_HTML_SPECIAL = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


@attrs.frozen
class Gate:
    """The bar a run was held to and whether it cleared it."""

    rate: float
    bar: float
    strict: bool

    @property
    def met(self) -> bool:
        """True when the pass rate reaches the bar."""
        return self.rate >= self.bar


def gate(report: EvalReport) -> Gate:
    """The run's gate, from the ``min_pass_rate`` and ``strict`` the run recorded (default 1.0, not strict)."""
    strict = report.metadata.get("strict", False) is True
    bar = recorded_bar(report)
    return Gate(report.rate(strict=strict), 1.0 if bar is None else bar, strict)


def recorded_bar(report: EvalReport) -> float | None:
    """The ``min_pass_rate`` the run recorded, or None (an int too big for a float, or NaN, is none)."""
    bar = report.metadata.get("min_pass_rate")
    if isinstance(bar, int | float) and not isinstance(bar, bool) and abs(bar) <= sys.float_info.max:
        return float(bar)
    return None


def write(report: EvalReport, path: str | Path) -> None:
    """Write the Markdown summary, atomically."""
    write_atomic(path, render(report) + "\n")


def render(report: EvalReport) -> str:
    """A short Markdown summary of the run and a table of the cases that did not pass."""
    blocks = [_heading(report), _counts(report)]
    if report.interrupted:
        planned = report.planned if report.planned is not None else report.total
        blocks.append(
            f"> [!WARNING]\n> **Interrupted:** {report.total} of {plural(planned, 'planned case')} finished; "
            "the others did not run."
        )
    # the counts say whether there is any to look for: a large run that passed is not gone through
    failing = [r for r in report.cases if r.status in ("failed", "error")] if report.failed or report.errored else []
    if failing:
        blocks.append(_failing(failing))
    footer = _footer(report)
    if footer:
        blocks.append(footer)
    return "\n\n".join(blocks)


def _heading(report: EvalReport) -> str:
    outcome = gate(report)
    ok = outcome.met and not report.interrupted
    icon = "✅" if ok else "❌"
    name = escape(report.name or report.metadata.get("suite") or "agent-eval", 200)
    return f"### {icon} agent-eval: {name} — {report.passed} of {report.total} passed"


def _counts(report: EvalReport) -> str:
    outcome = gate(report)
    stats = report.stats
    rate = f"{outcome.rate:.1%}" + (" (strict)" if outcome.strict else "")
    if not outcome.strict and stats["ci_low"] is not None:
        rate += f" (95% CI {interval(stats['ci_low'], stats['ci_high'])})"
    verdict = "met" if outcome.met else "**not met**"
    header = "| Passed | Failed | Errors | Skipped | Pass rate | Bar | Time |"
    rule = "|---:|---:|---:|---:|---:|---:|---:|"
    row = (
        f"| {report.passed} | {report.failed} | {report.errored} | {report.skipped} | {rate} "
        f"| {outcome.bar:.0%} {verdict} | {format_duration(report.total_ms)} |"
    )
    lines = [header, rule, row]
    figures = repeat_figures(stats)
    if figures:
        flaky = sum(result.flaky for result in report.cases)
        lines += ["", f"{stats['repeat']} attempts per case{figures} · {plural(flaky, 'flaky case')}"]
    return "\n".join(lines)


def _failing(failing: list[EvalResult]) -> str:
    listed = failing[:FAILING_LIMIT]
    # a column for the tool calls only when a listed case made some
    calls = any(result.tool_calls for result in listed)
    lines = [
        f"#### Cases that did not pass ({len(failing)})",
        "",
        "| Case | Status | Score | Reason |" + (" Tool calls |" if calls else ""),
        "|---|---|---:|---|" + ("---:|" if calls else ""),
    ]
    for result in listed:
        why = escape(result.error or result.reason, REASON_LIMIT)
        status = escape(status_label(result), 10) + (" (flaky)" if result.flaky else "")
        row = f"| {escape(result.name, 80)} | {status} | {escape(format_score(result.score))} | {why} |"
        if calls:
            row += f" {calls_figure(result.tool_calls)} |"
        lines.append(row)
    if len(failing) > FAILING_LIMIT:
        lines += ["", f"… and {len(failing) - FAILING_LIMIT} more; the JUnit, HTML or JSON report lists them all."]
    return "\n".join(lines)


def _footer(report: EvalReport) -> str:
    meta = report.metadata
    parts = []
    if meta.get("agent_eval_version"):
        parts.append(f"agent-eval {meta['agent_eval_version']}")
    for key, label in (("suite_file", "suite"), ("agent", "agent"), ("run_id", "run")):
        if meta.get(key):
            parts.append(f"{label} {escape(meta[key], 200)}")
    parts += [escape(figure) for figure in agent_figures(report.agent_usage, report.cost_usd)]
    tokens = report.usage.get("total_tokens")
    if tokens:
        parts.append(f"{tokens:,} judge tokens")
    return f"<sub>{' · '.join(parts)}</sub>" if parts else ""


def escape(value: Any, limit: int | None = None) -> str:
    """``value`` safe inside a Markdown table cell: one line (controls shown as escapes), no markup, no HTML."""
    line = "".join(_HTML_SPECIAL.get(char, char) for char in cell(value, limit))
    return _MARKDOWN_SPECIAL.sub(r"\\\1", line)
