"""What the ``agent_eval_run`` fixture returns: run an agent over cases or a suite file, get the report."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from agent_eval import AgentEvalError, Case, EvalReport, EvalSuite, SuiteFile, load_agent, load_suite
from agent_eval_pytest.settings import run_options

Cases = Iterable[Case | Mapping[str, Any]]


class RunAgent:
    """``run(agent, cases_or_suite_path, **run_options)``: the EvalReport of the run; prints nothing."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def __repr__(self) -> str:  # pytest shows it among a failed test's arguments
        return "agent_eval_run(agent, cases_or_suite_path, **run_options)"

    def __call__(
        self,
        agent: Callable[..., Any] | str | None,
        cases_or_suite_path: Cases | str | os.PathLike[str],
        /,
        **options: Any,
    ) -> EvalReport:
        __tracebackhide__ = True  # a test that fails here shows its own line and the error, not this package
        try:
            return self._run(agent, cases_or_suite_path, options)
        except AgentEvalError as error:  # a suite file's problems or a bad agent reference: the message says it all
            raise error.with_traceback(None) from None

    def _run(self, agent: Callable[..., Any] | str | None, cases_or_path: Any, options: dict[str, Any]) -> EvalReport:
        suite = None
        if isinstance(cases_or_path, str | os.PathLike):
            suite = load_suite(Path(cases_or_path))
            cases: Cases = suite.cases
        else:
            cases = cases_or_path
        eval_suite = EvalSuite(_agent(agent, suite), cases, name=suite.name if suite else None)
        chosen = {**run_options(self.config, suite), "print": False, **options}
        report = _run(eval_suite, chosen)
        if report.interrupted:  # Ctrl-C stopped the run: it stops the tests too
            raise KeyboardInterrupt
        return report


def _agent(agent: Callable[..., Any] | str | None, suite: SuiteFile | None) -> Callable[..., Any]:
    if agent is None:
        if suite is None or not suite.agent:
            raise ValueError(
                "agent_eval_run: no agent; pass a callable or 'module:attr', or a suite file that sets `agent:`"
            )
        return load_agent(suite.agent, origin=str(suite.path))
    if isinstance(agent, str):
        return load_agent(agent, origin="agent_eval_run")
    return agent


def _run(suite: EvalSuite, options: dict[str, Any]) -> EvalReport:
    """``suite.run``; inside a running event loop (an async test) the run gets a thread and a loop of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return suite.run(**options)
    outcome: list[EvalReport | BaseException] = []

    def work() -> None:
        try:
            outcome.append(asyncio.run(suite.arun(**options)))
        except BaseException as error:  # handed to the test's thread as it is
            outcome.append(error)

    thread = threading.Thread(target=work, name="agent-eval-run", daemon=True)
    thread.start()
    thread.join()
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]
