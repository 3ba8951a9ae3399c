"""Statistics of eval runs: intervals, repeats, paired comparisons, power and judge agreement.

Pure Python (``math`` only), so reports can carry error bars with no extra dependency. Every function
returns plain floats or small frozen records, and a value that is undefined (a standard error from one
case, kappa when both raters used a single class) is ``None``, never NaN: reports write these values
to JSON, and JSON has no NaN. Arguments that make no sense (a confidence of 2, more successes than
trials) raise ``ValueError``.

The formulas follow Evan Miller, "Adding Error Bars to Evals: A Statistical Approach to Language
Model Evaluations" (2024, arXiv:2411.00640) unless a function's docstring names another source.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Hashable, Iterable, Sequence
from typing import Protocol

import attrs

__all__ = [
    "Agreement",
    "CaseVariance",
    "Confusion",
    "Estimate",
    "Interval",
    "PairedComparison",
    "case_variance",
    "cases_needed",
    "clustered_mean_estimate",
    "detectable_effect",
    "judge_agreement",
    "krippendorff_alpha",
    "mcnemar_p_value",
    "mean_estimate",
    "mean_pass_at_k",
    "mean_pass_hat_k",
    "normal_cdf",
    "normal_quantile",
    "paired_comparison",
    "pass_at_k",
    "pass_hat_k",
    "repeats_needed",
    "t_cdf",
    "wilson_interval",
]


# --- records -----------------------------------------------------------------------------------------


@attrs.frozen
class Interval:
    """A confidence interval from ``low`` to ``high``."""

    low: float
    high: float


@attrs.frozen
class Estimate:
    """A mean with its standard error and confidence interval (``None`` where they are undefined)."""

    value: float
    se: float | None = attrs.field(default=None, kw_only=True)
    low: float | None = attrs.field(default=None, kw_only=True)
    high: float | None = attrs.field(default=None, kw_only=True)


@attrs.frozen
class PairedComparison:
    """HEAD minus BASE over paired cases: the difference of means, its interval, a paired t-test, Pearson's r."""

    n: int
    diff: float
    se: float | None = attrs.field(default=None, kw_only=True)
    low: float | None = attrs.field(default=None, kw_only=True)
    high: float | None = attrs.field(default=None, kw_only=True)
    p_value: float | None = attrs.field(default=None, kw_only=True)
    correlation: float | None = attrs.field(default=None, kw_only=True)


@attrs.frozen
class CaseVariance:
    """Variance of per-case outcomes: of the cases' true means, and of one attempt within a case."""

    between: float
    within: float = 0.0


@attrs.frozen(kw_only=True)
class Confusion:
    """Judge verdicts against a person's labels, counted in the four cells of a 2x2 table."""

    true_pass: int = 0
    false_pass: int = 0
    false_fail: int = 0
    true_fail: int = 0


@attrs.frozen
class Agreement:
    """How well a judge agrees with a person's labels: agreement, Cohen's kappa, the error rates."""

    n: int
    confusion: Confusion
    agreement: float | None = attrs.field(default=None, kw_only=True)
    kappa: float | None = attrs.field(default=None, kw_only=True)
    kappa_se: float | None = attrs.field(default=None, kw_only=True)
    kappa_low: float | None = attrs.field(default=None, kw_only=True)
    kappa_high: float | None = attrs.field(default=None, kw_only=True)
    false_pass_rate: float | None = attrs.field(default=None, kw_only=True)
    false_fail_rate: float | None = attrs.field(default=None, kw_only=True)


# --- distributions -----------------------------------------------------------------------------------

_SQRT2 = math.sqrt(2.0)
_SQRT2PI = math.sqrt(2.0 * math.pi)

# Acklam's rational approximations of the normal quantile (relative error below 1.15e-9 before the
# refinement step): central region, then the lower tail.
_A = (
    -3.969683028665376e01,
    2.209460984245205e02,
    -2.759285104469687e02,
    1.383577518672690e02,
    -3.066479806614716e01,
    2.506628277459239e00,
)
_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01, -1.328068155288572e01)
_C = (
    -7.784894002430293e-03,
    -3.223964580411365e-01,
    -2.400758277161838e00,
    -2.549732539343734e00,
    4.374664141464968e00,
    2.938163982698783e00,
)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)
_P_LOW = 0.02425


def normal_cdf(x: float) -> float:
    """The standard normal distribution function Φ(x).

    Φ(x) = erfc(-x / √2) / 2, which keeps its relative precision in the lower tail, where 1 - Φ(-x)
    would cancel: about 1e-13 even at x = -35 (the rounding of x / √2 costs about x² · 1e-16).
    """
    return 0.5 * math.erfc(-x / _SQRT2)


