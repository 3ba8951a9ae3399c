"""`make bench`: agent-eval against pydantic-evals, inspect-ai and a plain asyncio loop, on the same work.

Sets up the peers' venvs (bench/.venvs), waits for a quiet machine, runs every
scenario several times with the frameworks interleaved, prints one table and
writes it with the machine's description to bench/RESULTS.md. Where agent-eval
misses a target, the profile of that scenario goes into the report too.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import judge
import machine
import profiling
import results
import scale
import scenarios
import setup_envs
from results import Row, Target

BENCH = Path(__file__).resolve().parent
ANALYSIS = BENCH / "analysis.md"


def log(message: str) -> None:
    """Progress on stderr, so that stdout holds only the table."""
    print(message, file=sys.stderr, flush=True)


def options() -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scenarios", default="ABCDEFG", help="which scenarios to run (default: ABCDEFG)")
    parser.add_argument(
        "--scale-sizes", default=",".join(map(str, scale.SIZES)), help="G's suite sizes (default: 10^4, 10^5, 10^6)"
    )
    parser.add_argument("--repeats", type=int, default=5, help="runs per measurement (slow peers run fewer)")
    parser.add_argument("--quick", action="store_true", help="2 runs each and no inspect-ai at 5,000 cases")
    parser.add_argument("--wait-minutes", type=float, default=10, help="how long to wait for a quiet machine")
    parser.add_argument("--quiet-load", type=float, default=1.0, help="1-minute load that counts as quiet")
    parser.add_argument("--no-profile", action="store_true", help="skip profiling missed targets")
    parser.add_argument("--output", type=Path, default=BENCH / "RESULTS.md")
    parser.add_argument("--render", action="store_true", help="rewrite the report from the last run, measuring nothing")
    args = parser.parse_args()
    if args.quick:
        args.repeats = 2
    return args


def prepare() -> list[str]:
    """Check the project's venv and set up the peers' venvs; return the frameworks that can run."""
    setup_envs.check_project()
    setup_envs.WORK.mkdir(parents=True, exist_ok=True)
    frameworks = ["floor", "agent-eval"]
    for peer in results.PEERS:
        setup_envs.ensure(peer)
        frameworks.append(peer)
    setup_envs.ensure("profile")
    missing = machine.missing_evaluators()
    if missing:
        log(f"bench: warning: evaluators not installed: {', '.join(missing)}; run `make bench` to install them")
    return frameworks


def measure(args: argparse.Namespace, frameworks: list[str]) -> results.Outcomes:
    """Run the chosen scenarios and return their outcomes."""
    chosen = set(args.scenarios.upper())
    jobs = [job for job in scenarios.runner_jobs(frameworks, args.repeats, args.quick) if job.scenario in chosen]
    if not jobs and chosen <= {"G"}:
        return {}
    if "C" in chosen:
        jobs += scenarios.startup_jobs(max(15, 3 * args.repeats))
    log(f"bench: {len(jobs)} measurements, interleaved")
    outcomes = scenarios.run_interleaved(jobs, log)
    if "F" in chosen:
        missing = judge.judge_available()
        if missing:
            log(f"bench: scenario F skipped: {missing}")
        else:
            log("bench: scenario F (judge)")
            outcomes.update(judge.run(max(1, (args.repeats + 1) // 2), log))
    return outcomes


LAST_RUN = setup_envs.WORK / "last-run.json"


def save(outcomes: results.Outcomes, **extra: object) -> None:
    """Keep every run's measurements (and ``extra``) in bench/.work/last-run.json, for ``--render``."""
    setup_envs.WORK.mkdir(parents=True, exist_ok=True)
    jobs = [{"job": dataclasses.asdict(o.job), "runs": o.runs, "error": o.error} for o in outcomes.values()]
    previous = json.loads(LAST_RUN.read_text()) if extra and LAST_RUN.exists() else {}
    LAST_RUN.write_text(json.dumps({**previous, "outcomes": jobs, **extra}, indent=1))


