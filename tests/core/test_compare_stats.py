"""compare's paired figures: the difference in pass rate, its interval, the paired test, r, and the --alpha gate."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from helpers import run_cli
from scipy import stats as scipy_stats

from agent_eval import EvalReport, EvalResult
from agent_eval._history import compare
from agent_eval._model import Attempt

Z95 = 1.959963984540054


def case(name: str, status: Any) -> EvalResult:
    return EvalResult(name, "in", output="out", status=status)


def repeated(name: str, *statuses: Any) -> EvalResult:
    """A case that ran once per status; it passes when every attempt did."""
    attempts = [Attempt(i, status) for i, status in enumerate(statuses)]
    ran = [s for s in statuses if s != "skipped"]
    status = "skipped" if not ran else "passed" if all(s == "passed" for s in ran) else "failed"
    return EvalResult(name, "in", status=status, attempts=attempts)


def run_of(outcomes: list[bool], prefix: str = "c") -> EvalReport:
    return EvalReport([case(f"{prefix}{i}", "passed" if ok else "failed") for i, ok in enumerate(outcomes)], name="s")


# --- the figures, by hand ----------------------------------------------------------------------------


def test_the_paired_figures_of_single_runs_match_a_hand_computation() -> None:
    # 10 cases: 5 pass in both, 3 pass only in BASE, 1 only in HEAD, 1 fails in both
    base = [1, 1, 1, 1, 1, 1, 1, 1, 0, 0]
    head = [1, 1, 1, 1, 1, 0, 0, 0, 1, 0]
    paired = compare(run_of([b == 1 for b in base]), run_of([h == 1 for h in head])).paired
    d = [h - b for b, h in zip(base, head, strict=True)]  # three -1, one +1, six 0
    mean = sum(d) / 10  # -0.2
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / 9)  # √((3·0.64 + 1.44 + 6·0.04) / 9) = √(3.6 / 9)
    se = sd / math.sqrt(10)
    assert (paired.cases, paired.left_out, paired.test) == (10, 0, "mcnemar")
    assert (paired.base_rate, paired.head_rate) == (0.8, 0.6)
    assert paired.diff == pytest.approx(-0.2)
    assert se == pytest.approx(0.2)
    assert paired.ci_low == pytest.approx(-0.2 - Z95 * 0.2)
    assert paired.ci_high == pytest.approx(-0.2 + Z95 * 0.2)
    # McNemar: b = 3, c = 1, p = 2 · P(X ≤ 1) for X ~ Binomial(4, 1/2) = 2 · 5/16
    assert (paired.base_only, paired.head_only) == (3, 1)
    assert paired.p_value == pytest.approx(0.625)
    # Pearson's r of the 0/1 outcomes: (n·Σxy - Σx·Σy) / √((n·Σx² - (Σx)²)(n·Σy² - (Σy)²))
    r = (10 * 5 - 8 * 6) / math.sqrt((10 * 8 - 64) * (10 * 6 - 36))
    assert paired.correlation == pytest.approx(r)


def test_mcnemar_on_a_known_table() -> None:
    # 8 cases passed only in BASE, 2 only in HEAD: p = 2 · (1 + 10 + 45) / 2^10 = 0.109375
    base = [True] * 8 + [False] * 2 + [True] * 20
    head = [False] * 8 + [True] * 2 + [True] * 20
    paired = compare(run_of(base), run_of(head)).paired
    assert (paired.base_only, paired.head_only) == (8, 2)
    assert paired.p_value == pytest.approx(0.109375)
    assert paired.p_value == pytest.approx(scipy_stats.binomtest(2, 10, 0.5).pvalue)


def test_identical_runs_have_p_1_and_no_difference() -> None:
    outcomes = [True, False, True, True]
    paired = compare(run_of(outcomes), run_of(outcomes)).paired
    assert (paired.diff, paired.ci_low, paired.ci_high, paired.p_value) == (0.0, 0.0, 0.0, 1.0)
    assert paired.correlation == pytest.approx(1.0)


def test_repeated_runs_use_pass_fractions_and_the_paired_t_test() -> None:
    base = EvalReport(
        [repeated("a", "passed", "passed"), repeated("b", "passed", "failed"), repeated("c", "failed", "failed")]
    )
    head = EvalReport(
        [repeated("a", "passed", "failed"), repeated("b", "failed", "failed"), repeated("c", "failed", "failed")]
    )
    paired = compare(base, head).paired
    assert (paired.test, paired.base_repeat, paired.head_repeat) == ("paired-t", 2, 2)
    assert (paired.base_rate, paired.head_rate) == (0.5, pytest.approx(1 / 6))
    # d = (-0.5, -0.5, 0): mean -1/3, s = √(1/12), SE = 1/6, t = -2 with 2 degrees of freedom,
    # whose two-sided p is 1 - |t| / √(t² + 2) = 1 - 2/√6
    assert paired.diff == pytest.approx(-1 / 3)
    assert (paired.ci_low, paired.ci_high) == (pytest.approx(-1 / 3 - Z95 / 6), pytest.approx(-1 / 3 + Z95 / 6))
    assert paired.p_value == pytest.approx(1 - 2 / math.sqrt(6))
    reference = scipy_stats.ttest_rel([1, 0.5, 0], [0.5, 0, 0])
    assert paired.p_value == pytest.approx(reference.pvalue)
    assert paired.correlation == pytest.approx(scipy_stats.pearsonr([1, 0.5, 0], [0.5, 0, 0]).statistic)


def test_a_repeated_run_against_a_single_one_counts_the_single_cases_as_1_or_0() -> None:
    base = run_of([True, True, False])
    head = EvalReport(
        [
            repeated("c0", "passed", "failed", "failed", "passed"),
            repeated("c1", *["passed"] * 4),
            repeated("c2", *["failed"] * 4),
        ]
    )
    paired = compare(base, head).paired
    assert (paired.test, paired.base_repeat, paired.head_repeat) == ("paired-t", 1, 4)
    assert paired.diff == pytest.approx((0.5 + 1 + 0) / 3 - 2 / 3)
    assert paired.p_value == pytest.approx(scipy_stats.ttest_rel([0.5, 1, 0], [1, 1, 0]).pvalue)


def test_a_case_skipped_in_either_run_is_left_out_of_the_pairing() -> None:
    base = EvalReport([case("a", "passed"), case("b", "skipped"), case("c", "passed"), case("d", "failed")])
    head = EvalReport([case("a", "passed"), case("b", "passed"), case("c", "skipped"), case("d", "passed")])
    paired = compare(base, head).paired
    assert (paired.cases, paired.left_out) == (2, 2)
    assert (paired.base_rate, paired.head_rate, paired.diff) == (0.5, 1.0, 0.5)
    # a repeated case whose every attempt was skipped is skipped too
    base = EvalReport([repeated("a", "skipped", "skipped"), repeated("b", "passed", "failed"), repeated("c", "passed")])
    head = EvalReport([repeated("a", "passed", "passed"), repeated("b", "passed", "passed"), repeated("c", "passed")])
    assert (compare(base, head).paired.cases, compare(base, head).paired.left_out) == (2, 1)


def test_an_errored_case_counts_as_not_passed() -> None:
    paired = compare(
        EvalReport([case("a", "passed"), case("b", "passed")]), EvalReport([case("a", "error"), case("b", "passed")])
    ).paired
    assert (paired.diff, paired.base_only, paired.head_only) == (-0.5, 1, 0)


def test_fewer_than_two_paired_cases_have_no_test() -> None:
    one = compare(EvalReport([case("a", "passed")]), EvalReport([case("a", "failed")])).paired
    assert (one.cases, one.diff, one.test, one.p_value, one.ci_low, one.correlation) == (
        1,
        -1.0,
        None,
        None,
        None,
        None,
    )
    assert not one.significant(0.99)
    none = compare(EvalReport([case("a", "passed")]), EvalReport([case("b", "failed")])).paired
    assert (none.cases, none.diff, none.test, none.p_value) == (0, None, None, None)


def test_the_correlation_is_undefined_when_a_run_has_no_variance() -> None:
    paired = compare(run_of([True, True, True]), run_of([True, False, True])).paired
    assert paired.correlation is None
    assert paired.p_value == 1.0  # one discordant pair


def test_significant_means_head_worse_with_p_below_alpha() -> None:
    worse = compare(run_of([True] * 30), run_of([True] * 10 + [False] * 20)).paired
    assert worse.p_value is not None and worse.p_value < 1e-5
    assert worse.significant(0.05) and worse.significant()
    better = compare(run_of([True] * 10 + [False] * 20), run_of([True] * 30)).paired
    assert better.p_value == worse.p_value
    assert not better.significant(0.05)


# --- the gate, simulated through compare -------------------------------------------------------------


def simulated_pair(rng: random.Random, cases: int, drop: float) -> tuple[EvalReport, EvalReport]:
    """Two runs of an agent whose cases have their own pass chances; HEAD's are ``drop`` lower."""
    chances = [rng.uniform(0.3, 0.95) for _ in range(cases)]
    base = [rng.random() < p for p in chances]
    head = [rng.random() < p - drop for p in chances]
    return run_of(base), run_of(head)