def normal_quantile(p: float) -> float:
    """The standard normal quantile Φ⁻¹(p) for 0 < p < 1 (``normal_quantile(0.975)`` is 1.959964…).

    Peter J. Acklam's rational approximation ("An algorithm for computing the inverse normal cumulative
    distribution function", 2003; relative error < 1.15e-9), refined by one step of Halley's method on
    Φ(x) - p with Φ from ``math.erfc``: with e = Φ(x) - p and u = e / φ(x), x ← x - u / (1 + x·u/2).
    The result agrees with ``scipy.stats.norm.ppf`` to about 1e-15. The upper half is computed as
    -Φ⁻¹(1 - p), where 1 - p is exact, so both tails keep their precision.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"normal_quantile needs a probability strictly between 0 and 1, got {p!r}.")
    if p > 0.5:
        return -_lower_normal_quantile(1.0 - p)
    return _lower_normal_quantile(p)


def _lower_normal_quantile(p: float) -> float:
    if p < _P_LOW:
        q = math.sqrt(-2.0 * math.log(p))
        num = ((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]
        x = num / ((((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0)
    else:
        q = p - 0.5
        r = q * q
        num = (((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5]) * q
        x = num / (((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1.0)
    # u = (Φ(x) - p) / φ(x), written as (Φ(x)/p - 1) · p/φ(x) so that neither factor overflows
    # in the far tail, where φ(x) underflows.
    u = (normal_cdf(x) / p - 1.0) * math.exp(math.log(p) + 0.5 * x * x) * _SQRT2PI
    return x - u / (1.0 + 0.5 * x * u)


def _z(confidence: float) -> float:
    """The two-sided normal critical value for a confidence level: Φ⁻¹(1 - (1 - confidence) / 2)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1 (0.95 for 95%), got {confidence!r}.")
    return normal_quantile(0.5 + 0.5 * confidence)


def t_cdf(t: float, df: float) -> float:
    """The distribution function of Student's t with ``df`` degrees of freedom (df > 0, not only whole).

    With x = df / (df + t²), P(|T| > |t|) = I_x(df/2, 1/2), where I is the regularized incomplete beta
    function (Abramowitz & Stegun 26.7.1 and 26.5.27), so F(t) = I_x(df/2, 1/2) / 2 for t ≤ 0 and
    1 - I_x(df/2, 1/2) / 2 for t > 0. I is evaluated by its continued fraction with the modified Lentz
    method (Press et al., Numerical Recipes, 3rd ed., §6.4, ``betacf``), or, close to x = 1, as the
    complement of the power series of I_{1-x}(1/2, df/2) (A&S 26.5.4), with log B(a, b) from Stirling's
    series so that many degrees of freedom cost no digits. It agrees with ``scipy.stats.t.cdf`` to
    about 1e-12 (relative) for up to 10⁵ degrees of freedom.
    """
    tail = 0.5 * _t_two_sided(t, df)
    return tail if t <= 0 else 1.0 - tail


def _t_two_sided(t: float, df: float) -> float:
    """P(|T| > |t|) for Student's t with df degrees of freedom."""
    if not df > 0:
        raise ValueError(f"Student's t needs positive degrees of freedom, got {df!r}.")
    if math.isinf(t):
        return 0.0
    t2 = t * t
    # x and 1 - x each computed directly, so neither loses digits to cancellation.
    return _betainc(0.5 * df, 0.5, df / (df + t2), t2 / (df + t2))


def _betainc(a: float, b: float, x: float, y: float) -> float:
    """The regularized incomplete beta function I_x(a, b), given x and y = 1 - x."""
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    front = math.exp(a * _log(x, y) + b * _log(y, x) - _log_beta(a, b))
    # The continued fraction converges fast for x < (a + 1) / (a + b + 2); beyond it, use the symmetry
    # I_x(a, b) = 1 - I_{1-x}(b, a).
    if x >= (a + 1.0) / (a + b + 2.0):
        return 1.0 - front * _beta_fraction(b, a, y, x) / b
    if y < 0.5 and (a + b) * y < 10.0:
        # Close to 1 (large a, as for Student's t with many degrees of freedom) the fraction loses digits
        # to cancellation; the series of I_{1-x}(b, a) has positive terms only. Its complement is used
        # unless that would cancel too (a result below 0.01).
        rest = front * _beta_series(b, a, y) / b
        if rest < 0.99:
            return 1.0 - rest
    return front * _beta_fraction(a, b, x, y) / a


