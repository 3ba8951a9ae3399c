"""What every framework script shares: the work to do, the options, and one JSON line of measurements.

Scripts run under different interpreters (each peer in its own venv), so this
module uses the standard library only.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections.abc import Callable
from typing import Any

#: What the agent answers at once; the check looks for KEYWORD in it, ignoring case.
ANSWER = "The Answer is 42."
KEYWORD = "answer"

SCENARIOS = ("overhead", "concurrency", "keywords")


def options(description: str) -> argparse.Namespace:
    """The scenario and its counts, from the command line."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("scenario", choices=SCENARIOS)
    parser.add_argument("--cases", type=int, default=5_000)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--sleep", type=float, default=0.0, help="seconds the agent sleeps before answering")
    parser.add_argument("--work", default="bench/.work", help="a folder for logs the framework insists on")
    return parser.parse_args()


def inputs(count: int) -> list[str]:
    """One distinct question per case."""
    return [f"question {index}" for index in range(count)]


def rss_mb() -> float:
    """Peak resident memory of this process so far, in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def keyword_work(size: int = 1_000_000, count: int = 1_000) -> tuple[list[str], str]:
    """The keywords and the 1 MB output of scenario E: prose-like words, every keyword present."""
    import random
    import string

    rng = random.Random(7)
    words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 10))) for _ in range(20_000)]
    keywords = rng.sample(words, count)
    text = " ".join(rng.choices(words, k=size // 6))
    # Every keyword occurs (some only near the end), in upper case so that case folding matters.
    tail = " ".join(keyword.upper() for keyword in keywords)
    return keywords, (text[: size - len(tail) - 1] + " " + tail)


def measure(run: Callable[[], int], expected: int) -> dict[str, Any]:
    """Time ``run`` (which returns how many cases passed) and collect memory figures."""
    base = rss_mb()
    started = time.perf_counter()
    passed = run()
    seconds = time.perf_counter() - started
    if passed != expected:
        raise SystemExit(f"wrong result: {passed} of {expected} cases passed")
    return {"seconds": seconds, "rss_base_mb": base, "rss_peak_mb": rss_mb(), "passed": passed}


def report(framework: str, args: argparse.Namespace, figures: dict[str, Any], **extra: Any) -> None:
    """Print the one JSON line the driver reads."""
    cases = 1 if args.scenario == "keywords" else args.cases
    line = {"framework": framework, "scenario": args.scenario, "cases": cases, **figures, **extra}
    if args.scenario != "keywords":
        line["us_per_case"] = figures["seconds"] / args.cases * 1e6
    sys.stdout.write(json.dumps(line) + "\n")
