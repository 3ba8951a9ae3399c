"""Suite files as pytest collectors, and each of their cases as a pytest item.

A suite file is loaded and checked, and its agent imported, when it is collected: a problem is a
collection error that names the file and line, as ``agent-eval run`` would (exit 2), never a
traceback. Running is :mod:`agent_eval_pytest.schedule`'s business.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_eval import AgentEvalError, Case, EvalResult, SuiteError, SuiteFile, load_agent, load_suite
from agent_eval_pytest.failure import CaseFailed, CaseReport, skip_reason
from agent_eval_pytest.schedule import Scheduler

#: The session's scheduler, put there when the first suite file is collected.
SCHEDULER = pytest.StashKey[Scheduler]()


class SuiteNode(pytest.File):
    """A suite file: one :class:`CaseItem` per case."""

    suite: SuiteFile
    agent: Callable[..., Any]
    agent_reference: str

    def collect(self) -> Iterator[CaseItem]:
        self.suite = self._load()
        self.agent_reference, self.agent = self._agent()
        for case in self.suite.cases:
            yield CaseItem.from_parent(self, name=case.name, case=case)

    def _load(self) -> SuiteFile:
        try:
            return load_suite(self.path)
        except SuiteError as error:
            raise self.CollectError("\n".join(self._relative(problem) for problem in error.problems)) from None
        except AgentEvalError as error:
            raise self.CollectError(f"{self.shown_path}: {self._relative(str(error))}") from None

    def _agent(self) -> tuple[str, Callable[..., Any]]:
        given = self.config.getoption("agent_eval_agent")
        reference = given or self.suite.agent
        if not reference:
            raise self.CollectError(
                f"{self.shown_path}: no agent to run; pass --agent-eval-agent MODULE:ATTR or set `agent:` in the suite"
            )
        _importable(self.config.rootpath)
        try:
            agent = load_agent(reference, origin="--agent-eval-agent" if given else self.shown_path)
        except AgentEvalError as error:
            raise self.CollectError(self._relative(str(error))) from None
        return reference, agent

    @property
    def shown_path(self) -> str:
        """The file's path as problems show it: relative to where pytest was started, when under it."""
        return self._relative(str(self.path))

    def _relative(self, text: str) -> str:
        return text.replace(str(self.config.invocation_params.dir) + os.sep, "")


class CaseItem(pytest.Item):
    """One case of a suite file; its outcome is the case's."""

    parent: SuiteNode

    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        #: The case's line in the suite file (1-based), when known.
        self.line = _line_of(case.location)

    def runtest(self) -> None:
        judge(self, self.config.stash[SCHEDULER].result(self))

    def siblings(self) -> list[CaseItem]:
        """The items of this suite that pytest will run, in the order it runs them."""
        return [item for item in self.session.items if isinstance(item, CaseItem) and item.parent is self.parent]

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseFailed):
            return excinfo.value.report
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None if self.line is None else self.line - 1, self.name


def judge(item: CaseItem, result: EvalResult) -> None:
    """Pass, skip or fail the item as its case did."""
    __tracebackhide__ = True
    if result.status == "passed":
        return
    if result.status == "skipped":
        pytest.skip(skip_reason(result))
    raise CaseFailed(CaseReport(result, item.parent.shown_path, item.line))


def _line_of(location: str | None) -> int | None:
    """The line of ``suite.yaml:12``, or None."""
    if not location:
        return None
    _, _, line = location.rpartition(":")
    return int(line) if line.isdigit() else None


def _importable(folder: Path) -> None:
    """The project's root folder is importable for agents, as the current directory is (IDEs may start elsewhere)."""
    import sys

    if str(folder) not in sys.path:
        sys.path.append(str(folder))