def flagged(trials: int, drop: float, seed: int) -> float:
    rng = random.Random(seed)
    hits = 0
    for _ in range(trials):
        base, head = simulated_pair(rng, 200, drop)
        hits += compare(base, head).paired.significant(0.05)
    return hits / trials


def test_two_runs_of_the_same_agent_are_rarely_flagged_as_a_significant_regression() -> None:
    assert flagged(400, 0.0, seed=1) <= 0.06


def test_a_true_drop_of_15_points_on_200_cases_is_flagged_at_least_80_percent_of_the_time() -> None:
    assert flagged(400, 0.15, seed=2) >= 0.80


def test_repeated_runs_of_the_same_agent_are_rarely_flagged_either() -> None:
    rng = random.Random(3)
    hits = 0
    for _ in range(200):
        chances = [rng.uniform(0.3, 0.95) for _ in range(100)]

        def run() -> EvalReport:
            return EvalReport(
                [
                    repeated(f"c{i}", *("passed" if rng.random() < p else "failed" for _ in range(3)))
                    for i, p in enumerate(chances)
                ]
            )

        hits += compare(run(), run()).paired.significant(0.05)
    assert hits / 200 <= 0.06


# --- the command ---------------------------------------------------------------------------------------


def write(path: Path, report: EvalReport) -> str:
    path.write_text(report.to_json(), encoding="utf-8")
    return str(path)


