"""exact_match through EvalSuite, suite files and the agent-eval command; seed 002's basic usage."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest
from helpers import run_cli

from agent_eval import Case, EvalSuite, SuiteError
from agent_eval._plugins import registry_of
from agent_eval._suite import load_suite
from agent_eval_exact import exact_match, plugin

#: Whatever the caller's environment says, the installed plugins load.
PLUGINS_ON = {"AGENT_EVAL_DISABLE_PLUGIN_AUTOLOAD": "", "AGENT_EVAL_DISABLE_PLUGINS": ""}

ANSWERS = {"Say hello": "Hello there!", "What is 2 + 2?": "4", "Is it on?": "Yes"}


def agent(question: str) -> str:
    return ANSWERS[question]


def test_seed_002_basic_usage_greets_user_and_returns_correct_answer() -> None:
    contains = pytest.importorskip("agent_eval_contains").contains
    suite = EvalSuite(
        agent,
        [
            {"name": "greets user", "input": "Say hello", "evaluator": contains(["hello", "hi"], match_all=False)},
            {"name": "returns correct answer", "input": "What is 2 + 2?", "evaluator": exact_match("4")},
        ],
    )
    report = suite.run(print=False)
    assert (report.passed, report.failed, report.total, report.pass_rate) == (2, 0, 2, 1.0)
    assert [case.output for case in report.cases] == ["Hello there!", "4"]


def test_seed_002_exact_match_is_case_sensitive_unless_told() -> None:
    cases = [
        Case("case-sensitive", "Is it on?", evaluator=exact_match("yes")),
        Case("case-insensitive", "Is it on?", evaluator=exact_match("Yes", ignore_case=True)),
    ]
    report = EvalSuite(agent, cases).run(print=False)
    assert [case.status for case in report.cases] == ["failed", "passed"]
    assert report.cases[0].reason == "differs at character 1: expected 'yes' got 'Yes'"


def test_eval_suite_rejects_exact_match_on_a_case_without_expected() -> None:
    with pytest.raises(SuiteError, match="case 'adds': exact_match: needs an expected answer"):
        EvalSuite(agent, [Case("adds", "What is 2 + 2?", evaluator=exact_match())])


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def test_suite_file_forms_of_exact_match(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        cases:
          - name: bare name
            input: What is 2 + 2?
            expected: "4"
            evaluators: [exact_match]
          - name: empty mapping
            input: What is 2 + 2?
            expected: 4
            evaluators: [exact_match: {}]
          - name: bare value
            input: What is 2 + 2?
            evaluators: [exact_match: "4"]
          - name: options
            input: Is it on?
            evaluators: [exact_match: {expected: "yes", ignore_case: true}]
        """,
    )
    suite = load_suite(path, registry=registry_of(plugin))
    report = EvalSuite(agent, suite.cases).run(print=False)
    assert [(case.name, case.status) for case in report.cases] == [
        ("bare name", "passed"),
        ("empty mapping", "passed"),
        ("bare value", "passed"),
        ("options", "passed"),
    ]


def test_exact_match_without_expected_is_a_suite_error_naming_file_and_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        cases:
          - name: has one
            input: What is 2 + 2?
            expected: "4"
            evaluators: [exact_match]
          - name: adds
            input: What is 2 + 2?
            evaluators:
              - exact_match: {ignore_case: true}
        """,
    )
    with pytest.raises(SuiteError) as caught:
        load_suite(path, registry=registry_of(plugin))
    (problem,) = caught.value.problems
    assert problem.startswith(f"{path}:6:5: case 'adds': exact_match: needs an expected answer")


def test_a_bad_option_is_a_suite_error(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        cases:
          - name: adds
            input: What is 2 + 2?
            evaluators:
              - exact_match: {expected: "4", strip: "no"}
        """,
    )
    with pytest.raises(SuiteError) as caught:
        load_suite(path, registry=registry_of(plugin))
    assert caught.value.problems == [f"{path}:5:9: case 'adds': exact_match: strip must be true or false, got 'no'"]


def test_registry_lists_exact_match_with_its_defaults() -> None:
    registry = registry_of(plugin)
    assert registry.names() == ["exact_match"]
    listed = registry.get("exact_match").to_dict()
    assert listed["description"] == "Passes when the output equals `expected` (default: the case's expected answer)."
    defaults = {p["name"]: p.get("default") for p in listed["parameters"]}
    assert defaults == {"expected": None, "ignore_case": False, "strip": True}


def run_agent_eval(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "agents.py").write_text(
        f"ANSWERS = {ANSWERS!r}\n\ndef agent(question):\n    return ANSWERS[question]\n", encoding="utf-8"
    )
    return run_cli(*args, "--no-history", cwd=tmp_path, env=PLUGINS_ON)


@pytest.mark.slow
def test_cli_exits_2_on_exact_match_without_expected(tmp_path: Path) -> None:
    write(
        tmp_path,
        """
        cases:
          - name: adds
            input: What is 2 + 2?
            evaluators: [exact_match]
        """,
    )
    done = run_agent_eval(tmp_path, "run", "suite.yaml", "--agent", "agents:agent")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "suite.yaml:2:5: case 'adds': exact_match: needs an expected answer" in lines[0]
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_cli_reports_where_the_answer_differs(tmp_path: Path) -> None:
    write(
        tmp_path,
        """
        cases:
          - {name: on, input: "Is it on?", expected: "yes", evaluators: [exact_match]}
          - {name: adds, input: "What is 2 + 2?", expected: 4, evaluators: [exact_match]}
        """,
    )
    done = run_agent_eval(
        tmp_path, "run", "suite.yaml", "--agent", "agents:agent", "--json", "out.json", "--no-history"
    )
    assert done.returncode == 1, done.stderr
    cases = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["cases"]
    assert [(c["status"], c["reason"]) for c in cases] == [
        ("failed", "differs at character 1: expected 'yes' got 'Yes'"),
        ("passed", "exact match"),
    ]
