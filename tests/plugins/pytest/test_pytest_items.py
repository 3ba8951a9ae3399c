"""Suite files as pytest items: one per case, with pytest's selection, reruns, JUnit and reports per case."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable

import pytest

pytest_plugins = ["pytester"]

Calls = Callable[[], list[str]]
ONE_CASE = "cases:\n  - {name: a, input: hi, evaluators: [contains: hi]}\n"


def test_each_case_is_one_item_with_its_own_outcome(demo: pytest.Pytester, agent_calls: Calls) -> None:
    result = demo.runpytest("-v")
    result.stdout.fnmatch_lines(
        [
            "eval_demo.yaml::greets user PASSED*",
            "eval_demo.yaml::adds FAILED*",
            "eval_demo.yaml::explodes FAILED*",
            "eval_demo.yaml::not graded SKIPPED (no evaluators)*",
        ]
    )
    result.assert_outcomes(passed=1, failed=2, skipped=1)
    assert sorted(agent_calls()) == ["Say hello", "Say hello", "What is 2 + 2?", "boom"]  # each case once


def test_dash_k_selects_cases_and_only_those_call_the_agent(demo: pytest.Pytester, agent_calls: Calls) -> None:
    result = demo.runpytest("-v", "-k", "greets or adds")
    result.stdout.fnmatch_lines(["eval_demo.yaml::greets user PASSED*", "eval_demo.yaml::adds FAILED*"])
    result.assert_outcomes(passed=1, failed=1, deselected=2)
    assert sorted(agent_calls()) == ["Say hello", "What is 2 + 2?"]


def test_a_node_id_runs_that_case_alone(demo: pytest.Pytester, agent_calls: Calls) -> None:
    result = demo.runpytest("-v", "eval_demo.yaml::greets user")
    result.assert_outcomes(passed=1)
    assert agent_calls() == ["Say hello"]


def test_last_failed_reruns_only_the_failed_cases(demo: pytest.Pytester, agent_calls: Calls) -> None:
    demo.runpytest().assert_outcomes(passed=1, failed=2, skipped=1)
    agent_calls()
    result = demo.runpytest("-v", "--lf")
    result.stdout.fnmatch_lines(["eval_demo.yaml::adds FAILED*", "eval_demo.yaml::explodes FAILED*"])
    result.assert_outcomes(failed=2)
    assert sorted(agent_calls()) == ["What is 2 + 2?", "boom"]


def test_junit_has_one_testcase_per_case_with_the_reason(demo: pytest.Pytester) -> None:
    demo.runpytest("--junitxml=junit.xml")
    root = ET.parse(demo.path / "junit.xml").getroot()
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert list(cases) == ["greets user", "adds", "explodes", "not graded"]
    assert {case.get("classname") for case in cases.values()} == {"eval_demo.yaml"}
    assert len(cases["greets user"]) == 0
    failure = cases["adds"].find("failure")
    assert failure is not None
    assert failure.get("message", "").startswith("failed · score 0.00 · exact_match: ")
    assert "FAIL  contains" in (failure.text or "")
    error = cases["explodes"].find("failure")
    assert error is not None
    assert error.get("message") == "error · ValueError: the agent blew up"
    skipped = cases["not graded"].find("skipped")
    assert skipped is not None
    assert skipped.get("message") == "no evaluators"


def test_a_skipped_case_is_a_pytest_skip_with_its_reason_at_its_line(demo: pytest.Pytester) -> None:
    result = demo.runpytest("-rs", "-k", "graded")
    result.stdout.fnmatch_lines(["SKIPPED [[]1[]] eval_demo.yaml:16: no evaluators"])
    result.assert_outcomes(skipped=1, deselected=3)


def test_an_evaluator_that_cannot_judge_skips_with_its_reason(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable in ("AGENT_EVAL_JUDGE_BASE_URL", "AGENT_EVAL_JUDGE_MODEL", "AGENT_EVAL_JUDGE_API_KEY", "GROQ_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    pytester.makefile(
        ".yaml",
        eval_judged="agent: agents:echo\ncases:\n  - {name: polite, input: hi, evaluators: [llm_judge: is polite]}\n",
    )
    pytester.makepyfile(agents="def echo(text):\n    return text\n")
    result = pytester.runpytest("-rs")
    result.stdout.fnmatch_lines(["SKIPPED [[]1[]] eval_judged.yaml:3: *AGENT_EVAL_JUDGE_BASE_URL*"])
    result.assert_outcomes(skipped=1)


def test_a_failure_shows_status_score_reason_and_every_evaluation_without_a_traceback(demo: pytest.Pytester) -> None:
    result = demo.runpytest("-k", "adds")
    result.stdout.fnmatch_lines(
        [
            "*_ adds _*",
            "failed · score 0.00 · exact_match: differs at character 1: expected '4' got '5'; contains: missing: '4'",
            "case 'adds' (eval_demo.yaml:7)",
            "input: What is 2 + 2?",
            "output: 5",
            "expected: 4",
            "evaluations:",
            "  FAIL  exact_match  score 0.00  differs at character 1: expected '4' got '5'",
            "  FAIL  contains     score 0.00  missing: '4'",
            "*short test summary*",
            "FAILED eval_demo.yaml::adds - failed · score 0.00 · *",
        ]
    )
    text = result.stdout.str()
    assert "Traceback" not in text
    assert "agent_eval_pytest" not in text
    assert ".py:" not in text  # no frame of any Python file


def test_an_agent_error_shows_the_error_and_no_plugin_frame(demo: pytest.Pytester) -> None:
    result = demo.runpytest("-k", "explodes")
    result.stdout.fnmatch_lines(
        ["error · ValueError: the agent blew up", "case 'explodes' (eval_demo.yaml:13)", "input: boom", "error: *"]
    )
    assert "agent_eval_pytest" not in result.stdout.str()


def test_a_timed_out_case_fails_with_the_timeout(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", eval_slow="agent: agents:slow\ntimeout: 0.2\n" + ONE_CASE)
    pytester.makepyfile(agents="import time\n\ndef slow(text):\n    time.sleep(2)\n    return text\n")
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["error · timed out after 0.2 s"])
    result.assert_outcomes(failed=1)


def test_a_suite_error_is_a_collection_error_naming_file_and_line(pytester: pytest.Pytester) -> None:
    pytester.makefile(
        ".yaml",
        eval_bad="""\
        agent: agents:agent
        cases:
          - name: greets
            input: hi
            evaluators: [contain: hi]
          - name: greets
            input: hello
        """,
    )
    pytester.makepyfile(agents="def agent(text):\n    return text\n")
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting eval_bad.yaml*",
            "eval_bad.yaml:5:*: case 'greets': Unknown evaluator 'contain'. Did you mean 'contains'?*",
            "eval_bad.yaml:6:*duplicate*",
            "*short test summary*",
            "ERROR eval_bad.yaml*",
        ]
    )
    assert "Traceback" not in result.stdout.str()
    result.assert_outcomes(errors=1)


def test_a_suite_without_an_agent_is_a_collection_error(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", eval_x=ONE_CASE)
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(
        ["eval_x.yaml: no agent to run; pass --agent-eval-agent MODULE:ATTR or set `agent:` in the suite"]
    )
    result.assert_outcomes(errors=1)


def test_an_agent_that_cannot_be_imported_is_a_collection_error(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", eval_x="agent: nowhere:agent\n" + ONE_CASE)
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["agent 'nowhere:agent' (from eval_x.yaml): no module named 'nowhere'*"])
    assert "Traceback" not in result.stdout.str()
    result.assert_outcomes(errors=1)


def test_the_agent_option_wins_over_the_suites_agent(demo: pytest.Pytester) -> None:
    demo.makepyfile(other="def agent(text):\n    return 'hello 4 x'\n")
    result = demo.runpytest("--agent-eval-agent", "other:agent", "-k", "not graded")
    result.assert_outcomes(passed=2, failed=1, deselected=1)  # exact_match still wants "4"


def test_default_globs_collect_yaml_json_and_dot_eval_files_only(pytester: pytest.Pytester) -> None:
    case = '[{"name": "a", "input": "hi", "evaluators": [{"contains": "hi"}]}]'
    pytester.makefile(".json", eval_one=case)
    pytester.makefile(".eval.yaml", two=case)
    pytester.makefile(".yaml", eval_three=case, other=case)
    pytester.makefile(".yml", eval_four=case)
    pytester.makepyfile(agents="def agent(text):\n    return text\n")
    result = pytester.runpytest("--collect-only", "-q", "--agent-eval-agent", "agents:agent")
    result.stdout.fnmatch_lines(["eval_one.json::a", "eval_three.yaml::a", "two.eval.yaml::a", "3 tests collected*"])


def test_the_ini_option_replaces_the_globs(pytester: pytest.Pytester) -> None:
    case = '[{"name": "a", "input": "hi", "evaluators": [{"contains": "hi"}]}]'
    pytester.makefile(".yaml", eval_one=case)
    pytester.mkdir("evals")
    (pytester.path / "evals" / "support.yml").write_text(case, encoding="utf-8")
    pytester.makeini("[pytest]\nagent_eval_suites = evals/*.yml\n")
    pytester.makepyfile(agents="def agent(text):\n    return text\n")
    result = pytester.runpytest("-v", "--agent-eval-agent", "agents:agent")
    result.stdout.fnmatch_lines(["evals/support.yml::a PASSED*"])
    result.assert_outcomes(passed=1)


def test_a_suite_named_on_the_command_line_is_collected_whatever_its_name(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", warranty='[{"name": "a", "input": "hi", "evaluators": [{"contains": "hi"}]}]')
    pytester.makepyfile(agents="def agent(text):\n    return text\n")
    assert pytester.runpytest("--agent-eval-agent", "agents:agent").ret == pytest.ExitCode.NO_TESTS_COLLECTED
    pytester.runpytest("warranty.yaml", "--agent-eval-agent", "agents:agent").assert_outcomes(passed=1)


def test_python_tests_run_beside_suite_files(demo: pytest.Pytester) -> None:
    demo.makepyfile(test_user_plain="def test_plain():\n    assert True\n")
    demo.runpytest("-k", "plain or greets").assert_outcomes(passed=2, deselected=3)


def test_dash_p_no_agent_eval_turns_the_plugin_off(demo: pytest.Pytester, agent_calls: Calls) -> None:
    result = demo.runpytest("-p", "no:agent_eval")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert agent_calls() == []


def test_options_are_listed_in_help(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(
        [
            "agent-eval suite files:",
            "*--agent-eval-agent=MODULE:ATTR*",
            "*--agent-eval-concurrency=N*",
            "*--agent-eval-repeat=N*",
            "*agent_eval_suites (args):*",
        ]
    )


@pytest.mark.parametrize("value", ["0", "-2", "many"])
def test_a_concurrency_below_one_is_a_usage_error(pytester: pytest.Pytester, value: str) -> None:
    result = pytester.runpytest(f"--agent-eval-concurrency={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--agent-eval-concurrency: must be a whole number of at least 1, got*"])
