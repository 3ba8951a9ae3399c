"""The ray executor against a real Ray cluster on this machine (one two-CPU head for the module).

Results equal the local executor's; errors and timeouts stay per case; a worker killed mid-run makes its
batch's unfinished cases errors naming it; Ctrl-C cancels the cluster's tasks; results stream back as
they finish; repeats, filters, --jsonl and the history work through Ray as with `local`.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import BIN, run_cli

from agent_eval import RunPlan, RunSettings, get_registry, load_agent, load_suite
from agent_eval._execution import execute_plan, run_plan
from agent_eval_ray import RayExecutor, RayOptions

pytestmark = [
    pytest.mark.ray,
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="ray is not installed"),
]

#: One agent for every test, its behaviour chosen by the input; it writes what it did beside itself.
AGENT = """
import asyncio
import os
import signal
from pathlib import Path

HERE = Path(__file__).parent
CALLS = {}


async def agent(question):
    if question == "raise":
        raise ValueError("no answer for that")
    if question == "hang":
        await asyncio.sleep(30)
    if question == "die":
        await asyncio.sleep(1.0)  # the case before it streams back first
        (HERE / "died.txt").write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    if question.startswith("slow"):
        await asyncio.sleep(2.0)
        with open(HERE / "finished.txt", "a") as stream:
            stream.write(question + "\\n")
    if question == "flaky":
        CALLS[question] = CALLS.get(question, 0) + 1
        return "yes" if CALLS[question] % 2 else "no"
    if question == "wait for the stream":
        # answers once the run's --jsonl holds the other case of its batch: results stream back while
        # the batch still runs
        for _ in range(200):
            progress = HERE / "progress.jsonl"
            if progress.exists() and "the quick one" in progress.read_text():
                return "streamed"
            await asyncio.sleep(0.1)
        return "not streamed"
    return question
"""


@pytest.fixture(autouse=True)
def no_auth(monkeypatch: pytest.MonkeyPatch) -> None:
    """The module's cluster runs without an authentication token; so do its drivers, here and in subprocesses."""
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)


def project(tmp_path: Path, cases: str, *, module: str) -> Path:
    """A suite file and its agent module (named ``module``: each test imports its own) in ``tmp_path``."""
    (tmp_path / f"{module}.py").write_text(AGENT, encoding="utf-8")
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"name: {module}\nagent: {module}:agent\ncases:\n" + textwrap.dedent(cases), encoding="utf-8")
    return suite


def plan_of(suite_path: Path, **settings: Any) -> RunPlan:
    """The plan ``agent-eval run`` makes of a suite file (every case)."""
    suite = load_suite(suite_path)
    assert suite.agent is not None
    return RunPlan(
        cases=suite.cases,
        agent=load_agent(suite.agent),
        settings=RunSettings(**settings),
        name=suite.name,
        suite_path=str(suite_path),
        agent_reference=suite.agent,
        positions=tuple(range(len(suite.cases))),
    )


def comparable(value: Any) -> Any:
    """A result's dict without its timings."""
    if isinstance(value, dict):
        return {key: comparable(item) for key, item in value.items() if key != "duration_ms"}
    if isinstance(value, list):
        return [comparable(item) for item in value]
    return value


MIXED = """\
- {name: greets, input: hello there, evaluators: [{contains: hello}]}
- {name: misses, input: goodbye, evaluators: [{contains: {keywords: [hello, there]}}]}
- {name: partial, input: hello you, evaluators: [{contains: {keywords: [hello, there]}}]}
- {name: exact, input: "4", expected: "4", evaluators: [{exact_match: {}}]}
- {name: several, input: hello, expected: hello, evaluators: [{exact_match: {}}, {matches: "^x"}]}
- {name: raises, input: raise, evaluators: [{contains: x}]}
- {name: times out, input: hang, evaluators: [{contains: x}]}
- {name: unjudged, input: hello}
"""