def _beta_series(a: float, b: float, x: float) -> float:
    """Σ_k t_k with t_0 = 1, t_k = t_{k-1} (a + b + k - 1) x / (a + k), so I_x(a, b) = front · Σ / a.

    Abramowitz & Stegun 26.5.4; every term is positive, so the sum loses no digits.
    """
    term = total = 1.0
    for k in range(1, 100_000):
        term *= (a + b + k - 1.0) * x / (a + k)
        total += term
        if term < 1e-17 * total:
            return total
    raise ArithmeticError(f"the incomplete beta series did not converge for a={a!r}, b={b!r}, x={x!r}.")


def _log(x: float, y: float) -> float:
    """log(x) given y = 1 - x as well: log1p(-y) near 1, where log(x) would lose digits."""
    return math.log1p(-y) if y < 0.5 else math.log(x)


def _log_beta(a: float, b: float) -> float:
    """log B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b), with no cancellation when a or b is large."""
    small, large = sorted((a, b))
    if large < 10.0:
        return math.lgamma(small) + math.lgamma(large) - math.lgamma(small + large)
    # lgamma(large + small) - lgamma(large) by Stirling's series, lgamma(x) = (x - 1/2) log x - x +
    # log √(2π) + δ(x), with the large terms combined before they are added.
    rise = (large - 0.5) * math.log1p(small / large) + small * math.log(large + small) - small
    return math.lgamma(small) - rise - _stirling_correction(large + small) + _stirling_correction(large)


def _stirling_correction(x: float) -> float:
    """δ(x) = lgamma(x) - ((x - 1/2) log x - x + log √(2π)) for x >= 10 (A&S 6.1.41, error < 1e-14)."""
    r = 1.0 / (x * x)
    return (1.0 / 12 - r * (1.0 / 360 - r * (1.0 / 1260 - r * (1.0 / 1680 - r / 1188)))) / x


_TINY = 1e-300


def _beta_fraction(a: float, b: float, x: float, y: float) -> float:
    """The continued fraction of the incomplete beta function, by the modified Lentz method."""
    c = 1.0
    # 1 - (a + b) x / (a + 1), from whichever of x and y = 1 - x is small: it carries the full precision.
    d = 1.0 - (a + b) * x / (a + 1.0) if x < y else (1.0 - b + (a + b) * y) / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        for coefficient in (
            m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)),
        ):
            d = 1.0 + coefficient * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + coefficient / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
        if abs(d * c - 1.0) < 4e-16:  # two units in the last place
            return h
    raise ArithmeticError(f"the incomplete beta function did not converge for a={a!r}, b={b!r}, x={x!r}.")


# --- proportions and means ---------------------------------------------------------------------------


def wilson_interval(successes: int, n: int, *, confidence: float = 0.95) -> Interval | None:
    """The Wilson score interval for a proportion of ``successes`` out of ``n``; ``None`` when n is 0.

    With p̂ = successes / n and z = Φ⁻¹(1 - (1 - confidence) / 2):

        centre = (p̂ + z² / 2n) / (1 + z² / n)
        half   = z · √(p̂(1 - p̂) / n + z² / 4n²) / (1 + z² / n)

    and the interval is centre ± half (E. B. Wilson, "Probable inference, the law of succession, and
    statistical inference", JASA 22, 1927). Unlike the normal-approximation interval it stays inside
    [0, 1] and is not empty at 0 or n successes; the bound at 0 (or 1) is then exactly 0 (or 1).
    """
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"wilson_interval needs 0 <= successes <= n, got successes={successes!r}, n={n!r}.")
    z = _z(confidence)
    if n == 0:
        return None
    p = successes / n
    z2n = z * z / n
    centre = (p + z2n / 2.0) / (1.0 + z2n)
    half = z * math.sqrt(p * (1.0 - p) / n + z2n / (4.0 * n)) / (1.0 + z2n)
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return Interval(low, high)


def _clip(value: float, bounds: tuple[float, float] | None) -> float:
    return value if bounds is None else min(max(value, bounds[0]), bounds[1])


def _estimate(value: float, se: float | None, z: float, bounds: tuple[float, float] | None) -> Estimate:
    if se is None:
        return Estimate(value)
    return Estimate(value, se=se, low=_clip(value - z * se, bounds), high=_clip(value + z * se, bounds))


