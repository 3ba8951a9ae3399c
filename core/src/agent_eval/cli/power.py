"""``agent-eval power``: how many cases (and repeats) a paired comparison needs, planned from a recorded run.

The variance comes from the run (between cases, and within a case when it was repeated); the sizes
come from :mod:`agent_eval.stats` (Miller's normal approximation for a paired two-sided test).
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

import click

from agent_eval.cli._common import HISTORY_HELP, FilePath, UsageProblem, load_run

if TYPE_CHECKING:
    from agent_eval._model import EvalReport
    from agent_eval.stats import CaseVariance

    # generic in click's type stubs since 8.2, not at run time in the click 8.1 this still supports
    _ParamType = click.ParamType[Any, Any]
else:
    _ParamType = click.ParamType

#: Besides the planned number, `power` shows the cases needed with each of these repeats per case.
OTHER_REPEATS = (1, 2, 3, 5, 10)


class _Bounded(_ParamType):
    """A number within bounds; anything else is one error line and exit 2, like every problem of `power`."""

    def __init__(self, kind: type[float] | type[int], test: Any, words: str) -> None:
        self.kind, self.test, self.words = kind, test, words
        self.name = "integer" if kind is int else "number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            number = self.kind(value)
        except (TypeError, ValueError, OverflowError):
            number = None
        if number is None or not math.isfinite(number) or not self.test(number):
            option = param.opts[0] if param is not None and param.opts else "the value"
            raise UsageProblem(f"{option} must be {self.words}, got {value!r}")
        return number


_EFFECT = _Bounded(float, lambda d: 0 < d <= 1, "a change in pass rate above 0 and at most 1 (0.05 for 5 points)")
_LEVEL = _Bounded(float, lambda p: 0 < p < 1, "strictly between 0 and 1")
_CORRELATION = _Bounded(float, lambda r: -1 <= r <= 1, "between -1 and 1")
_CASES = _Bounded(int, lambda n: n >= 2, "a whole number of at least 2")
_REPEAT = _Bounded(int, lambda k: k >= 1, "a whole number of at least 1")


@click.command()
@click.argument("run_ref", metavar="RUN")
@click.option("--effect", type=_EFFECT, help="The change in pass rate to detect: 0.05 for 5 points.")
@click.option("--cases", type=_CASES, help="Find the smallest change this many cases can detect.")
@click.option("--repeat", type=_REPEAT, help="Repeats per case to plan for (default: as many as RUN had).")
@click.option("--alpha", type=_LEVEL, default=0.05, show_default=True, help="Level of the two-sided paired test.")
@click.option("--power", "power_", type=_LEVEL, default=0.8, show_default=True, help="Chance of detecting it.")
@click.option(
    "--correlation",
    type=_CORRELATION,
    default=0.0,
    show_default=True,
    help="Correlation between the two runs' per-case outcomes (`compare` prints it as r).",
)
@click.option("--history", "history_path", type=FilePath(), help=HISTORY_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
def power(
    run_ref: str,
    effect: float | None,
    cases: int | None,
    repeat: int | None,
    alpha: float,
    power_: float,
    correlation: float,
    history_path: str | None,
    as_json: bool,
) -> None:
    """Plan a comparison from RUN's variance: the cases (and repeats) that detect a change of --effect.

    RUN is a run id, `latest`, `latest~N`, or a JSON report. With --cases N: the smallest change in
    pass rate N cases detect. Normal approximation for a paired two-sided test (Miller, 2024); the
    variance within a case is known only when RUN was repeated.
    """
    if effect is None and cases is None:
        raise UsageProblem(
            "give --effect D (the change in pass rate to detect) or --cases N (to find the smallest change N detect)"
        )
    report = load_run(run_ref, history_path)
    options = {"alpha": alpha, "power": power_, "correlation": correlation}
    found = plan(report, run_ref, effect=effect, cases=cases, repeat=repeat, **options)
    if as_json:
        click.echo(json.dumps(found, indent=2, ensure_ascii=False))
    else:
        for line in _text(found, run_ref):
            click.echo(line)


def plan(
    report: EvalReport,
    ref: str,
    *,
    effect: float | None,
    cases: int | None,
    repeat: int | None,
    alpha: float,
    power: float,
    correlation: float,
) -> dict[str, Any]:
    """The plan as JSON-ready data: the run, its variance, the cases and repeats needed, what N detect."""
    from agent_eval import stats

    outcomes = [[1.0 if passed else 0.0 for passed in case.outcomes()] for case in report.cases]
    outcomes = [attempts for attempts in outcomes if attempts]
    variance = stats.case_variance(outcomes)
    if variance is None:
        raise UsageProblem(
            f"{ref}: {len(outcomes)} of its cases ran; a variance needs at least 2 (plan from a larger run)"
        )
    if variance.between == 0 and variance.within == 0:
        every = "passed" if outcomes[0][0] else "failed"
        raise UsageProblem(f"{ref}: every attempt {every}, so its outcomes have no variance to plan from")
    run_repeat = max((len(case.attempts) for case in report.cases), default=0) or 1
    planned = repeat or run_repeat
    size = cases or len(outcomes)
    options = {"correlation": correlation, "alpha": alpha, "power": power}
    found: dict[str, Any] = {
        "run": _run(report, outcomes, run_repeat),
        "variance": {"between": variance.between, "within": variance.within},
        **options,
        "repeat": planned,
        "cases": size,
        "detectable_effect": stats.detectable_effect(variance, size, repeats=planned, **options),
    }
    if effect is not None:
        found.update(_needed(variance, effect, planned, size, options))
    return found


def _run(report: EvalReport, outcomes: list[list[float]], repeat: int) -> dict[str, Any]:
    means = [sum(attempts) / len(attempts) for attempts in outcomes]
    return {
        "run_id": report.metadata.get("run_id"),
        "suite": report.name,
        "cases": len(outcomes),
        "repeat": repeat,
        "pass_rate": report.pass_rate,
        "pass_at_1": math.fsum(means) / len(means),
    }


def _needed(
    variance: CaseVariance, effect: float, repeat: int, cases: int, options: dict[str, float]
) -> dict[str, Any]:
    from agent_eval import stats

    shown = sorted({*OTHER_REPEATS, repeat})
    return {
        "effect": effect,
        "cases_needed": stats.cases_needed(variance, effect, repeats=repeat, **options),
        "by_repeat": [
            {"repeat": k, "cases_needed": stats.cases_needed(variance, effect, repeats=k, **options)} for k in shown
        ],
        "repeats_needed": stats.repeats_needed(variance, effect, cases=cases, **options),
    }


# --- the plan as text ----------------------------------------------------------------------------------


def _text(found: dict[str, Any], ref: str) -> list[str]:
    from agent_eval._text import cell

    run, variance = found["run"], found["variance"]
    repeated = run["repeat"] > 1
    label = ref if run["run_id"] in (None, ref) else f"{ref} = {run['run_id']}"
    suite = f"{run['suite']}, " if run["suite"] else ""
    rate = f"pass@1 {run['pass_at_1']:.1%}" if repeated else f"pass rate {run['pass_rate']:.1%}"
    lines = [cell(f"RUN {label} ({suite}{_cases(run['cases'])} that ran, {_each(run['repeat'])}, {rate})")]
    if repeated:
        lines.append(
            f"Variance of one attempt's outcome: {variance['between']:.4f} between cases, "
            f"{variance['within']:.4f} within a case."
        )
    else:
        lines.append(
            f"Variance of a case's outcome: {variance['between']:.4f}. RUN ran each case once, so its variance "
            "cannot be split into between and within cases: it all counts as between cases, and repeats are "
            "credited with no gain (plan them from a run made with --repeat)."
        )
    level = f"at alpha {found['alpha']:g}, power {found['power']:g} (correlation {found['correlation']:g})"
    if "effect" in found:
        lines += _needed_text(found, level, repeated)
    lines.append(_detectable_text(found, level))
    return lines


def _needed_text(found: dict[str, Any], level: str, repeated: bool) -> list[str]:
    repeat, size = found["repeat"], found["cases"]
    lines = [
        f"To detect a change of {found['effect'] * 100:.1f} points {level}:",
        f"  {_cases(found['cases_needed'])} {_with(repeat)}",
    ]
    others = [row for row in found["by_repeat"] if row["repeat"] != repeat]
    if repeated and others:
        lines.append("  or " + " · ".join(f"{row['cases_needed']:,} {_with(row['repeat'])}" for row in others))
    needed = found["repeats_needed"]
    if needed is None:
        repeats = " with any number of repeats" if repeated else ""
        lines.append(f"  {_cases(size)} are not enough{repeats}: more cases are needed")
    elif repeated:
        lines.append(f"  or {_cases(size)} with {_repeats(needed)} each")
    else:
        lines.append(f"  {_cases(size)} are enough, each run once")
    return lines


def _detectable_text(found: dict[str, Any], level: str) -> str:
    effect, size, repeat = found["detectable_effect"], found["cases"], found["repeat"]
    runs = f"With {_cases(size)} and {_repeats(repeat)}" if repeat > 1 else f"With {_cases(size)}, each run once,"
    if effect > 1:
        return f"{runs} no change in pass rate can be detected {level}: more cases are needed."
    return f"{runs} you can detect a change of {effect * 100:.1f} points {level}."


def _cases(count: int) -> str:
    return f"{count:,} case" + ("" if count == 1 else "s")


def _with(repeat: int) -> str:
    return "run once" if repeat == 1 else f"with {repeat:,} repeats each"


def _repeats(count: int) -> str:
    return f"{count:,} repeat" + ("" if count == 1 else "s")


def _each(repeat: int) -> str:
    return "each once" if repeat == 1 else f"{repeat} attempts each"
