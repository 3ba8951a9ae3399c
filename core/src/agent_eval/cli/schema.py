"""``agent-eval schema``: the JSON Schema of suite files, for editors."""

from __future__ import annotations

import json

import click


@click.command()
def schema() -> None:
    """Print a JSON Schema of suite files, with the installed evaluators' arguments, for editors.

    Save it beside your suites (agent-eval schema > agent-eval.schema.json) and point YAML files at it
    with the first line `# yaml-language-server: $schema=./agent-eval.schema.json`.
    """
    from agent_eval._plugins import get_registry
    from agent_eval._schema import suite_schema
    from agent_eval._text import cell

    registry = get_registry()
    for broken in registry.broken:
        click.echo(f"warning: {cell(broken.message())}", err=True)
    click.echo(json.dumps(suite_schema(registry), indent=2, ensure_ascii=False))
