"""The ``agent-eval`` command: the click group and its entry point.

Each command lives in its own module of this package; they share only :mod:`agent_eval.cli._common`.
Nothing outside this package imports it: the console script calls :func:`entry`.
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

import click

from agent_eval._errors import AgentEvalError
from agent_eval._version import __version__
from agent_eval.cli._common import DEBUG_ENV, EXIT_INTERNAL, EXIT_INTERRUPTED, UsageProblem
from agent_eval.cli.evaluators import list_evaluators
from agent_eval.cli.history import compare, runs, show
from agent_eval.cli.init import init
from agent_eval.cli.merge import merge
from agent_eval.cli.power import power
from agent_eval.cli.run import rescore, run
from agent_eval.cli.schema import schema


class _Group(click.Group):
    """agent-eval's own commands, then the plugins' (``register_commands``), loaded only when asked for."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is not None:
            return found
        return _plugin_commands().get(cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_plugin_commands()})


def _plugin_commands() -> dict[str, click.Command]:
    """The commands the installed plugins register, by name; a name already taken is a warning."""
    from agent_eval._plugins import get_plugins

    found: dict[str, click.Command] = {}
    for name, command, plugin in get_plugins().commands():
        if name in main.commands or name in found:
            click.echo(f"warning: plugin {plugin!r} registers a command {name!r} that is taken; left out", err=True)
            continue
        found[name] = command
    return found


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "--version", prog_name="agent-eval", message="%(prog)s %(version)s")
def main() -> None:
    """Grade the answers of LLM agents against criteria."""


for _command in (list_evaluators, run, rescore, runs, show, compare, merge, power, schema, init):
    main.add_command(_command)


def entry(args: list[str] | None = None) -> NoReturn:
    """Run the command line; user errors give one line and exit 2, Ctrl-C exits 130."""
    try:
        code = main.main(args=args, prog_name="agent-eval", standalone_mode=False)
    except click.exceptions.Abort:
        _die("interrupted", EXIT_INTERRUPTED)
    except KeyboardInterrupt:
        _die("interrupted", EXIT_INTERRUPTED)
    except click.ClickException as error:
        _show(error)
        sys.exit(error.exit_code)
    except AgentEvalError as error:  # a plugin's command refusing what it was given: one line per problem
        _show(UsageProblem(getattr(error, "problems", None) or str(error)))
        sys.exit(UsageProblem.exit_code)
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


def _show(error: click.ClickException) -> None:
    """One ``error:`` line, as for agent-eval's own errors; for click's usage errors, a hint after it."""
    if isinstance(error, UsageProblem):
        error.show()
        return
    message = " ".join(error.format_message().split()).rstrip(".")
    click.echo(f"error: {message[:1].lower()}{message[1:]}", err=True)
    context = getattr(error, "ctx", None)
    if isinstance(error, click.UsageError) and context is not None:
        click.echo(f"Try '{context.command_path} --help'.", err=True)


def _die(message: str, code: int) -> NoReturn:
    click.echo(f"error: {message}" if code != EXIT_INTERRUPTED else message, err=True)
    sys.exit(code)