def _sum_of_squares(values: Sequence[float], centre: float) -> float:
    deviations = [value - centre for value in values]
    # each squared by operator.mul in C, three times quicker than in a generator (`** 2` raises past the largest float)
    return _fsum(list(map(operator.mul, deviations, deviations)))


def _fsum(values: Iterable[float]) -> float:
    """``math.fsum``, or where its partial sums pass the largest float (it raises then), the plain sum:
    infinite, as the exact sum would be as a float."""
    if not isinstance(values, list | tuple):  # read again when fsum gives up: an iterator only once
        values = list(values)
    try:
        return math.fsum(values)
    except OverflowError:
        return sum(values, 0.0)


def mean_estimate(
    values: Sequence[float], *, confidence: float = 0.95, bounds: tuple[float, float] | None = None
) -> Estimate | None:
    """The mean of ``values`` with its standard error and normal-approximation interval.

    SE = s / √n with s the sample standard deviation, s² = Σ(xᵢ - x̄)² / (n - 1) (Miller's central limit
    theorem standard error); the interval is x̄ ± z·SE with z = Φ⁻¹(1 - (1 - confidence)/2),
    clipped to ``bounds`` when given (``(0.0, 1.0)`` for proportions). ``None`` for no values; with one
    value the standard error and interval are ``None``.
    """
    z = _z(confidence)
    n = len(values)
    if n == 0:
        return None
    mean = _fsum(values) / n
    se = math.sqrt(_sum_of_squares(values, mean) / (n - 1) / n) if n > 1 else None
    return _estimate(mean, se, z, bounds)


def clustered_mean_estimate(
    clusters: Sequence[Sequence[float]], *, confidence: float = 0.95, bounds: tuple[float, float] | None = None
) -> Estimate | None:
    """The mean of every value of every cluster, with a standard error clustered by cluster.

    For attempts grouped by case: ``clusters[c]`` holds the outcomes of case c's attempts. With N values
    in all and x̄ their mean, the cluster-robust ("sandwich") variance of x̄ is

        SE² = Σ_c (Σ_{i ∈ c} (x_ci - x̄))² / N²

    which is Miller's clustered standard error (the variance of independent values plus every
    within-cluster cross term (x_ci - x̄)(x_cj - x̄), i ≠ j, all over N²) written as one sum, with no
    small-sample correction: its independent part is Σ(x - x̄)² / N², not over N - 1. It is
    statsmodels' ``OLS(x, 1)`` fitted with ``cov_type="cluster"`` and ``use_correction=False``; the
    default correction there multiplies SE² by G / (G - 1) for G clusters. The interval is x̄ ± z·SE
    (normal approximation), clipped to ``bounds`` when given (``(0.0, 1.0)`` for pass rates). ``None``
    when there are no values; the standard error and interval are ``None`` with fewer than two
    non-empty clusters.
    """
    z = _z(confidence)
    total = sum(len(cluster) for cluster in clusters)
    if total == 0:
        return None
    mean = _fsum(_fsum(cluster) for cluster in clusters) / total
    residual_sums = [_fsum(v - mean for v in cluster) for cluster in clusters if cluster]
    se = math.sqrt(_fsum(s * s for s in residual_sums)) / total if len(residual_sums) > 1 else None
    return _estimate(mean, se, z, bounds)


# --- pass@k and pass^k -------------------------------------------------------------------------------


def _check_attempts(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n!r}, c={c!r}, k={k!r}.")


def pass_at_k(n: int, c: int, *, k: int) -> float:
    """The unbiased estimate of pass@k for one case: the chance that some of k attempts passes.

    From n attempts of which c passed, pass@k = 1 - C(n - c, k) / C(n, k) (Chen et al., "Evaluating
    Large Language Models Trained on Code", 2021, eq. 1): the probability that a k-subset of the n
    attempts, drawn uniformly, holds a pass. Computed as the product 1 - Π_{i=n-c+1}^{n} (1 - k / i),
    which never forms the large binomial coefficients; 1 when n - c < k.
    """
    _check_attempts(n, c, k)
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def pass_hat_k(n: int, c: int, *, k: int) -> float:
    """The unbiased estimate of pass^k for one case: the chance that all of k attempts pass.

    From n attempts of which c passed, pass^k = C(c, k) / C(n, k) (Yao et al., "τ-bench", 2024): the
    probability that a k-subset of the n attempts, drawn uniformly, holds only passes. Computed as the
    product Π_{i=0}^{k-1} (c - i) / (n - i); 0 when c < k.
    """
    _check_attempts(n, c, k)
    if c < k:
        return 0.0
    return math.prod((c - i) / (n - i) for i in range(k))


