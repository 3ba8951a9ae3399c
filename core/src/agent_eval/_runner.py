"""EvalSuite: runs an agent over cases, grades each answer, and reports."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from agent_eval._cases import Cases, check_cases
from agent_eval._execution import Executor, ResultCallback, RunPlan, RunSettings, execute_plan, run_plan
from agent_eval._local import LocalExecutor
from agent_eval._model import AgentContext, Case, EvalReport
from agent_eval._text import short_repr


class EvalSuite:
    """An agent and the cases to grade it on."""

    def __init__(
        self, agent: Callable[..., Any], cases: Iterable[Case | Mapping[str, Any]], *, name: str | None = None
    ) -> None:
        if not callable(agent):
            raise TypeError(f"agent must be callable, got {short_repr(agent)}")
        self.agent = agent
        #: The cases, checked once (cases loaded from a suite file already were).
        self.cases: Cases = check_cases(cases)
        self.name = name

    def run(
        self,
        ctx: AgentContext | None = None,
        *,
        print: bool = True,
        concurrency: int = 1,
        timeout: float | None = None,
        repeat: int = 1,
        case_pass_rate: float = 1.0,
        on_result: ResultCallback | None = None,
        executor: Executor | None = None,
    ) -> EvalReport:
        """Run every case and return the report; prints the table unless ``print=False``.

        With ``repeat=N`` every case runs N independent times; a repeated case passes when the share of
        its attempts that passed reaches ``case_pass_rate`` (1.0: every attempt must pass).

        Ctrl-C (or SIGTERM) stops the run: cases in flight are cancelled and the
        report holds the cases that finished, with ``interrupted`` set. A second
        Ctrl-C exits at once.
        """
        settings = RunSettings(concurrency=concurrency, timeout=timeout, repeat=repeat, case_pass_rate=case_pass_rate)
        plan = RunPlan(cases=self.cases, agent=self.agent, ctx=ctx or AgentContext(), settings=settings, name=self.name)
        report = run_plan(plan, executor or LocalExecutor(), on_result=on_result)
        if print:
            from agent_eval._report.console import print_report

            print_report(report)
        return report

    async def arun(
        self,
        ctx: AgentContext | None = None,
        *,
        print: bool = True,
        concurrency: int = 1,
        timeout: float | None = None,
        repeat: int = 1,
        case_pass_rate: float = 1.0,
        on_result: ResultCallback | None = None,
        executor: Executor | None = None,
        handle_signals: bool = False,
    ) -> EvalReport:
        """Async form of :meth:`run`. ``handle_signals`` makes Ctrl-C stop the run gracefully.

        ``executor`` runs the cases (default: a new ``local`` one, this process's event loop).
        """
        settings = RunSettings(concurrency=concurrency, timeout=timeout, repeat=repeat, case_pass_rate=case_pass_rate)
        plan = RunPlan(cases=self.cases, agent=self.agent, ctx=ctx or AgentContext(), settings=settings, name=self.name)
        report = await execute_plan(
            plan, executor or LocalExecutor(), on_result=on_result, handle_signals=handle_signals
        )
        if print:
            from agent_eval._report.console import print_report

            print_report(report)
        return report
