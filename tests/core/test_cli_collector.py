"""The cyclic garbage collector during a command: off but for young objects, the loaded suite set aside."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from agent_eval.cli._common import set_aside_loaded, young_garbage_only


@pytest.fixture(autouse=True)
def _collector_as_found() -> None:
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_what_a_command_set_aside_is_collectable_again_when_it_ends() -> None:
    loaded = [[] for _ in range(100)]
    with young_garbage_only():
        assert not gc.isenabled()
        set_aside_loaded()
        assert gc.get_freeze_count() >= len(loaded)
        set_aside_loaded()  # once is enough
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_nothing_is_set_aside_when_other_objects_are_frozen_already() -> None:
    gc.freeze()
    frozen = gc.get_freeze_count()
    try:
        with young_garbage_only():
            [[] for _ in range(100)]
            set_aside_loaded()
            assert gc.get_freeze_count() == frozen
        assert gc.get_freeze_count() == frozen  # theirs, left as they were
    finally:
        gc.unfreeze()


def test_nothing_is_set_aside_outside_a_command() -> None:
    set_aside_loaded()
    assert gc.get_freeze_count() == 0
    gc.disable()
    try:
        with young_garbage_only():  # the collector was off already: not this command's to manage
            set_aside_loaded()
            assert gc.get_freeze_count() == 0
    finally:
        gc.enable()


# --- the young objects of a run: collected, or set aside while collections find no garbage -------------


class Cycle:
    """An object in a reference cycle: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