class _PassEstimator(Protocol):
    def __call__(self, n: int, c: int, *, k: int) -> float: ...


def _mean_by_k(outcomes: Sequence[Sequence[bool]], estimator: _PassEstimator) -> dict[int, float]:
    if not outcomes:
        return {}
    counts = [(len(attempts), sum(1 for a in attempts if a)) for attempts in outcomes]
    most = min(n for n, _ in counts)
    return {k: _fsum(estimator(n, c, k=k) for n, c in counts) / len(counts) for k in range(1, most + 1)}


def mean_pass_at_k(outcomes: Sequence[Sequence[bool]]) -> dict[int, float]:
    """pass@k for k = 1 … N, each the mean over cases of the case's ``pass_at_k``.

    ``outcomes[i]`` holds case i's attempts (True for a pass). N is the fewest attempts of any case, so
    the dict is empty when there are no cases (or a case has no attempts).
    """
    return _mean_by_k(outcomes, pass_at_k)


def mean_pass_hat_k(outcomes: Sequence[Sequence[bool]]) -> dict[int, float]:
    """pass^k for k = 1 … N, each the mean over cases of the case's ``pass_hat_k``.

    ``outcomes[i]`` holds case i's attempts (True for a pass). N is the fewest attempts of any case, so
    the dict is empty when there are no cases (or a case has no attempts).
    """
    return _mean_by_k(outcomes, pass_hat_k)


# --- paired comparison of two runs -------------------------------------------------------------------


def mcnemar_p_value(b: int, c: int) -> float:
    """The two-sided p-value of McNemar's exact test on the discordant pairs of two paired runs.

    ``b`` counts the cases that passed in BASE and failed in HEAD, ``c`` the reverse (the cases whose
    outcome did not change carry no information about a difference). Under no difference each
    discordant pair goes either way with probability 1/2, so with X ~ Binomial(b + c, 1/2):

        p = min(1, 2 · P(X ≤ min(b, c)))

    (Q. McNemar, Psychometrika 12, 1947; the exact binomial form as in statsmodels'
    ``mcnemar(exact=True)``). The binomial sum is computed in exact integer arithmetic. With no
    discordant pairs p is 1.
    """
    if b < 0 or c < 0:
        raise ValueError(f"mcnemar_p_value needs counts of at least 0, got b={b!r}, c={c!r}.")
    n = b + c
    if n == 0:
        return 1.0
    term = total = 1
    for i in range(min(b, c)):
        term = term * (n - i) // (i + 1)  # C(n, i + 1), exactly
        total += term
    return min(1.0, total / (1 << (n - 1)))


def _all_equal(values: Sequence[float]) -> bool:
    return min(values) == max(values)


def _pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    if len(x) < 2 or _all_equal(x) or _all_equal(y):
        return None
    mx, my = _fsum(x) / len(x), _fsum(y) / len(y)
    sxy = _fsum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    r = sxy / math.sqrt(_sum_of_squares(x, mx) * _sum_of_squares(y, my))
    return min(1.0, max(-1.0, r))


def paired_comparison(
    base: Sequence[float], head: Sequence[float], *, confidence: float = 0.95
) -> PairedComparison | None:
    """Compare two runs on the same cases: ``base[i]`` and ``head[i]`` are case i's values in each.

    With dᵢ = headᵢ - baseᵢ over n cases (per-case pass fractions, or 0/1 outcomes):

    - ``diff`` = d̄, the difference of the two means (HEAD minus BASE);
    - ``se`` = s_d / √n with s_d² = Σ(dᵢ - d̄)² / (n - 1), which equals √((s_A² + s_B² - 2 s_AB) / n):
      Miller's paired-differences standard error, smaller than the unpaired one when the runs are
      positively correlated;
    - ``low``, ``high`` = d̄ ± z·SE, the normal-approximation interval;
    - ``p_value``: the two-sided paired t-test, t = d̄ / SE with n - 1 degrees of freedom and
      p = P(|T| > |t|) = I_{ν/(ν+t²)}(ν/2, 1/2) (see ``t_cdf``), as ``scipy.stats.ttest_rel``;
    - ``correlation``: Pearson's r of (baseᵢ, headᵢ), ``None`` when either run has no variance.

    When every difference is the same the standard error is 0 and p is the t-test's limit: 1 when the
    difference is 0, else 0. ``None`` for no cases; with one case only ``diff`` is defined.
    """
    if len(base) != len(head):
        raise ValueError(f"paired_comparison needs one value per case in each run, got {len(base)} and {len(head)}.")
    z = _z(confidence)
    n = len(base)
    if n == 0:
        return None
    diffs = [h - b for b, h in zip(base, head, strict=True)]
    diff = _fsum(diffs) / n
    if n == 1:
        return PairedComparison(n, diff)
    if _all_equal(diffs):
        se, p_value = 0.0, (1.0 if diff == 0 else 0.0)
    else:
        se = math.sqrt(_sum_of_squares(diffs, diff) / (n - 1) / n)
        p_value = _t_two_sided(diff / se, n - 1)
    return PairedComparison(
        n, diff, se=se, low=diff - z * se, high=diff + z * se, p_value=p_value, correlation=_pearson(base, head)
    )


