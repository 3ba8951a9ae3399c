"""The trajectory evaluators in suite files: built from YAML, and mistakes reported with file and line."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import agent_eval
import agent_eval_trajectory.plugin
from agent_eval import SuiteError

README_SUITE = """
cases:
  - name: looks up the warranty
    input: How long is the kettle's warranty?
    evaluators:
      - tool_called: {name: get_warranty, args: {product: kettle}}
      - trajectory_match: {expected: [{name: search, args: {q: kettle}}, {name: get_warranty}], mode: superset, args: ignore}
      - max_steps: 5
"""  # noqa: E501 (the README's example, as it is written there)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def load(path: Path) -> agent_eval.SuiteFile:
    return agent_eval.load_suite(path, registry=agent_eval.registry_of(agent_eval_trajectory.plugin))


def problems(tmp_path: Path, text: str) -> list[str]:
    with pytest.raises(SuiteError) as caught:
        load(write(tmp_path, text))
    return list(caught.value.problems)


def test_the_readme_suite_builds_its_three_evaluators(tmp_path: Path) -> None:
    (case,) = load(write(tmp_path, README_SUITE)).cases
    built = [type(evaluator).__name__ for evaluator in case.evaluators]
    assert built == ["ToolCalled", "TrajectoryMatch", "MaxSteps"]
    called, matched, steps = case.evaluators
    assert (called.tool, called.args, called.args_match) == ("get_warranty", {"product": "kettle"}, "superset")
    assert [(call.name, call.args) for call in matched.expected] == [
        ("search", {"q": "kettle"}),
        ("get_warranty", None),
    ]
    assert (matched.mode, matched.args) == ("superset", "ignore")
    assert steps.limit == 5


def test_bare_values_are_the_first_argument(tmp_path: Path) -> None:
    suite = """
    cases:
      - name: budgets
        input: hi
        evaluators:
          [tool_not_called: delete_user, max_latency: 2.5, max_tokens: 4000, max_cost: 0.01, tool_called: search]
    """
    (case,) = load(write(tmp_path, suite)).cases
    assert [(type(e).__name__, getattr(e, "tool", getattr(e, "limit", None))) for e in case.evaluators] == [
        ("ToolNotCalled", "delete_user"),
        ("MaxLatency", 2.5),
        ("MaxTokens", 4000),
        ("MaxCost", 0.01),
        ("ToolCalled", "search"),
    ]


def test_a_negative_step_budget_is_a_problem_at_its_line(tmp_path: Path) -> None:
    found = problems(
        tmp_path,
        """
        cases:
          - name: few steps
            input: hi
            evaluators:
              - max_steps: -1
        """,
    )
    path = tmp_path / "suite.yaml"
    assert found == [
        f"{path}:5:9: case 'few steps': max_steps: n must be at least 0 (the most tool calls allowed), got -1"
    ]


def test_every_invalid_option_of_a_suite_is_reported_with_its_line(tmp_path: Path) -> None:
    found = problems(
        tmp_path,
        """
        cases:
          - name: order
            input: hi
            evaluators:
              - trajectory_match: {expected: [{name: search}], mode: strcit}
              - trajectory_match: {expected: [{args: {q: kettle}}]}
              - tool_called: {name: search, times: 2, min_times: 3}
          - name: budgets
            input: hi
            evaluators:
              - max_latency: .nan
              - max_cost: true
              - trajectory_match: {expected: [{name: search}], args: {q: kettle}}
        """,
    )
    path = tmp_path / "suite.yaml"
    assert [problem.split(": ", 1)[0] for problem in found] == [
        f"{path}:5:9",
        f"{path}:6:9",
        f"{path}:7:9",
        f"{path}:11:9",
        f"{path}:12:9",
        f"{path}:13:9",
    ]
    assert "trajectory_match: unknown mode 'strcit'. Did you mean 'strict'?" in found[0]
    assert "case 'order': trajectory_match: expected call 1 has no name" in found[1]
    assert "tool_called: times=2 asks for exactly that many calls" in found[2]
    assert "case 'budgets': max_latency: seconds must be a finite number" in found[3]
    assert "max_cost: usd must be a number (the most US dollars allowed), got True" in found[4]
    assert "trajectory_match: args must be one of exact, ignore, subset, superset" in found[5]


def test_an_unknown_option_names_the_one_meant(tmp_path: Path) -> None:
    (problem,) = problems(
        tmp_path,
        """
        cases:
          - name: called
            input: hi
            evaluators:
              - tool_called: {name: search, arguments: {q: kettle}}
        """,
    )
    where = tmp_path / "suite.yaml"
    assert problem.startswith(f"{where}:5:9: case 'called': tool_called: unknown argument 'arguments'")


def test_the_registry_lists_the_seven_evaluators_with_their_options() -> None:
    registry = agent_eval.registry_of(agent_eval_trajectory.plugin)
    assert registry.names() == [
        "max_cost",
        "max_latency",
        "max_steps",
        "max_tokens",
        "tool_called",
        "tool_not_called",
        "trajectory_match",
    ]
    listed = registry.get("tool_called").to_dict()
    defaults = {p["name"]: p.get("default") for p in listed["parameters"]}
    assert defaults == {
        "name": None,
        "args": None,
        "args_match": "superset",
        "times": None,
        "min_times": 1,
        "max_times": None,
    }
    matched = {p["name"]: p.get("default") for p in registry.get("trajectory_match").to_dict()["parameters"]}
    assert matched == {"expected": None, "mode": "strict", "args": "exact"}
    assert registry.get("max_steps").to_dict()["description"] == "Passes when the agent made at most `n` tool calls."