@pytest.fixture(scope="module")
def mixed(ray_address: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    """The mixed suite run by Ray (batches of 3 on two workers) and by the local executor."""
    folder = tmp_path_factory.mktemp("mixed")
    suite = project(folder, MIXED, module="agents_mixed")
    saved = os.getcwd()
    os.chdir(folder)
    try:
        plan = plan_of(suite, concurrency=3, timeout=1.0)
        by_ray = run_plan(plan, RayExecutor(RayOptions(ray_address=ray_address, batch_size=3)))
        local = run_plan(plan, get_registry().executor("local").factory())
    finally:
        os.chdir(saved)
    return by_ray, local


def test_results_equal_the_local_executor_s_in_order(mixed: tuple[Any, Any]) -> None:
    by_ray, local = mixed
    assert [case.name for case in by_ray.cases] == [case.name for case in local.cases]
    assert [comparable(case.to_dict()) for case in by_ray.cases] == [comparable(case.to_dict()) for case in local.cases]
    assert (by_ray.passed, by_ray.failed, by_ray.errored, by_ray.skipped) == (2, 3, 2, 1)
    assert not by_ray.interrupted


def test_an_agent_that_raises_or_times_out_is_that_case_s_error_only(mixed: tuple[Any, Any]) -> None:
    by_ray, _ = mixed
    cases = {case.name: case for case in by_ray.cases}
    assert (cases["raises"].status, cases["raises"].error) == ("error", "ValueError: no answer for that")
    assert (cases["times out"].status, cases["times out"].error) == ("error", "timed out after 1 s")
    assert (cases["partial"].status, cases["partial"].score) == ("failed", 0.5)
    assert cases["several"].status == "failed" and (cases["several"].reason or "").startswith("matches: ")
    assert all(case.status != "error" for name, case in cases.items() if name not in ("raises", "times out"))


def test_a_killed_worker_makes_its_batch_s_unfinished_cases_errors_naming_it(ray_address: str, tmp_path: Path) -> None:
    cases = """\
    - {name: a1, input: ok one, evaluators: [{contains: ok}]}
    - {name: a2, input: die, evaluators: [{contains: ok}]}
    - {name: a3, input: ok three, evaluators: [{contains: ok}]}
    - {name: b1, input: ok four, evaluators: [{contains: ok}]}
    - {name: b2, input: ok five, evaluators: [{contains: ok}]}
    - {name: b3, input: ok six, evaluators: [{contains: ok}]}
    """
    project(tmp_path, cases, module="agents_killed")
    args = ["run", "suite.yaml", "--concurrency", "2", "--json", "report.json", "--no-history", "--min-pass-rate=0.5"]
    done = run_cli(*args, "--executor", "ray", "--ray-address", ray_address, "--batch-size", "3", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr  # 4 of 6 passed: above the bar of 0.5
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    statuses = {case["name"]: case["status"] for case in report["cases"]}
    assert statuses == {"a1": "passed", "a2": "error", "a3": "error", "b1": "passed", "b2": "passed", "b3": "passed"}
    pid = (tmp_path / "died.txt").read_text(encoding="utf-8")
    for case in report["cases"][1:3]:
        assert case["error"].startswith("lost Ray worker "), case["error"]
        assert f"(pid {pid}): WorkerCrashedError: " in case["error"]
    assert not report["interrupted"]


def test_repeats_filters_jsonl_and_history_go_through_ray_from_ray_address(ray_address: str, tmp_path: Path) -> None:
    cases = """\
    - {name: steady, input: yes, evaluators: [{contains: "yes"}]}
    - {name: left out, input: yes, evaluators: [{contains: "yes"}]}
    - {name: flaky, input: flaky, evaluators: [{contains: "yes"}]}
    - {name: always wrong, input: nope, evaluators: [{contains: "yes"}]}
    """
    project(tmp_path, cases, module="agents_repeats")
    args = ["run", "suite.yaml", "--repeat", "3", "--case-pass-rate", "0.6", "--concurrency", "2", "-k", "steady"]
    args += ["-k", "flaky", "-k", "wrong", "--json", "report.json", "--jsonl", "cases.jsonl", "--history", "h.db"]
    done = run_cli(*args, "--executor", "ray", cwd=tmp_path, env={"RAY_ADDRESS": ray_address})
    assert done.returncode == 1, done.stdout + done.stderr  # 'always wrong' fails
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    cases_ = {case["name"]: case for case in report["cases"]}
    assert list(cases_) == ["steady", "flaky", "always wrong"]  # positions 0, 2 and 3 of the suite file
    assert [len(case["attempts"]) for case in cases_.values()] == [3, 3, 3]
    assert (cases_["flaky"]["pass_fraction"], cases_["flaky"]["flaky"]) == (pytest.approx(2 / 3), True)
    assert [case["status"] for case in cases_.values()] == ["passed", "passed", "failed"]
    assert report["metadata"]["executor"] == "ray"
    lines = [json.loads(line) for line in (tmp_path / "cases.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(line["name"] for line in lines if line["type"] == "case") == ["always wrong", "flaky", "steady"]
    assert lines[-1]["type"] == "summary"
    runs = run_cli("runs", "--history", "h.db", cwd=tmp_path)
    assert runs.returncode == 0 and "agents_repeats" in runs.stdout


def test_results_stream_back_while_their_batch_still_runs(ray_address: str, tmp_path: Path) -> None:
    cases = """\
    - {name: the quick one, input: quick, evaluators: [{contains: quick}]}
    - {name: the patient one, input: wait for the stream, expected: streamed, evaluators: [{exact_match: {}}]}
    """
    project(tmp_path, cases, module="agents_stream")
    args = ["run", "suite.yaml", "--concurrency", "2", "--jsonl", "progress.jsonl", "--no-history", "--json", "r.json"]
    # one worker, one batch: the quick case's line must reach --jsonl before the batch's task ends
    ray_args = ["--executor", "ray", "--ray-address", ray_address, "--workers", "1", "--batch-size", "2"]
    done = run_cli(*args, *ray_args, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert [case["output"] for case in report["cases"]] == ["quick", "streamed"]


def finished(folder: Path) -> list[str]:
    path = folder / "finished.txt"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


SLOW = """\
- {name: fast 1, input: fast one, evaluators: [{contains: fast}]}
- {name: fast 2, input: fast two, evaluators: [{contains: fast}]}
- {name: slow 1, input: slow 1, evaluators: [{contains: slow}]}
- {name: slow 2, input: slow 2, evaluators: [{contains: slow}]}
- {name: slow 3, input: slow 3, evaluators: [{contains: slow}]}
- {name: slow 4, input: slow 4, evaluators: [{contains: slow}]}
"""


def test_ctrl_c_exits_130_with_the_finished_cases_and_cancels_the_cluster_s_tasks(
    ray_address: str, tmp_path: Path
) -> None:
    project(tmp_path, SLOW, module="agents_interrupted")
    command = [str(BIN / "agent-eval"), "run", "suite.yaml", "--concurrency", "2", "--no-history"]
    command += ["--json", "report.json", "--jsonl", "progress.jsonl"]
    command += ["--executor", "ray", "--ray-address", ray_address, "--batch-size", "1"]
    env = {**os.environ, "NO_COLOR": "1"}
    with subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as run:
        try:
            for _ in lines_of(tmp_path / "progress.jsonl", 2, run):
                pass
            run.send_signal(signal.SIGINT)
            _, err = run.communicate(timeout=30)
        finally:
            if run.poll() is None:
                run.kill()
    assert run.returncode == 130, err.decode()
    at_exit = finished(tmp_path)
    time.sleep(3.0)  # longer than a slow case takes: one still running would have finished by now
    assert finished(tmp_path) == at_exit
    assert len(at_exit) < 4
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["interrupted"] is True
    names = [case["name"] for case in report["cases"]]
    assert names[:2] == ["fast 1", "fast 2"] and all(case["status"] == "passed" for case in report["cases"])
    assert sorted(names[2:]) == sorted(at_exit)  # a slow case that finished before the interrupt is kept


def lines_of(path: Path, count: int, process: subprocess.Popen[bytes], timeout: float = 60) -> Iterator[str]:
    """Wait until ``path`` holds ``count`` lines (the process still running), and give them."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        if text.count("\n") >= count:
            yield from text.splitlines()[:count]
            return
        time.sleep(0.05)
    pytest.fail(f"{path} did not get {count} lines in {timeout} s")


def test_stop_cancels_the_tasks_in_flight_and_a_connection_made_by_the_caller_stays_open(
    ray_address: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ray

    suite = project(tmp_path, SLOW, module="agents_stopped")
    monkeypatch.chdir(tmp_path)
    ray.init(address=ray_address, logging_level="ERROR")
    try:
        executor = RayExecutor(RayOptions(batch_size=1))
        stopped: list[float] = []
        seen: set[int] = set()

        def on_result(index: int, result: Any) -> None:
            seen.add(index)
            if not stopped and {0, 1} <= seen:  # both fast cases are in: slow 1 and slow 2 are running
                stopped.append(time.monotonic())
                executor.stop()

        report = asyncio.run(execute_plan(plan_of(suite, concurrency=2), executor, on_result=on_result))
        returned = time.monotonic() - stopped[0]
        assert returned < 3.0  # promptly, not after the slow cases' 2 s
        assert report.interrupted and [case.name for case in report.cases] == ["fast 1", "fast 2"]
        assert ray.is_initialized()  # the caller's connection: the run used it and left it open
        time.sleep(3.0)  # the job is still alive: a task that was not cancelled would finish now
        assert finished(tmp_path) == []
    finally:
        ray.shutdown()


def test_a_worker_that_cannot_rebuild_the_run_errors_every_case_of_its_batch_saying_why(
    ray_address: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = """\
    - {name: first, input: hello, evaluators: [{contains: hello}]}
    - {name: second, input: hello, evaluators: [{contains: hello}]}
    """
    suite = project(tmp_path, cases, module="agents_changed")
    monkeypatch.chdir(tmp_path)
    plan = plan_of(suite, concurrency=2)
    suite.write_text(suite.read_text(encoding="utf-8").replace("input: hello,", "input: changed,", 1), encoding="utf-8")
    report = run_plan(plan, RayExecutor(RayOptions(ray_address=ray_address, batch_size=2)))
    assert [case.status for case in report.cases] == ["error", "error"]
    error = report.cases[0].error or ""
    assert error.startswith("Ray worker ") and " could not rebuild the run: AgentEvalError: " in error
    assert "case 'first' is not case 1 as the run expects; the suite file changed since the run started" in error


def test_with_no_address_a_local_ray_is_started_for_the_run_and_shut_down(tmp_path: Path) -> None:
    cases = """\
    - {name: first, input: hello, evaluators: [{contains: hello}]}
    - {name: second, input: bye, evaluators: [{contains: hello}]}
    """
    project(tmp_path, cases, module="agents_local_ray")
    temp = tempfile.mkdtemp(prefix="aer-", dir="/tmp")  # short: Ray's socket paths go under it
    try:
        # a process of its own: a local Ray that died under the run would take the test process with it
        command = ["run", "suite.yaml", "--executor", "ray", "--concurrency", "2", "--no-history", "--json", "r.json"]
        done = run_cli(*command, cwd=tmp_path, env={"RAY_TMPDIR": temp}, process=True, timeout=120)
        assert done.returncode == 1, done.stdout + done.stderr
        report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
        assert [case["status"] for case in report["cases"]] == ["passed", "failed"]
        assert processes_under(temp) == []  # the local Ray stopped with the run
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def processes_under(folder: str) -> list[str]:
    """The command lines of the running processes that name ``folder`` (a Ray's temp folder)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if folder in line:
            found.append(line)
    return found


def test_an_address_that_does_not_answer_is_an_error_after_connect_timeout_and_ctrl_c_does_not_wait(
    tmp_path: Path,
) -> None:
    cases = "- {name: first, input: hello, evaluators: [{contains: hello}]}\n"
    project(tmp_path, cases, module="agents_unreachable")
    # a port nothing listens on: Ray would retry it for minutes
    command = [str(BIN / "agent-eval"), "run", "suite.yaml", "--no-history", "--json", "report.json"]
    command += ["--executor", "ray", "--ray-address", "127.0.0.1:9", "--connect-timeout"]
    started = time.monotonic()
    done = subprocess.run([*command, "2"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert time.monotonic() - started < 30
    assert done.returncode == 2, done.stderr  # a usage error: one line, no traceback
    assert "error: executor 'ray': no answer from the Ray cluster at '127.0.0.1:9' within 2 s (connect_timeout)" in (
        done.stderr
    )
    with subprocess.Popen([*command, "600"], cwd=tmp_path, stderr=subprocess.PIPE, stdout=subprocess.PIPE) as run:
        time.sleep(3.0)
        run.send_signal(signal.SIGINT)
        try:
            run.communicate(timeout=20)
        finally:
            if run.poll() is None:
                run.kill()
    assert run.returncode == 130
    assert json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["interrupted"] is True
