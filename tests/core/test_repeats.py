"""Repeats: every case runs N independent times; a case passes when enough of its attempts pass."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
from collections import defaultdict

import pytest

from agent_eval import Case, EvalReport, EvalSuite, EvaluatorContext, Skip, Verdict


def flaky_agent(plan: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    """An agent whose n-th call for an input answers plan[input][n] (after a random short delay)."""
    calls: dict[str, int] = defaultdict(int)

    async def agent(question: str) -> str:
        n = calls[question]
        calls[question] += 1
        await asyncio.sleep(random.random() / 500)  # attempts finish out of order
        return plan[question][n]

    agent.calls = calls  # type: ignore[attr-defined]
    return agent


def says_yes(output: object) -> bool:
    return output == "yes"


def run(plan: dict[str, list[str]], **options: object) -> EvalReport:
    agent = flaky_agent(plan)
    cases = [Case(name, name, evaluators=[says_yes]) for name in plan]
    repeat = len(next(iter(plan.values())))
    return EvalSuite(agent, cases).run(print=False, repeat=repeat, **options)  # type: ignore[arg-type]


def test_every_case_runs_repeat_times_and_keeps_its_attempts_in_order() -> None:
    plan = {"a": ["yes", "no", "yes", "yes", "no"], "b": ["yes"] * 5}
    agent = flaky_agent(plan)
    report = EvalSuite(agent, [Case(n, n, evaluators=[says_yes]) for n in plan]).run(
        print=False, repeat=5, concurrency=10
    )
    assert dict(agent.calls) == {"a": 5, "b": 5}  # type: ignore[attr-defined]
    a, b = report.cases
    assert [attempt.index for attempt in a.attempts] == [0, 1, 2, 3, 4]
    assert [attempt.output for attempt in a.attempts] == plan["a"]
    assert (a.pass_fraction, a.flaky, a.status) == (0.6, True, "failed")
    assert a.reason == "3/5 attempts passed; attempt 2: the output was 'no'" or a.reason.startswith(
        "3/5 attempts passed"
    )
    assert a.output == "no"  # the first attempt that did not pass is the one shown
    assert (b.pass_fraction, b.flaky, b.status, b.output) == (1.0, False, "passed", "yes")


@pytest.mark.parametrize(("bar", "status"), [(1.0, "failed"), (0.6, "passed"), (0.61, "failed"), (0.0, "passed")])
def test_a_case_passes_when_its_pass_fraction_reaches_the_case_pass_rate(bar: float, status: str) -> None:
    report = run({"a": ["yes", "no", "yes", "yes", "no"]}, case_pass_rate=bar)
    assert report.cases[0].status == status


def test_the_case_pass_rate_must_be_a_rate_and_repeat_a_whole_number() -> None:
    suite = EvalSuite(lambda q: q, [Case("a", "a", evaluators=[says_yes])])
    with pytest.raises(ValueError, match="case_pass_rate must be a number from 0 to 1"):
        suite.run(print=False, repeat=2, case_pass_rate=1.5)
    with pytest.raises(ValueError, match="repeat must be a whole number of at least 1"):
        suite.run(print=False, repeat=0)


def test_errors_only_make_an_error_case_and_a_mix_with_failures_a_failed_one() -> None:
    def agent(question: str) -> str:
        raise RuntimeError("down")

    report = EvalSuite(agent, [Case("a", "a", evaluators=[says_yes])]).run(print=False, repeat=3)
    (case,) = report.cases
    assert case.status == "error"
    assert case.error == "RuntimeError: down"
    assert case.pass_fraction == 0.0


def test_a_case_whose_every_attempt_was_skipped_is_skipped() -> None:
    def never(output: object) -> bool:
        raise Skip("no judge configured")

    report = EvalSuite(lambda q: q, [Case("a", "a", evaluators=[never])]).run(print=False, repeat=3)
    assert report.cases[0].status == "skipped"
    assert report.cases[0].pass_fraction is None
    assert report.skipped == 1


def test_the_evaluator_knows_which_attempt_it_grades() -> None:
    seen: list[int] = []

    def grade(output: object, ctx: EvaluatorContext) -> bool:
        seen.append(ctx.attempt)
        return True

    EvalSuite(lambda q: q, [Case("a", "a", evaluators=[grade])]).run(print=False, repeat=4, concurrency=1)
    assert seen == [0, 1, 2, 3]


def test_one_attempt_keeps_the_report_as_it_was() -> None:
    report = run({"a": ["yes"], "b": ["no"]})
    assert all(case.attempts == () for case in report.cases)
    data = report.to_dict()
    assert "pass_fraction" not in data["cases"][0] and "attempts" in data["cases"][0]
    assert "pass_at_k" not in data["stats"]
    assert (report.cases[0].pass_fraction, report.cases[1].pass_fraction) == (1.0, 0.0)


def test_a_repeated_report_survives_a_json_round_trip() -> None:
    report = run({"a": ["yes", "no", "yes"], "b": ["no", "no", "yes"]})
    data = json.loads(report.to_json())
    assert data["cases"][0]["pass_fraction"] == pytest.approx(2 / 3)
    assert data["cases"][0]["flaky"] is True
    assert [attempt["output"] for attempt in data["cases"][1]["attempts"]] == ["no", "no", "yes"]
    assert EvalReport.from_json(report.to_json()) == report


def brute_force_pass_at_k(outcomes: list[list[bool]], k: int, every: bool) -> float:
    """The mean over cases of P(some / every one of k attempts drawn without replacement passed)."""
    means = []
    for attempts in outcomes:
        draws = list(itertools.combinations(attempts, k))
        hits = sum((all(d) if every else any(d)) for d in draws)
        means.append(hits / len(draws))
    return sum(means) / len(means)


def test_the_report_stats_with_repeats_match_brute_force() -> None:
    rng = random.Random(7)
    plan = {f"c{i}": [rng.choice(["yes", "no"]) for _ in range(5)] for i in range(30)}
    report = run(plan, concurrency=8)
    stats = report.stats
    outcomes = [[answer == "yes" for answer in plan[name]] for name in plan]
    for k in range(1, 6):
        assert stats["pass_at_k"][str(k)] == pytest.approx(brute_force_pass_at_k(outcomes, k, every=False), abs=1e-12)
        assert stats["pass_hat_k"][str(k)] == pytest.approx(brute_force_pass_at_k(outcomes, k, every=True), abs=1e-12)
    flat = [passed for attempts in outcomes for passed in attempts]
    assert stats["attempt_pass_rate"] == pytest.approx(sum(flat) / len(flat))
    assert 0.0 <= stats["attempt_ci_low"] <= stats["attempt_pass_rate"] <= stats["attempt_ci_high"] <= 1.0
    assert stats["repeat"] == 5
    passed_cases = sum(all(attempts) for attempts in outcomes)
    assert stats["pass_rate"] == passed_cases / 30 == report.pass_rate


def test_usage_and_cost_add_up_over_attempts() -> None:
    from agent_eval import AgentRun, Usage

    def agent(question: str) -> AgentRun:
        return AgentRun("yes", usage=Usage(10, 2), cost_usd=0.5)

    (case,) = EvalSuite(agent, [Case("a", "a", evaluators=[says_yes])]).run(print=False, repeat=3).cases
    assert (case.usage, case.cost_usd) == (Usage(30, 6), 1.5)


def test_stats_without_repeats_have_the_wilson_interval_and_the_mean_score() -> None:
    def score(output: object) -> Verdict:
        return Verdict(output == "yes", 0.8 if output == "yes" else 0.2)

    cases = [Case(f"c{i}", "yes" if i < 8 else "no", evaluators=[score]) for i in range(10)]
    report = EvalSuite(lambda q: q, cases).run(print=False)
    stats = report.stats
    assert stats["pass_rate"] == 0.8
    assert stats["ci_low"] == pytest.approx(0.4901625, abs=1e-6)  # Wilson 8/10
    assert stats["ci_high"] == pytest.approx(0.9433178, abs=1e-6)
    assert stats["mean_score"] == pytest.approx(0.68)
    assert stats["score_se"] == pytest.approx(0.08)  # sample sd 0.253 over the square root of 10


def test_the_reason_names_the_first_attempt_that_did_not_pass() -> None:
    def grade(output: object) -> Verdict:
        return Verdict(output == "yes", reason=None if output == "yes" else f"said {output!r}")

    agent = flaky_agent({"a": ["yes", "maybe", "no"]})
    (case,) = EvalSuite(agent, [Case("a", "a", evaluators=[grade])]).run(print=False, repeat=3, concurrency=1).cases
    assert case.reason == "1/3 attempts passed; attempt 2: said 'maybe'"


def test_the_command_takes_repeat_and_case_pass_rate_from_the_suite_and_the_options(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from helpers import run_cli

    (tmp_path / "agents.py").write_text(
        "import itertools\ncount = itertools.count()\n"
        "def agent(question):\n    return 'yes' if next(count) % 2 == 0 else 'no'\n",
        encoding="utf-8",
    )
    (tmp_path / "suite.yaml").write_text(
        "agent: agents:agent\nrepeat: 4\ncase_pass_rate: 0.5\n"
        "cases:\n  - {name: a, input: q, evaluators: [{matches: '^yes$'}]}\n",
        encoding="utf-8",
    )
    env = {"AGENT_EVAL_DISABLE_PLUGINS": "exact,json,judge,trajectory"}
    done = run_cli("run", "suite.yaml", "--json", "r.json", "--no-history", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert len(data["cases"][0]["attempts"]) == 4
    assert data["cases"][0]["pass_fraction"] == 0.5
    assert (data["metadata"]["repeat"], data["metadata"]["case_pass_rate"]) == (4, 0.5)
    strict = run_cli(
        "run",
        "suite.yaml",
        "--case-pass-rate",
        "1",
        "--repeat",
        "2",
        "--json",
        "s.json",
        "--no-history",
        cwd=tmp_path,
        env=env,
    )
    assert strict.returncode == 1
    again = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert len(again["cases"][0]["attempts"]) == 2


def test_the_summary_line_has_the_interval_and_with_repeats_pass_at_1_and_pass_hat_k() -> None:
    from agent_eval._report.console import summary_line

    once = run({f"c{i}": ["yes" if i < 8 else "no"] for i in range(10)})
    assert "pass rate 80.0% (95% CI 49.0-94.3%)" in summary_line(once)
    repeated = run({"a": ["yes", "yes", "no"], "b": ["yes", "yes", "yes"]}, case_pass_rate=0.5)
    line = summary_line(repeated)
    assert "pass rate 100.0% (95% CI " in line
    assert "pass@1 83.3%" in line and "pass^3 50.0%" in line


def test_a_repeated_case_shows_its_passed_attempts_in_place_of_pass_or_fail() -> None:
    import io

    from agent_eval._report.console import print_report

    report = run({"a": ["yes", "no", "yes"], "b": ["yes", "yes", "yes"]})
    out = io.StringIO()
    print_report(report, file=out)
    rows = [line for line in out.getvalue().splitlines() if line.startswith("│ a ") or line.startswith("│ b ")]
    assert "2/3" in rows[0] and "FAIL" not in rows[0]
    assert "3/3" in rows[1] and "PASS" not in rows[1]
