"""Finding entry points by reading the metadata folders on sys.path, as importlib.metadata would."""

from __future__ import annotations

import importlib.metadata as importlib_metadata
import sys
from pathlib import Path

import pytest
from helpers import write_plugin

from agent_eval import _entrypoints as entrypoints


def as_tuples(found: list[entrypoints.EntryPoint]) -> list[tuple[str, str, str | None, str | None]]:
    return sorted((e.name, e.value, e.distribution, e.version) for e in found)


@pytest.mark.parametrize("group", ["agent_eval", "console_scripts", "pytest11"])
def test_direct_scan_finds_what_importlib_metadata_finds(group: str) -> None:
    expected = [
        (e.name, e.value, e.dist.name if e.dist else None, e.dist.version if e.dist else None)
        for e in importlib_metadata.entry_points(group=group)
    ]
    assert as_tuples(entrypoints._scan(group)) == sorted(expected)


def test_first_distribution_of_a_name_on_sys_path_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    write_plugin(first, "X = 1\n", distribution="twice-evals", version="2.0", module="twice_new")
    write_plugin(second, "X = 1\n", distribution="twice-evals", version="1.0", module="twice_old")
    monkeypatch.syspath_prepend(str(second))
    monkeypatch.syspath_prepend(str(first))
    found = [e for e in entrypoints.entry_points("agent_eval") if e.distribution == "twice-evals"]
    assert [(e.value, e.version) for e in found] == [("twice_new", "2.0")]


def test_values_with_attributes_and_extras_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "deep_mod.py").write_text("class Holder:\n    class Inner:\n        value = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    point = entrypoints.EntryPoint("x", "deep_mod:Holder.Inner [fast, small]", None, None)
    assert point.load().value == 42
    assert entrypoints.EntryPoint("x", "deep_mod", None, None).load() is sys.modules["deep_mod"]


def test_comments_and_other_sections_are_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    info = tmp_path / "mixed_evals-0.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: Mixed.Evals\nVersion: 0.3\n\nName: not-this\n")
    (info / "entry_points.txt").write_text(
        "[console_scripts]\nmixed = mixed:main\n\n[agent_eval]\n# a comment\nmixed = mixed_plugin\n\n[other]\nz = y\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    found = [e for e in entrypoints.entry_points("agent_eval") if e.name == "mixed"]
    assert [(e.value, e.distribution, e.version) for e in found] == [("mixed_plugin", "Mixed.Evals", "0.3")]


def test_a_finder_that_provides_distributions_sends_the_search_to_importlib_metadata(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Finder:
        def find_spec(self, *args: object) -> None:
            return None

        def find_distributions(self, *args: object) -> list[object]:
            return []

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder()])
    called = []
    monkeypatch.setattr(entrypoints, "_through_importlib_metadata", lambda group: called.append(group) or [])
    entrypoints.entry_points("agent_eval")
    assert called == ["agent_eval"]
