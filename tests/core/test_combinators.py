"""Combinators, weights and thresholds: in Python (all_of, any_of, not_) and in suite files (all, any, not)."""

from __future__ import annotations

import asyncio
import textwrap
import threading
from pathlib import Path
from typing import Any

import fake_plugin
import pytest

import agent_eval
from agent_eval import Case, EvalResult, EvalSuite, Skip, SuiteError, Verdict, all_of, any_of, not_
from agent_eval._calling import callable_name
from agent_eval._entries import _COMBINATORS
from agent_eval._grading import grade
from agent_eval._model import Evaluation
from agent_eval._plugins import RESERVED, registry_of
from agent_eval._suite import load_suite

REGISTRY = registry_of(fake_plugin)


def has(word: str, name: str = "contains") -> Any:
    """An evaluator in the shape of ``contains``: passes when ``word`` occurs, says what it found or missed."""

    def check(output: str) -> Verdict:
        found = word in output
        return Verdict(found, reason=f"found {word!r}" if found else f"missing {word!r}")

    check.__name__ = name
    return check


def scored(score: float, passed: bool | None = None) -> Any:
    def check(output: str) -> Verdict:
        return Verdict(score >= 0.5 if passed is None else passed, score, f"scored {score}")

    check.__name__ = f"s{score}"
    return check


def skips(output: str) -> bool:
    raise Skip("no judge configured")


def raises(output: str) -> bool:
    raise ValueError("boom")


def run_one(output: str, *evaluators: Any, **case: Any) -> EvalResult:
    report = EvalSuite(lambda question: output, [Case("c", "q", evaluators=evaluators, **case)]).run(print=False)
    return report.cases[0]


def verdict_of(evaluator: Any, output: str) -> Verdict:
    value = asyncio.run(agent_eval.invoke(evaluator, output, None))
    assert isinstance(value, Verdict)
    return value


# --- all ---------------------------------------------------------------------------------------------


def test_all_passes_when_every_member_passes_and_scores_their_mean() -> None:
    verdict = verdict_of(all_of(has("a"), has("b")), "a b")
    assert (verdict.passed, verdict.score, verdict.reason) == (True, 1.0, "all: 2 of 2 passed")


def test_all_fails_naming_the_members_that_failed() -> None:
    verdict = verdict_of(all_of(has("a"), has("x", "matches"), has("y")), "a")
    assert not verdict.passed
    assert verdict.score == pytest.approx(1 / 3)
    assert verdict.reason == "all: 2 of 3 failed — matches: missing 'x'; contains: missing 'y'"


def test_all_weighs_its_members() -> None:
    verdict = verdict_of(all_of(scored(1.0), scored(0.0), weights=[3, 1]), "")
    assert verdict.score == pytest.approx(0.75)


def test_all_leaves_skipped_members_out_of_the_mean_and_is_skipped_when_all_were() -> None:
    verdict = verdict_of(all_of(skips, scored(0.6), weights=[5, 1]), "")
    assert (verdict.passed, verdict.score, verdict.reason) == (True, 0.6, "all: 1 of 1 passed (1 skipped)")
    with pytest.raises(Skip, match="all: every member was skipped — skips: no judge configured"):
        verdict_of(all_of(skips, skips), "")


# --- any ---------------------------------------------------------------------------------------------


def test_any_passes_when_one_member_does_and_scores_the_best() -> None:
    verdict = verdict_of(any_of(scored(0.2, False), has("a"), scored(0.4, False)), "a")
    assert (verdict.passed, verdict.score, verdict.reason) == (True, 1.0, "any: contains passed (found 'a')")


def test_any_fails_when_no_member_passed_saying_why_each_did_not() -> None:
    verdict = verdict_of(any_of(has("x"), has("y", "matches")), "a")
    assert (verdict.passed, verdict.score) == (False, 0.0)
    assert verdict.reason == "any: no member passed — contains: missing 'x'; matches: missing 'y'"


