"""Acceptance simulations for agent_eval.stats: do the intervals cover, and does the gate hold its error rates?

An agent here passes each attempt of a case with that case's probability. Every simulation is seeded,
so each rate below is one fixed number; the bounds leave about three standard errors of a rate
measured over 400 trials (1.1 points at 95%) on either side of its target.
"""

from __future__ import annotations

import numpy as np
import pytest

from agent_eval.stats import (
    CaseVariance,
    clustered_mean_estimate,
    detectable_effect,
    mcnemar_p_value,
    mean_estimate,
    paired_comparison,
    wilson_interval,
)

TRIALS = 400
CASES = 200
REPEATS = 5


def case_rates(rng: np.random.Generator, p: float, *, spread: bool) -> np.ndarray:
    """Per-case pass probabilities with mean p: all p, or drawn from Beta(2p, 2(1 - p)) (case ICC 1/3)."""
    if not spread:
        return np.full(CASES, p)
    return rng.beta(2 * p, 2 * (1 - p), size=CASES)


def attempts(rng: np.random.Generator, rates: np.ndarray, repeats: int) -> np.ndarray:
    return rng.random((len(rates), repeats)) < rates[:, None]


def covers(low: float | None, high: float | None, p: float) -> bool:
    assert low is not None and high is not None
    return low <= p <= high


@pytest.mark.parametrize("p", [0.5, 0.9])
def test_wilson_interval_over_cases_covers_the_pass_rate_of_one_attempt(p):
    rng = np.random.default_rng(100 + int(p * 10))
    covered = 0
    for _ in range(TRIALS):
        interval = wilson_interval(int(attempts(rng, case_rates(rng, p, spread=True), 1).sum()), CASES)
        assert interval is not None
        covered += covers(interval.low, interval.high, p)
    assert 0.92 <= covered / TRIALS <= 0.98, covered / TRIALS


@pytest.mark.parametrize("spread", [False, True], ids=["same-rate-cases", "cases-vary"])
@pytest.mark.parametrize("p", [0.5, 0.9])
def test_clustered_interval_covers_the_attempt_pass_rate_with_repeats(p, spread):
    rng = np.random.default_rng(200 + int(p * 10) + spread)
    clustered = naive = 0
    for _ in range(TRIALS):
        outcomes = attempts(rng, case_rates(rng, p, spread=spread), REPEATS).astype(float)
        estimate = clustered_mean_estimate(outcomes.tolist(), bounds=(0.0, 1.0))
        independent = mean_estimate(outcomes.ravel().tolist(), bounds=(0.0, 1.0))  # attempts as if independent
        assert estimate is not None and independent is not None
        clustered += covers(estimate.low, estimate.high, p)
        naive += covers(independent.low, independent.high, p)
    assert 0.92 <= clustered / TRIALS <= 0.98, clustered / TRIALS
    if spread:
        # 5 attempts of a case share its rate: treating them as independent understates the error
        assert naive / TRIALS < 0.88, naive / TRIALS
    else:
        assert 0.92 <= naive / TRIALS <= 0.98, naive / TRIALS


def mcnemar_flags_regression(base: np.ndarray, head: np.ndarray) -> bool:
    lost = int(np.sum(base & ~head))  # passed in BASE, fails in HEAD
    gained = int(np.sum(~base & head))
    return mcnemar_p_value(lost, gained) < 0.05 and gained < lost


def t_test_flags_regression(base: np.ndarray, head: np.ndarray) -> bool:
    comparison = paired_comparison(base.mean(axis=1).tolist(), head.mean(axis=1).tolist())
    assert comparison is not None and comparison.p_value is not None
    return comparison.p_value < 0.05 and comparison.diff < 0


@pytest.mark.parametrize(
    ("repeats", "flags"), [(1, mcnemar_flags_regression), (REPEATS, t_test_flags_regression)], ids=["mcnemar", "t-test"]
)
def test_the_gate_rarely_flags_two_runs_of_the_same_agent(repeats, flags):
    rng = np.random.default_rng(300 + repeats)
    alarms = 0
    for _ in range(TRIALS):
        rates = case_rates(rng, 0.8, spread=True)
        alarms += flags(attempts(rng, rates, repeats), attempts(rng, rates, repeats))
    assert alarms / TRIALS <= 0.06, alarms / TRIALS


@pytest.mark.parametrize(
    ("repeats", "flags"), [(1, mcnemar_flags_regression), (REPEATS, t_test_flags_regression)], ids=["mcnemar", "t-test"]
)
def test_the_gate_flags_a_drop_of_15_points_on_200_cases(repeats, flags):
    rng = np.random.default_rng(400 + repeats)
    flagged = 0
    for _ in range(TRIALS):
        rates = case_rates(rng, 0.8, spread=True)
        worse = rates * (0.65 / 0.8)  # every case a little worse: 15 points on average
        flagged += flags(attempts(rng, rates, repeats), attempts(rng, worse, repeats))
    assert flagged / TRIALS >= 0.8, flagged / TRIALS


def test_the_planned_minimum_detectable_effect_is_detected_about_as_often_as_planned():
    # Case rates q = 0.1 + 0.8 · Beta(2, 2); HEAD lowers every case's rate by the same D, so the runs'
    # true rates correlate fully (R = 1) and only the within-case variance is left to beat.
    rng = np.random.default_rng(500)
    between = 0.8**2 * 0.05  # Var(Beta(2, 2)) = 1/20
    within = 0.5 * (1 - 0.5) - between  # E[q (1 - q)] = E[q] (1 - E[q]) - Var(q); HEAD's is D² smaller
    effect = detectable_effect(CaseVariance(between, within), CASES, repeats=REPEATS, correlation=1.0)
    assert 0.05 < effect < 0.065
    detected = 0
    for _ in range(TRIALS):
        rates = 0.1 + 0.8 * rng.beta(2.0, 2.0, size=CASES)
        base, head = attempts(rng, rates, REPEATS), attempts(rng, rates - effect, REPEATS)
        comparison = paired_comparison(base.mean(axis=1).tolist(), head.mean(axis=1).tolist())
        assert comparison is not None and comparison.p_value is not None
        detected += comparison.p_value < 0.05
    assert 0.74 <= detected / TRIALS <= 0.86, detected / TRIALS  # planned: 0.8