def load_saved() -> tuple[results.Outcomes, dict[str, Any]]:
    """The outcomes and extras that :func:`save` kept."""
    data = json.loads(LAST_RUN.read_text())
    outcomes: results.Outcomes = {}
    for item in data.pop("outcomes"):
        fields = item["job"]
        job = scenarios.Job(**{**fields, "command": tuple(fields["command"])})
        outcomes[job.key] = scenarios.Outcome(job, item["runs"], item["error"])
    return outcomes, data


def fmt(value: float | None) -> str:
    """A measurement with about three significant digits."""
    if value is None:
        return "n/a"
    for limit, pattern in ((100, "{:,.0f}"), (10, "{:.1f}"), (1, "{:.2f}")):
        if abs(value) >= limit:
            return pattern.format(value)
    return f"{value:.3f}"


def ratio(value: float | None) -> str:
    """A ratio, or a dash."""
    return "–" if value is None else f"{value:.2f}×"


HEADER = ("Scenario", "Framework", "Measured", "Median", "× floor", "× agent-eval", "Notes")


def cells(row: Row) -> tuple[str, ...]:
    """The table cells of ``row``."""
    return row.title, row.framework, row.label, fmt(row.value), ratio(row.vs_floor), ratio(row.vs_agent_eval), row.note


def text_table(table: list[Row]) -> str:
    """The table for a terminal."""
    lines = [HEADER, *(cells(row) for row in table)]
    widths = [max(len(line[i]) for line in lines) for i in range(len(HEADER) - 1)]
    out = []
    for line in lines:
        out.append("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=False)) + "  " + line[-1])
    return "\n".join(out)


def markdown_table(table: list[Row]) -> str:
    """The table in Markdown."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in cells(row)) + " |" for row in table]
    return "\n".join(lines)


def target_lines(found: list[Target]) -> list[str]:
    """One line per target: met, missed or not measured."""
    words = {True: "met", False: "MISSED", None: "not measured"}
    return [
        f"{target.scenario}: {target.text}: {words[target.met]}"
        + (f" ({target.detail})" if target.met is not None else "")
        for target in found
    ]


def profiles(found: list[Target]) -> list[tuple[str, list[str]]]:
    """(title, lines) for each target agent-eval missed: where its time goes."""
    missed = [target for target in found if target.met is False]
    if not missed or not profiling.available():
        return []
    by_scenario = {job.scenario: job for job in scenarios.runner_jobs(["agent-eval"], 1, quick=False)}
    shown: list[tuple[str, list[str]]] = []
    for target in missed:
        log(f"bench: profiling {target.scenario}: {target.text}")
        if target.scenario == "C":
            command = [str(setup_envs.PROJECT_PYTHON.parent / "agent-eval"), "list-evaluators"]
            raw = profiling.sample_startup(command)
            shown.append(
                ("C: `agent-eval list-evaluators`, py-spy over 10 starts", profiling.summarize(raw, within=None))
            )
            shown.append(("C: `agent-eval list-evaluators`, -X importtime", profiling.import_times(command)))
        elif target.scenario == "F":
            cached = "cached" in target.text
            title = "F: the cached judge run, py-spy" if cached else "F: the first judge run, py-spy"
            shown.append((title, _profile_judge(cached)))
        elif target.scenario == "A":
            # More cases give more samples; the share of each part is the same as at 5,000.
            job = scenarios.script_job("A", "agent-eval", "overhead", ["overhead", "--cases", "50000"], 1, 50_000)
            shown.append(("A: agent-eval, 50,000 cases, py-spy", profiling.summarize(profiling.sample(job))))
        elif target.scenario in by_scenario:
            job = by_scenario[target.scenario]
            shown.append((f"{target.scenario}: agent-eval, py-spy", profiling.summarize(profiling.sample(job))))
    return shown


def _profile_judge(cached: bool) -> list[str]:
    """The first judge run (or, after it, the cached one) sampled by py-spy."""
    cache = Path(tempfile.mkdtemp(prefix="judge-cache-", dir=setup_envs.WORK))
    try:
        with judge.judge_server(scenarios.JUDGE_DELAY) as url:
            env = judge.judge_env(url, cache)
            first = judge.jobs(1)[0]
            if cached:
                scenarios.run_once(first, env)
            return profiling.summarize(profiling.sample(first, env, rate=2000 if cached else 250))
    finally:
        shutil.rmtree(cache, ignore_errors=True)


NOTES = f"""\
- Same work everywhere: an async agent answering a fixed string ("The Answer is 42."), one case-insensitive
  substring check per case ("ANSWER"), concurrency {scenarios.CONCURRENCY}. agent-eval: `EvalSuite` with
  `agent_eval.evaluators.contains(...)`, `print=False`. pydantic-evals: `Dataset`/`Case` with its built-in
  `Contains(case_sensitive=False)`, `progress=False`, logfire not installed. inspect-ai: a `Task` whose solver
  sets the answer without a model call, the built-in `includes()` scorer, `display="none"`, `log_samples=False`,
  `log_realtime=False`. floor: `asyncio.gather` over the cases under an `asyncio.Semaphore`, `"answer" in
  output.lower()`.
- Times cover building the cases and the run (not interpreter start-up or imports), inside one subprocess per
  run; each value is the median of the runs, with the frameworks taking turns so that drift hits all alike.
- inspect-ai spends milliseconds per sample, so it runs {scenarios.INSPECT_OVERHEAD_CASES:,} cases in A (not
  {scenarios.OVERHEAD_CASES:,}) and {scenarios.INSPECT_SCALE_CASES:,} in D (not {scenarios.SCALE_CASES:,}, once),
  and fewer runs; its cost per case is what compares. Its times include eval()'s fixed set-up (about a second).
- D: peak memory is `ru_maxrss` of the run's process, interpreter and imports included ("before the cases" shows
  that part). Growth is the cost per case at {scenarios.SCALE_CASES:,} cases divided by A's at
  {scenarios.OVERHEAD_CASES:,}: 1.00× is perfectly linear.