# --- power -------------------------------------------------------------------------------------------


def case_variance(outcomes: Sequence[Sequence[float]]) -> CaseVariance | None:
    """Estimate the variance components of a recorded run from each case's attempt outcomes.

    ``outcomes[i]`` holds case i's attempts (0/1, or scores). With mᵢ the mean of case i's Kᵢ attempts,
    the one-way random-effects (ANOVA) estimates are

        within  = Σᵢ Σⱼ (x_ij - mᵢ)² / Σᵢ (Kᵢ - 1)               (pooled within-case variance)
        between = max(0, s_m² - within · mean(1 / Kᵢ))          (variance of the cases' true means)

    with s_m² the sample variance (n - 1) of the case means mᵢ: Var(mᵢ) = between + within / K is
    Miller's decomposition for resampled questions (for 0/1 outcomes, within is the mean of
    pᵢ(1 - pᵢ)). With one attempt per case the two cannot be told apart: all the variance is counted
    as ``between`` (for 0/1 outcomes that is n/(n - 1) · p̂(1 - p̂)), which credits repeats with no
    gain. ``None`` with fewer than two cases that have attempts.
    """
    cases = [attempts for attempts in outcomes if attempts]
    if len(cases) < 2:
        return None
    means = [_fsum(attempts) / len(attempts) for attempts in cases]
    grand = _fsum(means) / len(means)
    spread = _sum_of_squares(means, grand) / (len(means) - 1)
    degrees = sum(len(attempts) - 1 for attempts in cases)
    if degrees == 0:
        return CaseVariance(spread)
    within = _fsum(_sum_of_squares(a, m) for a, m in zip(cases, means, strict=True)) / degrees
    between = spread - within * _fsum(1.0 / len(attempts) for attempts in cases) / len(cases)
    return CaseVariance(max(0.0, between), within)


def _power_z(alpha: float, power: float) -> float:
    if not 0.0 < alpha < 1.0 or not 0.0 < power < 1.0:
        raise ValueError(f"alpha and power must be strictly between 0 and 1, got alpha={alpha!r}, power={power!r}.")
    return normal_quantile(1.0 - alpha / 2.0) + normal_quantile(power)


def _diff_variance(variance: CaseVariance, repeats: int, correlation: float) -> float:
    if variance.between < 0 or variance.within < 0:
        raise ValueError(f"variances cannot be negative, got {variance!r}.")
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats!r}.")
    if not -1.0 <= correlation <= 1.0:
        raise ValueError(f"correlation must be between -1 and 1, got {correlation!r}.")
    return 2.0 * (variance.between * (1.0 - correlation) + variance.within / repeats)


def _effect(effect: float) -> float:
    if effect == 0 or not math.isfinite(effect):
        raise ValueError(f"the effect to detect must be a nonzero difference in pass rate, got {effect!r}.")
    return abs(effect)


def _ceil(x: float) -> int:
    # 603.0000000000001 is 603 computed with rounding error, not a reason to ask for 604.
    return math.ceil(x * (1.0 - 1e-12))


def cases_needed(
    variance: CaseVariance,
    effect: float,
    *,
    repeats: int = 1,
    correlation: float = 0.0,
    alpha: float = 0.05,
    power: float = 0.8,
) -> int:
    """How many cases a paired comparison of two runs needs to detect a change of ``effect``.

    Miller's power analysis (normal approximation): each run repeats every case K times, the runs'
    per-case true pass rates have the same variance ``between`` and correlation R, and one attempt's
    variance within a case is ``within``. The variance of one case's difference is then

        Var(d) = ω² + 2σ²/K = 2 · (between · (1 - R) + within / K)

    (Miller's ω² = Var(x_A - x_B) = 2·between·(1 - R), σ² = within), and a two-sided test at level α
    has the given power against a true difference D when

        n = (z_{1-α/2} + z_{power})² · Var(d) / D²

    rounded up, and at least 2. R is the correlation of the true per-case pass rates; with one
    attempt per case it is Pearson's r of the two runs' outcomes. With repeats, Pearson's r of pass
    fractions is smaller than the true-rate correlation, so using it errs towards more cases.
    """
    var_d = _diff_variance(variance, repeats, correlation)
    z = _power_z(alpha, power)
    return max(2, _ceil((z / _effect(effect)) ** 2 * var_d))


