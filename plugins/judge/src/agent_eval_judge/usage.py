"""How the judge's commands refuse: agent-eval's own way, one ``error:`` line per problem and exit 2."""

from __future__ import annotations

from typing import NoReturn


def fail(problems: list[str] | str) -> NoReturn:
    """Refuse with these problems: the command line prints each on an ``error:`` line and exits 2."""
    from agent_eval import CommandError

    raise CommandError(problems)