@pytest.fixture
def worse(tmp_path: Path) -> tuple[str, str]:
    """BASE passes 30 of 30, HEAD 10 of them: a significant drop."""
    return write(tmp_path / "base.json", run_of([True] * 30)), write(
        tmp_path / "head.json", run_of([True] * 10 + [False] * 20)
    )


def test_the_text_shows_the_paired_figures_after_the_case_changes(worse: tuple[str, str], tmp_path: Path) -> None:
    done = run_cli("compare", *worse, cwd=tmp_path)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[2] == "pass rate 100.0% → 33.3% (-66.7 points)"
    p = compare(run_of([True] * 30), run_of([True] * 10 + [False] * 20)).paired
    assert p.ci_low is not None and p.ci_high is not None
    ci = f"95% CI {p.ci_low * 100:+.1f} to {p.ci_high * 100:+.1f}"
    assert lines[-3] == (
        f"pass rate 100.0% → 33.3% (-66.7 points over 30 paired cases; {ci}) · McNemar p = 1.9e-06 · r undefined"
        " · significantly worse at 0.05"
    )
    assert lines[-1] == "REGRESSED: 20 regressed"


def test_alpha_gates_on_the_test_both_ways(tmp_path: Path) -> None:
    # 3 of 40 cases regress: a regression case by case, but not a significant one
    base = write(tmp_path / "base.json", run_of([True] * 40))
    head = write(tmp_path / "head.json", run_of([False] * 3 + [True] * 37))
    assert run_cli("compare", base, head, cwd=tmp_path).returncode == 1
    done = run_cli("compare", base, head, "--alpha", "0.05", cwd=tmp_path)
    assert done.returncode == 0, done.stdout
    assert "McNemar p = 0.25 · r undefined · not significant at 0.05" in done.stdout
    assert done.stdout.splitlines()[-1] == "No significant regression at alpha 0.05: 3 regressed"
    # at 0.3, p = 0.25 is below the level and HEAD is worse: exit 1
    done = run_cli("compare", base, head, "--alpha", "0.3", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.splitlines()[-1] == "SIGNIFICANT REGRESSION at alpha 0.3: 3 regressed"
    # a significant improvement passes the gate
    done = run_cli("compare", head, base, "--alpha", "0.3", cwd=tmp_path)
    assert done.returncode == 0
    assert "significantly better at 0.3" in done.stdout


@pytest.mark.parametrize("value", ["0", "1", "-0.1", "nan", "x"])
def test_alpha_must_be_a_level_between_0_and_1(worse: tuple[str, str], tmp_path: Path, value: str) -> None:
    done = run_cli("compare", *worse, "--alpha", value, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("error: invalid value for '--alpha'")


OLD_KEYS = {"base", "head", "regressed", "regressions", "fixed", "status_changes", "score_changes", "added", "removed"}
NEW_KEYS = {
    "diff",
    "ci_low",
    "ci_high",
    "p_value",
    "test",
    "correlation",
    "significant",
    "paired_cases",
    "alpha",
    "tool_changes",
}


def test_json_keeps_the_old_keys_and_adds_the_paired_figures(worse: tuple[str, str], tmp_path: Path) -> None:
    done = run_cli("compare", *worse, "--json", cwd=tmp_path)
    assert done.returncode == 1
    data = json.loads(done.stdout)
    assert set(data) == OLD_KEYS | NEW_KEYS
    assert data["regressed"] is True
    assert [change["name"] for change in data["regressions"]] == [f"c{i}" for i in range(10, 30)]
    assert data["regressions"][0] == {
        "name": "c10",
        "base_status": "passed",
        "head_status": "failed",
        "base_score": None,
        "head_score": None,
        "reason": None,
        "score_delta": None,
    }
    assert (data["fixed"], data["status_changes"], data["score_changes"], data["added"], data["removed"]) == ([],) * 5
    assert data["diff"] == pytest.approx(-2 / 3)
    assert data["ci_low"] < data["diff"] < data["ci_high"]
    assert (data["test"], data["correlation"], data["paired_cases"], data["alpha"]) == ("mcnemar", None, 30, 0.05)
    assert data["p_value"] == pytest.approx(2 / 2**20)
    assert data["significant"] is True
    relaxed = json.loads(run_cli("compare", *worse, "--json", "--alpha", "1e-9", cwd=tmp_path).stdout)
    assert (relaxed["alpha"], relaxed["significant"]) == (1e-9, False)


def test_added_and_removed_cases_are_listed_and_not_paired(tmp_path: Path) -> None:
    base = write(
        tmp_path / "b.json", EvalReport([case("kept", "passed"), case("other", "failed"), case("gone", "passed")])
    )
    head = write(
        tmp_path / "h.json", EvalReport([case("kept", "passed"), case("other", "passed"), case("new", "failed")])
    )
    done = run_cli("compare", base, head, cwd=tmp_path)
    assert "Added (1)\n  new  failed\n" in done.stdout
    assert "Removed (1)\n  gone  was passed\n" in done.stdout
    assert "(+50.0 points over 2 paired cases; " in done.stdout
    assert "Not paired: 1 added, 1 removed." in done.stdout
    data = json.loads(run_cli("compare", base, head, "--json", cwd=tmp_path).stdout)
    assert ([c["name"] for c in data["added"]], [c["name"] for c in data["removed"]]) == (["new"], ["gone"])
    assert (data["paired_cases"], data["diff"]) == (2, 0.5)


def test_the_text_says_how_many_were_compared_and_which_were_left_out(tmp_path: Path) -> None:
    base = write(tmp_path / "b.json", EvalReport([case("a", "passed"), case("b", "skipped"), case("c", "passed")]))
    head = write(tmp_path / "h.json", EvalReport([case("a", "passed"), case("b", "passed"), case("c", "failed")]))
    done = run_cli("compare", base, head, cwd=tmp_path)
    assert "pass rate 100.0% → 50.0% (-50.0 points over 2 paired cases; " in done.stdout
    assert "Not paired: 1 case skipped in BASE or HEAD." in done.stdout


def test_the_text_says_what_was_compared_with_repeats(tmp_path: Path) -> None:
    base = write(tmp_path / "b.json", run_of([True, True, False]))
    head = write(
        tmp_path / "h.json",
        EvalReport(
            [
                repeated("c0", "passed", "failed", "passed"),
                repeated("c1", "passed", "passed", "passed"),
                repeated("c2", "failed", "failed", "passed"),
            ]
        ),
    )
    done = run_cli("compare", base, head, cwd=tmp_path)
    assert "pass@1 66.7% → 66.7% (+0.0 points over 3 paired cases; 95% CI " in done.stdout
    assert " · paired t-test p = 1 · r = " in done.stdout
    assert (
        "BASE ran each case once and HEAD 3 times: each case counts by the share of its attempts that passed "
        "(1 or 0 for a case that ran once), and the runs are compared with a paired t-test."
    ) in done.stdout
    data = json.loads(run_cli("compare", base, head, "--json", cwd=tmp_path).stdout)
    assert data["test"] == "paired-t"


def test_one_paired_case_says_it_is_too_few_and_the_gate_passes(tmp_path: Path) -> None:
    base = write(tmp_path / "b.json", EvalReport([case("a", "passed")]))
    head = write(tmp_path / "h.json", EvalReport([case("a", "failed")]))
    done = run_cli("compare", base, head, "--alpha", "0.05", cwd=tmp_path)
    assert done.returncode == 0
    assert (
        "pass rate 100.0% → 0.0% (-100.0 points over 1 paired case; too few for an interval or a test)" in done.stdout
    )
    assert done.stdout.splitlines()[-1] == (
        "No significant regression at alpha 0.05 (too few paired cases for a test): 1 regressed"
    )
    data = json.loads(run_cli("compare", base, head, "--json", cwd=tmp_path).stdout)
    assert (data["test"], data["p_value"], data["ci_low"], data["significant"]) == (None, None, None, False)


def test_runs_with_no_case_in_common_have_nothing_to_pair(tmp_path: Path) -> None:
    base = write(tmp_path / "b.json", EvalReport([case("a", "passed")]))
    head = write(tmp_path / "h.json", EvalReport([case("b", "passed")]))
    done = run_cli("compare", base, head, cwd=tmp_path)
    assert "No case ran in both runs: nothing to pair, and no test." in done.stdout
    data = json.loads(run_cli("compare", base, head, "--json", cwd=tmp_path).stdout)
    assert (data["paired_cases"], data["diff"], data["test"], data["significant"]) == (0, None, None, False)


def test_run_still_gates_on_the_case_level_pass_rate_with_repeats(tmp_path: Path) -> None:
    # 'a' passes 2 of 4 attempts (a passed case at case_pass_rate 0.5), 'b' none: the case-level pass
    # rate is 50% while only 25% of the attempts passed; the bar applies to the 50%
    (tmp_path / "agents.py").write_text(
        "import collections\ncalls = collections.Counter()\n"
        "def agent(question):\n    calls[question] += 1\n"
        "    return 'yes' if question == 'a' and calls[question] % 2 else 'no'\n",
        encoding="utf-8",
    )
    cases = "".join(f"  - {{name: {n}, input: {n}, evaluators: [{{matches: '^yes$'}}]}}\n" for n in "ab")
    (tmp_path / "suite.yaml").write_text(f"agent: agents:agent\ncase_pass_rate: 0.5\ncases:\n{cases}", encoding="utf-8")
    env = {"AGENT_EVAL_DISABLE_PLUGINS": "exact,json,judge,trajectory"}

    def run(*options: str) -> int:
        done = run_cli("run", "suite.yaml", "--no-history", "--json", "r.json", *options, cwd=tmp_path, env=env)
        return done.returncode

    assert run("--repeat", "4", "--min-pass-rate", "0.5") == 0
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert (data["pass_rate"], data["stats"]["attempt_pass_rate"]) == (0.5, 0.25)
    assert run("--repeat", "4", "--min-pass-rate", "0.51") == 1
    # and once each, the same bar on the same case-level rate ('a' answers yes on its first call)
    assert run("--min-pass-rate", "0.5") == 0
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["pass_rate"] == 0.5


# --- reading a run for compare: only what it compares, checked as the full reader checks it ----------


def varied_report() -> EvalReport:
    from agent_eval import Evaluation

    evaluation = Evaluation("has", "failed", score=0.25, reason="missing 'x'")
    return EvalReport(
        [
            EvalResult("a", {"q": 1}, output="out", status="passed", score=1.0, evaluations=[evaluation]),
            EvalResult("b", "in", status="failed", score=0.25, reason="missing 'x'", evaluations=[evaluation]),
            EvalResult("c", "in", status="error", error="timed out after 2 s"),
            EvalResult("d", "in", status="skipped", reason="no judge"),
            repeated("e", "passed", "failed", "skipped"),
        ],
        name="suite",
        total_ms=12.5,
        started_at="2026-01-02T03:04:05+00:00",
        planned=7,
        interrupted=True,
        metadata={"run_id": "r1", "agent": "agents:agent"},
    )


def test_read_outcomes_compares_exactly_as_the_whole_report_does(tmp_path: Path) -> None:
    from agent_eval._report.json import read, read_outcomes

    other = EvalReport([case("a", "failed"), case("b", "passed"), case("c", "passed"), case("e", "passed")])
    path, head = Path(write(tmp_path / "r.json", varied_report())), Path(write(tmp_path / "h.json", other))
    slim, whole = read_outcomes(path), read(path)
    assert compare(slim, read_outcomes(head)).to_dict() == compare(whole, read(head)).to_dict()
    assert compare(read_outcomes(head), slim).to_dict() == compare(read(head), whole).to_dict()
    assert (slim.name, slim.total_ms, slim.started_at, slim.planned, slim.interrupted, slim.metadata) == (
        "suite",
        12.5,
        "2026-01-02T03:04:05+00:00",
        7,
        True,
        {"run_id": "r1", "agent": "agents:agent"},
    )
    assert [c.pass_fraction for c in slim.cases] == [c.pass_fraction for c in whole.cases]
    assert slim.cases[0].input is None and slim.cases[0].evaluations == ()  # not read


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            lambda d: d["cases"][1].update(score="high"),
            "cases[1].score must be a number or null, got a string ('high')",
        ),
        (lambda d: d["cases"][0].update(name=7), "cases[0].name must be a string, got a number (7)"),
        (lambda d: d["cases"][0].pop("status"), "cases[0].status is missing"),
        (lambda d: d["cases"][2].update(error=["x"]), "cases[2].error must be a string or null, got a list"),
        (lambda d: d["cases"][4].update(attempts={}), "cases[4].attempts must be a list, got a mapping"),
        (lambda d: d["cases"][4]["attempts"].append(3), "cases[4].attempts[3] must be an object, got a number (3)"),
        (lambda d: d["cases"][4]["attempts"][0].update(status="ok"), "cases[4].attempts[0].status must be one of "),
        (lambda d: d["cases"].append("x"), "cases[5] must be an object, got a string ('x')"),
        (lambda d: d.update(metadata=5), "metadata must be an object, got a number (5)"),
        (lambda d: d.update(planned=1.5), "planned must be a whole number or null, got a number (1.5)"),
        (lambda d: d.update(cases={}), "expected an object with a 'cases' list"),
    ],
)
def test_read_outcomes_refuses_what_it_reads_as_the_whole_reader_does(
    tmp_path: Path, change: Any, problem: str
) -> None:
    from agent_eval._report.json import read, read_outcomes

    data = varied_report().to_dict()
    change(data)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    for reader in (read, read_outcomes):
        with pytest.raises(ValueError) as caught:
            reader(path)
        assert str(caught.value).startswith(f"not an agent-eval report: {problem}")


