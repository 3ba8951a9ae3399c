"""agent_eval.stats: the contract of each function, its edge cases, then agreement with reference libraries.

The references (scipy, statsmodels, scikit-learn, krippendorff) are development dependencies only;
the module under test uses the standard library.
"""

from __future__ import annotations

import ast
import itertools
import math
import random
from pathlib import Path

import krippendorff
import numpy as np
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_confint

from agent_eval import stats
from agent_eval.stats import (
    Agreement,
    CaseVariance,
    Confusion,
    Estimate,
    Interval,
    PairedComparison,
    case_variance,
    cases_needed,
    clustered_mean_estimate,
    detectable_effect,
    judge_agreement,
    krippendorff_alpha,
    mcnemar_p_value,
    mean_estimate,
    mean_pass_at_k,
    mean_pass_hat_k,
    normal_cdf,
    normal_quantile,
    paired_comparison,
    pass_at_k,
    pass_hat_k,
    repeats_needed,
    t_cdf,
    wilson_interval,
)


def close(a: float | None, b: float, *, rel: float = 1e-9, abs_: float = 1e-12) -> bool:
    return a is not None and math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


# --- the module itself -------------------------------------------------------------------------------


def test_stats_imports_only_the_standard_library_and_attrs():
    tree = ast.parse(Path(stats.__file__).read_text(encoding="utf-8"))
    imported = {
        alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
    }
    imported |= {
        node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    assert imported == {"__future__", "math", "operator", "collections", "typing", "attrs"}


def test_every_public_name_is_listed_and_documented():
    public = {
        name
        for name in vars(stats)
        if not name.startswith("_") and getattr(getattr(stats, name), "__module__", None) == stats.__name__
    }
    assert set(stats.__all__) == public
    assert all(getattr(stats, name).__doc__ for name in stats.__all__)


def test_records_are_frozen():
    estimate = Estimate(0.5, se=0.1, low=0.3, high=0.7)
    with pytest.raises(AttributeError):
        estimate.value = 1.0  # type: ignore[misc]


# --- normal and t distributions ----------------------------------------------------------------------


def test_normal_quantile_known_values():
    assert normal_quantile(0.5) == 0.0
    assert close(normal_quantile(0.975), 1.959963984540054, rel=1e-14)
    assert close(normal_quantile(0.025), -1.959963984540054, rel=1e-14)
    assert close(normal_quantile(0.8), 0.8416212335729143, rel=1e-14)


@pytest.mark.parametrize("p", [0.0, 1.0, -0.1, 1.5, math.nan])
def test_normal_quantile_rejects_what_is_not_a_probability(p):
    with pytest.raises(ValueError, match="between 0 and 1"):
        normal_quantile(p)


def test_normal_quantile_matches_scipy_across_the_range_and_in_both_tails():
    rng = random.Random(1)
    ps = [rng.random() for _ in range(200)]
    ps += [10 ** rng.uniform(-300, -2) for _ in range(150)]
    ps += [1 - 10 ** rng.uniform(-16, -2) for _ in range(150)]
    ps += [0.02425, 1 - 0.02425, 1e-300, 0.5 - 1e-12]
    for p in ps:
        expected = scipy_stats.norm.ppf(p)
        assert abs(normal_quantile(p) - expected) <= 1e-12 * max(1.0, abs(expected)), p


def test_normal_cdf_matches_scipy_and_inverts_the_quantile():
    rng = random.Random(2)
    for _ in range(300):
        x = rng.uniform(-37, 8)  # below, Φ(x) is a subnormal number and scipy returns 0
        assert close(normal_cdf(x), scipy_stats.norm.cdf(x), rel=max(1e-14, 4e-16 * x * x), abs_=0.0), x
        p = rng.random()
        assert close(normal_cdf(normal_quantile(p)), p, rel=1e-13)


def test_t_cdf_known_values_and_symmetry():
    assert t_cdf(0.0, 7) == 0.5
    assert close(t_cdf(1.0, 1), 0.75, rel=1e-14)  # Cauchy: 1/2 + atan(1)/π
    assert close(t_cdf(-2.0, 2), 0.5 - 1 / math.sqrt(6), rel=1e-13)  # df 2: 1/2 + t / (2√(2 + t²))
    assert close(t_cdf(2.5, 9) + t_cdf(-2.5, 9), 1.0, rel=1e-15)
    assert t_cdf(math.inf, 3) == 1.0 and t_cdf(-math.inf, 3) == 0.0
    with pytest.raises(ValueError, match="degrees of freedom"):
        t_cdf(1.0, 0)


def test_t_cdf_matches_scipy():
    rng = random.Random(3)
    for _ in range(400):
        df = rng.choice([1, 2, 3, 4, 9, 29, 199, 4999, 99_999]) if rng.random() < 0.5 else rng.uniform(0.2, 300)
        t = rng.gauss(0, 1) * rng.choice([0.001, 1, 3, 10, 100])
        expected = scipy_stats.t.cdf(t, df)
        assert close(t_cdf(t, df), expected, rel=1e-10, abs_=1e-300), (t, df)
        tail = 2 * scipy_stats.t.sf(abs(t), df)  # the two-sided p-value, computed without cancellation
        assert close(stats._t_two_sided(t, df), tail, rel=1e-10, abs_=1e-300), (t, df)


# --- Wilson ------------------------------------------------------------------------------------------


def test_wilson_interval_known_value():
    interval = wilson_interval(8, 10)
    assert interval is not None
    assert close(interval.low, 0.49016247153664183) and close(interval.high, 0.9433178485456247)


def test_wilson_interval_edges():
    assert wilson_interval(0, 0) is None
    none_passed = wilson_interval(0, 20)
    all_passed = wilson_interval(20, 20)
    assert none_passed is not None and none_passed.low == 0.0 and 0 < none_passed.high < 0.2
    assert all_passed is not None and all_passed.high == 1.0 and 0.8 < all_passed.low < 1
    assert wilson_interval(1, 1) == Interval(low=pytest.approx(0.20654931), high=1.0)
    for bad in [(-1, 5), (6, 5), (0, -1)]:
        with pytest.raises(ValueError, match="successes"):
            wilson_interval(*bad)
    with pytest.raises(ValueError, match="confidence"):
        wilson_interval(1, 2, confidence=95)


def test_wilson_interval_widens_with_confidence():
    narrow, wide = wilson_interval(30, 50, confidence=0.8), wilson_interval(30, 50, confidence=0.99)
    assert narrow is not None and wide is not None
    assert wide.low < narrow.low < 0.6 < narrow.high < wide.high


def test_wilson_interval_matches_statsmodels():
    rng = random.Random(4)
    for _ in range(300):
        n = rng.randint(1, 2000)
        successes = rng.randint(0, n)
        confidence = rng.choice([0.95, 0.9, 0.99, rng.uniform(0.5, 0.999)])
        low, high = proportion_confint(successes, n, alpha=1 - confidence, method="wilson")
        interval = wilson_interval(successes, n, confidence=confidence)
        assert interval is not None
        assert close(interval.low, low, abs_=1e-14) and close(interval.high, high, abs_=1e-14)


# --- means -------------------------------------------------------------------------------------------


def test_mean_estimate_edges():
    assert mean_estimate([]) is None
    assert mean_estimate([0.7]) == Estimate(0.7)
    assert mean_estimate([1.0, 1.0, 1.0]) == Estimate(1.0, se=0.0, low=1.0, high=1.0)


def test_mean_estimate_known_value_and_bounds():
    estimate = mean_estimate([0.0, 1.0, 1.0, 1.0])
    assert estimate is not None
    assert estimate.value == 0.75 and close(estimate.se, 0.25)
    assert close(estimate.high, 0.75 + 1.959963984540054 * 0.25)
    clipped = mean_estimate([0.0, 1.0, 1.0, 1.0], bounds=(0.0, 1.0))
    assert clipped is not None and clipped.high == 1.0 and clipped.low == estimate.low


def test_mean_estimate_matches_numpy_and_scipy():
    rng = np.random.default_rng(5)
    for _ in range(300):
        values = rng.normal(rng.uniform(-5, 5), rng.uniform(0.01, 10), size=rng.integers(2, 300))
        confidence = float(rng.uniform(0.5, 0.999))
        estimate = mean_estimate(values.tolist(), confidence=confidence)
        assert estimate is not None
        assert close(estimate.value, float(np.mean(values)), abs_=1e-12)
        assert close(estimate.se, float(scipy_stats.sem(values)))
        low, high = scipy_stats.norm.interval(confidence, loc=np.mean(values), scale=scipy_stats.sem(values))
        assert close(estimate.low, low, abs_=1e-12) and close(estimate.high, high, abs_=1e-12)


def test_clustered_mean_estimate_edges():
    assert clustered_mean_estimate([]) is None
    assert clustered_mean_estimate([[], []]) is None
    assert clustered_mean_estimate([[1, 0, 1], []]) == Estimate(2 / 3)  # one cluster: no standard error
    assert clustered_mean_estimate([[1, 1], [1, 1, 1]], bounds=(0, 1)) == Estimate(1.0, se=0.0, low=1.0, high=1.0)
    assert clustered_mean_estimate([[0, 0], [0]]) == Estimate(0.0, se=0.0, low=0.0, high=0.0)


def test_clustered_mean_estimate_known_value():
    # mean 0.5 over 4 values; cluster residual sums +1 and -1: SE² = (1 + 1) / 4² = 1/8
    estimate = clustered_mean_estimate([[1, 1], [0, 0]])
    assert estimate is not None and estimate.value == 0.5 and close(estimate.se, math.sqrt(1 / 8))
    clipped = clustered_mean_estimate([[1, 1], [0, 0]], bounds=(0.0, 1.0))
    assert clipped is not None and clipped.low == 0.0 and clipped.high == 1.0


def test_clustering_widens_the_error_of_correlated_attempts():
    cases = [[1] * 5 if i % 2 else [0] * 5 for i in range(40)]  # every case all-or-nothing
    clustered = clustered_mean_estimate(cases)
    naive = mean_estimate([v for case in cases for v in case])
    assert clustered is not None and naive is not None and naive.se is not None
    assert clustered.se is not None and clustered.se > 2 * naive.se


def test_clustered_se_with_clusters_of_one_is_the_uncorrected_sample_se():
    values = [0.2, 0.9, 0.4, 0.4, 1.0]
    clustered, plain = clustered_mean_estimate([[v] for v in values]), mean_estimate(values)
    assert clustered is not None and plain is not None and plain.se is not None
    n = len(values)
    assert close(clustered.se, plain.se * math.sqrt((n - 1) / n))


def _statsmodels_cluster_se(clusters: list[list[float]], *, use_correction: bool) -> float:
    y = np.array([v for c in clusters for v in c], dtype=float)
    groups = np.array([i for i, c in enumerate(clusters) for _ in c])
    fit = sm.OLS(y, np.ones_like(y)).fit(
        cov_type="cluster", cov_kwds={"groups": groups, "use_correction": use_correction}
    )
    return float(fit.bse[0])


def test_clustered_mean_estimate_matches_statsmodels_cluster_robust_ols():
    rng = random.Random(6)
    for _ in range(250):
        n_clusters = rng.randint(2, 60)
        kind = rng.choice(["binary", "scores"])
        clusters = []
        for _ in range(n_clusters):
            size = rng.randint(1, 8)
            p = rng.random()
            if kind == "binary":
                clusters.append([float(rng.random() < p) for _ in range(size)])
            else:
                clusters.append([rng.gauss(p, 0.3) for _ in range(size)])
        if len({v for c in clusters for v in c}) < 2:
            continue
        estimate = clustered_mean_estimate(clusters)
        assert estimate is not None and estimate.se is not None
        assert close(estimate.value, float(np.mean([v for c in clusters for v in c])), abs_=1e-12)
        assert close(estimate.se, _statsmodels_cluster_se(clusters, use_correction=False), rel=1e-9)
        # statsmodels' default small-sample correction is the factor G / (G - 1) on the variance
        corrected = _statsmodels_cluster_se(clusters, use_correction=True)
        assert close(estimate.se * math.sqrt(n_clusters / (n_clusters - 1)), corrected, rel=1e-9)


# --- pass@k and pass^k -------------------------------------------------------------------------------


def test_pass_at_k_and_pass_hat_k_edges():
    assert pass_at_k(5, 0, k=1) == 0.0 and pass_hat_k(5, 0, k=1) == 0.0
    assert pass_at_k(5, 5, k=5) == 1.0 and pass_hat_k(5, 5, k=5) == 1.0
    assert pass_at_k(5, 1, k=5) == 1.0 and pass_hat_k(5, 4, k=5) == 0.0  # k = n
    assert pass_at_k(5, 3, k=1) == pytest.approx(0.6) and pass_hat_k(5, 3, k=1) == pytest.approx(0.6)
    assert pass_at_k(4, 2, k=2) == pytest.approx(5 / 6) and pass_hat_k(4, 2, k=2) == pytest.approx(1 / 6)
    assert pass_at_k(1, 1, k=1) == 1.0
    for n, c, k in [(5, 6, 1), (5, -1, 1), (5, 2, 0), (5, 2, 6), (0, 0, 1)]:
        with pytest.raises(ValueError, match="pass@k"):
            pass_at_k(n, c, k=k)
        with pytest.raises(ValueError, match="pass@k"):
            pass_hat_k(n, c, k=k)


def _brute_force(attempts: list[bool], k: int) -> tuple[float, float]:
    subsets = list(itertools.combinations(attempts, k))
    return (sum(any(s) for s in subsets) / len(subsets), sum(all(s) for s in subsets) / len(subsets))


def test_pass_at_k_and_pass_hat_k_are_the_chances_over_all_k_subsets_of_the_attempts():
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(1, 10)
        attempts = [rng.random() < rng.random() for _ in range(n)]
        c, k = sum(attempts), rng.randint(1, n)
        at_least_one, all_of_them = _brute_force(attempts, k)
        assert close(pass_at_k(n, c, k=k), at_least_one, abs_=1e-14)
        assert close(pass_hat_k(n, c, k=k), all_of_them, abs_=1e-14)


def test_pass_at_k_stays_exact_where_binomials_overflow_a_float():
    # C(2000, 1000) has 600 digits; the product form needs none of them
    assert close(pass_at_k(2000, 1, k=1000), 0.5, rel=1e-12)
    assert close(pass_hat_k(2000, 1999, k=1000), 0.5, rel=1e-12)
    exact = 1 - math.comb(1500, 700) / math.comb(2000, 700)
    assert close(pass_at_k(2000, 500, k=700), exact, rel=1e-12)


def test_mean_pass_at_k_averages_cases_for_each_k():
    outcomes = [[True, False, True], [False, False, False], [True, True, True, True]]
    at_k, hat_k = mean_pass_at_k(outcomes), mean_pass_hat_k(outcomes)
    assert list(at_k) == [1, 2, 3] and list(hat_k) == [1, 2, 3]  # the fewest attempts of a case
    assert at_k[1] == pytest.approx((2 / 3 + 0 + 1) / 3)
    assert at_k[3] == pytest.approx((1 + 0 + 1) / 3)
    assert hat_k[2] == pytest.approx((1 / 3 + 0 + 1) / 3)
    assert hat_k[3] == pytest.approx((0 + 0 + 1) / 3)
    assert mean_pass_at_k([]) == {} and mean_pass_hat_k([[True], []]) == {}


def test_mean_pass_at_k_matches_brute_force_on_random_runs():
    rng = random.Random(8)
    for _ in range(50):
        outcomes = [[rng.random() < 0.6 for _ in range(rng.randint(1, 7))] for _ in range(rng.randint(1, 12))]
        most = min(len(o) for o in outcomes)
        at_k, hat_k = mean_pass_at_k(outcomes), mean_pass_hat_k(outcomes)
        assert sorted(at_k) == list(range(1, most + 1))
        for k in range(1, most + 1):
            brute = [_brute_force(o, k) for o in outcomes]
            assert close(at_k[k], float(np.mean([b[0] for b in brute])), abs_=1e-14)
            assert close(hat_k[k], float(np.mean([b[1] for b in brute])), abs_=1e-14)


# --- McNemar -----------------------------------------------------------------------------------------


def test_mcnemar_p_value_edges():
    assert mcnemar_p_value(0, 0) == 1.0  # no discordant pairs
    assert mcnemar_p_value(4, 4) == 1.0
    assert mcnemar_p_value(0, 5) == 2 / 32 and mcnemar_p_value(5, 0) == 2 / 32
    assert mcnemar_p_value(1, 0) == 1.0
    assert mcnemar_p_value(0, 6) == 2 / 64 < 0.05
    assert 0.0 <= mcnemar_p_value(0, 2000) < 1e-300
    with pytest.raises(ValueError, match="at least 0"):
        mcnemar_p_value(-1, 3)


def test_mcnemar_p_value_matches_statsmodels_and_scipy():
    rng = random.Random(9)
    for _ in range(300):
        b, c = rng.randint(0, rng.choice([10, 60, 400])), rng.randint(0, rng.choice([10, 60, 400]))
        ours = mcnemar_p_value(b, c)
        assert close(ours, mcnemar([[5, b], [c, 7]], exact=True).pvalue, rel=1e-9, abs_=1e-300)
        if b + c:
            assert close(ours, scipy_stats.binomtest(min(b, c), b + c, 0.5).pvalue, rel=1e-9, abs_=1e-300)


# --- paired comparison -------------------------------------------------------------------------------


def test_paired_comparison_edges():
    assert paired_comparison([], []) is None
    assert paired_comparison([0.5], [1.0]) == PairedComparison(1, 0.5)
    same = paired_comparison([1, 0, 1, 0.5], [1, 0, 1, 0.5])
    assert same == PairedComparison(4, 0.0, se=0.0, low=0.0, high=0.0, p_value=1.0, correlation=pytest.approx(1.0))
    shifted = paired_comparison([0.25, 0.5, 0.75], [0.5, 0.75, 1.0])  # every difference exactly 0.25
    assert shifted is not None and shifted.se == 0.0 and shifted.p_value == 0.0
    flat = paired_comparison([1, 1, 1], [1, 0, 1])
    assert flat is not None and flat.correlation is None and flat.p_value is not None
    with pytest.raises(ValueError, match="one value per case"):
        paired_comparison([1, 0], [1])


def test_paired_comparison_known_value():
    comparison = paired_comparison([1, 1, 0, 1], [0, 1, 0, 0])
    assert comparison is not None
    assert comparison.diff == -0.5
    assert close(comparison.se, 0.28867513459481287)  # differences -1, 0, 0, -1: s = 1/√3, over √4
    assert close(comparison.correlation, 1 / 3)  # S_xy = 1/4, S_xx = S_yy = 3/4
    assert close(comparison.p_value, scipy_stats.ttest_rel([0, 1, 0, 0], [1, 1, 0, 1]).pvalue)


def test_paired_comparison_matches_scipy():
    rng = np.random.default_rng(10)
    for _ in range(300):
        n = int(rng.integers(2, 400))
        truth = rng.uniform(0, 1, size=n)
        if rng.random() < 0.5:  # pass fractions of 5 repeats, with correlated cases
            base = rng.binomial(5, truth) / 5
            head = rng.binomial(5, np.clip(truth + rng.normal(0, 0.1), 0, 1)) / 5
        else:
            base, head = rng.normal(truth, 0.3), rng.normal(truth + rng.normal(0, 0.2), 0.3)
        differences = head - base
        if np.all(differences == differences[0]) or np.ptp(base) == 0 or np.ptp(head) == 0:
            continue
        comparison = paired_comparison(base.tolist(), head.tolist())
        assert comparison is not None and comparison.n == n
        assert close(comparison.diff, float(np.mean(differences)), abs_=1e-12)
        covariance = np.cov(base, head, ddof=1)
        paired_se = math.sqrt((covariance[0, 0] + covariance[1, 1] - 2 * covariance[0, 1]) / n)  # Var A + Var B - 2 Cov
        assert close(comparison.se, paired_se, rel=1e-9)
        assert close(comparison.low, comparison.diff - 1.959963984540054 * paired_se, abs_=1e-12)
        assert close(comparison.p_value, float(scipy_stats.ttest_rel(head, base).pvalue), rel=1e-9, abs_=1e-300)
        assert close(comparison.correlation, float(scipy_stats.pearsonr(base, head).statistic), abs_=1e-12)


# --- power -------------------------------------------------------------------------------------------


def test_case_variance_edges():
    assert case_variance([]) is None
    assert case_variance([[1, 0, 1]]) is None  # one case
    assert case_variance([[1], [0], [1], [1]]) == CaseVariance(between=pytest.approx(0.25), within=0.0)
    assert case_variance([[1, 1], [1, 1]]) == CaseVariance(0.0, 0.0)
    # every case at the same rate: all variance within cases, none between
    assert case_variance([[1, 0], [0, 1], [1, 0], [0, 1]]) == CaseVariance(0.0, pytest.approx(0.5))


def test_case_variance_matches_the_one_way_anova_estimates():
    rng = np.random.default_rng(11)
    for _ in range(100):
        cases, repeats = int(rng.integers(3, 80)), int(rng.integers(2, 8))
        outcomes = rng.binomial(1, rng.beta(2, 1, size=(cases, 1)), size=(cases, repeats)).astype(float)
        ms_between = repeats * np.var(outcomes.mean(axis=1), ddof=1)
        ms_within = np.sum((outcomes - outcomes.mean(axis=1, keepdims=True)) ** 2) / (cases * (repeats - 1))
        variance = case_variance(outcomes.tolist())
        assert variance is not None
        assert close(variance.within, float(ms_within), abs_=1e-12)
        assert close(variance.between, max(0.0, float(ms_between - ms_within) / repeats), abs_=1e-12)


def test_power_worked_example_in_the_docstring_holds():
    variance = CaseVariance(between=0.08, within=0.08)
    effect = detectable_effect(variance, 200, repeats=5)
    assert round(effect, 4) == 0.0868
    assert "about 8.7 points" in (detectable_effect.__doc__ or "") and f"{effect:.4f}" in (
        detectable_effect.__doc__ or ""
    )
    assert cases_needed(variance, 0.05, repeats=5) == 603


def test_cases_needed_is_the_normal_approximation_formula_rounded_up():
    variance = CaseVariance(0.16)  # one attempt per case at p = 0.8
    z = normal_quantile(0.975) + normal_quantile(0.8)
    assert cases_needed(variance, 0.1) == math.ceil(z**2 * 2 * 0.16 / 0.01) == 252
    assert cases_needed(variance, -0.1) == 252  # a drop is as hard to see as a gain
    assert cases_needed(variance, 0.1, correlation=0.5) == math.ceil(z**2 * 0.16 / 0.01)
    assert cases_needed(variance, 0.1, alpha=0.01, power=0.9) > 252
    assert cases_needed(CaseVariance(0.0), 0.1) == 2  # never fewer than a comparison can use
    for bad in [{"repeats": 0}, {"correlation": 1.5}, {"alpha": 0.0}, {"power": 1.0}]:
        with pytest.raises(ValueError):
            cases_needed(variance, 0.1, **bad)
    with pytest.raises(ValueError, match="nonzero"):
        cases_needed(variance, 0.0)


def test_repeats_only_shrink_the_within_case_variance():
    variance = CaseVariance(between=0.05, within=0.15)
    assert cases_needed(variance, 0.05, repeats=10) < cases_needed(variance, 0.05, repeats=2)
    n = 500
    k = repeats_needed(variance, 0.05, cases=n)
    assert k is not None and k > 1
    assert detectable_effect(variance, n, repeats=k) <= 0.05 < detectable_effect(variance, n, repeats=k - 1)
    assert cases_needed(variance, 0.05, repeats=k) <= n < cases_needed(variance, 0.05, repeats=k - 1)
    assert repeats_needed(variance, 0.05, cases=100) is None  # the between-case part alone is too large
    assert repeats_needed(CaseVariance(0.05, 0.0), 0.05, cases=2000) == 1
    with pytest.raises(ValueError, match="cases"):
        repeats_needed(variance, 0.05, cases=0)


def test_detectable_effect_inverts_cases_needed():
    rng = random.Random(12)
    for _ in range(200):
        variance = CaseVariance(rng.uniform(0, 0.2), rng.uniform(0, 0.2))
        repeats, correlation = rng.randint(1, 10), rng.uniform(-0.5, 0.9)
        effect = rng.uniform(0.01, 0.3)
        n = cases_needed(variance, effect, repeats=repeats, correlation=correlation)
        assert detectable_effect(variance, n, repeats=repeats, correlation=correlation) <= effect * (1 + 1e-12)
        if n > 2:
            assert detectable_effect(variance, n - 1, repeats=repeats, correlation=correlation) > effect


def test_detectable_effect_matches_statsmodels_normal_power():
    rng = random.Random(13)
    for _ in range(100):
        variance = CaseVariance(rng.uniform(0.01, 0.25), rng.uniform(0, 0.25))
        repeats, n = rng.randint(1, 10), rng.randint(20, 3000)
        sd = math.sqrt(2 * (variance.between + variance.within / repeats))
        # one-sample normal test on the paired differences; statsmodels also counts the far tail's power
        standardized = NormalIndPower().solve_power(effect_size=None, nobs1=n, alpha=0.05, power=0.8, ratio=0)
        assert close(detectable_effect(variance, n, repeats=repeats), standardized * sd, rel=1e-4)


# --- judge agreement ---------------------------------------------------------------------------------


def _labels(table: tuple[int, int, int, int]) -> tuple[list[bool], list[bool]]:
    """(true_pass, false_pass, false_fail, true_fail) as label and verdict lists."""
    tp, fp, ff, tf = table
    labels = [True] * tp + [False] * fp + [True] * ff + [False] * tf
    verdicts = [True] * tp + [True] * fp + [False] * ff + [False] * tf
    return labels, verdicts


def test_judge_agreement_known_value():
    labels, verdicts = _labels((20, 3, 5, 12))
    result = judge_agreement(labels, verdicts)
    assert result.n == 40 and result.confusion == Confusion(true_pass=20, false_pass=3, false_fail=5, true_fail=12)
    assert result.agreement == 32 / 40
    assert close(result.kappa, 0.5844155844155845) and close(result.kappa_se, 0.13020570707305587)
    assert close(result.kappa_low, 0.3292170879708228) and close(result.kappa_high, 0.8396140808603463)
    assert result.false_pass_rate == 3 / 15 and result.false_fail_rate == 5 / 25


def test_judge_agreement_edges():
    assert judge_agreement([], []) == Agreement(0, Confusion())
    perfect = judge_agreement([True, False, True], [True, False, True])
    assert perfect.kappa == 1.0 and perfect.kappa_se == 0.0 and (perfect.kappa_low, perfect.kappa_high) == (1.0, 1.0)
    assert perfect.false_pass_rate == 0.0 and perfect.false_fail_rate == 0.0
    one_class = judge_agreement([True] * 5, [True] * 5)  # p_e = 1: kappa is 0/0
    assert one_class.agreement == 1.0 and one_class.kappa is None and one_class.kappa_low is None
    assert one_class.false_pass_rate is None and one_class.false_fail_rate == 0.0
    lenient = judge_agreement([False] * 4, [True, True, False, True])
    assert lenient.kappa == 0.0 and lenient.false_pass_rate == 0.75 and lenient.false_fail_rate is None
    opposite = judge_agreement([True, False, True, False], [False, True, False, True])
    assert opposite.kappa == -1.0 and opposite.kappa_low == -1.0
    assert judge_agreement([True], [True]).kappa is None
    with pytest.raises(ValueError, match="one verdict per label"):
        judge_agreement([True], [])


def test_kappa_interval_is_clipped_to_its_range():
    labels, verdicts = _labels((3, 0, 1, 2))
    result = judge_agreement(labels, verdicts)
    assert result.kappa is not None and result.kappa_se is not None
    assert result.kappa + 1.96 * result.kappa_se > 1 and result.kappa_high == 1.0


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # statsmodels, on tables with one rater constant
def test_judge_agreement_matches_sklearn_and_statsmodels():
    rng = random.Random(14)
    checked = 0
    for _ in range(300):
        n = rng.randint(2, 300)
        base, accuracy = rng.random(), rng.random()
        labels = [rng.random() < base for _ in range(n)]
        verdicts = [label if rng.random() < accuracy else rng.random() < 0.5 for label in labels]
        result = judge_agreement(labels, verdicts)
        if result.kappa is None:
            assert len(set(labels) | set(verdicts)) == 1
            continue
        checked += 1
        assert close(result.kappa, cohen_kappa_score(labels, verdicts), abs_=1e-12)
        reference = cohens_kappa(np.array([[result.confusion.true_pass, result.confusion.false_fail],
                                           [result.confusion.false_pass, result.confusion.true_fail]]))  # fmt: skip
        # statsmodels' variance can round to a tiny negative number where it is 0 (one rater constant)
        assert close(result.kappa_se, math.sqrt(max(0.0, float(reference.var_kappa))), abs_=1e-12)
        if reference.var_kappa >= 0:
            assert close(result.kappa_low, max(-1.0, float(reference.kappa_low)), abs_=1e-12)
            assert close(result.kappa_high, min(1.0, float(reference.kappa_upp)), abs_=1e-12)
        assert result.agreement == sum(a == b for a, b in zip(labels, verdicts)) / n
    assert checked > 250


# --- Krippendorff's alpha ----------------------------------------------------------------------------

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", nominal example: 4 observers,
# 12 units; alpha = 0.743.
_RATERS = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def test_krippendorff_alpha_known_value():
    units = [list(unit) for unit in zip(*_RATERS)]
    assert close(krippendorff_alpha(units), 0.743421052631579, rel=1e-12)


def test_krippendorff_alpha_edges():
    assert krippendorff_alpha([]) is None
    assert krippendorff_alpha([["a"], [None, "b"]]) is None  # nothing pairable
    assert krippendorff_alpha([["a", "a"], ["a", "a", None]]) is None  # one value throughout: D_e = 0
    assert krippendorff_alpha([["a", "a"], ["b", "b", "b"]]) == 1.0
    assert krippendorff_alpha([[True, True], [False, False], [True]]) == 1.0  # the unpaired value is left out
    assert krippendorff_alpha([["a", "b"], ["b", "a"]]) < 0


def _alpha_from_the_coincidence_matrix(units: list[list[object]]) -> float | None:
    """The definition, spelled out: every ordered pair of values within a unit, weighted 1 / (m_u - 1)."""
    coincidences: dict[tuple[object, object], float] = {}
    for unit in units:
        values = [v for v in unit if v is not None]
        for i, j in itertools.permutations(range(len(values)), 2):
            key = (values[i], values[j])
            coincidences[key] = coincidences.get(key, 0.0) + 1 / (len(values) - 1)
    marginals: dict[object, float] = {}
    for (c, _), count in coincidences.items():
        marginals[c] = marginals.get(c, 0.0) + count
    n = sum(marginals.values())
    observed = sum(count for (c, k), count in coincidences.items() if c != k) / n
    expected = (
        sum(marginals[c] * marginals[k] for c in marginals for k in marginals if c != k) / (n * (n - 1)) if n > 1 else 0
    )
    return None if expected == 0 else 1 - observed / expected


def test_krippendorff_alpha_matches_the_definition_and_the_krippendorff_package():
    rng = random.Random(15)
    for _ in range(200):
        raters, units, categories = rng.randint(2, 6), rng.randint(2, 40), rng.randint(2, 5)
        agreement, missing = rng.random(), rng.uniform(0, 0.4)
        truth = [rng.randrange(categories) for _ in range(units)]
        matrix = [
            [
                None if rng.random() < missing else (t if rng.random() < agreement else rng.randrange(categories))
                for t in truth
            ]
            for _ in range(raters)
        ]
        by_unit = [list(unit) for unit in zip(*matrix)]
        ours, definition = krippendorff_alpha(by_unit), _alpha_from_the_coincidence_matrix(by_unit)
        if definition is None:
            assert ours is None
            continue
        assert close(ours, definition, abs_=1e-12)
        reliability = np.array([[np.nan if v is None else v for v in row] for row in matrix], dtype=float)
        package = krippendorff.alpha(reliability_data=reliability, level_of_measurement="nominal")
        assert close(ours, float(package), abs_=1e-9)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=8))
def test_the_estimates_take_any_finite_values_even_past_what_their_squares_hold(values: list[float]) -> None:
    estimate = stats.mean_estimate(values)
    assert estimate is not None
    assert math.isfinite(estimate.value) or any(abs(v) > 1e307 for v in values)
    assert stats.clustered_mean_estimate([values, values[:1]]) is not None


def test_a_report_whose_scores_pass_what_a_square_holds_is_written_in_every_format(tmp_path: Path) -> None:
    from agent_eval._model import EvalReport, EvalResult
    from agent_eval._report import html, json, junit, markdown

    scores = (1.9e154, 1e308, 1e308)
    cases = [EvalResult(f"c{i}", "q", output="a", status="passed", score=score) for i, score in enumerate(scores)]
    report = EvalReport(cases, name="huge")
    for module, name in ((json, "r.json"), (junit, "r.xml"), (html, "r.html"), (markdown, "r.md")):
        module.write(report, tmp_path / name)
        assert (tmp_path / name).stat().st_size > 0
