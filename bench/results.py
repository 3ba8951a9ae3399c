"""From the runs' measurements to rows (median, ratio to the floor and to agent-eval) and targets."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from scenarios import CONCURRENCY, CONCURRENCY_CASES, JUDGE_CASES, JUDGE_DELAY, SCALE_CASES, SLEEP, Outcome

Outcomes = dict[tuple[str, str, str], Outcome]

PEERS = ("pydantic-evals", "inspect-ai")
RUNNERS = ("floor", "agent-eval", *PEERS)
IDEAL_B = CONCURRENCY_CASES / CONCURRENCY * SLEEP
IDEAL_F = JUDGE_CASES / CONCURRENCY * JUDGE_DELAY

TITLES = {
    "A": "A. runner overhead, µs per case",
    "B": f"B. concurrency, s (ideal {IDEAL_B:g} s)",
    "C": "C. start-up, ms",
    "D": "D. scale, µs per case",
    "D-rss": "D. scale, peak memory MB",
    "D-growth": "D. scale, µs/case ÷ A's",
    "E": "E. contains, 1,000 keywords in 1 MB, s",
    "F": f"F. judge, s (ideal {IDEAL_F:g} s)",
}

NOT_EXPRESSIBLE = {
    ("F", "pydantic-evals"): "its LLMJudge asks through a pydantic-ai model for a structured tool-call answer, "
    "which the test server does not produce; not the same work",
    ("F", "inspect-ai"): "model_graded_qa() grades through an inspect model provider with its own answer format "
    "('GRADE: C'); not the same work",
    ("C", "pydantic-evals"): "no command-line tool; the import of the package is shown instead",
    ("C", "inspect-ai"): "no command that lists scorers; the import of the package is shown instead",
}


@dataclass(frozen=True)
class Row:
    """One line of the table."""

    title: str
    framework: str
    label: str
    value: float | None
    runs: int
    vs_floor: float | None = None
    vs_agent_eval: float | None = None
    note: str = ""


@dataclass(frozen=True)
class Target:
    """One of the issue's targets and whether agent-eval met it."""

    scenario: str
    text: str
    met: bool | None
    detail: str


def _ratio(value: float | None, reference: float | None) -> float | None:
    return value / reference if value is not None and reference else None


def _value(outcomes: Outcomes, key: tuple[str, str, str], measure: str, scale: float = 1.0) -> float | None:
    outcome = outcomes.get(key)
    if outcome is None or outcome.error or not outcome.runs:
        return None
    return outcome.median(measure) * scale


def _rows_for(
    outcomes: Outcomes, scenario: str, title: str, measure: str, scale: float, floor_label: str, agent_label: str
) -> Iterator[Row]:
    """Rows of ``scenario``'s jobs under ``title``, with ratios to the floor's and agent-eval's reference jobs."""
    keys = [key for key in outcomes if key[0] == scenario]
    floor = _value(outcomes, (scenario, "floor", floor_label), measure, scale)
    agent = _value(outcomes, (scenario, "agent-eval", agent_label), measure, scale)
    for key in keys:
        outcome = outcomes[key]
        value = _value(outcomes, key, measure, scale)
        note = f"failed: {outcome.error}" if outcome.error else _counts(outcome)
        yield Row(title, key[1], key[2], value, len(outcome.runs), _ratio(value, floor), _ratio(value, agent), note)


def _counts(outcome: Outcome) -> str:
    cases = outcome.job.cases
    runs = len(outcome.runs)
    return f"{runs} run{'s' if runs != 1 else ''}" + (f" × {cases:,} cases" if cases and cases > 1 else "")


def rows(outcomes: Outcomes) -> list[Row]:
    """Every row of the table, scenario by scenario."""
    table: list[Row] = []
    table += _rows_for(outcomes, "A", TITLES["A"], "us_per_case", 1, "overhead", "overhead")
    table += _rows_for(outcomes, "B", TITLES["B"], "seconds", 1, "concurrency", "concurrency")
    startup = ("import pluggy, attrs, click", "agent-eval list-evaluators")
    table += _rows_for(outcomes, "C", TITLES["C"], "seconds", 1000, *startup)
    table += _rows_for(outcomes, "D", TITLES["D"], "us_per_case", 1, "scale", "scale")
    table += _rows_for(outcomes, "D", TITLES["D-rss"], "rss_peak_mb", 1, "scale", "scale")
    table += _growth_rows(outcomes)
    table += _rows_for(outcomes, "E", TITLES["E"], "seconds", 1, "keywords", "keywords")
    table += _rows_for(outcomes, "F", TITLES["F"], "seconds", 1, "first run (asyncio streams)", "first run")
    table += [Row(TITLES[s], peer, "n/a", None, 0, note=why) for (s, peer), why in NOT_EXPRESSIBLE.items() if s == "F"]
    return _with_notes(table, outcomes)


