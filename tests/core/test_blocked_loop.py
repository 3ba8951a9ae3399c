"""An async agent that blocks the event loop: timeouts still apply, Ctrl-C still works, and it is said."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import BIN

from agent_eval import Case, EvalSuite

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


async def blocking(question: str) -> str:
    if question == "block":
        time.sleep(30)  # the mistake: a blocking call inside async def
    await asyncio.sleep(0)
    return "ok"


def test_a_timeout_cuts_a_blocking_call_short_and_says_why() -> None:
    started = time.monotonic()
    cases = [Case(name, name, evaluators=[lambda output: True]) for name in ("block", "later")]
    report = EvalSuite(blocking, cases).run(print=False, timeout=0.5, concurrency=1)
    assert time.monotonic() - started < 5
    blocked, later = report.cases
    assert blocked.status == "error"
    assert blocked.error is not None
    assert blocked.error.startswith("timed out after 0.5 s: the agent blocked the event loop for ")
    assert blocked.error.endswith("a blocking call inside async def?")
    assert later.status == "passed"


def test_a_blocking_call_without_a_timeout_finishes_and_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    async def slow(question: str) -> str:
        time.sleep(1.3)
        return "ok"

    report = EvalSuite(slow, [Case("a", "x", evaluators=[lambda output: True])]).run(print=False)
    assert report.cases[0].status == "passed"
    warning = capsys.readouterr().err
    assert "warning: case 'a': the agent blocked the event loop for 1." in warning
    assert "a blocking call inside async def?" in warning


AGENTS = """
import asyncio, time

async def agent(question):
    if question == "block":
        time.sleep(60)
    await asyncio.sleep(0)
    return "ok"

async def stubborn(question):
    if question == "block":
        try:
            time.sleep(60)
        except BaseException:
            time.sleep(60)  # swallows the first interruption and blocks again
    return "ok"
"""

SUITE = """
cases:
  - {name: first, input: fine, evaluators: [{matches: ok}]}
  - {name: blocker, input: block, evaluators: [{matches: ok}]}
  - {name: never, input: fine, evaluators: [{matches: ok}]}
"""


def start(tmp_path: Path, agent: str) -> subprocess.Popen[str]:
    (tmp_path / "agents.py").write_text(AGENTS, encoding="utf-8")
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    env = {**os.environ, "NO_COLOR": "1", "AGENT_EVAL_DISABLE_PLUGINS": "exact,json,judge,trajectory"}
    return subprocess.Popen(
        [str(BIN / "agent-eval"), "run", "suite.yaml", "--agent", agent, "--json", "r.json", "--no-history"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_ctrl_c_stops_a_run_whose_loop_is_blocked_and_keeps_the_finished_cases(tmp_path: Path) -> None:
    process = start(tmp_path, "agents:agent")
    time.sleep(2.0)  # the first case finished; the second holds the loop
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=20)
    assert process.returncode == 130, err
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["interrupted"] is True
    by_name = {case["name"]: case for case in report["cases"]}
    assert by_name["first"]["status"] == "passed"
    assert by_name["blocker"]["error"].startswith("interrupted: the agent blocked the event loop for ")
    assert "never" not in by_name


def test_a_second_ctrl_c_exits_at_once_even_while_the_loop_is_blocked(tmp_path: Path) -> None:
    process = start(tmp_path, "agents:stubborn")
    time.sleep(2.0)
    process.send_signal(signal.SIGINT)
    time.sleep(0.5)
    started = time.monotonic()
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=20)
    assert process.returncode == 130
    assert time.monotonic() - started < 3