- E: one case whose answer is a 1 MB text holding all 1,000 keywords (some only at its end, in upper case);
  building the check is included. pydantic-evals and inspect-ai have no multi-keyword check, so there a custom
  evaluator/scorer does what the floor does (lower-case once, `in` per keyword).
- F: the test server (`agent_eval.testing.ChatServer`) runs in its own process, answers every request with a
  verdict after {scenarios.JUDGE_DELAY * 1000:.0f} ms; `AGENT_EVAL_JUDGE_CONCURRENCY={scenarios.CONCURRENCY}`,
  a fresh `AGENT_EVAL_CACHE_DIR` per round, the cached run right after the first in a new process. Three floors
  post the same number of requests: HTTP/1.1 written by hand over {scenarios.CONCURRENCY} kept-alive asyncio
  connections (the least client work there can be, so it shows what the server allows), and one
  `httpx.AsyncClient` with {scenarios.CONCURRENCY} connections under a semaphore (the plain way), and one
  `aiohttp.ClientSession` (the judge's own client) with its import inside the run.
- C: wall time of the whole process, median of the runs.
"""


SCALE_NOTES = """\
agent-eval only: `agent-eval run suite.jsonl --agent agents:agent --json --jsonl --junit --html --markdown
--history runs.db` on a JSON Lines suite of N cases (`{"name": "case 17", "input": "question 17", "evaluators":
[{"contains": "answer"}]}`), an agent answering `"the answer to " + question` at once (async; sync: the same as a
plain function, run in worker threads), concurrency 1. Wall time and peak memory are the whole process's
(start-up and teardown included; peak from wait4); the phases are what `AGENT_EVAL_PHASES` reports (seconds of
each phase inside the process). Medians of the runs (10^6: of three per agent). Targets (issue "Scale"): at 10^5 all of
it in 3 s and 300 MB, loading in 0.4 s; 10^6 at most ten times the 10^5 figures; the 10^5 page shows its first
rows in Chromium within 2 s."""


def write_report(
    path: Path,
    table: list[Row],
    found: list[Target],
    shown: list[tuple[str, list[str]]],
    described: list[tuple[str, str]],
    load_note: str,
    when: str,
    scaled: dict[str, Any] | None = None,
) -> None:
    """Write RESULTS.md."""
    parts = [
        "# agent-eval against peer frameworks",
        "",
        f"Written by `make bench` (bench/run.py); measured {when}. This machine is shared: absolute times drift from",
        "run to run, the ratios measured within one run are what count.",
        "",
        "## Machine",
        "",
        *(f"- {what}: {value}" for what, value in described),
        f"- Load: {load_note}",
        "",
        "## Results",
        "",
        markdown_table(table),
        "",
        "## Targets (agent-eval)",
        "",
        *(f"- {line}" for line in target_lines(found)),
        "",
        "## How each framework does the work",
        "",
        NOTES,
    ]
    if scaled:
        parts += ["## G. The whole path of `agent-eval run` at scale", "", SCALE_NOTES, "", *scale.table(scaled), ""]
        page = scaled.get("page") or {}
        if "seconds" in page:
            parts += [
                f"The 100,000-case page in Chromium: first rows shown after {page['seconds']:.2f} s "
                f"({page['rows']} rows rendered, '{page['shown']}').",
                "",
            ]
        parts += [*(f"- {line}" for line in scale.targets(scaled)), ""]
    if shown:
        parts += ["## Profiles of the missed targets", ""]
        for title, lines in shown:
            parts += [f"### {title}", "", "```", *lines, "```", ""]
    if ANALYSIS.exists():
        parts += [ANALYSIS.read_text().rstrip(), ""]
    path.write_text("\n".join(parts))


def main() -> None:
    """Set up, measure, print and write the results."""
    args = options()
    if args.render:
        outcomes, extra = load_saved()
        shown = [(title, list(lines)) for title, lines in extra["profiles"]]
        described = [(what, value) for what, value in extra["machine"]]
        render(args.output, outcomes, shown, described, extra["load"], extra["when"], extra.get("scale"))
        return
    # scenario G measures agent-eval alone: no peer venv is needed for it
    frameworks = prepare() if set(args.scenarios.upper()) - {"G"} else ["agent-eval"]
    load_note = machine.wait_for_quiet(args.wait_minutes, args.quiet_load)
    log(f"bench: {load_note}")
    started = time.monotonic()
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    outcomes = measure(args, frameworks)
    scaled = None
    if "G" in args.scenarios.upper():
        log("bench: scenario G (the whole path at scale)")
        sizes = tuple(int(size) for size in args.scale_sizes.split(","))
        scaled = scale.measure(sizes, max(1, (args.repeats + 1) // 2), log)
    load_note += f"; {machine.load()[0]:.2f} at the end"
    described = machine.describe()
    save(outcomes, scale=scaled)
    found = results.targets(outcomes)
    shown = [] if args.no_profile else profiles(found)
    save(outcomes, profiles=shown, machine=described, load=load_note, when=when, scale=scaled)
    render(args.output, outcomes, shown, described, load_note, when, scaled)
    log(f"bench: done in {time.monotonic() - started:.0f} s; wrote {args.output}")


def render(
    path: Path,
    outcomes: results.Outcomes,
    shown: list[tuple[str, list[str]]],
    described: list[tuple[str, str]],
    load_note: str,
    when: str,
    scaled: dict[str, Any] | None = None,
) -> None:
    """Print the table and the targets, and write the report."""
    table = results.rows(outcomes)
    found = results.targets(outcomes)
    print(text_table(table))
    print()
    print("\n".join(target_lines(found)))
    if scaled:
        print("\n".join(["", *scale.table(scaled), "", *scale.targets(scaled)]))
    write_report(path, table, found, shown, described, load_note, when, scaled)


if __name__ == "__main__":
    main()