def _growth(outcomes: Outcomes, framework: str) -> float | None:
    return _ratio(
        _value(outcomes, ("D", framework, "scale"), "us_per_case"),
        _value(outcomes, ("A", framework, "overhead"), "us_per_case"),
    )


def _growth_rows(outcomes: Outcomes) -> Iterator[Row]:
    floor = _growth(outcomes, "floor")
    agent = _growth(outcomes, "agent-eval")
    for framework in RUNNERS:
        growth = _growth(outcomes, framework)
        if growth is None:
            continue
        small = outcomes[("A", framework, "overhead")].job.cases or 0
        large = outcomes[("D", framework, "scale")].job.cases or 0
        note = f"{large:,} cases against {small:,}"
        yield Row(TITLES["D-growth"], framework, "scale", growth, 0, _ratio(growth, floor), _ratio(growth, agent), note)


def _with_notes(table: list[Row], outcomes: Outcomes) -> list[Row]:
    """Add the scenario-specific remarks (ideal, cache hits, memory) to the notes."""
    noted: list[Row] = []
    for row in table:
        extra = ""
        if row.title == TITLES["B"] and row.value:
            extra = f"{row.value / IDEAL_B:.2f}× ideal"
        elif row.title == TITLES["F"] and row.value:
            extra = _judge_note(outcomes, row)
        elif row.title == TITLES["C"] and row.framework in PEERS:
            extra = NOT_EXPRESSIBLE[("C", row.framework)]
        elif row.title == TITLES["D-rss"]:
            base = _value(outcomes, ("D", row.framework, "scale"), "rss_base_mb")
            extra = f"{base:.0f} MB before the cases" if base else ""
        note = "; ".join(part for part in (row.note, extra) if part)
        noted.append(
            Row(row.title, row.framework, row.label, row.value, row.runs, row.vs_floor, row.vs_agent_eval, note)
        )
    return noted


def _judge_note(outcomes: Outcomes, row: Row) -> str:
    outcome = outcomes[("F", row.framework, row.label)]
    parts = [f"{row.value / IDEAL_F:.2f}× ideal" if row.value else ""]
    if row.framework == "agent-eval":
        parts.append(f"{round(outcome.median('cached'))}/{JUDGE_CASES} from the cache")
    return "; ".join(part for part in parts if part)


def targets(outcomes: Outcomes) -> list[Target]:
    """The issue's targets for agent-eval, each met, missed, or not measured (None)."""
    found: list[Target] = []

    def value(scenario: str, framework: str, label: str, measure: str) -> float | None:
        return _value(outcomes, (scenario, framework, label), measure)

    a, a_floor = value("A", "agent-eval", "overhead", "us_per_case"), value("A", "floor", "overhead", "us_per_case")
    found.append(_target("A", "at most 2× the floor's cost per case", a, a_floor and 2 * a_floor, "{:.1f} µs"))
    b = value("B", "agent-eval", "concurrency", "seconds")
    found.append(_target("B", f"within 1.1× of ideal ({IDEAL_B:g} s)", b, 1.1 * IDEAL_B, "{:.3f} s"))
    c = value("C", "agent-eval", "agent-eval list-evaluators", "seconds")
    c_floor = value("C", "floor", "import pluggy, attrs, click", "seconds")
    found.append(
        _target("C", "list-evaluators within 1.5× of the import floor", c, c_floor and 1.5 * c_floor, "{:.3f} s")
    )
    rss = value("D", "agent-eval", "scale", "rss_peak_mb")
    found.append(_target("D", f"peak memory under 150 MB at {SCALE_CASES:,} cases", rss, 150, "{:.0f} MB"))
    growth = _growth(outcomes, "agent-eval")
    floor_growth = _growth(outcomes, "floor")
    context = f" (the floor's: {floor_growth:.2f}×)" if floor_growth else ""
    found.append(
        _target("D", "cost grows linearly: µs/case at 50,000 within 1.5× of A's" + context, growth, 1.5, "{:.2f}×")
    )
    e = value("E", "agent-eval", "keywords", "seconds")
    found.append(_target("E", "under 0.2 s", e, 0.2, "{:.3f} s"))
    first = value("F", "agent-eval", "first run", "seconds")
    cached = value("F", "agent-eval", "cached run", "seconds")
    found.append(_target("F", f"within 1.1× of ideal ({IDEAL_F:g} s)", first, 1.1 * IDEAL_F, "{:.3f} s"))
    speedup = first / cached if first and cached else None
    found.append(_target("F", "cached run at least 20× faster than the first", speedup and 1 / speedup, 1 / 20, None))
    if speedup:
        last = found[-1]
        found[-1] = Target(last.scenario, last.text, last.met, f"{speedup:.1f}× faster")
    return found


def _target(scenario: str, text: str, value: float | None, limit: float | None, shown: str | None) -> Target:
    if value is None or limit is None:
        return Target(scenario, text, None, "not measured")
    detail = f"{shown.format(value)} against at most {shown.format(limit)}" if shown else ""
    return Target(scenario, text, value <= limit, detail)
