"""The ``agent_eval_run`` fixture and ``assert_passes`` in Python tests, run by pytest as a user would."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]


def test_the_fixture_runs_python_cases_and_returns_the_report_printing_nothing(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_user_agent="""
        from agent_eval import Case, EvalReport
        from agent_eval.evaluators import contains

        def agent(question):
            return "Hi there!" if question == "Say hello" else "no idea"

        def test_report(agent_eval_run, capsys):
            report = agent_eval_run(agent, [
                {"name": "greets", "input": "Say hello", "evaluator": contains(["hi"])},
                Case("adds", "What is 2 + 2?", evaluators=[contains("4")]),
            ])
            assert isinstance(report, EvalReport)
            assert [(r.name, r.status) for r in report.cases] == [("greets", "passed"), ("adds", "failed")]
            assert capsys.readouterr() == ("", "")
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_assert_passes_fails_the_test_naming_each_case_and_its_reason(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_user_agent="""
        from agent_eval import assert_passes
        from agent_eval.evaluators import contains

        def agent(question):
            if question == "boom":
                raise ValueError("the agent blew up")
            return "no idea"

        def test_agent(agent_eval_run):
            report = agent_eval_run(agent, [
                {"name": "adds", "input": "What is 2 + 2?", "evaluator": contains("4")},
                {"name": "explodes", "input": "boom", "evaluator": contains("x")},
            ])
            assert_passes(report)
        """
    )
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(
        [
            ">       assert_passes(report)",
            "E       AssertionError: pass rate 0.0% is below 100.0%: 0 passed, 1 failed, 1 error, 0 skipped",
            "E         'adds': failed, score 0.00: missing: '4'",
            "E         'explodes': error: ValueError: the agent blew up",
            "*short test summary*",
            "FAILED test_user_agent.py::test_agent - AssertionError: pass rate 0.0%*",
        ]
    )
    assert "_asserts.py" not in result.stdout.str()  # the test's line is shown, not the helper's
    result.assert_outcomes(failed=1)


def test_the_fixture_runs_a_suite_file_with_its_own_agent_or_a_reference(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".yaml",
        suite="""
        agent: agents:polite
        concurrency: 2
        cases:
          - {name: greets, input: hi, evaluators: [contains: hello]}
        """,
    )
    pytester.makepyfile(
        agents="def polite(text):\n    return 'hello'\n\ndef rude(text):\n    return 'go away'\n",
        test_user_suite="""
        from pathlib import Path
        from agent_eval import assert_passes

        def test_suite_agent(agent_eval_run):
            assert_passes(agent_eval_run(None, "suite.yaml"))

        def test_reference(agent_eval_run):
            report = agent_eval_run("agents:rude", Path("suite.yaml"))
            assert report.cases[0].reason == "missing: 'hello'"
            assert_passes(report, min_pass_rate=0.0)
        """,
    )
    pytester.runpytest().assert_outcomes(passed=2)


def test_run_options_reach_the_run_and_the_command_line_gives_defaults(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_user_options="""
        import threading
        from agent_eval import assert_passes

        MEET = threading.Barrier(3, timeout=10)

        def agent(question):
            MEET.wait()
            return "ok"

        CASES = [{"name": str(n), "input": str(n), "evaluators": [lambda output: output == "ok"]} for n in range(3)]

        def test_concurrency_from_the_command_line(agent_eval_run):
            assert_passes(agent_eval_run(agent, CASES))

        def test_timeout(agent_eval_run):
            report = agent_eval_run(lambda question: MEET.wait() or "ok", CASES[:1], timeout=0.2, concurrency=1)
            assert report.cases[0].error == "timed out after 0.2 s"
            MEET.reset()
        """
    )
    pytester.runpytest("--agent-eval-concurrency", "3").assert_outcomes(passed=2)


def test_a_broken_suite_file_raises_its_problems(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", suite="cases:\n  - {name: a, input: hi, evaluators: [contain: hi]}\n")
    pytester.makepyfile(
        test_user_broken="""
        def test_broken(agent_eval_run):
            agent_eval_run(lambda text: text, "suite.yaml")
        """
    )
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(
        [
            '>       agent_eval_run(lambda text: text, "suite.yaml")',
            "E       agent_eval._errors.SuiteError: suite.yaml:2:*Unknown evaluator 'contain'*",
            "test_user_broken.py:2: SuiteError",
        ]
    )
    assert "_suite.py" not in result.stdout.str()


def test_without_an_agent_the_fixture_says_what_to_pass(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", suite="cases:\n  - {name: a, input: hi, evaluators: [contains: hi]}\n")
    pytester.makepyfile(
        test_user_no_agent="""
        import pytest

        def test_no_agent(agent_eval_run):
            with pytest.raises(ValueError, match="agent_eval_run: no agent; pass a callable or 'module:attr'"):
                agent_eval_run(None, "suite.yaml")
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_the_fixture_works_in_an_async_test(pytester: pytest.Pytester) -> None:
    pytest.importorskip("anyio")
    pytester.makepyfile(
        test_user_async="""
        import pytest
        from agent_eval import assert_passes

        async def agent(question):
            return "hello"

        @pytest.mark.anyio
        async def test_async(agent_eval_run):
            assert_passes(agent_eval_run(agent, [{"name": "a", "input": "hi", "evaluators": [lambda o: o == "hello"]}]))
        """
    )
    pytester.runpytest("-p", "anyio").assert_outcomes(passed=1)
