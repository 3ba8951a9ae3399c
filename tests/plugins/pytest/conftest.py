"""Fixtures for the pytest plugin's tests: a folder with a demo suite file and an agent that logs its calls.

Each test module enables pytest's own ``pytester`` with ``pytest_plugins = ["pytester"]``: pytest
refuses ``pytest_plugins`` in a conftest below the root one.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

import agent_eval

# pytester's in-process runs drop the modules first imported during a run; agent_eval keeps the
# public names it resolved lazily. Resolving them all here, once, keeps both views the same.
for _name in agent_eval.__all__:
    getattr(agent_eval, _name)

DEMO_SUITE = """\
agent: agents:agent
cases:
  - name: greets user
    input: Say hello
    evaluators:
      - contains: {keywords: [hello, hi], match_all: false}
  - name: adds
    input: What is 2 + 2?
    expected: "4"
    evaluators:
      - exact_match
      - contains: "4"
  - name: explodes
    input: boom
    evaluators: [contains: x]
  - name: not graded
    input: Say hello
"""

AGENT = """\
from pathlib import Path

ANSWERS = {"Say hello": "Hi there!", "What is 2 + 2?": "5"}


def agent(question):
    with open(Path(__file__).with_name("calls.txt"), "a", encoding="utf-8") as log:
        log.write(question + "\\n")
    if question == "boom":
        raise ValueError("the agent blew up")
    return ANSWERS[question]
"""


@pytest.fixture
def demo(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester folder with ``eval_demo.yaml`` (one pass, one failure, one error, one skip) and ``agents.py``."""
    pytester.makefile(".yaml", eval_demo=DEMO_SUITE)
    pytester.makepyfile(agents=AGENT)
    return pytester


@pytest.fixture
def agent_calls(pytester: pytest.Pytester) -> Callable[[], list[str]]:
    """The inputs the folder's agents were called with, in order (and forgets them)."""

    def read() -> list[str]:
        log = pytester.path / "calls.txt"
        if not log.exists():
            return []
        lines = log.read_text(encoding="utf-8").splitlines()
        log.unlink()
        return lines

    return read
