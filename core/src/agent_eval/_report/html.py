"""The HTML report (``--html``): one self-contained page that works offline and runs no data as code.

The summary is rendered here with every value escaped; the cases travel as JSON in a
``<script type="application/json">`` element (with ``<``, ``>`` and ``&`` escaped, so no ``</script>``
can end it) and the page's own script, allowed by its hash in the Content-Security-Policy, builds the
table with ``textContent``. Any other script, injected or not, is refused by the browser.

What the page shows is made for people on this side: every text has its control characters shown as
escapes and is capped at :data:`agent_eval._text.DISPLAY_LIMIT` characters (the JSON report has the whole
text), and an input, output, expected answer or metadata whose JSON is longer than that arrives as its
JSON text, capped like any other.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import operator
from collections.abc import Iterator, Sequence
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

from agent_eval._codec import display_text, jsonable
from agent_eval._json import batches, document, encode, loads
from agent_eval._model import STATUSES, EvalReport, EvalResult, case_json
from agent_eval._report.console import format_duration, repeat_figures
from agent_eval._report.files import write_atomic
from agent_eval._report.markdown import gate
from agent_eval._report.steps import format_cost
from agent_eval._text import DISPLAY_LIMIT, block, cell, plural

#: The counts of each status, in the summary and on the filter buttons (a row's status is PASS, ERROR...).
_LABELS = {"passed": "Passed", "failed": "Failed", "error": "Errors", "skipped": "Skipped"}
#: Keys of a case (and of an evaluation, an attempt, a tool call) whose values are shown as text: what the
#: agent, its tools and the evaluators made.
_VALUES = ("input", "output", "expected", "metadata", "arguments", "result")
#: Keys of a case (and of an attempt) that hold records of their own.
_NESTED = ("evaluations", "tool_calls", "attempts")
_COUNT_ATTRS = {"passed": "passed", "failed": "failed", "error": "errored", "skipped": "skipped"}
_META_LABELS = {
    "run_id": "Run",
    "suite": "Suite",
    "suite_file": "Suite file",
    "agent": "Agent",
    "agent_eval_version": "agent-eval",
    "plugins": "Plugins",
    "judge_models": "Judge models",
    "min_pass_rate": "Min pass rate",
    "strict": "Strict",
    "concurrency": "Concurrency",
    "timeout": "Timeout (s)",
}
_JSON_ESCAPES = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"))
#: A case whose JSON is at most this long holds no text, nor value written as JSON text (which
#: ``json.dumps`` spaces out, at most doubling it), longer than DISPLAY_LIMIT.
_SHORT = DISPLAY_LIMIT // 2


def write(report: EvalReport, path: str | Path) -> None:
    """Write the report as one self-contained HTML file, atomically, case by case."""
    write_atomic(path, parts(report))


def render(report: EvalReport) -> str:
    """The whole page: summary, filters, search and the table of cases."""
    return b"".join(parts(report)).decode("utf-8")


def parts(report: EvalReport) -> Iterator[bytes]:
    """The page in parts (UTF-8): the page around the data, and the data a case at a time."""
    script = _asset("report.js")
    title = f"{_suite_name(report)} — {report.passed}/{report.total} passed · agent-eval"
    head = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy(script)}">',
        '<meta name="referrer" content="no-referrer">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>",
        f"<style>\n{_asset('report.css')}</style>",
        "</head>",
        "<body>",
        _header(report),
        _main(report),
        '<script type="application/json" id="report-data">',
    ]
    yield "\n".join(head).encode("utf-8")
    for part in document(_record(report.summary_dict()), "cases", _case_pieces(report.cases)):
        yield _safe(part)
    yield "\n".join(["</script>", f"<script>{script}</script>", "</body>", "</html>", ""]).encode("utf-8")


def content_security_policy(script: str) -> str:
    """Nothing may load from anywhere; only the page's own script (by hash) and inline styles apply."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )


