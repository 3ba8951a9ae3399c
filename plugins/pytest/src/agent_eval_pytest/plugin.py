"""The pytest plugin: options, which files are suites, and the ``agent_eval_run`` fixture.

Loading it must cost a session without suite files nothing: this module imports only what pytest has
already imported, and nothing of agent-eval. The suite machinery is imported inside the hooks, once a
suite file is collected or the fixture is used.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from agent_eval_pytest.fixture import RunAgent

#: The files collected as suites unless the ini option ``agent_eval_suites`` gives other globs.
DEFAULT_SUITES = ("eval_*.yaml", "eval_*.json", "*.eval.yaml")
#: A file named on the command line is a suite when it has one of these suffixes, whatever its name.
SUITE_SUFFIXES = (".yaml", ".yml", ".json", ".jsonl")


def pytest_addoption(parser: pytest.Parser) -> None:
    """The options of the ``agent-eval`` group and the ini option ``agent_eval_suites``."""
    group = parser.getgroup("agent-eval", "agent-eval suite files")
    group.addoption(
        "--agent-eval-agent",
        metavar="MODULE:ATTR",
        default=None,
        help="The agent that suite files run (wins over each suite's `agent:`); the current directory is importable.",
    )
    group.addoption(
        "--agent-eval-concurrency",
        metavar="N",
        type=whole_number,
        default=None,
        help="Cases of a suite run at once (default: the suite's `concurrency:`, else 1).",
    )
    group.addoption(
        "--agent-eval-repeat",
        metavar="N",
        type=whole_number,
        default=None,
        help="Run every case N times (default: the suite's `repeat:`, else once).",
    )
    parser.addini(
        "agent_eval_suites",
        type="args",
        default=list(DEFAULT_SUITES),
        help="Globs of the suite files to collect (default: " + " ".join(DEFAULT_SUITES) + ").",
    )


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A suite file becomes a collector of one item per case."""
    named = file_path.suffix in SUITE_SUFFIXES and parent.session.isinitpath(file_path)
    if not (named or is_suite(file_path, parent.config.getini("agent_eval_suites"))):
        return None
    from agent_eval_pytest.session import suite_node

    return suite_node(parent, file_path)


def is_suite(path: Path, globs: list[str]) -> bool:
    """True when ``path`` matches one of ``globs``: a glob without a ``/`` is matched by the file's name."""
    for glob in globs:
        if "/" not in glob and os.sep not in glob:
            matched = fnmatch.fnmatch(path.name, glob)
        else:
            matched = fnmatch.fnmatch(str(path), glob if Path(glob).is_absolute() else f"*{os.sep}{glob}")
        if matched:
            return True
    return False


def whole_number(text: str) -> int:
    """A whole number of at least 1, for an option."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        import argparse

        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, got {text!r}")
    return value


@pytest.fixture
def agent_eval_run(request: pytest.FixtureRequest) -> RunAgent:
    """``agent_eval_run(agent, cases_or_suite_path, **run_options)`` runs the cases and returns the EvalReport.

    It prints nothing. ``cases_or_suite_path`` is a list of ``Case`` or dicts, or the path of a suite
    file (relative to the current directory); ``agent`` is a callable, a ``MODULE:ATTR`` string, or
    None to use the suite file's ``agent:``. ``run_options`` go to ``EvalSuite.run``.
    """
    from agent_eval_pytest.fixture import RunAgent

    return RunAgent(request.config)
