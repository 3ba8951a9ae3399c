"""Scenario H: the ray executor against local on 2,000 cases of a 50 ms async agent at concurrency 100.

Run: .venv/bin/python bench/ray_executor.py [--cases N] [--concurrency N] [--workers N] [--repeat N]

Ideal = cases x 50 ms / concurrency (1 s for the defaults). Prints, for each executor, the best of N
runs and its ratio to the ideal: `local` (this process), `ray` on a local Ray of `--workers` CPUs that
is already up (the cost of the executor itself: batches, streaming, rebuilding in the workers), and
`ray` cold (a local Ray started for the run and shut down after, as `--executor ray` with no address
does). Ray's fixed start-up cost is measured alone: `ray.init` of a local cluster plus its first task.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_eval import EvalResult, Executor, RunPlan, RunSettings, get_registry, load_agent, load_suite
from agent_eval_ray import RayExecutor, RayOptions

SLEEP = 0.05
AGENT = f"""
import asyncio


async def agent(question):
    await asyncio.sleep({SLEEP})
    return "ok " + question
"""


def write_project(folder: Path, cases: int) -> Path:
    """A suite of ``cases`` cases, each graded by one `contains`, and its agent module."""
    (folder / "bench_h_agent.py").write_text(AGENT, encoding="utf-8")
    suite = {
        "name": "bench-h",
        "agent": "bench_h_agent:agent",
        "cases": [{"name": f"case {n}", "input": str(n), "evaluators": [{"contains": "ok"}]} for n in range(cases)],
    }
    path = folder / "suite.json"
    path.write_text(json.dumps(suite), encoding="utf-8")
    return path


def plan_of(path: Path, concurrency: int) -> RunPlan:
    suite = load_suite(path)
    assert suite.agent is not None
    return RunPlan(
        cases=suite.cases,
        agent=load_agent(suite.agent),
        settings=RunSettings(concurrency=concurrency),
        name=suite.name,
        suite_path=str(path),
        agent_reference=suite.agent,
        positions=tuple(range(len(suite.cases))),
    )


def timed_run(plan: RunPlan, make: Callable[[], Executor]) -> float:
    """Seconds for one executor to run the plan; every case must pass."""
    done: list[EvalResult] = []

    def emit(index: int, result: EvalResult) -> None:
        done.append(result)

    executor = make()
    started = time.perf_counter()
    asyncio.run(executor.execute(plan, emit))
    seconds = time.perf_counter() - started
    passed = sum(result.passed for result in done)
    if passed != len(plan.cases):
        sys.exit(f"{passed} of {len(plan.cases)} cases passed: {done[0].error if done else 'none ran'}")
    return seconds


def start_up(workers: int) -> float:
    """Seconds to start a local Ray of ``workers`` CPUs and run its first task; the Ray stays up."""
    import ray

    started = time.perf_counter()
    ray.init(address="local", num_cpus=workers, include_dashboard=False, logging_level=logging.ERROR)
    ray.get(ray.remote(lambda: None).remote())
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2, help="CPUs of the local Ray: Ray tasks at once")
    parser.add_argument("--repeat", type=int, default=3, help="runs per executor; the best is shown")
    options = parser.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ideal = options.cases * SLEEP / options.concurrency
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        plan = plan_of(write_project(Path(folder), options.cases), options.concurrency)
        local = get_registry().executor("local").factory
        rows: list[tuple[str, float]] = [("local", min(timed_run(plan, local) for _ in range(options.repeat)))]
        import ray

        startup = start_up(options.workers)
        try:
            warm = min(timed_run(plan, RayExecutor) for _ in range(options.repeat))
        finally:
            ray.shutdown()
        rows.append((f"ray, {options.workers} workers, Ray already up", warm))
        cold = RayOptions(workers=options.workers)
        rows.append(
            (f"ray, {options.workers} workers, a local Ray for the run", timed_run(plan, lambda: RayExecutor(cold)))
        )
    print_table(options, ideal, rows, startup)


def print_table(options: Any, ideal: float, rows: list[tuple[str, float]], startup: float) -> None:
    print(
        f"scenario H: {options.cases} cases of a {SLEEP * 1000:.0f} ms async agent, concurrency "
        f"{options.concurrency} (ideal {ideal:.2f} s), best of {options.repeat} (the cold run once)"
    )
    print(f"{'executor':44} {'seconds':>8} {'x ideal':>8}")
    for label, seconds in rows:
        print(f"{label:44} {seconds:8.2f} {seconds / ideal:8.2f}")
    print(f"Ray's start-up (ray.init of a local Ray + its first task): {startup:.2f} s")


if __name__ == "__main__":
    main()
