"""How the judge's commands refuse: one ``error:`` line per problem on stderr, and exit 2, as agent-eval's own."""

from __future__ import annotations

import sys
from typing import NoReturn

import click

from agent_eval_judge.display import visible

EXIT_USAGE = 2


def fail(problems: list[str] | str) -> NoReturn:
    """Print each problem (``error: N problems:`` first when there are several) and exit 2."""
    lines = [problems] if isinstance(problems, str) else problems
    if len(lines) > 1:
        click.echo(f"error: {len(lines)} problems:", err=True)
    for line in lines:
        click.echo(f"error: {visible(line, 2000)}", err=True)
    sys.exit(EXIT_USAGE)
