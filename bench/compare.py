"""How long `agent-eval compare` takes on two JSON reports of 100,000 cases each.

Run: .venv/bin/python bench/compare.py [--cases N] [--repeat K] [--runs N] [--dir DIR]
(results: bench/RESULTS.md, "compare of two 100,000-case runs")

Writes BASE and HEAD reports of N cases (every case with its input, answer, score, reason and one
evaluation, as `run --json` writes them; with --repeat K every case also has K attempts) into DIR,
then times the whole command, start-up included, `agent-eval compare base.json head.json`, N runs,
and prints the median. The target is under 2 s at 100,000 cases. HEAD is BASE with about 3% of the
cases flipped either way, so the comparison has regressions and fixes to list.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agent_eval import EvalReport
from agent_eval._model import Attempt, EvalResult, Evaluation, Status
from agent_eval._report.json import write

TARGET_S = 2.0


def result(index: int, passed: bool, repeat: int, rng: random.Random) -> EvalResult:
    """One case as a real run records it: one evaluation, a reason when it failed."""
    status: Status = "passed" if passed else "failed"
    # the same answer gets the same score in both runs: only the cases that flipped change
    score = 1.0 if passed else round(index % 50 / 100, 2)
    reason = None if passed else f"missing 'answer {index}'"
    evaluation = Evaluation("contains", status, score=score, reason=reason, duration_ms=0.01)
    attempts = tuple(
        Attempt(k, status, output=f"The answer is {index}.", score=score, reason=reason, evaluations=(evaluation,))
        for k in range(repeat if repeat > 1 else 0)
    )
    return EvalResult(
        f"case {index:06d}",
        f"What is answer number {index}?",
        output=f"The answer is {index}.",
        status=status,
        score=score,
        reason=reason,
        duration_ms=round(rng.random() * 5, 3),
        evaluations=(evaluation,),
        attempts=attempts,
    )


def reports(cases: int, repeat: int, seed: int = 1) -> tuple[EvalReport, EvalReport]:
    """BASE at about 80% passing, and HEAD: BASE with about 3% of its cases flipped."""
    rng = random.Random(seed)
    base_passed = [rng.random() < 0.8 for _ in range(cases)]
    head_passed = [p if rng.random() > 0.03 else not p for p in base_passed]
    base = EvalReport([result(i, p, repeat, rng) for i, p in enumerate(base_passed)], name="bench")
    head = EvalReport([result(i, p, repeat, rng) for i, p in enumerate(head_passed)], name="bench")
    return base, head


def time_command(command: list[str], runs: int) -> list[float]:
    """Wall seconds of each of ``runs`` runs of ``command``, after one warm-up run."""
    times = []
    for index in range(runs + 1):
        start = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
        if done.returncode not in (0, 1):  # 1: the gate found a regression, which is a comparison made
            raise SystemExit(f"{' '.join(command)} failed (exit {done.returncode}): {done.stderr.strip()}")
        if index:
            times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=None, help="keep the reports here (default: a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.dir or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        base, head = reports(args.cases, args.repeat)
        paths = [folder / "base.json", folder / "head.json"]
        for report, path in zip((base, head), paths, strict=True):
            write(report, path)  # as `run --json` writes it
        size = paths[0].stat().st_size / 1e6
        print(f"wrote {paths[0]} and {paths[1]}: {args.cases:,} cases each, {size:.0f} MB each")
        command = [str(Path(sys.executable).parent / "agent-eval"), "compare", *map(str, paths)]
        times = time_command(command, args.runs)
        median = statistics.median(times)
        verdict = "met" if median < TARGET_S else "MISSED"
        spread = f"min {min(times):.2f}, max {max(times):.2f}"
        print(f"agent-eval compare: median {median:.2f} s over {args.runs} runs ({spread})")
        print(f"target under {TARGET_S:.0f} s: {verdict}")


if __name__ == "__main__":
    main()
