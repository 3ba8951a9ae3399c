"""When the cases run: once per session, concurrently, only those pytest selected, and no more once it stops."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable

import pytest

pytest_plugins = ["pytester"]

Calls = Callable[[], list[str]]


def cases(count: int) -> str:
    """Cases c1, c2, ... whose inputs are "1", "2", ... and which pass when the answer contains "ok"."""
    return "cases:\n" + "".join(
        f"  - {{name: c{n}, input: '{n}', evaluators: [contains: ok]}}\n" for n in range(1, count + 1)
    )


SIX_CASES = cases(6)

# Logs each call as it starts; answers "no" (a failure) to the inputs in FAIL, after a pause.
SLOW_AGENT = """\
import time
from pathlib import Path

FAIL = {fail!r}


def agent(question):
    with open(Path(__file__).with_name("calls.txt"), "a", encoding="utf-8") as log:
        log.write(question + "\\n")
    time.sleep({pause})
    return "no" if question in FAIL else "ok"
"""


def slow_suite(pytester: pytest.Pytester, *, fail: tuple[str, ...] = (), pause: float = 0.2, head: str = "") -> None:
    pytester.makefile(".yaml", eval_slow="agent: slow:agent\n" + head + SIX_CASES)
    pytester.makepyfile(slow=SLOW_AGENT.format(fail=set(fail), pause=pause))


def test_the_cases_of_a_suite_run_concurrently_in_one_batch(pytester: pytest.Pytester) -> None:
    # Each call waits until four calls are in flight at once: run one at a time, they would time out.
    pytester.makefile(".yaml", eval_four="agent: meet:agent\n" + cases(4))
    pytester.makepyfile(
        meet="import threading\n\nMEET = threading.Barrier(4, timeout=10)\n\n"
        "def agent(question):\n    MEET.wait()\n    return 'ok'\n"
    )
    result = pytester.runpytest("-v", "--agent-eval-concurrency", "4")
    result.assert_outcomes(passed=4)


def test_the_suites_concurrency_is_the_default(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", eval_four="agent: meet:agent\nconcurrency: 2\n" + SIX_CASES)
    pytester.makepyfile(
        meet="import threading\n\nMEET = threading.Barrier(2, timeout=10)\n\n"
        "def agent(question):\n    MEET.wait()\n    return 'ok'\n"
    )
    pytester.runpytest().assert_outcomes(passed=6)


def test_each_item_reports_as_soon_as_its_case_is_done(pytester: pytest.Pytester) -> None:
    # The first case answers at once, the second after 1.5 s: the first item is reported long before the end.
    pytester.makefile(".yaml", eval_two="agent: timed:agent\nconcurrency: 2\n" + cases(2))
    pytester.makepyfile(
        timed="import time\n\ndef agent(question):\n    time.sleep(0 if question == '1' else 1.5)\n    return 'ok'\n"
    )
    pytester.makeconftest(
        "import time\n\nSEEN = {}\n\n"
        "def pytest_runtest_logreport(report):\n"
        "    if report.when == 'call':\n"
        "        SEEN[report.nodeid] = time.monotonic()\n\n"
        "def pytest_sessionfinish(session):\n"
        "    first, second = SEEN['eval_two.yaml::c1'], SEEN['eval_two.yaml::c2']\n"
        "    print(f'apart {second - first:.2f}')\n"
    )
    result = pytester.runpytest("-s")
    result.assert_outcomes(passed=2)
    (line,) = [line for line in result.outlines if "apart" in line]
    assert float(line.split()[-1]) > 1.0


def test_dash_x_stops_scheduling_the_rest(pytester: pytest.Pytester, agent_calls: Calls) -> None:
    slow_suite(pytester, fail=("2",))
    result = pytester.runpytest_subprocess("-x", "-v")
    result.stdout.fnmatch_lines(
        ["eval_slow.yaml::c1 PASSED*", "eval_slow.yaml::c2 FAILED*", "*stopping after 1 failures*"]
    )
    result.assert_outcomes(passed=1, failed=1)
    calls = agent_calls()
    assert calls[:2] == ["1", "2"]
    assert len(calls) <= 3  # the case after the failure may have started; no other did


def test_maxfail_stops_after_that_many_failures(pytester: pytest.Pytester, agent_calls: Calls) -> None:
    slow_suite(pytester, fail=("1", "2"), head="concurrency: 2\n")
    result = pytester.runpytest_subprocess("--maxfail=2")
    result.assert_outcomes(failed=2)
    assert len(agent_calls()) <= 4


def test_pytest_does_not_hang_at_exit_on_a_case_that_never_answers(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", eval_hang="agent: hang:agent\nconcurrency: 2\n" + SIX_CASES)
    pytester.makepyfile(
        hang="import time\n\ndef agent(question):\n"
        "    if question == '1':\n        return 'no'\n    time.sleep(600)\n    return 'ok'\n"
    )
    started = time.monotonic()
    result = pytester.runpytest_subprocess("-x", timeout=60)
    assert time.monotonic() - started < 30
    result.assert_outcomes(failed=1)


def test_a_suite_runs_once_whatever_the_order_pytest_runs_its_items_in(
    pytester: pytest.Pytester, agent_calls: Calls
) -> None:
    slow_suite(pytester, fail=("3",), pause=0.01, head="concurrency: 3\n")
    pytester.makeconftest("def pytest_collection_modifyitems(items):\n    items.reverse()\n")
    result = pytester.runpytest("-v")
    result.stdout.fnmatch_lines(
        ["eval_slow.yaml::c6 PASSED*", "eval_slow.yaml::c4 PASSED*", "eval_slow.yaml::c3 FAILED*"]
    )
    result.assert_outcomes(passed=5, failed=1)
    calls = agent_calls()
    assert sorted(calls) == ["1", "2", "3", "4", "5", "6"]
    assert calls[0] in ("4", "5", "6")  # scheduled in the order pytest runs them


def test_two_suites_each_run_their_own_cases_once(pytester: pytest.Pytester, agent_calls: Calls) -> None:
    slow_suite(pytester, pause=0.01)
    pytester.makefile(
        ".yaml", eval_more="agent: slow:agent\ncases:\n  - {name: c1, input: '7', evaluators: [contains: ok]}\n"
    )
    result = pytester.runpytest("-v")
    result.stdout.fnmatch_lines(["eval_more.yaml::c1 PASSED*"])
    result.assert_outcomes(passed=7)
    assert sorted(agent_calls()) == ["1", "2", "3", "4", "5", "6", "7"]


def test_collect_only_calls_no_agent(pytester: pytest.Pytester, agent_calls: Calls) -> None:
    slow_suite(pytester)
    pytester.runpytest("--collect-only").stdout.fnmatch_lines(["*6 tests collected*"])
    assert agent_calls() == []


def test_repeat_runs_every_case_that_many_times(pytester: pytest.Pytester, agent_calls: Calls) -> None:
    slow_suite(pytester, pause=0.01)
    pytester.runpytest("--agent-eval-repeat", "3", "-k", "c1 or c2").assert_outcomes(passed=2, deselected=4)
    assert sorted(agent_calls()) == ["1", "1", "1", "2", "2", "2"]


def test_under_xdist_every_case_runs_once_and_reports_on_its_own(pytester: pytest.Pytester, agent_calls: Calls) -> None:
    pytest.importorskip("xdist")
    slow_suite(pytester, fail=("2",), pause=0.01)
    result = pytester.runpytest_subprocess("-p", "xdist", "-n", "2", "-v")
    result.stdout.fnmatch_lines(["*FAILED eval_slow.yaml::c2*"])
    result.assert_outcomes(passed=5, failed=1)
    assert sorted(agent_calls()) == ["1", "2", "3", "4", "5", "6"]


def test_ctrl_c_while_cases_run_stops_pytest_at_once(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", eval_hang="agent: hang:agent\nconcurrency: 2\n" + SIX_CASES)
    pytester.makepyfile(
        hang="import time\nfrom pathlib import Path\n\ndef agent(question):\n"
        "    Path(__file__).with_name('started').touch()\n    time.sleep(600)\n    return 'ok'\n"
    )
    process = pytester.popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider"], stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not (pytester.path / "started").exists():
            assert time.monotonic() < deadline, "the agent was never called"
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=20)
    finally:
        process.kill()
    assert process.returncode == pytest.ExitCode.INTERRUPTED
    assert "KeyboardInterrupt" in out.decode()