def test_any_leaves_skipped_members_out_and_is_skipped_when_all_were() -> None:
    verdict = verdict_of(any_of(skips, has("x")), "a")
    assert (verdict.passed, verdict.reason) == (False, "any: no member passed — contains: missing 'x'")
    with pytest.raises(Skip, match="any: every member was skipped"):
        verdict_of(any_of(skips), "")


# --- not ---------------------------------------------------------------------------------------------


def test_not_flips_the_verdict_and_gives_one_minus_the_score() -> None:
    verdict = verdict_of(not_(has("call now")), "Call us: call now!")
    assert (verdict.passed, verdict.score, verdict.reason) == (False, 0.0, "not: contains passed (found 'call now')")
    verdict = verdict_of(not_(scored(0.3, False)), "")
    assert (verdict.passed, verdict.score) == (True, pytest.approx(0.7))


def test_not_is_skipped_when_its_member_is() -> None:
    with pytest.raises(Skip, match=r"not: skips was skipped \(no judge configured\)"):
        verdict_of(not_(skips), "")


# --- members of every kind ------------------------------------------------------------------------


def test_members_may_be_sync_or_async_with_or_without_context_and_combinators_nest() -> None:
    seen: list[Any] = []

    async def async_with_ctx(output: str, ctx: Any) -> bool:
        seen.append(ctx.input)
        await asyncio.sleep(0)
        return "a" in output

    def sync_in_a_thread(output: str) -> bool:  # not inline: the runner would call it in a worker thread
        seen.append(threading.current_thread() is threading.main_thread())
        return True

    nested = all_of(async_with_ctx, any_of(not_(has("zzz")), has("never")), sync_in_a_thread)
    result = run_one("a", nested)
    assert (result.status, result.score) == ("passed", 1.0)
    assert seen[0] == "q"
    assert False in seen  # the sync member ran outside the event loop's thread
    assert result.evaluations[0].name == "all"
    members = result.evaluations[0].metadata["members"]
    assert [member["name"] for member in members] == ["async_with_ctx", "any", "sync_in_a_thread"]


def test_combinators_have_readable_names() -> None:
    assert [callable_name(c) for c in (all_of(has("a")), any_of(has("a")), not_(has("a")))] == ["all", "any", "not"]
    assert repr(all_of(has("a"), not_(has("b")))) == "all(contains, not)"


def test_a_member_that_raises_makes_the_combinator_an_error_naming_it() -> None:
    result = run_one("a", any_of(has("a"), all_of(raises)))
    assert result.status == "error"
    assert result.error == "any: MemberError: all: raises raised ValueError: boom"
    assert any("in raises" in frame for frame in result.evaluations[0].frames)  # where the member raised


def test_a_member_that_returns_garbage_is_an_error_too() -> None:
    result = run_one("a", all_of(lambda output: "yes"))
    assert result.status == "error"
    assert "lambda returned 'yes'; an evaluator must return a bool or a Verdict" in (result.error or "")


def test_members_usage_is_kept_so_the_report_counts_judge_tokens() -> None:
    def judge(output: str) -> Verdict:
        return Verdict(True, metadata={"usage": {"input_tokens": 10, "output_tokens": 2}})

    report = EvalSuite(lambda q: "a", [Case("c", "q", evaluator=all_of(judge, judge))]).run(print=False)
    assert report.usage == {"input_tokens": 20, "output_tokens": 4}


def test_tokens_spent_by_members_count_when_another_member_errors() -> None:
    def judge(output: str) -> Verdict:
        return Verdict(True, metadata={"usage": {"input_tokens": 10}})

    class Failed(Exception):
        metadata = {"usage": {"input_tokens": 5}}  # noqa: RUF012

    def failing_judge(output: str) -> bool:
        raise Failed("the judge answered garbage")

    report = EvalSuite(lambda q: "a", [Case("c", "q", evaluator=all_of(judge, failing_judge))]).run(print=False)
    assert report.cases[0].status == "error"
    assert report.usage == {"input_tokens": 15}


def test_check_case_is_forwarded_to_the_members() -> None:
    with pytest.raises(SuiteError, match="all: any: same: no expected answer"):
        EvalSuite(lambda q: q, [Case("c", "q", evaluator=all_of(any_of(fake_plugin.same())))])
    EvalSuite(lambda q: q, [Case("c", "q", expected="q", evaluator=all_of(any_of(fake_plugin.same())))])


