"""Token counts added up, and how the judge's commands refuse: agent-eval's own way, one ``error:`` line
per problem and exit 2."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NoReturn


def summed(usages: Iterable[Mapping[str, int]], into: dict[str, int] | None = None) -> dict[str, int]:
    """The counts of ``usages`` added key by key (keys in the order first seen), to ``into`` when given."""
    total: dict[str, int] = {} if into is None else into
    for usage in usages:
        for key, value in usage.items():
            total[key] = total.get(key, 0) + value
    return total


def fail(problems: list[str] | str) -> NoReturn:
    """Refuse with these problems: the command line prints each on an ``error:`` line and exits 2."""
    from agent_eval import CommandError

    raise CommandError(problems)
