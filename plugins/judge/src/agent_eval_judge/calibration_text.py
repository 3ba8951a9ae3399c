"""What ``agent-eval calibrate`` prints without ``--json``: the figures of each judge, for a person to read."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import click

from agent_eval_judge.display import quoted, visible

#: Names listed per kind of disagreement, and errors listed, before "and N more".
NAMES_SHOWN = 10
ERRORS_SHOWN = 20


def print_summary(result: dict[str, Any], echo: Callable[[str], None] = click.echo) -> None:
    """Print the figures of every judge configuration, per criterion when there are several, and between judges."""
    echo(
        f"calibrate: {result['labelled']} labels in {visible(result['labels'], 200)} "
        f"against {visible(result['suite_file'], 200)}"
    )
    if result["without_judge"]:
        names = result["without_judge"]
        echo(f"  {len(names)} labelled case(s) have no llm_judge evaluation, left out: {_names(names)}")
    for figures in result["models"]:
        echo("")
        for line in judge_lines(figures):
            echo(line)
    if len(result["models"]) > 1:
        echo("")
        for line in between_lines(result["pairwise"], result["alpha"], len(result["models"])):
            echo(line)


def judge_lines(figures: dict[str, Any]) -> list[str]:
    """One judge configuration: agreement, kappa, the confusion, the error rates, the cases behind them."""
    c = figures["confusion"]
    failed, passed = c["false_pass"] + c["true_fail"], c["false_fail"] + c["true_pass"]
    lines = [
        f"{_who(figures)}: {figures['n']} graded",
        f"  agreement        {_rate(figures['agreement'])}  ({c['true_pass'] + c['true_fail']} of {figures['n']})",
        f"  Cohen's kappa    {_kappa(figures)}",
        "                   judge pass  judge fail",
        f"    person pass    {c['true_pass']:>10}  {c['false_fail']:>10}",
        f"    person fail    {c['false_pass']:>10}  {c['true_fail']:>10}",
        f"  false-pass rate  {_rate(figures['false_pass_rate'])}  "
        f"({c['false_pass']} of the {failed} the person failed, the judge passed)",
        f"  false-fail rate  {_rate(figures['false_fail_rate'])}  "
        f"({c['false_fail']} of the {passed} the person passed, the judge failed)",
    ]
    if figures["scored"]:
        lines.append(f"  score gap        {figures['score_mae']:.3f}  (mean |person - judge| over {figures['scored']})")
    for kind, title in (("false_pass", "false passes"), ("false_fail", "false fails")):
        names = [item["name"] for item in figures["disagreements"] if item["kind"] == kind]
        if names:
            lines.append(f"  {title}: {_names(names)}")
    lines += _unjudged(figures["errors"], "could not be graded (errors)")
    lines += _unjudged(figures["skipped"], "were skipped")
    if len(figures["criteria"]) > 1:
        lines += criteria_lines(figures["criteria"])
    return lines


def criteria_lines(entries: Sequence[dict[str, Any]]) -> list[str]:
    """A table with one row per criterion."""
    lines = [
        f"  per criterion ({len(entries)}):",
        "    n      agreement  kappa (95% CI)               false-pass  false-fail  criterion",
    ]
    for entry in entries:
        unjudged = entry["errors"] + entry["skipped"]
        extra = f" ({unjudged} not graded)" if unjudged else ""
        lines.append(
            f"    {entry['n']:<6} {_rate(entry['agreement']):<10} {_kappa(entry, short=True):<28} "
            f"{_rate(entry['false_pass_rate']):<11} {_rate(entry['false_fail_rate']):<11} "
            f"{visible(entry['criteria'], 70)}{extra}"
        )
    return lines


def between_lines(pairwise: Sequence[dict[str, Any]], alpha: float | None, judges: int) -> list[str]:
    """How the judge models agree with each other, and Krippendorff's alpha with the person among them."""
    lines = ["between judges:"]
    for pair in pairwise:
        first, second = (visible(model, 60) for model in pair["models"])
        lines.append(
            f"  {first} vs {second}: agreement {_rate(pair['agreement'])} over {pair['n']} graded by both, "
            f"Cohen's kappa {_kappa(pair, short=True)}"
        )
    shown = "undefined (every rater gave one same label)" if alpha is None else f"{alpha:.3f}"
    lines.append(f"  Krippendorff's alpha, the person and the {judges} judges: {shown}")
    return lines


def _who(figures: dict[str, Any]) -> str:
    if figures["model"] is not None:
        return f"judge model {visible(figures['model'], 80)}"
    used = figures["judge_models"]
    return "judge" + (f" ({', '.join(visible(model, 60) for model in used)})" if used else "")


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _kappa(figures: dict[str, Any], *, short: bool = False) -> str:
    kappa = figures["kappa"]
    if kappa is None:
        if short:
            return "undefined"
        if not figures["n"]:
            return "undefined (nothing graded)"
        return "undefined (the person and the judge gave every output one same label)"
    low, high = figures["kappa_ci_low"], figures["kappa_ci_high"]
    return f"{kappa:.3f} ({'' if short else '95% CI '}{low:.3f} to {high:.3f})"


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(quoted(name, 40) for name in names[:NAMES_SHOWN])
    more = len(names) - NAMES_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def _unjudged(items: Sequence[dict[str, Any]], what: str) -> list[str]:
    if not items:
        return []
    lines = [f"  {len(items)} label(s) {what}, not counted above:"]
    for item in items[:ERRORS_SHOWN]:
        lines.append(f"    line {item['line']} {quoted(item['name'], 40)}: {visible(item['reason'] or '', 300)}")
    if len(items) > ERRORS_SHOWN:
        lines.append(f"    and {len(items) - ERRORS_SHOWN} more (--json lists them all)")
    return lines
