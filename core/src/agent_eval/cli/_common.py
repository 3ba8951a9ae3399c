"""What every command of the ``agent-eval`` command line shares: exit codes, errors, report writing.

A leaf: the command modules import it, it imports none of them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from pathlib import Path

    from agent_eval._model import EvalReport

EXIT_BELOW_BAR = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130
DEFAULT_HISTORY = ".agent-eval/runs.db"
DEBUG_ENV = "AGENT_EVAL_DEBUG"
HISTORY_HELP = f"Run history database (default {DEFAULT_HISTORY})."

#: Report formats by name: the ``agent_eval._report`` module that writes each.
FORMATS = ("json", "junit", "html", "markdown")

#: A report to write: the option that asked for it (``--json``), the path, the format's name.
Target = tuple[str, "Path | None", str]


class UsageProblem(click.ClickException):
    """A user mistake: printed as one line per problem, exit 2, no traceback."""

    exit_code = EXIT_USAGE

    def __init__(self, lines: list[str] | str) -> None:
        self.lines = [lines] if isinstance(lines, str) else list(lines)
        super().__init__("\n".join(self.lines))

    def show(self, file: Any = None) -> None:
        from agent_eval._text import cell

        stream = file or sys.stderr
        if len(self.lines) > 1:
            click.echo(f"error: {len(self.lines)} problems:", file=stream)
        for line in self.lines:
            click.echo(f"error: {cell(line)}", file=stream)  # a case name or a path may hold any character


def write_reports(report: EvalReport, targets: Iterable[Target]) -> None:
    """Write ``report`` to each target that has a path; a path that cannot be written is a usage error."""
    import importlib

    for flag, path, kind in targets:
        if path is None:
            continue
        try:
            importlib.import_module(f"agent_eval._report.{kind}").write(report, path)
        except OSError as error:
            raise UsageProblem(f"{flag} {path}: cannot write: {error.strerror or error}") from None
