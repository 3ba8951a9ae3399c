"""EvalSuite: scheduling, isolation, timeouts and the rules that turn evaluations into a case result."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from agent_eval import AgentContext, AgentEvalError, Case, EvalSuite, EvaluatorContext, Skip, SuiteError, Verdict


def has_hello(output: str) -> bool:
    return "hello" in output


def echo(question: str) -> str:
    return f"hello {question}"


def run(agent: Any, cases: list[Any], **options: Any) -> Any:
    return EvalSuite(agent, cases).run(print=False, **options)


# --- concurrency -------------------------------------------------------------------------------


def test_async_agent_cases_run_concurrently() -> None:
    async def slow(question: str) -> str:
        await asyncio.sleep(0.25)
        return f"hello {question}"

    cases = [{"name": f"c{i}", "input": str(i), "evaluator": has_hello} for i in range(40)]
    start = time.perf_counter()
    report = run(slow, cases, concurrency=20)
    elapsed = time.perf_counter() - start
    assert report.passed == 40
    assert elapsed < 1.0  # two waves of 0.25 s, far from the 10 s of running them one by one


def test_sync_agent_cases_run_concurrently_in_threads() -> None:
    def slow(question: str) -> str:
        time.sleep(0.25)
        return f"hello {question}"

    cases = [{"name": f"c{i}", "input": str(i), "evaluator": has_hello} for i in range(40)]
    start = time.perf_counter()
    report = run(slow, cases, concurrency=20)
    elapsed = time.perf_counter() - start
    assert report.passed == 40
    assert elapsed < 1.0


def test_a_quick_sync_agent_is_answered_in_batches_by_its_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_eval import tool
    from agent_eval._local import LocalExecutor

    handoffs = 0
    thread = LocalExecutor._thread

    def counted(self: LocalExecutor, func: Any) -> Any:
        nonlocal handoffs
        handoffs += 1
        return thread(self, func)

    monkeypatch.setattr(LocalExecutor, "_thread", counted)

    @tool
    def look_up(question: str) -> str:
        return question

    def agent(question: str) -> str:
        return f"hello {look_up(question)}"

    async def graded(output: str) -> bool:  # on the loop: every hand-off counted is an agent's
        return "hello" in output

    cases = [{"name": f"c{i}", "input": str(i), "evaluator": graded} for i in range(2000)]
    report = run(agent, cases, concurrency=2)
    assert report.passed == 2000
    assert handoffs < 400  # one by one, it would be 2,000
    # each call's recorded tool call is in its own case, whichever batch it was answered in
    assert all(
        [call.arguments for call in result.tool_calls] == [{"question": result.input}] for result in report.cases
    )


def test_a_sync_agent_that_turns_slow_leaves_no_worker_with_a_queue_of_its_own() -> None:
    # Quick for 3,000 calls (so every worker's thread is handed 64 cases at a time), then 0.1 s a call
    # for the last 64: a worker left to answer the rest of its batch alone would take 3 s or more.
    calls = 0
    lock = threading.Lock()

    def agent(question: str) -> str:
        nonlocal calls
        with lock:
            calls += 1
            slow = calls > 3000
        if slow:
            time.sleep(0.1)
        return f"hello {question}"

    cases = [{"name": f"c{i}", "input": str(i), "evaluator": has_hello} for i in range(3064)]
    start = time.perf_counter()
    report = run(agent, cases, concurrency=8)
    elapsed = time.perf_counter() - start
    assert report.passed == 3064
    assert elapsed < 2.5  # 64 slow calls over 8 workers: 0.8 s


def test_a_batch_call_that_turns_slow_does_not_hold_back_the_cases_answered_before_it() -> None:
    # Quick answers, then one that takes 1.5 s: the cases answered before it are graded and reported
    # meanwhile, not when the slow call ends (at concurrency 1 they share its thread's batch).
    seen: dict[str, float] = {}

    def agent(question: str) -> str:
        if question == "40":
            time.sleep(1.5)
        return f"hello {question}"

    async def graded(output: str) -> bool:  # on the loop, as contains and the judge are
        return "hello" in output

    cases = [{"name": f"c{i}", "input": str(i), "evaluator": graded} for i in range(42)]
    start = time.perf_counter()
    report = EvalSuite(agent, cases).run(
        print=False,
        concurrency=1,
        on_result=lambda _, result: seen.setdefault(result.name, time.perf_counter() - start),
    )
    assert report.passed == 42
    assert [result.name for result in report.cases] == [f"c{i}" for i in range(42)]
    assert max(seen[f"c{i}"] for i in range(40)) < 1.0
    assert seen["c40"] >= 1.5


def test_ctrl_c_stops_at_once_a_batch_stuck_in_a_call_whose_evaluator_needs_a_thread(tmp_path: Path) -> None:
    # One worker, one thread: the thread is stuck in the fifth call of its batch, and the evaluator is a
    # plain function (it runs in a thread). The first Ctrl-C ends the run, keeping the cases graded.
    script = tmp_path / "stuck.py"
    script.write_text(
        "import pathlib, threading\n"
        "from agent_eval import EvalSuite\n"
        "def agent(q):\n"
        "    if q == '4':\n"
        "        pathlib.Path('stuck').touch()\n"
        "        threading.Event().wait()\n"
        "    return 'done'\n"
        "def graded(output):\n"
        "    return output == 'done'\n"
        "cases = [{'name': f'c{i}', 'input': str(i), 'evaluator': graded} for i in range(8)]\n"
        "report = EvalSuite(agent, cases).run(print=False, concurrency=1)\n"
        "print(' '.join(case.name for case in report.cases), flush=True)\n",
        encoding="utf-8",
    )
    process = subprocess.Popen(
        [sys.executable, str(script)], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (tmp_path / "stuck").exists():
        time.sleep(0.02)
    time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        raise AssertionError("the first Ctrl-C did not end the run") from None
    assert out.split() == ["c0", "c1", "c2"] or out.split() == ["c0", "c1", "c2", "c3"], (out, err)


def test_concurrency_limit_is_respected() -> None:
    running = 0
    peak = 0

    async def agent(question: str) -> str:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.01)
        running -= 1
        return "hello"

    run(agent, [{"name": f"c{i}", "input": i, "evaluator": has_hello} for i in range(30)], concurrency=4)
    assert peak == 4


def test_workers_do_not_create_a_task_per_case() -> None:
    seen_tasks = 0

    async def agent(question: str) -> str:
        nonlocal seen_tasks
        seen_tasks = max(seen_tasks, len(asyncio.all_tasks()))
        await asyncio.sleep(0)
        return "hello"

    run(agent, [{"name": f"c{i}", "input": i, "evaluator": has_hello} for i in range(2000)], concurrency=5)
    # the main task plus five workers, whatever the number of cases
    assert seen_tasks <= 6


def test_results_keep_input_order_whatever_order_cases_finish_in() -> None:
    async def agent(delay: float) -> str:
        await asyncio.sleep(delay)
        return f"hello {delay}"

    delays = [0.05, 0.0, 0.03, 0.01, 0.04, 0.02]
    report = run(agent, [{"name": f"d{d}", "input": d, "evaluator": has_hello} for d in delays], concurrency=6)
    assert [result.input for result in report.cases] == delays


def test_agent_receives_context_when_it_takes_two_arguments() -> None:
    seen: list[Any] = []

    def agent(question: str, ctx: AgentContext) -> str:
        seen.append(ctx)
        return "hello"

    context = AgentContext(session_id="s-1", env={"A": "1"})
    EvalSuite(agent, [{"name": "a", "input": "q", "evaluator": has_hello}]).run(context, print=False)
    assert seen == [context]


def test_evaluator_receives_case_input_and_output_in_its_context() -> None:
    contexts: list[EvaluatorContext] = []

    async def evaluator(output: str, ctx: EvaluatorContext) -> bool:
        contexts.append(ctx)
        return True

    case = Case("a", "question", expected="answer", evaluator=evaluator, metadata={"k": 1})
    run(echo, [case])
    (ctx,) = contexts
    assert (ctx.case, ctx.input, ctx.expected, ctx.output, ctx.metadata) == (
        case,
        "question",
        "answer",
        "hello question",
        {"k": 1},
    )


def test_call_shape_is_worked_out_once_per_evaluator(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_eval import _local as runner

    calls = 0
    original = runner.Call.of

    def counting(func: Any) -> Any:
        nonlocal calls
        calls += 1
        return original(func)

    monkeypatch.setattr(runner.Call, "of", counting)
    run(echo, [{"name": f"c{i}", "input": i, "evaluator": has_hello} for i in range(50)])
    assert calls == 2  # the agent and the one evaluator, not once per case


# --- isolation and timeouts -----------------------------------------------------------------------


def test_agent_exception_becomes_that_case_error_and_the_run_goes_on() -> None:
    def agent(question: str) -> str:
        if question == "2":
            raise ValueError("boom")
        return "hello"

    report = run(agent, [{"name": f"c{i}", "input": str(i), "evaluator": has_hello} for i in range(1, 4)])
    assert [result.status for result in report.cases] == ["passed", "error", "passed"]
    assert report.cases[1].error == "ValueError: boom"
    assert (report.passed, report.errored) == (2, 1)


def test_agent_calling_sys_exit_is_an_error_not_an_exit() -> None:
    def agent(question: str) -> str:
        raise SystemExit(3)

    report = run(agent, [{"name": "a", "input": "q", "evaluator": has_hello}])
    assert report.cases[0].status == "error"
    assert report.cases[0].error == "SystemExit: 3"


def test_async_agent_that_hangs_times_out_and_next_case_runs() -> None:
    async def agent(question: str) -> str:
        if question == "hang":
            await asyncio.sleep(60)
        return "hello"

    cases = [{"name": n, "input": n, "evaluator": has_hello} for n in ("a", "hang", "b")]
    start = time.perf_counter()
    report = run(agent, cases, timeout=0.2)
    assert time.perf_counter() - start < 5
    assert [r.status for r in report.cases] == ["passed", "error", "passed"]
    assert report.cases[1].error == "timed out after 0.2 s"


def test_sync_agent_that_hangs_times_out_and_the_pool_keeps_its_size() -> None:
    release = threading.Event()

    def agent(question: str) -> str:
        if question == "hang":
            release.wait(30)
        return "hello"

    cases = [{"name": n, "input": n, "evaluator": has_hello} for n in ("hang", "a", "b", "c")]
    start = time.perf_counter()
    report = run(agent, cases, timeout=0.2, concurrency=1)
    release.set()
    assert time.perf_counter() - start < 5
    assert [r.status for r in report.cases] == ["error", "passed", "passed", "passed"]
    assert report.cases[0].error == "timed out after 0.2 s"


def test_agent_raising_its_own_timeout_error_is_not_reported_as_the_run_timeout() -> None:
    async def agent(question: str) -> str:
        raise TimeoutError("upstream took too long")

    report = run(agent, [{"name": "a", "input": "q", "evaluator": has_hello}], timeout=5)
    assert report.cases[0].error == "TimeoutError: upstream took too long"


def test_evaluator_exception_is_isolated_and_other_evaluators_still_count() -> None:
    def broken(output: str) -> bool:
        raise KeyError("x")

    report = run(echo, [{"name": "a", "input": "q", "evaluators": [broken, has_hello]}])
    result = report.cases[0]
    assert result.status == "error"
    assert [(e.name, e.status) for e in result.evaluations] == [("broken", "error"), ("has_hello", "passed")]
    assert result.error == "broken: KeyError: 'x'"


def test_evaluator_error_keeps_the_facts_it_carries() -> None:
    class Spent(Exception):
        def __init__(self, message: str) -> None:
            super().__init__(message)
            self.metadata = {"usage": {"total_tokens": 18}}

    def judge(output: str) -> bool:
        raise Spent("unreadable answer")

    report = run(echo, [{"name": "a", "input": "q", "evaluator": judge}])
    assert report.cases[0].evaluations[0].metadata == {"usage": {"total_tokens": 18}}
    assert report.usage == {"total_tokens": 18}


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("yes", "returned 'yes'"),
        (None, "returned None"),
        (Verdict(True, score=float("nan")), "score must be a number"),
        (Verdict(True, score=7), "score must be from 0 to 1"),
        (Verdict("yes", score=1.0), "passed must be a bool"),  # type: ignore[arg-type]
    ],
)
def test_evaluator_returning_garbage_is_an_error(value: Any, fragment: str) -> None:
    report = run(echo, [{"name": "a", "input": "q", "evaluator": lambda output: value}])
    assert report.cases[0].status == "error"
    assert fragment in (report.cases[0].error or "")


def test_agent_returning_none_is_an_error() -> None:
    report = run(lambda question: None, [{"name": "a", "input": "q", "evaluator": has_hello}])
    assert report.cases[0].status == "error"
    assert "returned None" in (report.cases[0].error or "")


# --- from evaluations to a case result ------------------------------------------------------------


def test_bool_results_score_one_and_zero() -> None:
    report = run(
        echo,
        [
            {"name": "a", "input": "q", "evaluator": has_hello},
            {"name": "b", "input": "q", "evaluator": lambda o: False},
        ],
    )
    assert [(r.status, r.score) for r in report.cases] == [("passed", 1.0), ("failed", 0.0)]


def test_single_verdict_keeps_its_score_and_reason_unchanged() -> None:
    def valid(output: str) -> Verdict:
        return Verdict(passed=True, reason="Valid JSON")

    result = run(echo, [{"name": "a", "input": "q", "evaluator": valid}]).cases[0]
    assert (result.passed, result.score, result.reason) == (True, 1.0, "Valid JSON")


def test_several_evaluations_average_scores_and_join_failing_reasons() -> None:
    def half(output: str) -> Verdict:
        return Verdict(False, 0.5, "missing: 'extendable'")

    def banned(output: str) -> Verdict:
        return Verdict(False, 0.0, "forbidden: 'call now'")

    result = run(echo, [{"name": "a", "input": "q", "evaluators": [has_hello, half, banned]}]).cases[0]
    assert result.status == "failed"
    assert result.score == pytest.approx(0.5)
    assert result.reason == "half: missing: 'extendable'; banned: forbidden: 'call now'"


def test_skipped_evaluation_does_not_count_and_all_skipped_skips_the_case() -> None:
    def cannot(output: str) -> bool:
        raise Skip("no judge configured")

    report = run(
        echo,
        [
            {"name": "mixed", "input": "q", "evaluators": [cannot, has_hello]},
            {"name": "only-skipped", "input": "q", "evaluator": cannot},
        ],
    )
    mixed, skipped = report.cases
    assert (mixed.status, mixed.score) == ("passed", 1.0)
    assert (skipped.status, skipped.reason) == ("skipped", "no judge configured")
    assert report.pass_rate == 1.0  # skipped cases are left out of the rate


def test_case_without_evaluators_is_skipped_not_passed() -> None:
    report = run(echo, [{"name": "a", "input": "q"}])
    assert report.cases[0].status == "skipped"


def test_case_evaluator_and_evaluators_both_apply() -> None:
    calls: list[str] = []

    def first(output: str) -> bool:
        calls.append("first")
        return True

    def second(output: str) -> bool:
        calls.append("second")
        return True

    run(echo, [{"name": "a", "input": "q", "evaluator": first, "evaluators": [second]}])
    assert calls == ["first", "second"]


def test_async_and_sync_evaluators_with_and_without_context_all_work() -> None:
    async def async_ctx(output: str, ctx: EvaluatorContext) -> bool:
        return ctx.input in output

    async def async_plain(output: str) -> bool:
        return output.startswith("hello")

    def sync_ctx(output: str, ctx: EvaluatorContext) -> Verdict:
        return Verdict(True, 0.8)

    class Callable_:
        def __call__(self, output: str) -> bool:
            return True

    result = run(
        echo, [{"name": "a", "input": "q", "evaluators": [async_ctx, async_plain, sync_ctx, Callable_()]}]
    ).cases[0]
    assert [e.status for e in result.evaluations] == ["passed"] * 4
    assert result.score == pytest.approx(0.95)
    assert [e.name for e in result.evaluations] == ["async_ctx", "async_plain", "sync_ctx", "Callable_"]


# --- the suite and its options ----------------------------------------------------------------------


def test_duplicate_case_names_are_rejected_up_front() -> None:
    with pytest.raises(SuiteError, match="duplicate case name 'a'"):
        EvalSuite(echo, [{"name": "a", "input": 1}, {"name": "a", "input": 2}])


def test_dict_case_with_unknown_key_is_rejected() -> None:
    with pytest.raises(SuiteError, match="unknown key 'expect'"):
        EvalSuite(echo, [{"name": "a", "input": 1, "expect": 2}])


def test_evaluator_check_case_rejects_a_case_it_cannot_grade() -> None:
    class NeedsExpected:
        def __call__(self, output: str) -> bool:
            return True

        def check_case(self, case: Case) -> None:
            if case.expected is None:
                raise ValueError("needs an expected answer; add `expected:` to the case")

    with pytest.raises(SuiteError, match="case 'a': NeedsExpected: needs an expected answer"):
        EvalSuite(echo, [{"name": "a", "input": 1, "evaluator": NeedsExpected()}])


@pytest.mark.parametrize(
    ("option", "value"), [("concurrency", 0), ("concurrency", 1.5), ("timeout", 0), ("timeout", -1)]
)
def test_bad_run_options_are_rejected(option: str, value: Any) -> None:
    with pytest.raises(ValueError, match=option):
        run(echo, [{"name": "a", "input": 1, "evaluator": has_hello}], **{option: value})


def test_run_inside_a_running_loop_points_to_arun() -> None:
    suite = EvalSuite(echo, [{"name": "a", "input": 1, "evaluator": has_hello}])

    async def main() -> None:
        with pytest.raises(AgentEvalError, match=r"await suite\.arun"):
            suite.run(print=False)
        report = await suite.arun(print=False)
        assert report.passed == 1

    asyncio.run(main())


def test_run_prints_the_table_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    EvalSuite(echo, [{"name": "greets user", "input": "q", "evaluator": has_hello}], name="demo").run()
    out = capsys.readouterr().out
    assert "greets user" in out
    assert "1 passed, 0 failed, 0 errors, 0 skipped" in out


def test_on_result_sees_every_case_as_it_finishes() -> None:
    seen: list[tuple[int, str]] = []
    EvalSuite(echo, [{"name": f"c{i}", "input": i, "evaluator": has_hello} for i in range(5)]).run(
        print=False, on_result=lambda index, result: seen.append((index, result.name))
    )
    assert sorted(seen) == [(i, f"c{i}") for i in range(5)]


def test_evaluators_with_aclose_are_closed_once_after_the_run() -> None:
    class Holder:
        closed = 0

        def __call__(self, output: str) -> bool:
            return True

        async def aclose(self) -> None:
            Holder.closed += 1

    shared = Holder()
    run(echo, [{"name": f"c{i}", "input": i, "evaluator": shared} for i in range(3)])
    assert Holder.closed == 1


def test_the_programs_own_signal_handlers_are_back_after_a_run() -> None:
    import signal

    def mine(signum: int, frame: object) -> None:
        pass

    before = signal.signal(signal.SIGTERM, mine)
    try:
        run(echo, [{"name": "a", "input": "q", "evaluator": has_hello}])
        assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, before)


def test_run_never_builds_the_reports_repr() -> None:
    """asyncio may repr the main task (result included) on the way out; a big report must not pay for it."""
    from agent_eval import EvalReport

    calls = 0
    original = EvalReport.__repr__

    def counting(self: EvalReport) -> str:
        nonlocal calls
        calls += 1
        return original(self)

    EvalReport.__repr__ = counting  # type: ignore[method-assign]
    try:
        run(echo, [{"name": f"c{i}", "input": i, "evaluator": has_hello} for i in range(10)])
    finally:
        EvalReport.__repr__ = original  # type: ignore[method-assign]
    assert calls == 0


def test_an_evaluator_whose_check_case_crashes_is_a_named_problem_not_a_crash() -> None:
    class Buggy:
        def __call__(self, output: str) -> bool:
            return True

        def check_case(self, case: Case) -> None:
            raise KeyError("expected")

    with pytest.raises(SuiteError, match=r"case 'a': Buggy: check_case failed: KeyError: 'expected'"):
        EvalSuite(echo, [{"name": "a", "input": 1, "evaluator": Buggy()}])


def test_an_evaluator_that_needs_no_context_is_called_without_one_and_none_is_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agent_eval import _local
    from agent_eval_contains import contains
    from agent_eval_exact import exact_match

    made: list[Any] = []
    real = _local.make_context
    monkeypatch.setattr(_local, "make_context", lambda *values: made.append(values) or real(*values))
    given: list[tuple[Any, ...]] = []

    class Quiet:
        inline = True
        needs_context = False

        def __call__(self, output: Any, *rest: Any) -> bool:
            given.append(rest)
            return True

    def run(evaluator: Any, expected: Any = None) -> str:
        suite = EvalSuite(lambda question: "the answer", [Case("c", "q", expected=expected, evaluators=[evaluator])])
        (result,) = suite.run().cases
        return result.status

    assert run(Quiet()) == "passed"
    assert given == [()] and made == []
    assert run(contains("answer")) == "passed" and made == []
    assert run(exact_match("the answer")) == "passed" and made == []
    assert run(exact_match(), expected="the answer") == "passed"  # its expected answer comes from ctx
    assert len(made) == 1


def test_a_needs_context_that_raises_or_is_not_false_gives_the_evaluator_its_context() -> None:
    from agent_eval._calling import Call

    seen: list[int] = []

    class Raising:
        inline = True

        @property
        def needs_context(self) -> bool:
            raise RuntimeError("no")

        def __call__(self, output: Any, ctx: Any = None) -> bool:
            seen.append(ctx is not None)
            return True

    class Odd(Raising):
        needs_context = None  # type: ignore[assignment]

    assert Call.of(Raising()).with_context and Call.of(Odd()).with_context
    suite = EvalSuite(lambda question: "answer", [Case("c", "q", evaluators=[Raising(), Odd()])])
    (result,) = suite.run().cases
    assert result.status == "passed" and seen == [True, True]
