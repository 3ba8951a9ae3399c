"""``agent-eval run``: its options; the work is in :mod:`agent_eval.cli._running`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from agent_eval.cli._common import HISTORY_HELP, FilePath, FiniteFloatRange

# Paths arrive as strings and become pathlib.Path only when a command runs (start-up time).
_FILE = FilePath()


def report_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options of a command that makes a run: its reports, bar, history and console output."""
    options = [
        click.option("--json", "json_path", type=_FILE, help="Write the report as JSON."),
        click.option("--jsonl", "jsonl_path", type=_FILE, help="Append each case as it finishes."),
        click.option("--junit", "junit_path", type=_FILE, help="Write JUnit XML for CI."),
        click.option("--html", "html_path", type=_FILE, help="Write a self-contained HTML page."),
        click.option("--markdown", "markdown_path", type=_FILE, help="Write a Markdown summary."),
        click.option(
            "--min-pass-rate",
            type=FiniteFloatRange(0, 1),
            help="Exit 1 below this pass rate (default: suite's, or 1.0).",
        ),
        click.option("--strict", is_flag=True, help="Count skipped cases as failed."),
        click.option(
            "--history",
            "history_path",
            type=_FILE,
            help=HISTORY_HELP,
        ),
        click.option("--no-history", is_flag=True, help="Do not record this run."),
        click.option("--quiet", "-q", is_flag=True, help="Print only the summary line."),
        click.option(
            "--verbose", "-v", is_flag=True, help="Print every reason and error whole, and where errors were raised."
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@click.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("suite_file", metavar="SUITE", type=_FILE)
@click.option("--agent", "agent_ref", metavar="MODULE:ATTR", help="The agent to run (wins over the suite's).")
@click.option("--concurrency", type=click.IntRange(min=1), help="Cases run at once (default: suite's, or 1).")
@click.option("--timeout", type=FiniteFloatRange(min=0, min_open=True), help="Seconds before an agent call is cut off.")
@click.option(
    "--repeat", type=click.IntRange(min=1), help="Run every case N independent times (default: suite's, or 1)."
)
@click.option(
    "--case-pass-rate",
    type=FiniteFloatRange(0, 1),
    help="Share of a repeated case's attempts that must pass (default: suite's, or 1.0).",
)
@report_options
@click.option("--shard", metavar="I/N", callback=lambda ctx, param, value: _shard(value), help="Run only shard I of N.")
@click.option("--resume", "resume", metavar="RUN", help="Take over the cases that finished in RUN; run the rest.")
@click.option("--retry-errors", metavar="RUN", help="Take over RUN's cases but those whose status was error.")
@click.option(
    "--executor",
    metavar="NAME",
    help="Run the cases with this executor (default: suite's, or local); its options follow as --OPTION VALUE.",
)
@click.option(
    "--filter",
    "-k",
    "filters",
    multiple=True,
    metavar="PATTERN",
    help="Run only the cases whose name contains PATTERN (or matches it, with * or ?); repeatable.",
)
@click.pass_context
def run(ctx: click.Context, /, suite_file: str, agent_ref: str | None, **options: Any) -> None:
    """Run the cases of SUITE against the agent and grade them."""
    from pathlib import Path

    from agent_eval.cli._running import RunOptions, execute

    if options["history_path"] is not None and options["no_history"]:
        raise click.UsageError("--history and --no-history exclude each other")
    if options["resume"] is not None and options["retry_errors"] is not None:
        raise click.UsageError("--resume and --retry-errors exclude each other")
    paths: dict[str, Any] = {
        key: Path(value) for key, value in options.items() if key.endswith("_path") and value is not None
    }
    extra = executor_options(ctx.args)
    code = execute(Path(suite_file), agent_ref, RunOptions(**{**options, **paths}, executor_options=extra))
    sys.exit(code)


@click.command()
@click.argument("run_ref", metavar="RUN")
@click.argument("suite_file", metavar="[SUITE]", type=_FILE, required=False)
@click.option("--concurrency", type=click.IntRange(min=1), help="Cases graded at once (default: suite's, or 1).")
@report_options
def rescore(run_ref: str, suite_file: str | None, **options: Any) -> None:
    """Grade the answers stored in RUN again with SUITE's evaluators, calling no agent.

    SUITE defaults to the run's suite file. The new run is recorded, naming the run it rescored.
    """
    from pathlib import Path

    from agent_eval.cli._running import RunOptions, rescore_run

    if options["history_path"] is not None and options["no_history"]:
        raise click.UsageError("--history and --no-history exclude each other")
    paths: dict[str, Any] = {
        key: Path(value) for key, value in options.items() if key.endswith("_path") and value is not None
    }
    suite = Path(suite_file) if suite_file else None
    sys.exit(rescore_run(run_ref, suite, RunOptions(**{**options, **paths})))


def _shard(value: str | None) -> tuple[int, int] | None:
    """``--shard 2/4`` as (2, 4)."""
    if value is None:
        return None
    index, slash, count = value.partition("/")
    if slash and index.strip().isdigit() and count.strip().isdigit():
        shard, shards = int(index), int(count)
        if 1 <= shard <= shards:
            return shard, shards
    raise click.BadParameter(f"{value!r} is not I/N with 1 <= I <= N, e.g. --shard 2/4", param_hint="'--shard'")


def executor_options(args: list[str]) -> dict[str, str]:
    """``--ray-address ADDR`` and ``--ray-address=ADDR`` after the known options, as ``{"ray_address": "ADDR"}``."""
    found: dict[str, str] = {}
    rest = list(args)
    while rest:
        word = rest.pop(0)
        if not word.startswith("--") or word == "--":
            raise click.UsageError(f"unexpected argument {word!r}")
        key, equals, value = word[2:].partition("=")
        if not equals:
            if not rest or rest[0].startswith("--"):
                raise click.UsageError(f"no such option: {word}")
            value = rest.pop(0)
        found[key.replace("-", "_")] = value
    return found
