"""The ``agent-eval`` command."""

from __future__ import annotations

import json
import os
import sys
from typing import Any, ClassVar, NoReturn

import click

from agent_eval._version import __version__

EXIT_BELOW_BAR = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130
DEFAULT_HISTORY = ".agent-eval/runs.db"
DEBUG_ENV = "AGENT_EVAL_DEBUG"


class UsageProblem(click.ClickException):
    """A user mistake: printed as one line per problem, exit 2, no traceback."""

    exit_code = EXIT_USAGE

    def __init__(self, lines: list[str] | str) -> None:
        self.lines = [lines] if isinstance(lines, str) else list(lines)
        super().__init__("\n".join(self.lines))

    def show(self, file: Any = None) -> None:
        stream = file or sys.stderr
        if len(self.lines) > 1:
            click.echo(f"error: {len(self.lines)} problems:", file=stream)
        for line in self.lines:
            click.echo(f"error: {line}", file=stream)


class _LazyGroup(click.Group):
    """A group whose history commands are imported only when they are used (start-up stays fast)."""

    lazy: ClassVar[dict[str, str]] = {
        "runs": "agent_eval.history_cli:runs",
        "show": "agent_eval.history_cli:show",
        "compare": "agent_eval.history_cli:compare",
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self.lazy])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = self.lazy.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        import importlib

        module_name, _, attribute = target.partition(":")
        command: click.Command = getattr(importlib.import_module(module_name), attribute)
        return command


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "--version", prog_name="agent-eval", message="%(prog)s %(version)s")
def main() -> None:
    """Grade the answers of LLM agents against criteria."""


@main.command("list-evaluators")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list for tools instead of a table.")
def list_evaluators(as_json: bool) -> None:
    """List the installed evaluators: name, package, version, description."""
    from agent_eval.plugins import HOW_TO_INSTALL, get_registry

    registry = get_registry()
    for broken in registry.broken:
        click.echo(f"warning: {broken.message()}", err=True)
    infos = registry.all()
    if as_json:
        click.echo(json.dumps([info.to_dict() for info in infos], indent=2))
        return
    if not infos:
        click.echo(f"No evaluators are installed. To add evaluators, {HOW_TO_INSTALL}.")
        return
    rows = [(i.name, i.distribution or f"({i.plugin})", i.version or "", i.description) for i in infos]
    if sys.stdout.isatty():
        _print_rich_table(rows)
    else:
        _print_plain_table(rows)


_EVALUATOR_COLUMNS = ("Name", "Package", "Version", "Description")


def _print_rich_table(rows: list[tuple[str, str, str, str]]) -> None:
    from rich.table import Table

    from agent_eval.report.console import make_console

    table = Table(title="Installed evaluators", title_justify="left")
    for column in _EVALUATOR_COLUMNS:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*row)
    make_console().print(table)


def _print_plain_table(rows: list[tuple[str, str, str, str]]) -> None:
    """Aligned columns for pipes and logs: no colour, no box drawing, one line per evaluator."""
    widths = [max(len(row[i]) for row in [_EVALUATOR_COLUMNS, *rows]) for i in range(3)]
    for row in [_EVALUATOR_COLUMNS, *rows]:
        click.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[3])


# Paths arrive as strings and become pathlib.Path only when a command runs (start-up time).
_FILE = click.Path(dir_okay=False)


@main.command()
@click.argument("suite_file", metavar="SUITE", type=_FILE)
@click.option("--agent", "agent_ref", metavar="MODULE:ATTR", help="The agent to run (wins over the suite's).")
@click.option("--concurrency", type=click.IntRange(min=1), help="Cases run at once (default: suite's, or 1).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), help="Seconds before an agent call is cut off.")
@click.option("--json", "json_path", type=_FILE, help="Write the report as JSON.")
@click.option("--jsonl", "jsonl_path", type=_FILE, help="Append each case as it finishes.")
@click.option("--junit", "junit_path", type=_FILE, help="Write JUnit XML for CI.")
@click.option("--html", "html_path", type=_FILE, help="Write a self-contained HTML page.")
@click.option("--markdown", "markdown_path", type=_FILE, help="Write a Markdown summary.")
@click.option(
    "--min-pass-rate", type=click.FloatRange(0, 1), help="Exit 1 below this pass rate (default: suite's, or 1.0)."
)
@click.option("--strict", is_flag=True, help="Count skipped cases as failed.")
@click.option(
    "--history",
    "history_path",
    type=_FILE,
    help=f"Run history database (default {DEFAULT_HISTORY}).",
)
@click.option("--no-history", is_flag=True, help="Do not record this run.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the summary line.")
@click.option(
    "--filter",
    "-k",
    "filters",
    multiple=True,
    metavar="PATTERN",
    help="Run only the cases whose name contains PATTERN (or matches it, with * or ?); repeatable.",
)
def run(suite_file: str, agent_ref: str | None, **options: Any) -> None:
    """Run the cases of SUITE against the agent and grade them."""
    from pathlib import Path

    from agent_eval.run_command import RunOptions, execute

    if options["history_path"] is not None and options["no_history"]:
        raise click.UsageError("--history and --no-history exclude each other")
    paths: dict[str, Any] = {
        key: Path(value) for key, value in options.items() if key.endswith("_path") and value is not None
    }
    code = execute(Path(suite_file), agent_ref, RunOptions(**{**options, **paths}))
    sys.exit(code)


def entry(args: list[str] | None = None) -> NoReturn:
    """Run the command line; user errors give one line and exit 2, Ctrl-C exits 130."""
    try:
        code = main.main(args=args, prog_name="agent-eval", standalone_mode=False)
    except click.exceptions.Abort:
        _die("interrupted", EXIT_INTERRUPTED)
    except KeyboardInterrupt:
        _die("interrupted", EXIT_INTERRUPTED)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(1)
    except Exception as error:
        if os.environ.get(DEBUG_ENV):
            raise
        _die(f"internal error: {type(error).__name__}: {error} (set {DEBUG_ENV}=1 for the traceback)", EXIT_INTERNAL)
    sys.exit(code if isinstance(code, int) else 0)


def _die(message: str, code: int) -> NoReturn:
    click.echo(f"error: {message}" if code != EXIT_INTERRUPTED else message, err=True)
    sys.exit(code)
