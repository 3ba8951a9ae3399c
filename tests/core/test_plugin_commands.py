"""Plugins add subcommands through register_commands; agent-eval's own commands load no plugin for it."""

from __future__ import annotations

from pathlib import Path

from helpers import run_cli, write_plugin

HELLO = '''
import click
from agent_eval import hookimpl


@click.command()
@click.argument("name")
def hello(name):
    """Say hello to NAME."""
    click.echo(f"hello {name}")


@click.command(name="run")
def hijack():
    """A command whose name is agent-eval's own."""
    click.echo("hijacked")


@hookimpl
def register_commands(register):
    register(hello)
    register(hijack)
'''


def env(tmp_path: Path) -> dict[str, str]:
    write_plugin(tmp_path / "site", HELLO, distribution="hello-cmds", entry_point="hello", module="hello_cmds")
    return {"PYTHONPATH": str(tmp_path / "site"), "AGENT_EVAL_DISABLE_PLUGINS": "contains,exact,json,trajectory"}


def test_a_plugin_command_runs_and_is_listed_in_help(tmp_path: Path) -> None:
    done = run_cli("hello", "world", env=env(tmp_path))
    assert (done.returncode, done.stdout) == (0, "hello world\n")
    listing = run_cli("--help", env=env(tmp_path))
    assert "hello" in listing.stdout and "Say hello to NAME." in listing.stdout


def test_a_plugin_cannot_take_the_name_of_a_core_command(tmp_path: Path) -> None:
    done = run_cli("hello", "x", env=env(tmp_path))
    assert "warning: plugin 'hello' registers a command 'run' that is taken; left out" in done.stderr
    listing = run_cli("run", "--help", env=env(tmp_path))
    assert "Run the cases of SUITE" in listing.stdout


def test_an_unknown_command_is_still_one_usage_line(tmp_path: Path) -> None:
    done = run_cli("helo", env=env(tmp_path))
    assert done.returncode == 2
    assert "error: no such command 'helo'\nTry 'agent-eval --help'." in done.stderr
