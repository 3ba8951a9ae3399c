"""``agent-eval merge``: shards run apart (CI matrix jobs) joined into one run."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from agent_eval.cli._common import (
    DEFAULT_HISTORY,
    EXIT_BELOW_BAR,
    HISTORY_HELP,
    FilePath,
    UsageProblem,
    check_targets,
    exit_code,
    load_run,
    write_reports,
)

if TYPE_CHECKING:
    from agent_eval._model import EvalReport


@click.command()
@click.argument("refs", metavar="REPORT...", nargs=-1, required=True)
@click.option("--json", "json_path", type=FilePath(), help="Write the merged report as JSON.")
@click.option("--junit", "junit_path", type=FilePath(), help="Write the merged report as JUnit XML.")
@click.option("--html", "html_path", type=FilePath(), help="Write the merged report as an HTML page.")
@click.option("--markdown", "markdown_path", type=FilePath(), help="Write the merged report's Markdown summary.")
@click.option("--allow-missing", is_flag=True, help="Merge even when some shards are not given.")
@click.option("--history", "history_path", type=FilePath(), help=HISTORY_HELP)
@click.option("--no-history", is_flag=True, help="Do not record the merged run.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the summary line.")
def merge(
    refs: tuple[str, ...],
    json_path: str | None,
    junit_path: str | None,
    html_path: str | None,
    markdown_path: str | None,
    allow_missing: bool,
    history_path: str | None,
    no_history: bool,
    quiet: bool,
) -> None:
    """Join the shards of one suite's run (JSON reports, --jsonl files or run ids) into one run.

    Exit 2 when they come from different suites, hold a case twice, or (without --allow-missing) some
    shards are missing; otherwise as `run` does: 0 at or above the bar, 1 below.
    """
    from pathlib import Path

    from agent_eval._report.console import print_report

    targets = [
        ("--json", json_path, "json"),
        ("--junit", junit_path, "junit"),
        ("--html", html_path, "html"),
        ("--markdown", markdown_path, "markdown"),
    ]
    paths = [(flag, Path(path) if path else None, kind) for flag, path, kind in targets]
    check_targets(paths)
    reports = [(ref, load_run(ref, history_path)) for ref in refs]
    merged = join_shards(reports, allow_missing=allow_missing)
    bar, strict = _bar(merged)
    print_report(merged, quiet=quiet, strict=strict, bar=bar)
    if not no_history:
        _record(merged, history_path)
    written, failed = write_reports(merged, paths)
    code = EXIT_BELOW_BAR if merged.rate(strict=strict) < bar else 0
    sys.exit(exit_code(code, written, failed))


def join_shards(reports: list[tuple[str, EvalReport]], *, allow_missing: bool = False) -> EvalReport:
    """The shards' cases as one report, in the suite's order; UsageProblem naming what does not fit."""
    import attrs

    from agent_eval._history import new_run_id

    _same_suite(reports)
    shards = _shards(reports, allow_missing=allow_missing)
    ordered: list[tuple[int, int, Any]] = []
    seen: dict[str, str] = {}
    for number, (ref, report) in enumerate(reports):
        positions = report.metadata.get("positions")
        if not isinstance(positions, list) or len(positions) != len(report.cases):
            positions = list(range(len(report.cases)))  # an unsharded report: its own order
        for position, case in zip(positions, report.cases, strict=True):
            if case.name in seen:
                raise UsageProblem(f"case {case.name!r} is in {seen[case.name]} and in {ref}; give each shard once")
            seen[case.name] = ref
            ordered.append((position if isinstance(position, int) else 0, number, case))
    ordered.sort(key=lambda item: (item[0], item[1]))
    first = reports[0][1]
    metadata = {
        key: value
        for key, value in first.metadata.items()
        if key not in ("run_id", "shard", "positions", "resumed_from")
    }
    metadata.update(run_id=new_run_id(), merged_from=[_ref_of(ref, report) for ref, report in reports], shards=shards)
    started = [report.started_at for _, report in reports if report.started_at]
    planned = sum(report.planned or report.total for _, report in reports)
    return attrs.evolve(
        first,
        cases=[case for _, _, case in ordered],
        total_ms=max(report.total_ms for _, report in reports),  # the shards ran side by side
        started_at=min(started) if started else None,
        interrupted=any(report.interrupted for _, report in reports),
        planned=planned,
        metadata=metadata,
    )


def _same_suite(reports: list[tuple[str, EvalReport]]) -> None:
    """Every shard was cut from the same cases of the same suite (its digest), else exit 2 naming them."""
    first_ref, first = reports[0]
    wanted = (first.metadata.get("suite"), first.metadata.get("suite_digest"))
    for ref, report in reports[1:]:
        found = (report.metadata.get("suite"), report.metadata.get("suite_digest"))
        if found != wanted:
            what = "suite" if found[0] != wanted[0] else "cases (the suite file or its --filter changed)"
            raise UsageProblem(
                f"{ref} is from another {what} than {first_ref}: {found[0]!r} against {wanted[0]!r}; "
                "merge the shards of one run"
            )


def _shards(reports: list[tuple[str, EvalReport]], *, allow_missing: bool) -> int | None:
    """The shard count the reports were cut into, after checking each shard is given once and none is missing."""
    found: dict[int, str] = {}
    counts = set()
    for ref, report in reports:
        shard = report.metadata.get("shard")
        if not isinstance(shard, str) or "/" not in shard:
            if len(reports) > 1:
                raise UsageProblem(f"{ref} is not a shard (run it with --shard I/N); merge joins shards")
            return None
        index, count = (int(part) for part in shard.split("/", 1))
        counts.add(count)
        if index in found:
            raise UsageProblem(f"shard {shard} is given twice: {found[index]} and {ref}")
        found[index] = ref
    if len(counts) != 1:
        raise UsageProblem(f"the shards were cut in different counts: {', '.join(map(str, sorted(counts)))}")
    (count,) = counts
    missing = [str(index) for index in range(1, count + 1) if index not in found]
    if missing and not allow_missing:
        names = ", ".join(f"{index}/{count}" for index in missing)
        raise UsageProblem(f"shard{'s' if len(missing) > 1 else ''} {names} missing; give them, or --allow-missing")
    return count


def _ref_of(ref: str, report: EvalReport) -> str:
    run_id = report.metadata.get("run_id")
    return str(run_id) if isinstance(run_id, str) else ref


def _bar(report: EvalReport) -> tuple[float, bool]:
    bar = report.metadata.get("min_pass_rate")
    strict = report.metadata.get("strict") is True
    return (float(bar) if isinstance(bar, int | float) and not isinstance(bar, bool) else 1.0), strict


def _record(report: EvalReport, history_path: str | None) -> None:
    from agent_eval._history import History

    path = history_path or DEFAULT_HISTORY
    try:
        History(path).record(report)
    except Exception as error:  # a history that cannot be written must not lose the merged run
        click.echo(f"warning: run not recorded in {path}: {error}", err=True)
