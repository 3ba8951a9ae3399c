"""Executors are plugins: register_executors, the core's own `local`, --executor and the suite's executor key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_cli, write_plugin

import agent_eval
from agent_eval import Case, EvalSuite, RunPlan, hookimpl

IN_ORDER = '''
import json, os
from agent_eval import EvalSuite, hookimpl


class InOrder:
    """Run the cases one at a time, in this process, and say what was asked of it."""

    def __init__(self, note="none", reverse="no"):
        self.note = note
        self.reverse = reverse == "yes"

    async def execute(self, plan, emit):
        with open("executor.json", "w") as stream:
            json.dump({"note": self.note, "suite_path": plan.suite_path, "agent_reference": plan.agent_reference,
                       "positions": list(plan.positions), "repeat": plan.settings.repeat}, stream)
        order = list(enumerate(plan.cases))
        for index, case in reversed(order) if self.reverse else order:
            report = await EvalSuite(plan.agent, [case]).arun(print=False, repeat=plan.settings.repeat)
            emit(index, report.cases[0])

    def stop(self):
        pass


@hookimpl
def register_executors(register):
    register(InOrder, name="in_order")
'''

SUITE = """
agent: agents:agent
cases:
  - {name: first, input: hello, evaluators: [{matches: hello}]}
  - {name: second, input: bye, evaluators: [{matches: hello}]}
  - {name: third, input: hello again, evaluators: [{matches: hello}]}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "agents.py").write_text("def agent(question):\n    return question\n", encoding="utf-8")
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    write_plugin(tmp_path / "site", IN_ORDER, distribution="order-exec", entry_point="order", module="order_exec")
    return tmp_path


def cli(project: Path, *args: str):  # type: ignore[no-untyped-def]
    env = {"PYTHONPATH": str(project / "site"), "AGENT_EVAL_DISABLE_PLUGINS": "exact,json,judge,ray,trajectory"}
    return run_cli(*args, cwd=project, env=env)


def test_the_core_registers_local_through_the_same_hook_as_any_plugin() -> None:
    registry = agent_eval.get_registry()
    info = registry.executor("local")
    assert info.plugin == "agent_eval"
    assert isinstance(info.factory(), agent_eval.Executor)


def test_a_plugin_executor_runs_the_plan_with_its_options_and_results_stay_in_order(project: Path) -> None:
    done = cli(
        project,
        "run",
        "suite.yaml",
        "--executor",
        "in_order",
        "--note",
        "hi",
        "--reverse=yes",
        "--json",
        "r.json",
        "--no-history",
        "-k",
        "first",
        "-k",
        "third",
    )
    assert done.returncode == 0, done.stderr
    asked = json.loads((project / "executor.json").read_text(encoding="utf-8"))
    assert asked == {
        "note": "hi",
        "suite_path": "suite.yaml",
        "agent_reference": "agents:agent",
        "positions": [0, 2],
        "repeat": 1,
    }
    report = json.loads((project / "r.json").read_text(encoding="utf-8"))
    assert [case["name"] for case in report["cases"]] == ["first", "third"]  # input order, not finishing order
    assert report["metadata"]["executor"] == "in_order"


def test_the_suite_names_its_executor_and_options_and_the_command_line_wins(project: Path) -> None:
    (project / "suite.yaml").write_text("executor: {in_order: {note: from the suite}}\n" + SUITE, encoding="utf-8")
    assert cli(project, "run", "suite.yaml", "--no-history").returncode == 1  # 'second' fails
    assert json.loads((project / "executor.json").read_text(encoding="utf-8"))["note"] == "from the suite"
    assert cli(project, "run", "suite.yaml", "--no-history", "--executor", "local").returncode == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--executor", "in_ordr"], "Unknown executor 'in_ordr'. Did you mean 'in_order'? Installed: in_order, local."),
        (
            ["--executor", "in_order", "--nte", "x"],
            "no such option: --nte (executor 'in_order' takes: --note, --reverse). Did you mean '--note'?",
        ),
        (
            ["--executor", "ray"],
            "Unknown executor 'ray'. Installed: in_order, local. "
            "It is provided by agent-eval-ray: pip install agent-eval-ray",
        ),
        (["--jsn", "x.json"], "no such option: --jsn (executor 'local' takes: none)."),
    ],
)
def test_a_bad_executor_or_option_is_one_line_and_exit_2(project: Path, args: list[str], message: str) -> None:
    done = cli(project, "run", "suite.yaml", "--no-history", *args)
    assert done.returncode == 2
    assert done.stderr.strip() == f"error: {message}"


def test_eval_suite_takes_an_executor_object() -> None:
    class Counting:
        def __init__(self) -> None:
            self.plans: list[RunPlan] = []

        async def execute(self, plan: RunPlan, emit):  # type: ignore[no-untyped-def]
            self.plans.append(plan)
            local = agent_eval.get_registry().executor("local").factory()
            await local.execute(plan, emit)

        def stop(self) -> None:
            pass

    executor = Counting()
    report = EvalSuite(lambda q: q, [Case("a", "x", evaluators=[lambda o: o == "x"])]).run(
        print=False, executor=executor
    )
    assert report.passed == 1 and len(executor.plans) == 1


def test_a_registered_executor_plugin_module_is_collected_by_registry_of() -> None:
    class Plugin:
        @staticmethod
        @hookimpl
        def register_executors(register):  # type: ignore[no-untyped-def]
            def special():  # type: ignore[no-untyped-def]
                """A special executor."""
                return object()

            register(special)

    registry = agent_eval.registry_of(Plugin())
    assert sorted(registry.executors) == ["local", "special"]
