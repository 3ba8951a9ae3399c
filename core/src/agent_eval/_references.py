"""Importing an agent named as ``module:attribute``."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agent_eval._calling import agent_problem
from agent_eval._errors import AgentReferenceError, did_you_mean
from agent_eval._text import describe_error


def load_agent(
    reference: str, *, origin: str = "--agent", folders: Sequence[str | os.PathLike[str]] | None = None
) -> Callable[..., Any]:
    """Import the agent ``module:attr`` and check it can be called as ``agent(input, ctx)`` or ``agent(input)``.

    ``folders`` are made importable, searched in that order before the installed packages (default:
    the current directory).
    """
    module_name, colon, attribute = reference.partition(":")
    if not colon or not module_name or not attribute:
        raise AgentReferenceError(
            f"agent {reference!r} (from {origin}) must be MODULE:ATTRIBUTE, e.g. my_agents:support"
        )
    searched = _importable([Path.cwd()] if folders is None else [Path(folder) for folder in folders])
    module = _import(module_name, reference, origin, searched)
    target: Any = module
    for part in attribute.split("."):
        if not hasattr(target, part):
            names = [name for name in dir(target) if not name.startswith("_")]
            raise AgentReferenceError(
                f"agent {reference!r} (from {origin}): {type(target).__name__} {_name(target)!r} has no "
                f"attribute {part!r}.{did_you_mean(part, names)}"
            )
        target = getattr(target, part)
    if not callable(target):
        raise AgentReferenceError(
            f"agent {reference!r} (from {origin}) is a {type(target).__name__}, not a callable; "
            "name a function agent(input, ctx)"
        )
    problem = agent_problem(target)
    if problem:
        raise AgentReferenceError(f"agent {reference!r} (from {origin}) {problem}")
    return target  # type: ignore[no-any-return]


def _importable(folders: list[Path]) -> list[str]:
    """Put ``folders`` on the import path, in this order relative to each other; their names as searched."""
    previous: str | None = None
    entries = []
    for folder in folders:
        entry = str(folder)
        if entry in entries:
            continue
        if entry not in sys.path:
            sys.path.insert(0 if previous is None else sys.path.index(previous) + 1, entry)
        previous = entry
        entries.append(entry)
    return entries


def _import(module_name: str, reference: str, origin: str, searched: list[str]) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and module_name.split(".")[0] == error.name.split(".")[0]:
            raise AgentReferenceError(
                f"agent {reference!r} (from {origin}): no module named {error.name!r} "
                f"(looked in {', '.join(searched)} and the installed packages)"
            ) from None
        raise AgentReferenceError(
            f"agent {reference!r} (from {origin}): importing {module_name!r} failed: {describe_error(error)}"
        ) from None
    except (Exception, SystemExit) as error:
        raise AgentReferenceError(
            f"agent {reference!r} (from {origin}): importing {module_name!r} failed: {describe_error(error)}"
        ) from None


def _name(target: Any) -> str:
    return str(getattr(target, "__name__", type(target).__name__))