def _collections_during(ticks: int, *, garbage_from: int | None = None) -> tuple[list[int], list[int]]:
    """Tick ``ticks`` times inside a command (one finished case each); from tick ``garbage_from`` on, each
    case leaves a cycle behind. The stretches (ticks // COLLECT_EVERY) whose tick collected, and the
    counts of live Cycles seen after each stretch."""
    import weakref

    from agent_eval.cli import _common

    collected: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 1:
            collected.append(_common._ticks[0] // _common.COLLECT_EVERY)

    alive: list[int] = []
    refs: list[weakref.ref[Cycle]] = []
    gc.callbacks.append(seen)
    try:
        with young_garbage_only():
            set_aside_loaded()
            for tick in range(1, ticks + 1):
                if garbage_from is not None and tick >= garbage_from:
                    refs.append(weakref.ref(Cycle()))
                _common.collect_now_and_then()
                if tick % _common.COLLECT_EVERY == 0:
                    alive.append(sum(ref() is not None for ref in refs))
    finally:
        gc.callbacks.remove(seen)
    return collected, alive


@pytest.fixture
def stretches_of_ten(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_eval.cli import _common

    monkeypatch.setattr(_common, "COLLECT_EVERY", 10)
    monkeypatch.setattr(_common, "_ticks", [0])


@pytest.mark.usefixtures("stretches_of_ten")
def test_while_collections_find_no_garbage_only_every_eighth_stretch_is_collected() -> None:
    from agent_eval.cli._common import LOOK_EVERY

    collected, _ = _collections_during(10 * 20)
    assert collected == [1, LOOK_EVERY, 2 * LOOK_EVERY]
    assert gc.get_freeze_count() == 0  # what was set aside is collectable again after the command


@pytest.mark.usefixtures("stretches_of_ten")
def test_cases_that_leave_garbage_have_every_stretch_collected() -> None:
    collected, alive = _collections_during(10 * 12, garbage_from=1)
    assert collected == list(range(1, 13))
    assert alive == [0] * 12  # each stretch's cycles are freed by its collection


@pytest.mark.usefixtures("stretches_of_ten")
def test_garbage_that_starts_late_is_found_at_the_next_look_and_collected_from_then_on() -> None:
    from agent_eval.cli._common import LOOK_EVERY

    collected, alive = _collections_during(10 * 20, garbage_from=10 * 3 + 1)
    assert collected == [1, *range(LOOK_EVERY, 21)]
    # the stretches set aside before the look keep their cycles to the end of the command; no more are kept
    kept = 10 * (LOOK_EVERY - 1 - 3)
    assert alive[LOOK_EVERY - 1 :] == [kept] * (20 - LOOK_EVERY + 1)


@pytest.mark.usefixtures("stretches_of_ten")
def test_nothing_is_set_aside_by_the_run_when_the_suite_was_not() -> None:
    gc.freeze()  # another's frozen objects: the command leaves freezing alone
    try:
        collected, _ = _collections_during(10 * 5)
    finally:
        gc.unfreeze()
    assert collected == [1, 2, 3, 4, 5]


# --- a large run's report is left to the operating system when the process ends with the command --------

AGENT = """\
import atexit, gc, json, sys


def _at_exit():
    # the report is set aside by then; the agent's own exit functions still run
    with open("at_exit.json", "w") as out:
        json.dump({"frozen": gc.get_freeze_count()}, out)


atexit.register(_at_exit)


async def agent(question):
    return "the answer to " + question if question != "question 7" else "no"
"""


def _large_suite(folder: Any, cases: int) -> None:
    import json

    lines = (
        json.dumps({"name": f"case {i}", "input": f"question {i}", "evaluators": [{"contains": "answer"}]})
        for i in range(cases)
    )
    (folder / "suite.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "agents.py").write_text(AGENT, encoding="utf-8")


def test_the_console_script_leaves_a_large_report_to_the_system_and_still_exits_as_the_run_says(
    tmp_path: Any,
) -> None:
    import json

    from agent_eval.cli._common import LEAVE_FROM
    from tests.helpers import run_cli

    _large_suite(tmp_path, LEAVE_FROM)
    done = run_cli(
        "run", "suite.jsonl", "--agent", "agents:agent", "--quiet", "--json", "r.json", "--jsonl", "r.jsonl",
        "--history", "h.db", cwd=tmp_path, env={"PYTHONPATH": str(tmp_path)}, process=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr  # case 7 failed: below the bar of 100%
    assert json.loads((tmp_path / "at_exit.json").read_text())["frozen"] > LEAVE_FROM  # set aside, not freed
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert (report["total"], report["failed"]) == (LEAVE_FROM, 1)
    assert len((tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()) == LEAVE_FROM + 1


def test_a_smaller_report_and_any_report_of_a_command_run_in_process_are_freed_as_ever(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import weakref

    from agent_eval._model import EvalReport, EvalResult
    from agent_eval.cli import _common
    from agent_eval.cli._common import keep_to_the_end, leave_to_exit
    from tests.helpers import run_cli

    monkeypatch.setattr(_common, "_kept", [])
    report = EvalReport([EvalResult("c", "q", status="passed")])
    keep_to_the_end(report)  # not the console script: nothing kept
    monkeypatch.setattr(_common, "_process_ends", [True])
    keep_to_the_end(report)  # smaller than LEAVE_FROM: not kept either
    assert _common._kept == []
    monkeypatch.setattr(_common, "LEAVE_FROM", 1)
    monkeypatch.setattr(_common, "_process_ends", [False])
    _large_suite(tmp_path, 3)
    done = run_cli(
        "run", "suite.jsonl", "--agent", "agents:agent", "--no-history", cwd=tmp_path, env={"PYTHONPATH": str(tmp_path)}
    )
    assert done.returncode == 0, done.stderr
    assert _common._kept == []  # entry(args), as a caller in a process of its own makes it: nothing kept
    leave_to_exit()
    assert gc.get_freeze_count() == 0
    kept = EvalReport([EvalResult("c", "q", status="passed")])
    alive = weakref.ref(kept.cases[0])
    monkeypatch.setattr(_common, "_process_ends", [True])
    keep_to_the_end(kept)
    assert _common._kept == [kept]
    del kept
    assert alive() is not None