def test_aclose_is_forwarded_to_the_members() -> None:
    closed: list[str] = []

    class Holder:
        def __init__(self, name: str) -> None:
            self.name = name

        def __call__(self, output: str) -> bool:
            return True

        async def aclose(self) -> None:
            closed.append(self.name)

    EvalSuite(lambda q: q, [Case("c", "q", evaluator=not_(all_of(Holder("a"), Holder("b"))))]).run(print=False)
    assert closed == ["a", "b"]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: all_of(), "all_of() needs at least one evaluator"),
        (lambda: any_of(), "any_of() needs at least one evaluator"),
        (lambda: all_of("contains"), "is not an evaluator"),
        (lambda: all_of(has("a"), has("b"), weights=[1]), "1 weights for 2 evaluators"),
        (lambda: all_of(has("a"), weights=[0]), "'weight' must be a number more than 0, got 0"),
    ],
)
def test_python_combinators_refuse_what_they_cannot_combine(make: Any, message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=message.replace("(", r"\(").replace(")", r"\)")):
        make()


def test_the_combinators_are_public() -> None:
    assert {"all_of", "any_of", "not_"} <= set(agent_eval.__all__)
    assert set(_COMBINATORS) | {"weight"} == set(RESERVED)


# --- weights and thresholds of a case -------------------------------------------------------------


def evaluation(status: str, score: float | None, name: str = "e", reason: str | None = None) -> Evaluation:
    return Evaluation(name, status, score=score, reason=reason)  # type: ignore[arg-type]


def test_without_weights_or_threshold_a_case_is_graded_as_before() -> None:
    graded = grade([evaluation("passed", 1.0), evaluation("failed", 0.5, "contains", "missing 'x'")])
    assert (graded.status, graded.score, graded.reason) == ("failed", 0.75, "contains: missing 'x'")
    only = grade([evaluation("failed", 0.5, "contains", "missing 'x'")])
    assert (only.status, only.score, only.reason) == ("failed", 0.5, "missing 'x'")


def test_weights_make_the_score_a_weighted_mean_leaving_skips_out() -> None:
    graded = grade([evaluation("passed", 1.0), evaluation("failed", 0.0), evaluation("skipped", None)], [3, 1, 100])
    assert (graded.status, graded.score) == ("failed", 0.75)


def test_a_threshold_passes_a_case_whose_weighted_mean_reaches_it() -> None:
    evaluations = [evaluation("passed", 1.0), evaluation("failed", 0.5, "contains", "missing 'x'")]
    passed = grade(evaluations, (), 0.75)
    assert (passed.status, passed.score) == ("passed", 0.75)
    assert passed.reason == "score 0.75 reaches the threshold 0.75; contains: missing 'x'"
    failed = grade(evaluations, (1, 3), 0.75)
    assert (failed.status, failed.score) == ("failed", 0.625)
    assert failed.reason == "score 0.62 is below the threshold 0.75; contains: missing 'x'"


def test_a_threshold_never_passes_a_case_with_an_error_and_skips_stay_skips() -> None:
    errored = grade([evaluation("passed", 1.0), Evaluation("judge", "error", error="down")], (), 0.1)
    assert (errored.status, errored.error) == ("error", "judge: down")
    skipped = grade([evaluation("skipped", None)], (), 0.5)
    assert skipped.status == "skipped"


def test_a_threshold_holds_for_one_evaluation_too() -> None:
    graded = grade([evaluation("failed", 0.8, "contains", "missing 'x'")], (), 0.8)
    assert (graded.status, graded.score) == ("passed", 0.8)


def test_a_threshold_tolerates_rounding_of_the_mean() -> None:
    graded = grade([evaluation("passed", 0.1), evaluation("passed", 0.2), evaluation("passed", 0.3)], (), 0.2)
    assert graded.status == "passed"  # (0.1 + 0.2 + 0.3) / 3 is 0.19999999999999998 in floats


