"""How long `trajectory_match` takes on 200 expected calls against 200 made, in every mode and rule.

Run: .venv/bin/python bench/trajectory.py [--calls N] [--repeat N]

Prints, per scenario, the best time of N evaluations (one evaluation per case). The target is
under 50 ms for 200 x 200. The scenarios are the hard shapes for pairing: every call has the
same name (so every pair must have its arguments compared), with all-different arguments, with
identical arguments (every pair matches), and with nested arguments a superset rule must compare.
"""

from __future__ import annotations

import argparse
import functools
import random
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from agent_eval import ToolCall
from agent_eval_trajectory import trajectory_match
from agent_eval_trajectory.options import MODES

TARGET_S = 0.05

Scenario = Callable[[int, random.Random], tuple[list[dict[str, Any]], list[ToolCall]]]


def same_name_different_args(n: int, rng: random.Random) -> tuple[list[dict[str, Any]], list[ToolCall]]:
    """One tool, each call with its own argument: one matching partner each, found among n."""
    expected = [{"name": "search", "args": {"q": f"query {i}", "page": 1}} for i in range(n)]
    made = [ToolCall("search", {"q": f"query {i}", "page": 1}) for i in range(n)]
    rng.shuffle(made)
    return expected, made


def all_identical(n: int, rng: random.Random) -> tuple[list[dict[str, Any]], list[ToolCall]]:
    """Every made call matches every expected call: n x n related pairs."""
    return [{"name": "search", "args": {"q": "kettle"}}] * n, [ToolCall("search", {"q": "kettle"})] * n


def few_values_nested(n: int, rng: random.Random) -> tuple[list[dict[str, Any]], list[ToolCall]]:
    """One tool, arguments drawn from few values with nested ones: many partial overlaps."""

    def arguments() -> dict[str, Any]:
        keys = rng.sample(["q", "page", "filters", "sort"], rng.randint(1, 4))
        values = {"q": rng.choice("ab"), "page": rng.randint(1, 2), "filters": {"in": [rng.randint(0, 1)]}}
        return {key: values.get(key, "asc") for key in keys}

    expected = [{"name": "search", "args": arguments()} for _ in range(n)]
    return expected, [ToolCall("search", arguments()) for _ in range(n)]


def one_call_off(n: int, rng: random.Random) -> tuple[list[dict[str, Any]], list[ToolCall]]:
    """Four tools in turn, the made list shifted by one: all but one pair, one call missing and one extra."""
    expected = [{"name": f"tool_{i % 4}", "args": {"n": i % 7}} for i in range(n)]
    made = [ToolCall(f"tool_{i % 4}", {"n": i % 7}) for i in range(1, n + 1)]
    return expected, made


def one_long_path(n: int, rng: random.Random) -> tuple[list[dict[str, Any]], list[ToolCall]]:
    """Call i has the arguments of expected calls i and i+1, the last only those of the first.

    Under ``superset`` first-fit pairing leaves the last call alone; only an augmenting path
    through every pair completes the matching.
    """
    expected = [{"name": "step", "args": {f"v{j}": 1}} for j in range(n)]
    made = [ToolCall("step", {f"v{i}": 1, f"v{i + 1}": 1}) for i in range(n - 1)] + [ToolCall("step", {"v0": 1})]
    return expected, made


SCENARIOS: list[tuple[str, Scenario]] = [
    ("same name, different args", same_name_different_args),
    ("all identical", all_identical),
    ("same name, nested args, few values", few_values_nested),
    ("four tools, rotated by one", one_call_off),
    ("one long augmenting path", one_long_path),
]
RULES = ("exact", "ignore", "subset", "superset")


def best_of(evaluate: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        evaluate()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="expected calls and made calls (each)")
    parser.add_argument("--repeat", type=int, default=5, help="evaluations per figure; the best is shown")
    options = parser.parse_args()
    n = options.calls
    print(f"trajectory_match, {n} expected x {n} made, best of {options.repeat} (target {TARGET_S * 1000:.0f} ms)")
    print(f"{'scenario':38} {'mode':10} " + " ".join(f"{rule:>9}" for rule in RULES))
    worst = 0.0
    for title, scenario in SCENARIOS:
        expected, made = scenario(n, random.Random(7))
        ctx = SimpleNamespace(tool_calls=tuple(made))
        for mode in MODES:
            figures = []
            for rule in RULES:
                evaluator = trajectory_match(expected, mode=mode, args=rule)
                seconds = best_of(functools.partial(evaluator, None, ctx), options.repeat)
                worst = max(worst, seconds)
                figures.append(f"{seconds * 1000:7.2f}ms")
            print(f"{title:38} {mode:10} " + " ".join(figures))
    verdict = "met" if worst < TARGET_S else "MISSED"
    print(f"slowest: {worst * 1000:.2f} ms, target {TARGET_S * 1000:.0f} ms {verdict}")


if __name__ == "__main__":
    main()
