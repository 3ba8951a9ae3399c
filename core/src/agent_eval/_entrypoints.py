"""Finding the entry points of a group, fast.

The standard library's ``importlib.metadata`` answers the general question (any import system, zipped
eggs, custom finders) but costs about 19 ms more per start (finding the entry points in a fresh
process: 54 ms against 35 ms, measured side by side), a third of ``agent-eval list-evaluators``. When the import
system is the standard one over plain folders — every virtualenv, pip and editable install — the
answer is just the ``entry_points.txt`` of the ``*.dist-info`` / ``*.egg-info`` folders on
``sys.path``, read here directly with the same rules (first distribution of a name on ``sys.path``
wins). Anything else goes through ``importlib.metadata``.

It uses os.path rather than pathlib on purpose: pathlib is not imported yet when plugins are found.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

_SUFFIXES = (".dist-info", ".egg-info")


class EntryPoint:
    """One ``name = module:attr`` line of a distribution's ``entry_points.txt``."""

    __slots__ = ("distribution", "name", "value", "version")

    def __init__(self, name: str, value: str, distribution: str | None, version: str | None) -> None:
        self.name = name
        self.value = value
        self.distribution = distribution
        self.version = version

    def __repr__(self) -> str:
        return f"EntryPoint({self.name!r}, {self.value!r}, {self.distribution!r}, {self.version!r})"

    def load(self) -> Any:
        """Import the module and return the object the entry point names."""
        reference = self.value.split("[", 1)[0].strip()  # drop "[extras]"
        module_name, _, attribute = reference.partition(":")
        target: Any = importlib.import_module(module_name.strip())
        for part in filter(None, attribute.strip().split(".")):
            target = getattr(target, part)
        return target


def entry_points(group: str) -> list[EntryPoint]:
    """The entry points of ``group`` of every installed distribution, in ``sys.path`` order."""
    if _plain_import_system():
        return _scan(group)
    return _through_importlib_metadata(group)


def _plain_import_system() -> bool:
    """True when distributions can only come from folders on sys.path (no custom finder, no zip)."""
    from importlib.machinery import PathFinder

    for finder in sys.meta_path:
        if finder is not PathFinder and getattr(finder, "find_distributions", None) is not None:
            return False
    return not any(entry and os.path.isfile(entry) for entry in sys.path)


def _scan(group: str) -> list[EntryPoint]:
    found: list[EntryPoint] = []
    seen: set[str] = set()
    for entry in sys.path:
        folder = entry or "."
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            if not name.endswith(_SUFFIXES):
                continue
            key = _normalize(name.rsplit(".", 1)[0].split("-", 1)[0])
            if key in seen:
                continue
            seen.add(key)
            found.extend(_read(os.path.join(folder, name), group))
    return found


def _read(meta_folder: str, group: str) -> list[EntryPoint]:
    text = _text(os.path.join(meta_folder, "entry_points.txt"))
    if text is None or f"[{group}]" not in text:
        return []
    lines = _section(text, group)
    if not lines:
        return []
    distribution, version = _name_and_version(meta_folder)
    return [EntryPoint(name, value, distribution, version) for name, value in lines]


def _section(text: str, group: str) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    inside = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            inside = line == f"[{group}]"
        elif inside and "=" in line:
            name, value = line.split("=", 1)
            lines.append((name.strip(), value.strip()))
    return lines


def _name_and_version(meta_folder: str) -> tuple[str | None, str | None]:
    """Name and Version from the METADATA (or PKG-INFO) headers, without the email parser."""
    name = version = None
    for file_name in ("METADATA", "PKG-INFO"):
        text = _text(os.path.join(meta_folder, file_name))
        if text is None:
            continue
        for line in text.splitlines():
            if not line.strip():
                break  # the headers end at the first blank line
            if line.startswith("Name:"):
                name = line[5:].strip()
            elif line.startswith("Version:"):
                version = line[8:].strip()
        break
    return name, version


def _text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as stream:
            return stream.read()
    except (OSError, UnicodeDecodeError):
        return None


def _normalize(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def _through_importlib_metadata(group: str) -> list[EntryPoint]:
    import importlib.metadata as importlib_metadata

    found = []
    for entry_point in importlib_metadata.entry_points(group=group):
        dist = entry_point.dist
        found.append(
            EntryPoint(
                entry_point.name,
                entry_point.value,
                dist.name if dist is not None else None,
                dist.version if dist is not None else None,
            )
        )
    return found