def test_python_cases_take_weights_and_a_threshold() -> None:
    result = run_one("a", has("a"), has("b"), weights=(3, 1), threshold=0.7)
    assert (result.status, result.score) == ("passed", 0.75)
    report = EvalSuite(lambda q: "a", [{"name": "d", "input": "q", "evaluators": [has("a")], "threshold": 1}]).run(
        print=False
    )
    assert report.passed == 1


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ({"weights": (1,)}, "'weights' has 1 weights for 2 evaluators"),
        ({"weights": (1, -1)}, "'weight' must be a number more than 0, got -1"),
        ({"threshold": 1.5}, "'threshold' must be a number from 0 to 1, got 1.5"),
    ],
)
def test_python_cases_with_bad_weights_or_threshold_are_refused(case: dict[str, Any], message: str) -> None:
    with pytest.raises(SuiteError, match=message):
        EvalSuite(lambda q: q, [Case("c", "q", evaluators=(has("a"), has("b")), **case)])


# --- suite files ----------------------------------------------------------------------------------


def write(tmp_path: Path, text: str, name: str = "suite.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def problems(path: Path) -> list[str]:
    with pytest.raises(SuiteError) as caught:
        load_suite(path, registry=REGISTRY)
    return caught.value.problems


def run_file(path: Path, answer: str) -> list[EvalResult]:
    suite = load_suite(path, registry=REGISTRY)
    return list(EvalSuite(lambda q: answer, suite.cases).run(print=False).cases)


def test_suite_files_combine_evaluators_with_all_any_and_not(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        cases:
          - name: c
            input: q
            evaluators:
              - all: [{has: [refund]}, {any: [{has: [30 days]}, {has: [a month]}]}]
              - not: {has: [call now]}
              - not: [pattern_found: "\\\\d{5}"]
        """,
    )
    (result,) = run_file(path, "A refund within a month.")
    assert result.status == "passed"
    assert [e.name for e in result.evaluations] == ["all", "not", "not"]
    (result,) = run_file(path, "A refund within a month: call now.")
    assert result.status == "failed"
    assert result.reason == "not: has passed"


def test_weights_in_suite_files_weigh_entries_at_case_level_and_inside_all(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        cases:
          - name: c
            input: q
            evaluators:
              - {has: [yes], weight: 3}
              - has: [no]
              - all: [{has: [yes], weight: 1}, {has: [no], weight: 3}]
                weight: 4
        """,
    )
    suite = load_suite(path, registry=REGISTRY)
    assert suite.cases[0].weights == (3.0, 1.0, 4.0)
    (result,) = run_file(path, "yes")
    assert result.evaluations[2].score == pytest.approx(0.25)
    assert result.score == pytest.approx((3 * 1 + 1 * 0 + 4 * 0.25) / 8)


def test_entries_without_weights_leave_the_case_unweighted(tmp_path: Path) -> None:
    path = write(tmp_path, "cases:\n  - {name: c, input: q, evaluators: [{has: [a], weight: 1}, same]}\n")
    path.write_text(path.read_text().replace("same", "has: b"), encoding="utf-8")
    assert load_suite(path, registry=REGISTRY).cases[0].weights == ()


def test_the_case_threshold_wins_over_the_suites(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        threshold: 0.9
        evaluators: [{has: [a]}]
        cases:
          - {name: strict, input: q, evaluators: [{has: [b]}]}
          - {name: lenient, input: q, threshold: 0.5, evaluators: [{has: [b]}]}
        """,
    )
    strict, lenient = load_suite(path, registry=REGISTRY).cases
    assert (strict.threshold, lenient.threshold) == (0.9, 0.5)
    results = run_file(path, "a")
    assert [(r.status, r.score) for r in results] == [("failed", 0.5), ("passed", 0.5)]
    assert results[0].reason == "score 0.50 is below the threshold 0.9; has: missing: ['b']"


def test_a_threshold_changes_the_fingerprint_of_a_case_only_when_given(tmp_path: Path) -> None:
    plain = write(tmp_path, "cases:\n  - {name: c, input: q, evaluators: [has: a]}\n")
    held = write(tmp_path, "threshold: 0.5\ncases:\n  - {name: c, input: q, evaluators: [has: a]}\n", "held.yaml")
    first = load_suite(plain, registry=REGISTRY).cases[0].fingerprint
    assert first == load_suite(plain, registry=REGISTRY).cases[0].fingerprint
    assert first != load_suite(held, registry=REGISTRY).cases[0].fingerprint


def test_the_same_combinator_entry_is_built_once(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        evaluators: [{not: {has: [x]}}]
        cases:
          - {name: a, input: q, evaluators: [any: [has: a, has: b]]}
          - {name: b, input: q, evaluators: [any: [has: a, has: b]]}
        """,
    )
    first, second = load_suite(path, registry=REGISTRY).cases
    assert first.evaluators[0] is second.evaluators[0]
    assert first.evaluators[1] is second.evaluators[1]


def test_combinator_and_weight_mistakes_are_suite_errors_with_their_place(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        threshold: 2
        cases:
          - name: c
            input: q
            threshold: -0.1
            evaluators:
              - all: []
              - any: {has: [a]}
              - not: [{has: [a]}, {has: [b]}]
              - not:
              - {has: [a], weight: 0}
              - {has: [a], weight: heavy}
              - {weight: 2}
              - any
              - all: [{has: [a]}, {hsa: [b]}]
              - {has: [a], same: {}}
        """,
    )
    assert problems(path) == [
        f"{path}:1:12: 'threshold' must be a number from 0 to 1, got 2",
        f"{path}:5:16: case 'c': 'threshold' must be a number from 0 to 1, got -0.1",
        f"{path}:7:14: case 'c': 'all' has no members; give it at least one evaluator",
        f"{path}:8:14: case 'c': 'any' takes a list of evaluators, got a mapping",
        f"{path}:9:14: case 'c': 'not' takes one evaluator, got 2; combine them with `all:` or `any:`",
        f"{path}:10:13: case 'c': 'not' has no members; give it at least one evaluator",
        f"{path}:11:28: case 'c': 'weight' must be a number more than 0, got 0",
        f"{path}:12:28: case 'c': 'weight' must be a number more than 0, got 'heavy'",
        f"{path}:13:9: case 'c': an entry with 'weight' names the evaluator it weighs",
        f"{path}:14:9: case 'c': 'any' combines evaluators: give them as `any: [...]`",
        f"{path}:15:27: case 'c': Unknown evaluator 'hsa'. Did you mean 'has'? Installed: has, pattern_found, same.",
        f"{path}:16:9: case 'c': an evaluator is `name: arguments` (one evaluator key, and optionally 'weight'), "
        "got a mapping with 'has', 'same'",
    ]


def test_check_case_reaches_members_in_suite_files(tmp_path: Path) -> None:
    path = write(tmp_path, "cases:\n  - {name: c, input: q, evaluators: [{any: [same, {has: a}]}]}\n")
    assert problems(path) == [
        f"{path}:2:5: case 'c': any: same: no expected answer; give `expected:` in the case or an argument"
    ]


def test_a_plugin_may_not_register_a_reserved_name() -> None:
    class Plugin:
        @agent_eval.hookimpl
        def register_evaluators(self, register: Any) -> None:
            register(has, name="any")

    registry = registry_of(Plugin())
    assert "any" not in registry.names()
    (broken,) = registry.broken
    assert "evaluator name 'any' is reserved" in broken.error
    assert "pass register(f, name='...')" in broken.error


def test_agent_eval_run_refuses_a_bad_combinator_before_calling_the_agent(tmp_path: Path) -> None:
    from helpers import run_cli

    (tmp_path / "agents.py").write_text("def agent(q):\n    raise SystemExit('the agent was called')\n")
    write(tmp_path, "agent: agents:agent\ncases:\n  - {name: c, input: q, evaluators: [{all: []}]}\n")
    result = run_cli("run", "suite.yaml", "--no-history", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == "error: suite.yaml:3:44: case 'c': 'all' has no members; give it at least one evaluator\n"
