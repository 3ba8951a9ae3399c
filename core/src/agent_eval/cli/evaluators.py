"""``agent-eval list-evaluators``: the evaluators the installed plugins provide."""

from __future__ import annotations

import json
import sys

import click


@click.command("list-evaluators")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list for tools instead of a table.")
def list_evaluators(as_json: bool) -> None:
    """List the installed evaluators: name, package, version, description."""
    from agent_eval._plugins import HOW_TO_INSTALL, get_registry

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

    from agent_eval._report.console import make_console

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