def repeats_needed(
    variance: CaseVariance,
    effect: float,
    *,
    cases: int,
    correlation: float = 0.0,
    alpha: float = 0.05,
    power: float = 0.8,
) -> int | None:
    """How many repeats per case let ``cases`` cases detect a change of ``effect``; ``None`` if none can.

    Solving ``cases_needed``'s equation n = (z_{1-α/2} + z_{power})² · 2 · (between · (1 - R) +
    within / K) / D² for K:

        K = within / (n · D² / (2 (z_{1-α/2} + z_{power})²) - between · (1 - R))

    rounded up, and at least 1. Repeats only shrink the within-case part; when the between-case part
    alone is too large for n cases (the denominator is not positive) no number of repeats is enough,
    and the answer is ``None``: more cases are needed.
    """
    if cases < 1:
        raise ValueError(f"cases must be at least 1, got {cases!r}.")
    _diff_variance(variance, 1, correlation)
    z = _power_z(alpha, power)
    room = cases * (_effect(effect) / z) ** 2 / 2.0 - variance.between * (1.0 - correlation)
    if room <= 0:
        return None
    return max(1, _ceil(variance.within / room))


def detectable_effect(
    variance: CaseVariance,
    cases: int,
    *,
    repeats: int = 1,
    correlation: float = 0.0,
    alpha: float = 0.05,
    power: float = 0.8,
) -> float:
    """The smallest change in pass rate that ``cases`` cases detect (the minimum detectable effect).

    ``cases_needed``'s equation solved for D (Miller's minimum detectable effect):

        D = (z_{1-α/2} + z_{power}) · √(2 · (between · (1 - R) + within / K) / n)

    For example, an agent that passes 80% of attempts, with half of the variance p(1 - p) = 0.16 of an
    attempt lying between cases (``CaseVariance(between=0.08, within=0.08)``): with 200 cases and 5
    repeats you can detect a drop of about 8.7 points at alpha 0.05, power 0.8 (``detectable_effect``
    gives 0.0868); ``cases_needed`` for a 5-point drop with 5 repeats is 603.
    """
    if cases < 1:
        raise ValueError(f"cases must be at least 1, got {cases!r}.")
    var_d = _diff_variance(variance, repeats, correlation)
    return _power_z(alpha, power) * math.sqrt(var_d / cases)


# --- judge agreement ---------------------------------------------------------------------------------


