"""The JUnit XML report (``--junit``): the shape GitHub, GitLab and Jenkins read."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent_eval._codec import display_text, jsonable
from agent_eval._model import Attempt, EvalReport, EvalResult
from agent_eval._report.console import format_score
from agent_eval._report.files import write_atomic
from agent_eval._report.steps import calls_count, steps_text
from agent_eval._text import DISPLAY_LIMIT, block, capped, cell, plural, text_of, visible

#: Longest ``message`` attribute; the full text goes in the element's body.
MESSAGE_LIMIT = 1000


def write(report: EvalReport, path: str | Path) -> None:
    """Write the report as JUnit XML, atomically, a batch of cases at a time."""
    write_atomic(path, (part.encode("utf-8") for part in _parts(report)))


#: Cases whose elements are joined, encoded and written together: one write a batch, not a case.
_BATCH = 1000


def render(report: EvalReport) -> str:
    """The report as a JUnit XML document: one testsuite, one testcase per case."""
    return "".join(_parts(report))


def _parts(report: EvalReport) -> Iterator[str]:
    """The document in parts, one per :data:`_BATCH` cases: written as ElementTree writes it, indented two
    spaces a level.

    It is made as text (each value escaped as ElementTree escapes it) rather than as a tree of elements:
    a report of 100,000 cases would make a million elements to write once.
    """
    suite_name = _suite_name(report)
    counts = f'tests="{report.total}" failures="{report.failed}" errors="{report.errored}"'
    seconds = _seconds(report.total_ms)
    attributes = {"name": suite_name, "tests": str(report.total), "failures": str(report.failed)}
    attributes |= {"errors": str(report.errored), "skipped": str(report.skipped), "time": seconds}
    if report.started_at:
        attributes["timestamp"] = report.started_at
    head = [
        '<?xml version="1.0" encoding="UTF-8"?>\n',
        f'<testsuites name="agent-eval" {counts} time="{seconds}">\n',
        f"  <testsuite{_attributes(_one_line_all(attributes))}>\n",
        _properties_element([(cell(name), cell(value)) for name, value in _properties(report)], "    "),
    ]
    yield "".join(head)
    classname = _attribute(cell(suite_name))  # the same for every case: escaped once
    cases = report.cases
    for start in range(0, len(cases), _BATCH):
        yield "".join(
            [
                _plain_testcase(result, classname) or _testcase(result, classname)
                for result in cases[start : start + _BATCH]
            ]
        )
    if report.interrupted:
        yield f"    <system-out>{_text(_interrupted_note(report))}</system-out>\n"
    yield "  </testsuite>\n</testsuites>\n"


def _plain_testcase(result: EvalResult, classname: str) -> str | None:
    """:func:`_testcase` of a passed case that has only its texts and a score to show, made in one go; None
    for any other case.

    Its name, input, output and expected answer are strings, printable (no control character, line break
    or lone surrogate to show as an escape), together no longer than the cap of one text, with nothing to
    escape in XML: each goes in as it is. Most cases of a large run are such.
    """
    if result.status != "passed" or result.tool_calls or result.attempts:
        return None
    if result.usage is not None or result.cost_usd is not None:  # properties to list
        return None
    name, given, output, expected = result.name, result.input, result.output, result.expected
    if type(name) is not str or type(given) is not str or type(output) is not str:
        return None
    if expected is None:
        texts, shown = name + given + output, ""
    elif type(expected) is str:
        texts, shown = name + given + output + expected, f"\n\nexpected:\n{expected}"
    else:
        return None
    if len(texts) > DISPLAY_LIMIT or not texts.isprintable() or _needs_escaping(texts):
        return None
    score = result.score
    if score is not None:
        if type(score) is not float:
            return None
        shown += f"\n\nscore: {score:.4g}"  # format_score's, for a float
    ms = result.duration_ms
    # most cases of an instant agent: what the format gives, without formatting (-0.0 is not among them)
    seconds = "0.000" if type(ms) is float and 0.0 < ms < 0.4 else _seconds(ms)
    return (
        f'    <testcase name="{name}" classname="{classname}" time="{seconds}">\n'
        f"      <system-out>input:\n{given}\n\noutput:\n{output}{shown}</system-out>\n    </testcase>\n"
    )


def _needs_escaping(text: str) -> bool:
    """True when a printable text holds a character XML escapes, in an attribute or as character data."""
    return "&" in text or "<" in text or ">" in text or '"' in text


def _testcase(result: EvalResult, classname: str) -> str:
    """One ``<testcase>`` element, indented as the child of a testsuite, with its newline (``classname``
    is escaped already; a time is digits, nothing to escape)."""
    name, seconds = _attribute(cell(result.name)), _seconds(result.duration_ms)
    parts = [f'    <testcase name="{name}" classname="{classname}" time="{seconds}">\n']
    properties = [(name, cell(value)) for name, value in _case_properties(result)]
    if properties:
        parts.append(_properties_element(properties, "      "))
    why = "" if result.status == "passed" else _why(result)
    if result.status == "failed":
        message = _attributes({"message": _message(why or "failed"), "type": "failed"})
        parts.append(f"      <failure{message}>{_text(_details(result))}</failure>\n")
    elif result.status == "error":
        message = _attributes({"message": _message(why or "error"), "type": "error"})
        parts.append(f"      <error{message}>{_text(_details(result))}</error>\n")
    elif result.status == "skipped":
        parts.append(f"      <skipped{_attributes({'message': _message(why or 'skipped')})} />\n")
    parts.append(f"      <system-out>{_text(_output_text(result))}</system-out>\n    </testcase>\n")
    return "".join(parts)


def _properties_element(properties: list[tuple[str, str]], indent: str) -> str:
    """``<properties>`` with one ``<property name value />`` per pair (empty: ``<properties />``)."""
    if not properties:
        return f"{indent}<properties />\n"
    rows = "".join(
        f"{indent}  <property{_attributes({'name': name, 'value': value})} />\n" for name, value in properties
    )
    return f"{indent}<properties>\n{rows}{indent}</properties>\n"


def _attributes(attributes: dict[str, str]) -> str:
    """`` name="value"`` for each attribute, in order, escaped as ElementTree escapes them."""
    return "".join(f' {name}="{_attribute(value)}"' for name, value in attributes.items())


def _attribute(text: str) -> str:
    """An attribute value escaped as ElementTree (3.11) escapes one: markup, quotes and line breaks."""
    if _ATTRIBUTE_SPECIAL.search(text) is None:  # most values: one look
        return text
    for char, escaped in _ATTRIBUTE_ESCAPES:
        if char in text:
            text = text.replace(char, escaped)
    return text


def _text(text: str) -> str:
    """Character data escaped as ElementTree escapes it: ``&``, ``<`` and ``>``."""
    if _TEXT_SPECIAL.search(text) is None:
        return text
    for char, escaped in _ATTRIBUTE_ESCAPES[:3]:
        if char in text:
            text = text.replace(char, escaped)
    return text


_ATTRIBUTE_SPECIAL = re.compile('[&<>"\r\n\t]')
_TEXT_SPECIAL = re.compile("[&<>]")


_ATTRIBUTE_ESCAPES = (
    ("&", "&amp;"),
    ("<", "&lt;"),
    (">", "&gt;"),
    ('"', "&quot;"),
    ("\r", "&#13;"),
    ("\n", "&#10;"),
    ("\t", "&#09;"),
)


def _why(result: EvalResult) -> str:
    """The case's error or reason; a repeated case's starts with how many attempts passed (``3/5 attempts passed``)."""
    why = text_of(result.error or result.reason or "")
    if not result.attempts:
        return why
    outcomes = result.outcomes()
    tally = f"{sum(outcomes)}/{len(outcomes)} attempts passed"
    reason = text_of(result.reason or "")
    if reason.startswith(tally):  # as the run wrote it: the tally, then the first attempt that did not pass
        return reason
    return f"{tally}; {why}" if why else tally


def _case_properties(result: EvalResult) -> list[tuple[str, str]]:
    """What the agent did (tool calls, tokens, cost) and, for a repeated case, how its attempts went."""
    found: list[tuple[str, str]] = []
    if result.tool_calls:
        found.append(("tool_calls", str(len(result.tool_calls))))
        failed = sum(call.error is not None for call in result.tool_calls)
        if failed:
            found.append(("failed_tool_calls", str(failed)))
    if result.usage is not None:
        found.append(("agent_tokens", text_of(result.usage.total_tokens)))
    if result.cost_usd is not None:
        found.append(("cost_usd", text_of(_cost(result.cost_usd))))
    if result.attempts:
        outcomes = result.outcomes()
        fraction = result.pass_fraction
        found += [
            ("attempts", str(len(result.attempts))),
            ("passed_attempts", str(sum(outcomes))),
            ("pass_fraction", "" if fraction is None else f"{fraction:.4f}"),
            ("flaky", _property_value(result.flaky)),
        ]
    return found


def _details(result: EvalResult) -> str:
    """One line per evaluation: name, status, score and reason (or error), then where an error was raised."""
    lines = []
    if result.error and not result.evaluations:
        lines.append(capped(text_of(result.error)))
        lines += [f"  at {frame}" for frame in result.frames]
    for evaluation in result.evaluations:
        score = "" if evaluation.score is None else f" score={format_score(evaluation.score, '.3g')}"
        why = evaluation.error or evaluation.reason
        lines.append(f"{evaluation.name}: {evaluation.status}{score}" + (f": {capped(text_of(why))}" if why else ""))
        lines += [f"  at {frame}" for frame in evaluation.frames]
    return visible("\n".join(lines) or capped(text_of(result.reason)) or result.status, lines=True)


def _output_text(result: EvalResult) -> str:
    parts = [f"input:\n{block(display_text(result.input))}", f"output:\n{block(display_text(result.output))}"]
    if result.expected is not None:
        parts.append(f"expected:\n{block(display_text(result.expected))}")
    if result.score is not None:
        parts.append(f"score: {format_score(result.score, '.4g')}")
    if result.tool_calls and not result.attempts:  # a repeated case's are each attempt's, below
        parts.append(f"trajectory: {calls_count(result.tool_calls)}\n{steps_text(result.tool_calls)}")
    if result.attempts:
        parts.append("attempts:\n" + "\n".join(_attempt_text(attempt) for attempt in result.attempts))
    return "\n\n".join(parts)


def _attempt_text(attempt: Attempt) -> str:
    """``attempt 2: failed score=0 missing '4'``, then its tool calls, indented."""
    score = "" if attempt.score is None else f" score={format_score(attempt.score, '.3g')}"
    why = attempt.error or attempt.reason
    line = f"attempt {attempt.index + 1}: {cell(attempt.status, 10)}{score}"
    if why:
        line += f": {cell(why, MESSAGE_LIMIT)}"
    if attempt.tool_calls:
        line += f"\n  trajectory: {calls_count(attempt.tool_calls)}\n{steps_text(attempt.tool_calls, indent='  ')}"
    return line


def _properties(report: EvalReport) -> list[tuple[str, str]]:
    meta: dict[str, Any] = jsonable(report.metadata)  # JSON values, with text keys: each sorts and prints
    found: list[tuple[str, Any]] = [
        ("run_id", meta.get("run_id")),
        ("suite_file", meta.get("suite_file")),
        ("agent", meta.get("agent")),
        ("agent_eval_version", meta.get("agent_eval_version")),
        ("min_pass_rate", meta.get("min_pass_rate")),
        ("strict", meta.get("strict")),
        ("pass_rate", f"{report.pass_rate:.4f}"),
        *_stats_properties(report),
        ("interrupted", report.interrupted),
        ("planned", report.planned if report.planned is not None else report.total),
    ]
    plugins = meta.get("plugins") or {}
    if isinstance(plugins, dict):
        found += [(f"plugin:{name}", version or "") for name, version in sorted(plugins.items())]
    models = meta.get("judge_models") or []
    if models:
        found.append(("judge_models", ", ".join(str(model) for model in models)))
    found += [(f"usage:{key}", value) for key, value in sorted(report.usage.items())]
    return [(name, _property_value(value)) for name, value in found if value is not None]


def _stats_properties(report: EvalReport) -> list[tuple[str, Any]]:
    """The pass rate's 95% interval, the agents' tokens and cost; with repeats the attempt pass rate and its
    interval, pass@1 and pass^k for the largest k."""
    stats = report.stats
    found: list[tuple[str, Any]] = [(key, _rate(stats[key])) for key in ("ci_low", "ci_high")]
    usage = report.agent_usage
    cost = report.cost_usd
    found += [("agent_tokens", None if usage is None else usage.total_tokens), ("cost_usd", _cost(cost))]
    if stats.get("repeat"):
        found += [(key, _rate(stats[key])) for key in ("attempt_pass_rate", "attempt_ci_low", "attempt_ci_high")]
        found.append(("repeat", stats["repeat"]))
        at, hat = stats.get("pass_at_k") or {}, stats.get("pass_hat_k") or {}
        if at:
            found.append(("pass_at_1", _rate(at["1"])))
        if hat:
            largest = max(hat, key=int)
            found.append((f"pass_hat_{largest}", _rate(hat[largest])))
    return found


def _cost(value: float | None) -> str | None:
    """US dollars to ten significant digits: what a sum of floats adds in the last digits is noise."""
    if value is None:
        return None
    return format(value, ".10g") if isinstance(value, float) else text_of(value)


def _rate(value: float | None) -> str | None:
    return None if value is None else f"{value:.4f}"


def _property_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return text_of(value)


def _interrupted_note(report: EvalReport) -> str:
    planned = report.planned if report.planned is not None else report.total
    return (
        f"INTERRUPTED: {report.total} of {plural(planned, 'planned case')} finished; "
        f"the other {planned - report.total} did not run and are not listed."
    )


def _suite_name(report: EvalReport) -> str:
    return cell(report.name or report.metadata.get("suite") or "agent-eval", 1000)


def _seconds(ms: float) -> str:
    return f"{ms / 1000:.3f}"


def _message(text: Any) -> str:
    """A one-line, bounded attribute value."""
    return cell(text, MESSAGE_LIMIT)


def _one_line_all(attributes: dict[str, str]) -> dict[str, str]:
    return {key: cell(value) for key, value in attributes.items()}
