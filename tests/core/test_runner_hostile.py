"""Whatever an agent or an evaluator raises is that case's error; only a real signal interrupts a run."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from helpers import run_cli

from agent_eval import Case, EvalSuite


class Custom(BaseException):
    """A BaseException that is neither Exception nor a signal."""


class BadStr(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text for you")


RAISED = [
    Custom("custom base exception"),
    GeneratorExit("generator exit"),
    KeyboardInterrupt("raised by the agent, not a signal"),
    asyncio.CancelledError("raised by the agent itself"),
    SystemExit(3),
    BadStr(),
]


def ok(output: object) -> bool:
    return True


@pytest.mark.parametrize("error", RAISED, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_an_agent_raising_anything_errors_that_case_and_the_others_finish(error: BaseException, kind: str) -> None:
    def sync_agent(question: str) -> str:
        if question == "bad":
            raise error
        return "fine"

    async def async_agent(question: str) -> str:
        await asyncio.sleep(0)
        return sync_agent(question)

    agent = sync_agent if kind == "sync" else async_agent
    cases = [Case(name, name, evaluators=[ok]) for name in ("a", "bad", "c")]
    report = EvalSuite(agent, cases).run(print=False, concurrency=2)
    assert [r.status for r in report.cases] == ["passed", "error", "passed"]
    assert not report.interrupted
    assert type(error).__name__ in (report.cases[1].error or "")


@pytest.mark.parametrize("error", RAISED, ids=lambda e: type(e).__name__)
def test_an_evaluator_raising_anything_errors_that_evaluation(error: BaseException) -> None:
    async def evaluator(output: object) -> bool:
        if output == "bad":
            raise error
        return True

    cases = [Case(name, name, evaluators=[evaluator]) for name in ("a", "bad", "c")]
    report = EvalSuite(lambda q: q, cases).run(print=False, concurrency=3)
    assert [r.status for r in report.cases] == ["passed", "error", "passed"]
    assert not report.interrupted


class NoClass:
    """A value that raises when asked what it is: ``isinstance`` and ``inspect.isawaitable`` look at its class."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        raise RuntimeError("no class for you")


@pytest.mark.parametrize("inline", [True, False])
def test_an_evaluator_answering_a_value_that_raises_when_looked_at_errors_that_evaluation(inline: bool) -> None:
    class Evaluator:
        def __call__(self, output: object) -> object:
            return NoClass() if output == "bad" else True

    evaluator = Evaluator()
    evaluator.inline = inline  # type: ignore[attr-defined]
    cases = [Case(name, name, evaluators=[evaluator]) for name in ("a", "bad", "c")]
    report = EvalSuite(lambda q: q, cases).run(print=False)
    assert [r.status for r in report.cases] == ["passed", "error", "passed"]
    assert "no class for you" in (report.cases[1].error or "")


AGENTS = """
import asyncio

class Custom(BaseException):
    pass

def agent(question):
    if question == "custom":
        raise Custom("boom")
    if question == "interrupt":
        raise KeyboardInterrupt
    if question == "exit":
        raise GeneratorExit
    return "fine"

async def cancelling(question):
    if question == "interrupt":
        raise asyncio.CancelledError
    return "fine"
"""


@pytest.mark.parametrize("agent", ["agents:agent", "agents:cancelling"])
def test_through_the_command_every_case_reaches_the_reports_and_the_history(tmp_path: Path, agent: str) -> None:
    (tmp_path / "agents.py").write_text(AGENTS, encoding="utf-8")
    (tmp_path / "fine.py").write_text("def fine():\n    return lambda output: output == 'fine'\n", encoding="utf-8")
    lines = ["cases:"] + [
        f"  - {{name: {name}, input: {name}, evaluators: [{{matches: fine}}]}}"
        for name in ("first", "custom", "interrupt", "exit", "last")
    ]
    (tmp_path / "suite.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = run_cli(
        "run",
        "suite.yaml",
        "--agent",
        agent,
        "--json",
        "r.json",
        "--history",
        "h.db",
        cwd=tmp_path,
        env={"AGENT_EVAL_DISABLE_PLUGINS": "exact,json,judge,trajectory"},
    )
    assert done.returncode == 1, done.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert [c["name"] for c in report["cases"]] == ["first", "custom", "interrupt", "exit", "last"]
    assert report["interrupted"] is False
    assert report["cases"][0]["status"] == "passed" and report["cases"][-1]["status"] == "passed"
    shown = run_cli("show", "latest", "--history", "h.db", cwd=tmp_path)
    assert shown.returncode == 0 and "last" in shown.stdout
