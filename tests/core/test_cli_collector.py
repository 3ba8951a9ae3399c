"""The cyclic garbage collector during a command: off but for young objects, the loaded suite set aside."""

from __future__ import annotations

import gc

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