def test_compare_reads_no_more_of_a_report_file_than_it_compares(tmp_path: Path) -> None:
    data = varied_report().to_dict()
    data["cases"][0]["evaluations"][0]["duration_ms"] = True  # wrong, but nothing compare uses
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert run_cli("compare", str(path), str(path), cwd=tmp_path).returncode == 0
    assert run_cli("show", str(path), cwd=tmp_path).returncode == 2


def test_compare_names_the_tool_calls_a_case_added_or_lost(tmp_path: Path) -> None:
    from helpers import run_cli

    from agent_eval import EvalReport, EvalResult, ToolCall
    from agent_eval._history import compare

    def case(name: str, *tools: str) -> EvalResult:
        return EvalResult(name, "q", output="a", status="passed", tool_calls=[ToolCall(tool) for tool in tools])

    base = EvalReport([case("same", "search"), case("fewer", "search", "lookup", "lookup"), case("none")])
    head = EvalReport([case("same", "search"), case("fewer", "search", "delete"), case("none")])
    (change,) = compare(base, head).tool_changes
    assert (change.name, dict(change.added), dict(change.lost)) == ("fewer", {"delete": 1}, {"lookup": 2})
    (tmp_path / "base.json").write_text(base.to_json(), encoding="utf-8")
    (tmp_path / "head.json").write_text(head.to_json(), encoding="utf-8")
    shown = run_cli("compare", "base.json", "head.json", cwd=tmp_path)
    assert "Tool calls changed (1)" in shown.stdout
    assert "fewer  +delete  -lookup ×2" in shown.stdout
    as_json = json.loads(run_cli("compare", "base.json", "head.json", "--json", cwd=tmp_path).stdout)
    assert as_json["tool_changes"] == [{"name": "fewer", "added": {"delete": 1}, "lost": {"lookup": 2}}]


