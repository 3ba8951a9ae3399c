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


def _collections_during(
    ticks: int, *, garbage_from: int | None = None, growth: Any = None, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[int], list[int]]:
    """Tick ``ticks`` times inside a command (one finished case each); from tick ``garbage_from`` on, each
    case leaves a cycle behind. The peak memory grows by ``growth(stretch)`` in each stretch (10 units
    by default: a steady run). The stretches (ticks // COLLECT_EVERY) whose tick collected, and the counts
    of live Cycles seen after each stretch."""
    import weakref

    from agent_eval.cli import _common

    peak = [1000]

    def peak_memory() -> int:
        return -1 if growth == "unknown" else peak[0]

    monkeypatch.setattr(_common, "_peak_memory", peak_memory)
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
                if tick % _common.COLLECT_EVERY == 0:
                    peak[0] += 10 if growth in (None, "unknown") else growth(tick // _common.COLLECT_EVERY)
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
def test_while_collections_find_no_garbage_only_every_eighth_stretch_is_collected(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agent_eval.cli._common import LOOK_EVERY

    collected, _ = _collections_during(10 * 20, monkeypatch=monkeypatch)
    assert collected == [1, LOOK_EVERY, 2 * LOOK_EVERY]
    assert gc.get_freeze_count() == 0  # what was set aside is collectable again after the command


@pytest.mark.usefixtures("stretches_of_ten")
def test_cases_that_leave_garbage_have_every_stretch_collected(monkeypatch: pytest.MonkeyPatch) -> None:
    collected, alive = _collections_during(10 * 12, garbage_from=1, monkeypatch=monkeypatch)
    assert collected == list(range(1, 13))
    assert alive == [0] * 12  # each stretch's cycles are freed by its collection


@pytest.mark.usefixtures("stretches_of_ten")
def test_garbage_that_starts_late_is_found_at_the_next_look_and_collected_from_then_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agent_eval.cli._common import LOOK_EVERY

    collected, alive = _collections_during(10 * 20, garbage_from=10 * 3 + 1, monkeypatch=monkeypatch)
    assert collected == [1, *range(LOOK_EVERY, 21)]
    # the stretches set aside before the look keep their cycles to the end of the command; no more are kept
    kept = 10 * (LOOK_EVERY - 1 - 3)
    assert alive[LOOK_EVERY - 1 :] == [kept] * (20 - LOOK_EVERY + 1)


@pytest.mark.usefixtures("stretches_of_ten")
def test_a_stretch_whose_memory_grows_much_more_than_the_last_collected_ones_is_collected(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # garbage that takes memory from stretch 4 on (cycles holding large buffers, say): each such stretch
    # grows the peak ten times as much as a quiet one, so it is collected at once, and found dirty
    collected, alive = _collections_during(
        10 * 12, garbage_from=10 * 3 + 1, growth=lambda stretch: 100 if stretch >= 4 else 10, monkeypatch=monkeypatch
    )
    assert collected == [1, *range(4, 13)]
    assert alive[3:] == [0] * 9  # none of the garbage was set aside


@pytest.mark.usefixtures("stretches_of_ten")
def test_twice_the_growth_of_the_last_collected_stretch_is_still_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    collected, _ = _collections_during(
        10 * 8, growth=lambda stretch: 20 if stretch == 3 else 21 if stretch == 5 else 10, monkeypatch=monkeypatch
    )
    assert collected == [1, 5, 8]  # 20 is twice 10: set aside; 21 is more: collected (and clean again)


@pytest.mark.usefixtures("stretches_of_ten")
def test_nothing_is_set_aside_where_the_peak_memory_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    collected, _ = _collections_during(10 * 5, growth=lambda stretch: 0, monkeypatch=monkeypatch)
    assert collected == [1]  # a steady peak: every stretch but the first is quiet
    monkeypatch.setattr("agent_eval.cli._common._ticks", [0])
    collected, _ = _collections_during(10 * 5, growth="unknown", monkeypatch=monkeypatch)
    assert collected == [1, 2, 3, 4, 5]  # (Windows)


@pytest.mark.usefixtures("stretches_of_ten")
def test_nothing_is_set_aside_by_the_run_when_the_suite_was_not(monkeypatch: pytest.MonkeyPatch) -> None:
    gc.freeze()  # another's frozen objects: the command leaves freezing alone
    try:
        collected, _ = _collections_during(10 * 5, monkeypatch=monkeypatch)
    finally:
        gc.unfreeze()
    assert collected == [1, 2, 3, 4, 5]
