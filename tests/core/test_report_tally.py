"""A report's figures come from one pass over its cases (``tally_of``): each is what its own definition,
worked out the plain way over the cases, gives."""

from __future__ import annotations

import math
from typing import Any

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_eval import stats
from agent_eval._agent_run import Usage
from agent_eval._model import Attempt, EvalReport, EvalResult, Evaluation, sum_usage, tally_of, total_cost, total_usage
from agent_eval._run_stats import run_stats

STATUS = st.sampled_from(["passed", "failed", "error", "skipped"])
SCORES = st.one_of(
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-3, 3),
    st.sampled_from([0.0, 0.5, 1.0, 1e308, -1e308]),
)
METADATA = st.one_of(
    st.just({}),
    st.fixed_dictionaries(
        {},
        optional={
            "usage": st.one_of(st.none(), st.dictionaries(st.sampled_from(["input_tokens", "x"]), st.integers(0, 9))),
            "model": st.one_of(st.just(""), st.none(), st.sampled_from(["m1", "m2"]), st.integers(0, 2)),
            "other": st.integers(),
        },
    ),
)


@st.composite
def results(draw: st.DrawFn) -> EvalResult:
    evaluations = [
        Evaluation(draw(st.sampled_from(["contains", "judge", "exact"])), draw(STATUS), metadata=draw(METADATA))
        for _ in range(draw(st.integers(0, 3)))
    ]
    attempts = [Attempt(index, draw(STATUS)) for index in range(draw(st.sampled_from([0, 0, 2, 3])))]
    return EvalResult(
        draw(st.text(max_size=3)),
        "q",
        status=draw(STATUS),
        score=draw(SCORES),
        evaluations=evaluations,
        attempts=attempts,
        usage=draw(st.one_of(st.none(), st.builds(Usage, st.integers(0, 2**40), st.integers(0, 9)))),
        cost_usd=draw(st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True), st.integers(0, 5))),
    )


def _finite_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _stats_the_plain_way(cases: list[EvalResult]) -> dict[str, Any]:
    ran = [case for case in cases if case.status != "skipped"]
    passed = sum(case.status == "passed" for case in ran)
    interval = stats.wilson_interval(passed, len(ran))
    score = stats.mean_estimate([case.score for case in ran if _finite_number(case.score)])
    return {
        "pass_rate": passed / len(ran) if ran else 0.0,
        "ci_low": interval.low if interval else None,
        "ci_high": interval.high if interval else None,
        "mean_score": score.value if score else None,
        "score_se": score.se if score else None,
        "repeat": max((len(case.attempts) for case in cases), default=0),
    }


def _same(a: Any, b: Any) -> bool:
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


@settings(max_examples=300, deadline=None)
@given(st.lists(results(), max_size=8))
def test_each_figure_is_what_its_definition_gives_over_the_cases(cases: list[EvalResult]) -> None:
    report = EvalReport(cases)
    plain = _stats_the_plain_way(cases)
    found = report.stats
    for key in ("pass_rate", "ci_low", "ci_high", "mean_score", "score_se"):
        assert _same(found[key], plain[key]), key
    assert found.get("repeat", 0) == plain["repeat"]
    assert report.usage == sum_usage(e.metadata.get("usage") for r in cases for e in r.evaluations)
    assert report.agent_usage == total_usage(r.usage for r in cases)
    assert _same(report.cost_usd, total_cost(r.cost_usd for r in cases))
    tally = tally_of(cases)
    assert tally.evaluators == {e.name for r in cases for e in r.evaluations}
    assert tally.models == [e.metadata["model"] for r in cases for e in r.evaluations if e.metadata.get("model")]
    assert run_stats(cases, tally) == report.stats


@settings(max_examples=50, deadline=None)
@given(st.lists(results(), max_size=5), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
def test_a_report_with_other_metadata_is_the_report_evolve_makes_with_the_same_figures(
    cases: list[EvalResult], metadata: dict[str, Any]
) -> None:
    report = EvalReport(cases, name="r", metadata={"old": 1})
    report.stats  # worked out on the first
    moved = report.with_metadata(metadata)
    assert moved == attrs.evolve(report, metadata=metadata)
    assert moved.metadata == metadata
    assert moved.tally() is report.tally()
    assert moved.to_dict() == attrs.evolve(report, metadata=metadata).to_dict()


def test_costs_whose_sum_passes_the_largest_float_make_no_total_and_every_writer_still_writes(tmp_path: Any) -> None:
    from agent_eval._report import html, json, junit, markdown

    cases = [EvalResult(f"c{i}", "q", status="passed", score=1.0, cost_usd=1.5e308) for i in range(2)]
    report = EvalReport(cases)
    assert report.cost_usd is None
    for writer, name in (
        (json.write, "r.json"),
        (junit.write, "r.xml"),
        (html.write, "r.html"),
        (markdown.write, "r.md"),
    ):
        writer(report, tmp_path / name)
        assert (tmp_path / name).stat().st_size > 0


def test_a_score_past_the_largest_float_is_no_score_and_the_figures_are_still_made() -> None:
    cases = [
        EvalResult("huge", "q", status="passed", score=10**400),
        EvalResult("half", "q", status="failed", score=0.5),
    ]
    report = EvalReport(cases)
    assert tally_of(cases).scores == [0.5]
    assert report.stats["mean_score"] == 0.5