def embed_json(data: Any) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` left."""
    return _safe(encode(data)).decode("utf-8")


def _safe(text: bytes) -> bytes:
    """JSON text with ``<``, ``>`` and ``&`` escaped (``\\u003c``...): no ``</script>`` can end the element."""
    for char, escaped in _JSON_ESCAPES:
        if char in text:
            text = text.replace(char, escaped)
    return text


def page_data(report: EvalReport) -> dict[str, Any]:
    """The report as the page's script reads it: :meth:`EvalReport.to_dict` with every text made to show."""
    pieces = (_case_piece(case) for case in report.cases)
    data: dict[str, Any] = loads(b"".join(document(_record(report.summary_dict()), "cases", pieces)))
    return data


def _case_pieces(cases: Sequence[EvalResult]) -> Iterator[bytes]:
    """The cases' data for the page, as :func:`_case_piece` makes each, in batches joined by commas.

    A batch of :data:`_CASES` cases none of which needs anything made to show (most batches of a large
    run) is looked at once, its JSON joined: the same test as :func:`_case_piece`'s, made on all of it.
    """
    for start in range(0, len(cases), _CASES):
        batch = cases[start : start + _CASES]
        bodies = list(map(case_json, batch))
        joined = b",".join(bodies)
        if _shown_as_they_are(batch, bodies, joined):
            yield joined
        else:
            yield from batches(_case_piece(result) for result in batch)


#: Cases looked at together by :func:`_case_pieces`.
_CASES = 1000


def _shown_as_they_are(batch: Sequence[EvalResult], bodies: list[bytes], joined: bytes) -> bool:
    """True when :func:`_case_piece` would give each case of ``batch`` its own JSON (``bodies``, whose
    ``joined`` text is printable, without an escape, when each is)."""
    if max(map(len, bodies)) > _SHORT or b"\\" in joined:
        return False
    if any(map(_TOOL_CALLS, batch)) or any(map(_ATTEMPTS, batch)):
        return False
    return b"\x7f" not in joined if joined.isascii() else joined.decode("utf-8").isprintable()


_TOOL_CALLS, _ATTEMPTS = operator.attrgetter("tool_calls"), operator.attrgetter("attempts")


def _case_piece(result: EvalResult) -> bytes:
    """A case's data for the page, as JSON: :func:`_case_data` of its dict.

    Most cases need nothing made to show: their JSON holds only printable text without escapes, and is
    too short for any of its texts (or values written as JSON text) to reach the cap. Their JSON is the
    result's own, as the other reports wrote it; the rest are made to show value by value.
    """
    body = case_json(result)
    if not result.tool_calls and not result.attempts and len(body) <= _SHORT and b"\\" not in body:
        # no backslash: no escape, so no control character; in ASCII that leaves only DEL to look for
        printable = b"\x7f" not in body if body.isascii() else body.decode("utf-8").isprintable()
        if printable:
            return body
    return encode(_case_data(loads(body)))


def _case_data(case: dict[str, Any]) -> dict[str, Any]:
    """A case's (or an attempt's) data as :func:`_record` makes it, and so are its evaluations, its tool
    calls (each with ``raw`` set when its arguments are raw text, not valid JSON) and its attempts."""
    shown = _record(case)
    shown["evaluations"] = [_record(evaluation) for evaluation in case.get("evaluations") or ()]
    calls = case.get("tool_calls")
    if calls is not None:
        shown["tool_calls"] = [{**_record(call), "raw": type(call.get("arguments")) is str} for call in calls]
    attempts = case.get("attempts")
    if attempts is not None:
        shown["attempts"] = [_case_data(attempt) for attempt in attempts]
    return shown


def _record(record: dict[str, Any]) -> dict[str, Any]:
    """A case's, an evaluation's or a tool call's data with every text made to show, as :func:`_shown` does.

    An input, output, expected answer, metadata, or a tool call's arguments or result whose JSON is longer
    than :data:`DISPLAY_LIMIT` becomes that JSON text, capped; smaller ones stay JSON data, which the page
    indents when a case is opened. (They are JSON data already: to_dict wrote them through jsonable, so
    dumping them cannot fail.) The record's keys are agent-eval's own, and its evaluations, tool calls
    and attempts are left out: they are records of their own.
    """
    shown = {}
    for key, value in record.items():
        kind = type(value)
        if kind is str:
            if len(value) > DISPLAY_LIMIT or not value.isprintable():
                value = block(value)
        elif kind is dict or kind is list:
            if key in _NESTED:
                continue
            if key in _VALUES and value and not _flat_and_short(value):
                text = json.dumps(value, ensure_ascii=False)
                value = block(text) if len(text) > DISPLAY_LIMIT else _shown(value)
            elif value:
                value = _shown(value)
        shown[key] = value
    return shown


def _flat_and_short(value: dict[str, Any] | list[Any]) -> bool:
    """True for a few values none of which holds others: shown whole, it stays short (each text is capped)."""
    items = value.values() if type(value) is dict else value
    return len(value) <= 16 and not any(type(item) is dict or type(item) is list for item in items)


def _shown(value: Any) -> Any:
    """``value`` (JSON data) with every string through :func:`agent_eval._text.block`: capped, controls escaped."""
    kind = type(value)
    if kind is str:
        return value if len(value) <= DISPLAY_LIMIT and value.isprintable() else block(value)
    if kind is dict:
        return {key if key.isprintable() else cell(key): _shown(item) for key, item in value.items()}
    if kind is list:
        return [_shown(item) for item in value]
    return value


@functools.cache
def _asset(name: str) -> str:
    return resources.files("agent_eval._report").joinpath("assets", name).read_text(encoding="utf-8")


def _header(report: EvalReport) -> str:
    return "\n".join(
        [
            '<header class="summary"><div class="wrap">',
            _title(report),
            _stats(report),
            _bar(report),
            _rates(report),
            _interrupted(report),
            _controls(report),
            "</div></header>",
        ]
    )


def _title(report: EvalReport) -> str:
    outcome = gate(report)
    if report.interrupted:
        verdict = '<span class="verdict interrupted">INTERRUPTED</span>'
    elif outcome.met:
        verdict = '<span class="verdict ok">PASSED</span>'
    else:
        verdict = '<span class="verdict bad">BELOW THE BAR</span>'
    facts = [f"run {cell(report.metadata['run_id'], 200)}"] if report.metadata.get("run_id") else []
    if report.started_at:
        facts.append(f"started {cell(report.started_at, 200)}")
    if report.metadata.get("agent"):
        facts.append(f"agent {cell(report.metadata['agent'], 1000)}")
    subtitle = escape(" · ".join(facts))
    return (
        f'<div class="title"><h1>{escape(_suite_name(report))}</h1>{verdict}'
        f'<span class="subtitle">{subtitle}</span></div>'
    )


def _stats(report: EvalReport) -> str:
    outcome = gate(report)
    rate_label = "Pass rate" + (" (strict)" if outcome.strict else "") + f" · bar {outcome.bar:.0%}"
    items = [_stat("rate", f"{outcome.rate:.1%}", rate_label)]
    items += [_stat(status, str(getattr(report, _COUNT_ATTRS[status])), _LABELS[status]) for status in STATUSES]
    items.append(_stat("time", format_duration(report.total_ms), "Time"))
    agent_usage, cost = report.agent_usage, report.cost_usd
    if agent_usage is not None and agent_usage.total_tokens:
        items.append(_stat("agent-tokens", f"{agent_usage.total_tokens:,}", "Agent tokens"))
    if cost is not None:
        items.append(_stat("cost", format_cost(cost), "Agent cost"))
    tokens = report.usage.get("total_tokens")
    if tokens:
        items.append(_stat("tokens", f"{tokens:,}", "Judge tokens"))
    return f'<div class="stats">{"".join(items)}</div>'


def _stat(kind: str, value: str, label: str) -> str:
    return f'<div class="stat {kind}"><b>{escape(value)}</b><span>{escape(label)}</span></div>'


def _bar(report: EvalReport) -> str:
    if not report.total:
        return '<div class="bar"></div>'
    parts = []
    for status in STATUSES:
        count = getattr(report, _COUNT_ATTRS[status])
        if count:
            share = 100 * count / report.total
            parts.append(f'<i class="{status}" style="width:{share:.3f}%" title="{count} {status}"></i>')
    return f'<div class="bar" aria-hidden="true">{"".join(parts)}</div>'


def _rates(report: EvalReport) -> str:
    """The pass rate on a track with its 95% interval drawn as a band, and the figures as text; with repeats
    the attempt pass rate likewise, and pass@1 and pass^k for the largest k."""
    stats = report.stats
    if not report.total - report.skipped:
        return ""
    rows = [_rate_row("case-rate", "Pass rate", stats["pass_rate"], stats["ci_low"], stats["ci_high"])]
    if stats.get("repeat"):
        rate = stats["attempt_pass_rate"]
        if rate is not None:
            low, high = stats["attempt_ci_low"], stats["attempt_ci_high"]
            rows.append(_rate_row("attempt-rate", "Attempt pass rate", rate, low, high))
        figures = repeat_figures(stats).removeprefix(" · ")
        if figures:
            rows.append(f'<span class="pass-k">{escape(figures)}</span>')
    return f'<div class="rates">{"".join(rows)}</div>'


def _rate_row(kind: str, label: str, rate: float, low: float | None, high: float | None) -> str:
    text = f"{label} {rate:.1%}"
    band = ""
    if low is not None and high is not None:
        ci = f"95% CI {low * 100:.1f}–{high * 100:.1f}%"
        text += f" ({ci})"
        band = f'<i class="band" style="left:{low * 100:.3f}%;width:{(high - low) * 100:.3f}%" title="{ci}"></i>'
    mark = f'<i class="mark" style="left:{rate * 100:.3f}%"></i>'
    fill = f'<i class="fill" style="width:{rate * 100:.3f}%"></i>'
    track = f'<span class="track" aria-hidden="true">{fill}{band}{mark}</span>'
    return f'<div class="rate {kind}">{track}<span class="figure">{escape(text)}</span></div>'


def _interrupted(report: EvalReport) -> str:
    if not report.interrupted:
        return ""
    planned = report.planned if report.planned is not None else report.total
    return (
        f'<p class="banner" role="status">Interrupted: {report.total} of {plural(planned, "planned case")} finished; '
        "the others did not run and are not listed.</p>"
    )


def _controls(report: EvalReport) -> str:
    buttons = [
        '<button type="button" data-status="all" aria-pressed="true">All'
        f'<span class="count">{report.total}</span></button>'
    ]
    for status in STATUSES:
        count = getattr(report, _COUNT_ATTRS[status])
        buttons.append(
            f'<button type="button" data-status="{status}" aria-pressed="false">{_LABELS[status]}'
            f'<span class="count">{count}</span></button>'
        )
    flaky = sum(1 for result in filter(_ATTEMPTS, report.cases) if result.flaky)
    if flaky:
        buttons.append(
            '<button type="button" data-status="flaky" aria-pressed="false">Flaky'
            f'<span class="count">{flaky}</span></button>'
        )
    return (
        '<div class="controls">'
        f'<div class="filters" role="group" aria-label="Filter by status">{"".join(buttons)}</div>'
        '<input type="search" id="search" placeholder="Search names, reasons, inputs, outputs…  ( / )" '
        'aria-label="Search cases" autocomplete="off">'
        '<span id="shown" aria-live="polite"></span>'
        "</div>"
    )


def _main(report: EvalReport) -> str:
    return "\n".join(
        [
            '<main><div class="wrap">',
            _run_info(report),
            '<table class="cases"><thead><tr><th>Case</th><th>Status</th><th class="num">Score</th>'
            '<th>Reason</th><th class="num">Time</th></tr></thead><tbody id="case-rows"></tbody></table>',
            '<p id="empty" hidden>No case matches.</p>',
            '<button type="button" id="more" hidden></button>',
            "<noscript><p>The table of cases needs JavaScript; the summary above and the JSON report hold "
            "the same results.</p></noscript>",
            "</div></main>",
            f"<footer>agent-eval {escape(cell(report.metadata.get('agent_eval_version'), 100))}</footer>",
        ]
    )


def _run_info(report: EvalReport) -> str:
    rows = []
    metadata: dict[str, Any] = jsonable(report.metadata)  # JSON values: each prints as text
    for key, value in metadata.items():
        if value is None or value == {} or value == []:
            continue
        label = _META_LABELS.get(key, cell(key, 200).replace("_", " ").capitalize())
        rows.append(f"<dt>{escape(label)}</dt><dd>{escape(cell(_plain(value), 2000))}</dd>")
    if report.started_at:
        rows.append(f"<dt>Started</dt><dd>{escape(cell(report.started_at, 200))}</dd>")
    agent_usage = report.agent_usage
    if agent_usage is not None:
        shown = f"input_tokens {agent_usage.input_tokens:,}, output_tokens {agent_usage.output_tokens:,}"
        rows.append(f"<dt>Agent token usage</dt><dd>{escape(shown)}</dd>")
    usage = report.usage
    if usage:
        shown = ", ".join(f"{key} {value:,}" for key, value in sorted(usage.items()))
        rows.append(f"<dt>Judge token usage</dt><dd>{escape(shown)}</dd>")
    if not rows:
        return ""
    return f'<details class="run-info"><summary>Run details</summary><dl class="meta">{"".join(rows)}</dl></details>'


def _plain(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return ", ".join(f"{key} {item}" if item is not None else str(key) for key, item in value.items())
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    return display_text(value)


def _suite_name(report: EvalReport) -> str:
    return cell(report.name or report.metadata.get("suite") or "agent-eval", 1000)
