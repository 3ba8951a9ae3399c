"""The jobs of each scenario: which interpreter runs which script with which counts, and how often."""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from setup_envs import BENCH, PROJECT_PYTHON, ROOT, WORK, python_of

FRAMEWORKS = BENCH / "frameworks"
SCRIPTS = {
    "floor": "floor.py",
    "agent-eval": "agent_eval_run.py",
    "pydantic-evals": "pydantic_evals_run.py",
    "inspect-ai": "inspect_ai_run.py",
}

# The counts. inspect-ai spends milliseconds per sample, so it runs fewer cases (the
# cost per case is what is compared) and fewer times.
OVERHEAD_CASES = 5_000
INSPECT_OVERHEAD_CASES = 1_000
SCALE_CASES = 50_000
INSPECT_SCALE_CASES = 5_000
CONCURRENCY_CASES = 500
SLEEP = 0.05
CONCURRENCY = 50
JUDGE_CASES = 1_000
JUDGE_DELAY = 0.02


@dataclass(frozen=True)
class Job:
    """One measurement, repeated ``repeats`` times."""

    scenario: str
    framework: str
    label: str
    command: tuple[str, ...]
    repeats: int
    #: "json": the command prints one JSON line of measurements; "wall": the whole process is timed.
    kind: str = "json"
    cases: int | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """What identifies the job in the results."""
        return self.scenario, self.framework, self.label


@dataclass
class Outcome:
    """The runs of one job: measurements, or the error that stopped it."""

    job: Job
    runs: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    failures: int = 0

    def median(self, name: str) -> float:
        """The median of measurement ``name`` over the runs."""
        return statistics.median(run[name] for run in self.runs)


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment for a measured run, plus ``extra``.

    Without PYTHONDONTWRITEBYTECODE, so that imports come from bytecode caches as they do for users.
    """
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **extra}


def interpreter(framework: str) -> Path:
    """The Python that runs ``framework``'s scripts: the project's for agent-eval and the floor."""
    return python_of(framework) if framework in ("pydantic-evals", "inspect-ai") else PROJECT_PYTHON


def script_job(scenario: str, framework: str, label: str, args: list[str], repeats: int, cases: int | None) -> Job:
    """A job that runs ``framework``'s script with ``args``."""
    command = (str(interpreter(framework)), str(FRAMEWORKS / SCRIPTS[framework]), *args, "--work", str(WORK))
    return Job(scenario, framework, label, command, repeats, cases=cases)


def runner_jobs(frameworks: list[str], repeats: int, quick: bool) -> Iterator[Job]:
    """Scenarios A, B, D and E: the same work in every framework."""
    slow = max(1, repeats // 2)
    for framework in frameworks:
        inspect = framework == "inspect-ai"
        cases = INSPECT_OVERHEAD_CASES if inspect else OVERHEAD_CASES
        yield script_job(
            "A", framework, "overhead", ["overhead", "--cases", str(cases)], slow if inspect else repeats, cases
        )
        concurrency = ["--cases", str(CONCURRENCY_CASES), "--sleep", str(SLEEP), "--concurrency", str(CONCURRENCY)]
        yield script_job(
            "B",
            framework,
            "concurrency",
            ["concurrency", *concurrency],
            slow if inspect else repeats,
            CONCURRENCY_CASES,
        )
        scale = INSPECT_SCALE_CASES if inspect else SCALE_CASES
        if not (quick and inspect):
            yield script_job(
                "D", framework, "scale", ["overhead", "--cases", str(scale)], 1 if inspect else slow, scale
            )
        yield script_job("E", framework, "keywords", ["keywords"], slow if inspect else repeats, 1)


def startup_jobs(repeats: int) -> Iterator[Job]:
    """Scenario C: agent-eval's commands against the import of its three dependencies."""
    python = str(PROJECT_PYTHON)
    command = str(PROJECT_PYTHON.parent / "agent-eval")
    yield Job("C", "python", "python -c pass", (python, "-c", "pass"), repeats, "wall")
    yield Job(
        "C", "floor", "import pluggy, attrs, click", (python, "-c", "import pluggy, attrs, click"), repeats, "wall"
    )
    yield Job("C", "agent-eval", "agent-eval --version", (command, "--version"), repeats, "wall")
    yield Job("C", "agent-eval", "agent-eval list-evaluators", (command, "list-evaluators"), repeats, "wall")
    yield Job("C", "agent-eval", "import agent_eval", (python, "-c", "import agent_eval"), repeats, "wall")
    for peer, module in (("pydantic-evals", "pydantic_evals"), ("inspect-ai", "inspect_ai")):
        if python_of(peer).exists():
            yield Job("C", peer, f"import {module}", (str(python_of(peer)), "-c", f"import {module}"), repeats, "wall")


def run_once(job: Job, env: dict[str, str] | None = None, timeout: float = 900) -> dict[str, Any]:
    """Run ``job`` once and return its measurements; raise RuntimeError with the reason when it fails."""
    started = time.perf_counter()
    try:
        result = subprocess.run(
            job.command, capture_output=True, text=True, cwd=ROOT, env=env or clean_env(), timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"timed out after {timeout:g} s") from None
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        lines = (result.stderr or result.stdout).strip().splitlines()
        raise RuntimeError(f"exit {result.returncode}: {lines[-1] if lines else 'no output'}")
    if job.kind == "wall":
        return {"seconds": elapsed}
    for line in reversed(result.stdout.splitlines()):
        if line.startswith("{"):
            return dict(json.loads(line))
    raise RuntimeError("printed no measurements")


def run_interleaved(jobs: list[Job], log: Any) -> dict[tuple[str, str, str], Outcome]:
    """Run every job its number of times, one run of each in turn, so that drift hits all alike."""
    outcomes = {job.key: Outcome(job) for job in jobs}
    for job in jobs:
        if job.kind == "wall":
            # The first start of a command writes its bytecode caches; users never see that one.
            with contextlib.suppress(RuntimeError):
                run_once(job)
    rounds = max((job.repeats for job in jobs), default=0)
    for round_ in range(rounds):
        for job in jobs:
            outcome = outcomes[job.key]
            if round_ >= job.repeats or outcome.error:
                continue
            try:
                outcome.runs.append(run_once(job))
            except RuntimeError as error:
                outcome.failures += 1
                log(f"  {job.scenario} {job.framework} {job.label}: failed: {error}")
                # One failure may be a package being reinstalled under us; a second one stops the job.
                if outcome.failures > 1:
                    outcome.error = str(error)
        log(f"  round {round_ + 1}/{rounds} done (load {os.getloadavg()[0]:.2f})")
    return outcomes
