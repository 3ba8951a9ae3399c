"""The trajectory evaluators through EvalSuite, on agents that return an AgentRun.

These need the core to hand evaluators the agent's run (``ctx.run``, ``ctx.tool_calls``,
``ctx.usage``, ``ctx.cost_usd``), as "Agent runs (core)" in the design says.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import agent_eval
import agent_eval_trajectory.plugin
from agent_eval import AgentRun, Case, EvalSuite, ToolCall, Usage
from agent_eval_trajectory import max_cost, max_steps, max_tokens, tool_called, tool_not_called, trajectory_match

RUNS = {
    "warranty": AgentRun(
        "The kettle has a 2-year warranty.",
        tool_calls=[
            ToolCall("search", {"q": "kettle"}, result=["kettle-1"]),
            ToolCall("get_warranty", {"product": "kettle"}, result="2 years"),
        ],
        usage=Usage(input_tokens=900, output_tokens=100),
        cost_usd=0.002,
    ),
    "wanders": AgentRun(
        "I could not find it.",
        tool_calls=[
            ToolCall("search", {"q": "kettel"}),
            ToolCall("delete_user", {"id": 7}, error="PermissionError: not allowed"),
        ],
    ),
}


def agent(question: str) -> AgentRun:
    return RUNS[question]


def test_a_suite_grades_the_tool_calls_the_agent_returned() -> None:
    checks: list[Any] = [
        tool_called("get_warranty", args={"product": "kettle"}),
        trajectory_match([{"name": "search", "args": {"q": "kettle"}}, {"name": "get_warranty"}], mode="superset"),
        tool_not_called("delete_user"),
        max_steps(3),
        max_tokens(2000),
        max_cost(0.01),
    ]
    cases = [Case(name, name, evaluators=checks) for name in RUNS]
    report = EvalSuite(agent, cases).run(print=False)
    warranty, wanders = report.cases
    assert warranty.status == "passed", warranty.reason
    assert warranty.output == "The kettle has a 2-year warranty."
    assert [e.status for e in wanders.evaluations] == ["failed", "failed", "failed", "passed", "skipped", "skipped"]
    assert wanders.reason is not None
    assert "tool_not_called: delete_user was called 1 time" in wanders.reason
    assert "trajectory_match: missing call 1 of 2" in wanders.reason


def test_a_suite_file_runs_the_readme_example(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        textwrap.dedent(
            """
            cases:
              - name: looks up the warranty
                input: warranty
                evaluators:
                  - tool_called: {name: get_warranty, args: {product: kettle}}
                  - trajectory_match:
                      expected: [{name: search, args: {q: kettle}}, {name: get_warranty}]
                      mode: superset
                      args: ignore
                  - max_steps: 5
            """
        ),
        encoding="utf-8",
    )
    suite = agent_eval.load_suite(path, registry=agent_eval.registry_of(agent_eval_trajectory.plugin))
    report = EvalSuite(agent, suite.cases).run(print=False)
    (case,) = report.cases
    assert case.status == "passed", case.reason
    assert [e.score for e in case.evaluations] == [1.0, 1.0, 1.0]