def _kappa(confusion: Confusion) -> tuple[float, float] | None:
    """Cohen's kappa and its large-sample standard error from a 2x2 table; None when p_e is 1."""
    table = ((confusion.true_pass, confusion.false_fail), (confusion.false_pass, confusion.true_fail))
    n = sum(map(sum, table))
    rows = [sum(row) for row in table]  # the person's passes and fails
    cols = [table[0][j] + table[1][j] for j in range(2)]  # the judge's
    expected = rows[0] * cols[0] + rows[1] * cols[1]  # n² · p_e, exactly
    if n * n == expected:
        return None
    kappa = (n * (table[0][0] + table[1][1]) - expected) / (n * n - expected)
    p = [[cell / n for cell in row] for row in table]
    pr, pc, pe = [r / n for r in rows], [c / n for c in cols], expected / (n * n)
    diagonal = _fsum(p[i][i] * (1.0 - (pr[i] + pc[i]) * (1.0 - kappa)) ** 2 for i in range(2))
    off = (1.0 - kappa) ** 2 * _fsum(p[i][1 - i] * (pc[i] + pr[1 - i]) ** 2 for i in range(2))
    variance = (diagonal + off - (kappa - pe * (1.0 - kappa)) ** 2) / (n * (1.0 - pe) ** 2)
    return kappa, math.sqrt(max(0.0, variance))


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def judge_agreement(labels: Sequence[bool], verdicts: Sequence[bool], *, confidence: float = 0.95) -> Agreement:
    """How a judge's ``verdicts`` agree with a person's ``labels`` (True for pass), case by case.

    - ``agreement``: the fraction of cases where they are equal, p_o.
    - ``kappa``: Cohen's kappa, κ = (p_o - p_e) / (1 - p_e), with p_e = Σ_c p_c,person · p_c,judge the
      agreement expected by chance from the two raters' pass and fail rates (J. Cohen, 1960). When both
      used one same class only, p_e = 1 and κ = 0/0 is undefined: ``None``, even though they agree on
      every case (``agreement`` is then 1).
    - ``kappa_se``: the large-sample standard error of Fleiss, Cohen & Everitt (Psychological Bulletin
      72, 1969), not the one under κ = 0: with p_ij the table's proportions (rows: person, columns:
      judge) and p_i., p_.j its margins,

          Var(κ) = [Σ_i p_ii (1 - (p_i. + p_.i)(1 - κ))² + (1 - κ)² Σ_{i≠j} p_ij (p_.i + p_j.)²
                    - (κ - p_e (1 - κ))²] / (n (1 - p_e)²)

      which is statsmodels' ``cohens_kappa(...).std_kappa`` (its ``var_kappa``).
    - ``kappa_low``, ``kappa_high``: κ ± z·SE, clipped to [-1, 1].
    - ``false_pass_rate``: the judge passed what the person failed, over the person's fails;
      ``false_fail_rate``: the judge failed what the person passed, over the person's passes; each
      ``None`` when the person gave no such label.

    With no cases only ``n`` (0) and the empty ``confusion`` are set.
    """
    if len(labels) != len(verdicts):
        raise ValueError(
            f"judge_agreement needs one verdict per label, got {len(labels)} labels and {len(verdicts)} verdicts."
        )
    z = _z(confidence)
    pairs = [(bool(label), bool(verdict)) for label, verdict in zip(labels, verdicts, strict=True)]
    confusion = Confusion(
        true_pass=pairs.count((True, True)),
        false_pass=pairs.count((False, True)),
        false_fail=pairs.count((True, False)),
        true_fail=pairs.count((False, False)),
    )
    n = len(pairs)
    if n == 0:
        return Agreement(0, confusion)
    kappa = _kappa(confusion)
    return Agreement(
        n,
        confusion,
        agreement=(confusion.true_pass + confusion.true_fail) / n,
        kappa=None if kappa is None else kappa[0],
        kappa_se=None if kappa is None else kappa[1],
        kappa_low=None if kappa is None else max(-1.0, kappa[0] - z * kappa[1]),
        kappa_high=None if kappa is None else min(1.0, kappa[0] + z * kappa[1]),
        false_pass_rate=_rate(confusion.false_pass, confusion.false_pass + confusion.true_fail),
        false_fail_rate=_rate(confusion.false_fail, confusion.false_fail + confusion.true_pass),
    )


def krippendorff_alpha(units: Iterable[Iterable[Hashable | None]]) -> float | None:
    """Krippendorff's alpha for nominal values from any number of raters, some of them missing.

    ``units`` holds, for each rated item, the values its raters gave (``None`` where a rater gave
    none); only items with at least two values are pairable. With n_uc the number of values c in item
    u, m_u its number of values, n_c = Σ_u n_uc and n = Σ_c n_c over pairable items, the coincidences
    o_ck = Σ_u n_uc (n_uk - [c = k]) / (m_u - 1) give

        alpha = 1 - D_o / D_e = 1 - (n - 1) · Σ_{c≠k} o_ck / Σ_{c≠k} n_c n_k

    (K. Krippendorff, "Computing Krippendorff's Alpha-Reliability", 2011, nominal metric). 1 is perfect
    agreement, 0 agreement at chance. ``None`` when it is undefined: fewer than two pairable values, or
    a single value used throughout (D_e = 0).
    """
    disagreement = 0.0  # Σ_{c≠k} o_ck
    totals: dict[Hashable, int] = {}
    for unit in units:
        counts: dict[Hashable, int] = {}
        for value in unit:
            if value is not None:
                counts[value] = counts.get(value, 0) + 1
        m = sum(counts.values())
        if m < 2:
            continue
        # Σ_{c≠k} n_uc n_uk = m² - Σ_c n_uc²
        disagreement += (m * m - sum(c * c for c in counts.values())) / (m - 1)
        for value, count in counts.items():
            totals[value] = totals.get(value, 0) + count
    n = sum(totals.values())
    expected = n * n - sum(c * c for c in totals.values())  # Σ_{c≠k} n_c n_k
    if expected == 0:
        return None
    return 1.0 - (n - 1) * disagreement / expected
