"""Scenario F: llm_judge against the test chat server answering in 20 ms; a first run, then a cached one."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from scenarios import CONCURRENCY, FRAMEWORKS, JUDGE_CASES, JUDGE_DELAY, Job, Outcome, clean_env, run_once
from setup_envs import PROJECT_PYTHON, ROOT, WORK

#: The floors: the least client work there can be, the judge's HTTP client alone, and the plainest httpx loop.
STREAMS = "first run (asyncio streams)"
AIOHTTP = "first run (aiohttp, one session)"
HTTPX = "first run (httpx, one client)"


def judge_available() -> str | None:
    """None when the judge plugin and the test server are installed, else why not."""
    probe = "import agent_eval_judge, agent_eval.testing; agent_eval.testing.ChatServer"
    result = subprocess.run([str(PROJECT_PYTHON), "-c", probe], capture_output=True, text=True, check=False)
    if result.returncode == 0:
        return None
    lines = result.stderr.strip().splitlines()
    return lines[-1] if lines else "the judge plugin or the test server is missing"


@contextmanager
def judge_server(delay: float) -> Iterator[str]:
    """A chat server in its own process answering after ``delay`` seconds; yields its base URL."""
    server = subprocess.Popen(
        [str(PROJECT_PYTHON), str(FRAMEWORKS / "judge_server.py"), str(delay)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
        env=clean_env(),
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        if not url.startswith("http"):
            raise RuntimeError("the judge server did not start")
        yield url
    finally:
        if server.stdin is not None:
            server.stdin.close()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def judge_env(url: str, cache: Path) -> dict[str, str]:
    """The environment of a judge run: the server, the concurrency and a cache folder."""
    return clean_env(
        AGENT_EVAL_JUDGE_BASE_URL=url,
        AGENT_EVAL_JUDGE_MODEL="test-model",
        AGENT_EVAL_JUDGE_CONCURRENCY=str(CONCURRENCY),
        AGENT_EVAL_CACHE_DIR=str(cache),
    )


def jobs(repeats: int) -> list[Job]:
    """The first run, the cached run and the three floors, in the order they run each round."""
    script = str(FRAMEWORKS / "judge_run.py")
    counts = ["--cases", str(JUDGE_CASES), "--concurrency", str(CONCURRENCY)]
    python = str(PROJECT_PYTHON)
    return [
        Job("F", "agent-eval", "first run", (python, script, "agent-eval", *counts), repeats, cases=JUDGE_CASES),
        Job("F", "agent-eval", "cached run", (python, script, "agent-eval", *counts), repeats, cases=JUDGE_CASES),
        Job("F", "floor", STREAMS, (python, script, "streams", *counts), repeats, cases=JUDGE_CASES),
        Job("F", "floor", AIOHTTP, (python, script, "aiohttp", *counts), repeats, cases=JUDGE_CASES),
        Job("F", "floor", HTTPX, (python, script, "httpx", *counts), repeats, cases=JUDGE_CASES),
    ]


def run(repeats: int, log: Callable[[str], None]) -> dict[tuple[str, str, str], Outcome]:
    """Each round: a fresh cache, agent-eval twice (the second from the cache), then the floors."""
    planned = jobs(repeats)
    outcomes = {job.key: Outcome(job) for job in planned}
    WORK.mkdir(parents=True, exist_ok=True)
    with judge_server(JUDGE_DELAY) as url:
        for round_ in range(repeats):
            cache = Path(tempfile.mkdtemp(prefix="judge-cache-", dir=WORK))
            env = judge_env(url, cache)
            try:
                for job in planned:
                    outcome = outcomes[job.key]
                    first = outcomes[("F", "agent-eval", "first run")]
                    if outcome.error or (job.label == "cached run" and first.error):
                        continue
                    try:
                        outcome.runs.append(run_once(job, env))
                    except RuntimeError as error:
                        outcome.error = str(error)
                        log(f"  F {job.framework} {job.label}: failed: {error}")
            finally:
                shutil.rmtree(cache, ignore_errors=True)
            log(f"  judge round {round_ + 1}/{repeats} done (load {os.getloadavg()[0]:.2f})")
    return outcomes