def test_read_outcomes_fast_path_agrees_with_the_checking_reader_on_random_damage(tmp_path: Path) -> None:
    """The typed decoder msgspec runs and the reader that checks field by field give the same cases, or the
    same refusal, whatever is put where (seeded random damage to every field compare reads)."""
    import random

    from agent_eval._model import parse_json
    from agent_eval._report.json import _outcomes, read_outcomes

    rng = random.Random(5)
    values: list[Any] = [None, True, False, 0, 1, 2.5, -3, 2**70, "", "x", "passed", "failed", [], {}, [1]]
    values += [{"name": "t"}, [{"name": "search"}, {"name": 3}], [{"index": 0, "status": "passed"}]]
    values += [[{"index": True, "status": "failed"}]]
    spots = ("name", "status", "score", "reason", "error", "attempts", "tool_calls")
    run_spots = ("name", "total_ms", "started_at", "interrupted", "planned", "metadata", "cases")
    agreed = refused = 0
    for trial in range(400):
        data = varied_report().to_dict()
        data["cases"][1]["tool_calls"] = [{"name": "lookup", "arguments": {"q": 1}}]
        for _ in range(rng.randint(1, 3)):
            where = rng.random()
            if where < 0.15:
                data[rng.choice(run_spots)] = rng.choice(values)
            elif where < 0.3 and isinstance(data.get("cases"), list) and data["cases"]:
                target = data["cases"][-1]
                if isinstance(target, dict) and isinstance(target.get("attempts"), list) and target["attempts"]:
                    attempt = target["attempts"][0]
                    if isinstance(attempt, dict):
                        attempt[rng.choice(("index", "status"))] = rng.choice(values)
            elif isinstance(data.get("cases"), list) and data["cases"]:
                target = rng.choice(data["cases"])
                if isinstance(target, dict):
                    spot = rng.choice(spots)
                    if rng.random() < 0.2:
                        target.pop(spot, None)
                    else:
                        target[spot] = rng.choice(values)
        path = tmp_path / f"r{trial}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        try:
            expected: Any = _outcomes(parse_json(path.read_text(encoding="utf-8")))
        except ValueError as error:
            expected = str(error)
        try:
            got: Any = read_outcomes(path)
        except ValueError as error:
            got = str(error)
        if isinstance(expected, str):
            refused += 1
            assert got == expected, (trial, data)
        else:
            agreed += 1
            assert isinstance(got, EvalReport), (trial, got)
            assert got.cases == expected.cases and got.metadata == expected.metadata, (trial, data)
            assert (got.name, got.total_ms, got.started_at, got.planned, got.interrupted) == (
                expected.name,
                expected.total_ms,
                expected.started_at,
                expected.planned,
                expected.interrupted,
            )
    assert agreed > 40 and refused > 40  # both sides of the fence were tried


def test_a_report_too_large_to_read_says_to_give_its_run_id(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_eval._report import json as report_json

    path = Path(write(tmp_path / "r.json", varied_report()))
    monkeypatch.setattr(report_json, "MAX_REPORT_BYTES", 100)
    done = run_cli("compare", str(path), str(path), cwd=tmp_path)
    assert done.returncode == 2
    assert f"{path}: is too large: {path.stat().st_size:,} bytes, more than 100; give the run's id" in done.stderr
