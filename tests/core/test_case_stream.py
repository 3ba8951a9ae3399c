"""--jsonl: a case's line is written as it finishes; the lines of cases that finish in a row, on an event loop,
go out together when the loop next turns (or once TOGETHER_S have gone by), and are the same bytes."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from agent_eval._model import EvalReport, EvalResult, Evaluation
from agent_eval._report import files
from agent_eval._report.json import TOGETHER_S, CaseStream


def _result(index: int) -> EvalResult:
    odd = ["plain", "é \u2028 \u2029 \x85 breaks", "\ud800 alone", "\x1b[31mred"][index % 4]
    return EvalResult(
        f"case {index}",
        f"question {index}",
        output=f"answer {index} {odd}",
        status="passed",
        score=1.0,
        evaluations=[Evaluation("contains", "passed", score=1.0, metadata={"found": [odd]})],
    )


def _lines(path: Path) -> list[bytes]:
    data = path.read_bytes()
    assert not data or data.endswith(b"\n")
    return data.splitlines()


def _stream(path: Path) -> CaseStream:
    def failed(error: OSError) -> None:
        pytest.fail(f"the stream could not write: {error}")

    return CaseStream(path, {"run_id": "r1", "suite": "s \u2028"}, on_error=failed)


def _written_one_by_one(folder: Path, results: list[EvalResult]) -> bytes:
    """The file as written off any event loop: each line at once, by itself."""
    path = folder / "alone.jsonl"
    stream = _stream(path)
    for index, result in enumerate(results):
        stream.case(index, result)
    stream.finish(EvalReport(results))
    return path.read_bytes()


def test_off_an_event_loop_each_line_is_written_at_once(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    stream = _stream(path)
    for index in range(3):
        stream.case(index, _result(index))
        assert len(_lines(path)) == index + 1


def test_lines_of_cases_in_a_row_go_out_together_when_the_loop_turns(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    stream = _stream(path)

    async def run() -> list[int]:
        seen = []
        for index in range(5):
            stream.case(index, _result(index))
            seen.append(len(_lines(path)))
        await asyncio.sleep(0)  # the loop turns: what waited is written
        seen.append(len(_lines(path)))
        await asyncio.sleep(TOGETHER_S * 2)
        stream.case(5, _result(5))  # the last write is long past: at once
        seen.append(len(_lines(path)))
        return seen

    # the first at once (nothing was written before), the next four when the loop turns
    assert asyncio.run(run()) == [1, 1, 1, 1, 1, 5, 6]


def test_a_loop_held_by_blocking_work_holds_a_line_back_no_longer_than_together_s(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    stream = _stream(path)

    async def run() -> list[int]:
        stream.case(0, _result(0))
        stream.case(1, _result(1))  # waits for company
        time.sleep(TOGETHER_S * 2)  # an inline agent that blocks the loop: the loop does not turn
        stream.case(2, _result(2))
        return [len(_lines(path))]

    assert asyncio.run(run()) == [3]


@pytest.mark.parametrize("count", [1, 7, 256, 257, 600])
def test_lines_written_together_are_the_bytes_written_one_by_one(tmp_path: Path, count: int) -> None:
    results = [_result(index) for index in range(count)]
    path = tmp_path / "together.jsonl"
    stream = _stream(path)

    async def run() -> None:
        for index, result in enumerate(results):
            stream.case(index, result)

    asyncio.run(run())  # the loop ends before it turns again: finish writes what waited
    stream.finish(EvalReport(results))
    expected = _written_one_by_one(tmp_path, results)
    assert path.read_bytes() == expected
    lines = [json.loads(line) for line in expected.splitlines()]
    assert [line.get("index") for line in lines] == [*range(count), None]
    assert "\u2028" in lines[1]["output"] if count > 1 else True


def test_the_run_ending_any_way_writes_what_waited(tmp_path: Path) -> None:
    from agent_eval.cli._running import _written_out

    path = tmp_path / "r.jsonl"
    stream = _stream(path)

    async def run() -> None:
        with _written_out(stream):
            for index in range(4):
                stream.case(index, _result(index))
            raise RuntimeError("the run broke")

    with pytest.raises(RuntimeError):
        asyncio.run(run())
    assert len(_lines(path)) == 4


class _Short:
    """os.writev that takes at most ``most`` bytes a call, as a pipe or a signal may make it."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.calls: list[int] = []

    def __call__(self, fd: int, parts: list[Any]) -> int:
        import os

        self.calls.append(len(parts))
        return os.write(fd, b"".join(parts)[: self.most])


