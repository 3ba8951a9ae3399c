"""``agent-eval run``: its options; the work is in :mod:`agent_eval.cli._running`."""

from __future__ import annotations

import sys
from typing import Any

import click

from agent_eval.cli._common import HISTORY_HELP, FilePath, FiniteFloatRange

# Paths arrive as strings and become pathlib.Path only when a command runs (start-up time).
_FILE = FilePath()


@click.command()
@click.argument("suite_file", metavar="SUITE", type=_FILE)
@click.option("--agent", "agent_ref", metavar="MODULE:ATTR", help="The agent to run (wins over the suite's).")
@click.option("--concurrency", type=click.IntRange(min=1), help="Cases run at once (default: suite's, or 1).")
@click.option("--timeout", type=FiniteFloatRange(min=0, min_open=True), help="Seconds before an agent call is cut off.")
@click.option("--json", "json_path", type=_FILE, help="Write the report as JSON.")
@click.option("--jsonl", "jsonl_path", type=_FILE, help="Append each case as it finishes.")
@click.option("--junit", "junit_path", type=_FILE, help="Write JUnit XML for CI.")
@click.option("--html", "html_path", type=_FILE, help="Write a self-contained HTML page.")
@click.option("--markdown", "markdown_path", type=_FILE, help="Write a Markdown summary.")
@click.option(
    "--min-pass-rate", type=FiniteFloatRange(0, 1), help="Exit 1 below this pass rate (default: suite's, or 1.0)."
)
@click.option("--strict", is_flag=True, help="Count skipped cases as failed.")
@click.option(
    "--history",
    "history_path",
    type=_FILE,
    help=HISTORY_HELP,
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

    from agent_eval.cli._running import RunOptions, execute

    if options["history_path"] is not None and options["no_history"]:
        raise click.UsageError("--history and --no-history exclude each other")
    paths: dict[str, Any] = {
        key: Path(value) for key, value in options.items() if key.endswith("_path") and value is not None
    }
    code = execute(Path(suite_file), agent_ref, RunOptions(**{**options, **paths}))
    sys.exit(code)
