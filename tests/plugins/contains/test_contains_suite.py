"""contains and matches through EvalSuite, suite files and the agent-eval command."""

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
from agent_eval_contains import contains, matches, plugin

#: Whatever the caller's environment says, the installed plugins load.
PLUGINS_ON = {"AGENT_EVAL_DISABLE_PLUGIN_AUTOLOAD": "", "AGENT_EVAL_DISABLE_PLUGINS": ""}

ANSWERS = {
    "good": "Our warranty is 2 years, extendable to 4.",
    "incomplete": "Our warranty lasts 2 years.",
    "upsell": "Our warranty is 2 years, extendable to 4. Call now!",
    "hello": "Hi there!",
}


def support_agent(question: str) -> str:
    return ANSWERS[question]


def test_seed_000_demo_scores_one_half_and_fails_on_the_upsell() -> None:
    criteria = contains(["2 years", "extendable"], forbidden=["call now"])
    cases = [Case(name, name, evaluator=criteria) for name in ("good", "incomplete", "upsell")]
    report = EvalSuite(support_agent, cases).run(print=False)
    good, incomplete, upsell = report.cases
    assert (good.status, good.score) == ("passed", 1.0)
    assert (incomplete.status, incomplete.score, incomplete.reason) == ("failed", 0.5, "missing: 'extendable'")
    assert (upsell.status, upsell.reason) == ("failed", "forbidden phrase found: 'call now'")
    assert (report.passed, report.failed) == (1, 2)


def test_seed_002_greets_user_with_any_keyword() -> None:
    cases = [{"name": "greets user", "input": "hello", "evaluator": contains(["hello", "hi"], match_all=False)}]
    report = EvalSuite(support_agent, cases).run(print=False)
    assert report.cases[0].passed
    assert report.cases[0].reason == "found: 'hi'"


def test_seed_002_must_contain_all_keywords() -> None:
    cases = [{"name": "errors", "input": "incomplete", "evaluator": contains(["error", "failed"])}]
    report = EvalSuite(support_agent, cases).run(print=False)
    assert (report.cases[0].status, report.cases[0].score) == ("failed", 0.0)
    assert report.cases[0].reason == "missing: 'error', 'failed'"


def test_matches_runs_in_a_suite() -> None:
    cases = [Case("years", "good", evaluator=matches(r"\b\d+ years\b"))]
    report = EvalSuite(support_agent, cases).run(print=False)
    assert report.cases[0].passed
    assert report.cases[0].reason == r"'\b\d+ years\b' matched '2 years'"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def test_suite_file_builds_contains_from_keyword_arguments_and_bare_values(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "suite.yaml",
        """
        cases:
          - name: greets user
            input: hello
            evaluators:
              - contains: {keywords: [hello, hi], match_all: false}
          - name: warranty
            input: incomplete
            evaluators:
              - contains: {keywords: [2 years, extendable], forbidden: [call now]}
              - contains: 2 years
              - matches: '\\d years'
        """,
    )
    suite = load_suite(path, registry=registry_of(plugin))
    report = EvalSuite(support_agent, suite.cases).run(print=False)
    greets, warranty = report.cases
    assert greets.passed
    assert [e.name for e in warranty.evaluations] == ["contains", "contains", "matches"]
    assert [e.score for e in warranty.evaluations] == [0.5, 1.0, 1.0]
    assert warranty.reason == "contains: missing: 'extendable'"


def test_a_bare_string_in_a_suite_file_is_one_keyword(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "suite.yaml",
        """
        cases:
          - {name: one, input: hello, evaluators: [contains: hello]}
        """,
    )
    suite = load_suite(path, registry=registry_of(plugin))
    report = EvalSuite(support_agent, suite.cases).run(print=False)
    assert report.cases[0].reason == "missing: 'hello'"


def test_invalid_regular_expression_is_a_suite_error_naming_file_and_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "suite.yaml",
        """
        cases:
          - name: adds
            input: good
            evaluators:
              - matches: '('
        """,
    )
    with pytest.raises(SuiteError) as caught:
        load_suite(path, registry=registry_of(plugin))
    assert caught.value.problems == [
        f"{path}:5:9: case 'adds': matches: invalid regular expression '(': "
        "missing ), unterminated subpattern at position 0"
    ]


def test_bad_keywords_are_a_suite_error(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "suite.yaml",
        """
        cases:
          - name: adds
            input: good
            evaluators:
              - contains: {keywords: [4, five]}
        """,
    )
    with pytest.raises(SuiteError) as caught:
        load_suite(path, registry=registry_of(plugin))
    (problem,) = caught.value.problems
    assert problem.startswith(f"{path}:5:9: case 'adds': contains: ")
    assert "4" in problem


def run_agent_eval(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "agents.py").write_text(
        f"ANSWERS = {ANSWERS!r}\n\ndef agent(question):\n    return ANSWERS[question]\n", encoding="utf-8"
    )
    return run_cli(*args, "--no-history", cwd=tmp_path, env=PLUGINS_ON)


@pytest.mark.slow
def test_cli_runs_a_contains_suite_and_reports_scores(tmp_path: Path) -> None:
    write(
        tmp_path,
        "suite.yaml",
        """
        cases:
          - name: good
            input: good
            evaluators: [contains: {keywords: [2 years, extendable], forbidden: [call now]}]
          - name: incomplete
            input: incomplete
            evaluators: [contains: {keywords: [2 years, extendable], forbidden: [call now]}]
        """,
    )
    done = run_agent_eval(
        tmp_path, "run", "suite.yaml", "--agent", "agents:agent", "--json", "out.json", "--no-history"
    )
    assert done.returncode == 1, done.stderr
    report = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert [(c["status"], c["score"]) for c in report["cases"]] == [("passed", 1.0), ("failed", 0.5)]


@pytest.mark.slow
def test_cli_rejects_an_invalid_regular_expression_before_running(tmp_path: Path) -> None:
    write(
        tmp_path,
        "suite.yaml",
        """
        cases:
          - name: adds
            input: good
            evaluators:
              - matches: '(unclosed'
        """,
    )
    done = run_agent_eval(tmp_path, "run", "suite.yaml", "--agent", "agents:agent")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "suite.yaml:5:9" in lines[0]
    assert "invalid regular expression '(unclosed'" in lines[0]
    assert "Traceback" not in done.stderr


def test_registry_lists_both_evaluators_with_descriptions_and_defaults() -> None:
    registry = registry_of(plugin)
    assert registry.names() == ["contains", "matches"]
    listed = registry.get("contains").to_dict()
    assert listed["description"].startswith("Passes when the output contains the keywords")
    defaults = {p["name"]: p.get("default") for p in listed["parameters"]}
    assert defaults == {
        "keywords": None,
        "match_all": True,
        "ignore_case": True,
        "forbidden": [],
        "whole_words": False,
        "collapse_whitespace": False,
        "casefold": False,
    }
    assert [p["name"] for p in registry.get("matches").to_dict()["parameters"]] == ["pattern", "ignore_case"]