@pytest.mark.parametrize("writev", [_Short(1), _Short(1000), None])
def test_a_write_that_takes_less_than_it_is_given_is_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writev: _Short | None
) -> None:
    results = [_result(index) for index in range(300)]
    expected = _written_one_by_one(tmp_path, results)
    monkeypatch.setattr(files, "_writev", writev)
    path = tmp_path / "short.jsonl"
    stream = _stream(path)

    async def run() -> None:
        for index, result in enumerate(results):
            stream.case(index, result)

    asyncio.run(run())
    stream.finish(EvalReport(results))
    assert path.read_bytes() == expected
    if writev is not None:  # 299 cases waited: 4 parts each, at most 1,024 parts a call
        assert writev.calls[:2] == [4, 1024]


def test_a_failed_write_of_lines_that_waited_is_said_once_and_the_run_goes_on(tmp_path: Path) -> None:
    said: list[OSError] = []
    stream = CaseStream("/dev/full", {"run_id": "r1"}, on_error=said.append)

    async def run() -> None:
        for index in range(5):
            stream.case(index, _result(index))
            await asyncio.sleep(0)
            stream.case(index + 100, _result(index))

    asyncio.run(run())
    stream.finish(EvalReport([]))
    assert len(said) == 1
    assert stream.failed


def test_flush_unless_busy_leaves_a_write_under_way_alone(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    stream = _stream(path)

    async def run() -> None:
        stream.case(0, _result(0))
        stream.case(1, _result(1))  # waits
        with stream._lock:  # a write or an append under way (the signal handler interrupted it, say)
            stream.flush_unless_busy()
            assert len(_lines(path)) == 1
        stream.flush_unless_busy()
        assert len(_lines(path)) == 2

    asyncio.run(run())


def test_calls_done_while_blocked_are_made_from_the_watchdog_while_an_agent_holds_the_loop() -> None:
    import threading

    from agent_eval._execution import _Stoppable
    from agent_eval._signals import STUCK_AFTER, done_while_blocked, graceful_signals

    made: list[str] = []

    class Executor:
        def stop(self) -> None:
            pass

    async def run() -> None:
        with graceful_signals(_Stoppable(Executor())):  # type: ignore[arg-type]
            with done_while_blocked(lambda: made.append(threading.current_thread().name)):
                await asyncio.sleep(STUCK_AFTER * 3)  # the loop turns: nothing to do
                assert made == []
                time.sleep(STUCK_AFTER * 4)  # a blocking call holds the loop
            count = len(made)
            time.sleep(STUCK_AFTER * 4)  # the context is over: no more calls
            assert len(made) == count

    asyncio.run(run())
    assert made and set(made) == {"agent-eval-watchdog"}


BLOCKING_AGENT = """\
import pathlib, time


async def agent(question):
    if question == "q2":
        pathlib.Path("blocked").touch()
        time.sleep(60)  # holds the event loop
    return "answer"
"""


def test_the_lines_of_cases_that_finished_are_written_while_an_agent_blocks_the_loop(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess

    from tests.helpers import BIN

    lines = [json.dumps({"name": f"c{i}", "input": f"q{i}", "evaluators": [{"contains": "answer"}]}) for i in range(5)]
    (tmp_path / "suite.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "blocking.py").write_text(BLOCKING_AGENT, encoding="utf-8")
    process = subprocess.Popen(
        [
            str(BIN / "agent-eval"),
            "run",
            "suite.jsonl",
            "--agent",
            "blocking:agent",
            "--no-history",
            "--jsonl",
            "r.jsonl",
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        journal = tmp_path / "r.jsonl"
        # c0 and c1 finished at once, c1 within 5 ms of c0's write: its line waited for the loop, which the
        # agent of c2 holds; the watchdog writes it
        while time.monotonic() < deadline and not (journal.exists() and len(_lines(journal)) == 2):
            time.sleep(0.02)
        assert (tmp_path / "blocked").exists()
        assert [json.loads(line)["name"] for line in _lines(journal)] == ["c0", "c1"]
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
