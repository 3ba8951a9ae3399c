"""``agent-eval review RUN [SUITE]``: a page where a person labels a run's cases, for ``calibrate``.

Only click is imported with this module; the report reading and the page load when the command runs.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from agent_eval import EvalReport

DEFAULT_PORT = 8765


@click.command()
@click.argument("run_ref", metavar="RUN")
@click.argument("suite_path", metavar="[SUITE]", type=click.Path(dir_okay=False), required=False)
@click.option(
    "--output",
    "-o",
    "output_path",
    type=click.Path(dir_okay=False),
    default="review.html",
    show_default=True,
    help="Write the page here.",
)
@click.option("--serve", is_flag=True, help="Serve the page on 127.0.0.1 until Ctrl-C instead of writing it.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="The port --serve listens on (0: any free one; the browser keeps progress per address).",
)
@click.option("--history", "history_path", type=click.Path(dir_okay=False), help="Run history database.")
def review(
    run_ref: str, suite_path: str | None, output_path: str, serve: bool, port: int, history_path: str | None
) -> None:
    """Write a page where a person labels RUN's cases pass or fail, for `agent-eval calibrate`.

    The page shows each case's input, output, evaluations and tool calls; p and f label, j and k move,
    ? lists the keys. Progress stays in the browser; "Download labels" saves the LABELS file. RUN is a
    run id, `latest`, `latest~K`, or a report file written by `run --json` or `--jsonl`. SUITE (default:
    the run's suite file, when it is here) adds each case's judge criteria to the page.
    """
    from agent_eval_judge.display import visible
    from agent_eval_judge.review_page import render
    from agent_eval_judge.runs import load_report
    from agent_eval_judge.usage import fail

    report = load_report(run_ref, history=history_path)
    names = [result.name for result in report.cases]
    if len(set(names)) < len(names):
        twice = next(name for index, name in enumerate(names) if name in names[:index])
        fail(f"{run_ref}: two cases are named {twice!r}; labels go by case name, so each must be unique")
    suite_file, criteria = _criteria(report, suite_path)
    page = render(report, source=run_ref, suite_file=suite_file, criteria=criteria)
    count = f"{len(names)} case{'' if len(names) == 1 else 's'}"
    if serve:
        from agent_eval_judge.review_server import serve_page

        sys.exit(serve_page(page, port, what=f"the review page of {visible(run_ref, 200)} ({count})"))
    _write(output_path, page)
    click.echo(f"wrote {visible(output_path, 200)}: {count} to label; open it in a browser")


def _criteria(report: EvalReport, given: str | None) -> tuple[str | None, dict[str, list[str]]]:
    """The suite file the labels will name, and each case's judge criteria from it (when it loads)."""
    import os

    from agent_eval import AgentEvalError, load_suite
    from agent_eval_judge.calibration import judges_of
    from agent_eval_judge.display import visible

    recorded = report.metadata.get("suite_file")
    path = given or (recorded if isinstance(recorded, str) and recorded else None)
    if path is None:
        return None, {}
    if given is None and not os.path.exists(path):  # noqa: PTH110 - a path as the run recorded it
        click.echo(f"warning: the run's suite file {path!r} is not here; the page shows no criteria", err=True)
        return path, {}
    try:
        suite = load_suite(path)
    except AgentEvalError as error:
        first = str(error).splitlines()[0]
        click.echo(f"warning: {visible(first, 300)}; the page shows no criteria", err=True)
        return path, {}
    return path, {case.name: [judge.options.criteria for judge in judges_of(case)] for case in suite.cases}


def _write(path: str, page: str) -> None:
    """Write the page whole or not at all (a temporary file beside it, then renamed), making its folder."""
    import contextlib
    import os
    import secrets
    from pathlib import Path

    from agent_eval_judge.usage import fail

    target = Path(path)
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # 0o666: the umask decides the permissions, as for any file the user writes
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
                stream.write(page)
            temporary.replace(target)
        except BaseException:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise
    except OSError as error:
        fail(f"{path}: cannot write the page: {error.strerror or error}")
