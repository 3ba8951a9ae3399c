"""``agent-eval list-evaluators``: the evaluators the installed plugins provide."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from agent_eval._plugins import BrokenPlugin


@click.command("list-evaluators")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list for tools instead of a table.")
def list_evaluators(as_json: bool) -> None:
    """List the installed evaluators: name, package, version, description."""
    from agent_eval._plugins import HOW_TO_INSTALL, get_registry
    from agent_eval._text import cell

    registry = get_registry()
    for broken in registry.broken:
        click.echo(f"warning: {cell(broken.message())}", err=True)
    infos = registry.all()
    if as_json:
        listed = [{**info.to_dict(), "broken": False} for info in infos]
        listed += [_broken(plugin) for plugin in registry.broken]
        click.echo(json.dumps(listed, indent=2))
        return
    if not infos:
        click.echo(f"No evaluators are installed. To add evaluators, {HOW_TO_INSTALL}.")
        return
    rows = [
        tuple(cell(text) for text in (i.name, i.distribution or f"({i.plugin})", i.version or "", i.description))
        for i in infos
    ]
    if sys.stdout.isatty():
        _print_rich_table(rows)
    else:
        _print_plain_table(rows)


def _broken(plugin: BrokenPlugin) -> dict[str, Any]:
    """A plugin that failed to load, in the listing: it provides no evaluator (``name`` is null) and says why."""
    return {
        "name": None,
        "package": plugin.distribution,
        "version": plugin.version,
        "description": None,
        "plugin": plugin.entry_point,
        "parameters": [],
        "broken": True,
        "error": plugin.error,
    }


_EVALUATOR_COLUMNS = ("Name", "Package", "Version", "Description")


def _print_rich_table(rows: list[tuple[str, ...]]) -> None:
    from rich.table import Table
    from rich.text import Text

    from agent_eval._report.console import make_console

    table = Table(title="Installed evaluators", title_justify="left")
    for column in _EVALUATOR_COLUMNS:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*(Text(text) for text in row))  # a plugin's docstring is text, not rich markup
    make_console().print(table)


def _print_plain_table(rows: list[tuple[str, ...]]) -> None:
    """Aligned columns for pipes and logs: no colour, no box drawing, one line per evaluator."""
    widths = [max(len(row[i]) for row in [_EVALUATOR_COLUMNS, *rows]) for i in range(3)]
    for row in [_EVALUATOR_COLUMNS, *rows]:
        click.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[3])
