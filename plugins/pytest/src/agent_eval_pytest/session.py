"""The session's side of the plugin, registered when the first suite file is collected.

A session without suite files never imports this module; one with suite files gets a scheduler
and the hooks that stop it with pytest and place skips at the case's line.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path

import pytest

from agent_eval_pytest.collect import SCHEDULER, CaseItem, SuiteNode
from agent_eval_pytest.schedule import Scheduler

NAME = "agent_eval-session"


def suite_node(parent: pytest.Collector, path: Path) -> SuiteNode:
    """The collector of the suite file at ``path``; the first one sets up the session."""
    manager = parent.config.pluginmanager
    if manager.get_plugin(NAME) is None:
        manager.register(SessionPlugin(parent.session), NAME)
    node: SuiteNode = SuiteNode.from_parent(parent, path=path)
    return node


class SessionPlugin:
    """Hooks for a session that has suite files."""

    def __init__(self, session: pytest.Session) -> None:
        self.session = session
        self.scheduler = Scheduler(session.config)
        session.config.stash[SCHEDULER] = self.scheduler

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """A skipped case points at its line in the suite file, not at this plugin's code."""
        report = yield
        if isinstance(item, CaseItem) and report.skipped and isinstance(report.longrepr, tuple):
            message = report.longrepr[2]
            report.longrepr = (os.fspath(item.path), item.line or 1, message)
        return report

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self) -> None:
        """Once pytest is to stop (``-x``, ``--maxfail``, ``--sw``), no other case starts."""
        if self.session.shouldstop or self.session.shouldfail:
            self.scheduler.stop()

    def pytest_sessionfinish(self) -> None:
        self.scheduler.close()
