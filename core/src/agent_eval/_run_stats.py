"""The statistics of one run, as its report carries them (``EvalReport.stats``, JSON key ``stats``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent_eval import stats

if TYPE_CHECKING:
    from agent_eval._model import EvalResult, Tally


def run_stats(cases: Sequence[EvalResult], tally: Tally) -> dict[str, Any]:
    """How sure the run's figures are: the pass rate's 95% interval, the mean score, and with repeats
    the attempt-level pass rate (standard errors clustered by case) with pass@k and pass^k.

    - ``pass_rate`` is the report's (passed cases over cases that ran), with ``ci_low``/``ci_high``
      its 95% Wilson interval over cases;
    - ``mean_score``: the mean over cases of each case's score, with ``score_se`` (sample standard
      deviation over √n);
    - with repeats: ``repeat`` (attempts per case, the most any case had), ``attempt_pass_rate`` over
      every attempt that ran, ``attempt_ci_low``/``attempt_ci_high`` (clustered by case, normal
      approximation, clipped to 0..1), and ``pass_at_k``/``pass_hat_k`` keyed ``"1"``.. ``"N"``: the
      mean over cases of each case's unbiased estimator (k up to the fewest attempts any case ran).

    Undefined values are ``None``. ``tally`` is :func:`agent_eval._model.tally_of` of ``cases``.
    """
    ran, passed = tally.ran, tally.passed
    interval = stats.wilson_interval(passed, ran)
    score = stats.mean_estimate(tally.scores)
    found: dict[str, Any] = {
        "pass_rate": passed / ran if ran else 0.0,
        "ci_low": interval.low if interval else None,
        "ci_high": interval.high if interval else None,
        "mean_score": score.value if score else None,
        "score_se": score.se if score else None,
    }
    if tally.repeat:
        found.update(_attempt_stats([case for case in cases if case.status != "skipped"], tally.repeat))
    return found


def _attempt_stats(cases: Sequence[EvalResult], repeated: int) -> dict[str, Any]:
    outcomes = [case.outcomes() for case in cases]
    outcomes = [attempts for attempts in outcomes if attempts]
    clustered = stats.clustered_mean_estimate(
        [[1.0 if passed else 0.0 for passed in attempts] for attempts in outcomes], bounds=(0.0, 1.0)
    )
    return {
        "repeat": repeated,
        "attempt_pass_rate": clustered.value if clustered else None,
        "attempt_ci_low": clustered.low if clustered else None,
        "attempt_ci_high": clustered.high if clustered else None,
        "pass_at_k": {str(k): value for k, value in stats.mean_pass_at_k(outcomes).items()} if outcomes else {},
        "pass_hat_k": {str(k): value for k, value in stats.mean_pass_hat_k(outcomes).items()} if outcomes else {},
    }
