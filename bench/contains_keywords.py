"""How long `contains` takes to look for 1,000 keywords in a 1 MB output.

Run: .venv/bin/python bench/contains_keywords.py [--repeat N]

Prints, per scenario, the time to build the evaluator (once per suite) and the
best time of N calls on the output (once per case). The target is under 0.2 s
per call on a 1 MB output.
"""

from __future__ import annotations

import argparse
import random
import string
import time
from collections.abc import Callable
from typing import Any

from agent_eval_contains import contains

SIZE = 1_000_000
KEYWORDS = 1_000
TARGET_S = 0.2


def english_like(rng: random.Random) -> tuple[list[str], str]:
    """Lower-case words: the output is prose-like, the keywords are words and two-word phrases."""
    words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 10))) for _ in range(20_000)]
    text = " ".join(rng.choices(words, k=SIZE // 6))[:SIZE]
    keywords = [w if rng.random() < 0.7 else f"{w} {rng.choice(words)}" for w in rng.sample(words, KEYWORDS)]
    return keywords, text


def mixed_case(rng: random.Random) -> tuple[list[str], str]:
    """Upper and lower case and digits, compared exactly: 62 distinct first characters."""
    alphabet = string.ascii_letters + string.digits
    words = ["".join(rng.choices(alphabet, k=rng.randint(3, 10))) for _ in range(20_000)]
    return rng.sample(words, KEYWORDS), " ".join(rng.choices(words, k=SIZE // 7))[:SIZE]


def cjk(rng: random.Random) -> tuple[list[str], str]:
    """3,000 ideographs, no spaces: hundreds of distinct first characters."""
    alphabet = [chr(0x4E00 + i) for i in range(3_000)]
    keywords = ["".join(rng.choices(alphabet, k=rng.randint(2, 4))) for _ in range(KEYWORDS)]
    return keywords, "".join(rng.choices(alphabet, k=SIZE))


def one_letter(rng: random.Random) -> tuple[list[str], str]:
    """Adversarial: 'a' repeated, keywords 'a' to 'a' * 1,000; all are found early, so the search stops."""
    return ["a" * n for n in range(1, KEYWORDS + 1)], "a" * SIZE


def one_letter_and_absent(rng: random.Random) -> tuple[list[str], str]:
    """Worst case: as above up to 'a' * 100, plus one keyword never found, so every position is searched.

    At each position the engine follows the longest keyword that starts there, so the time grows
    with the text's length times that keyword's length; only degenerate, repetitive outputs do this.
    """
    return ["a" * n for n in range(1, 101)] + ["b"], "a" * SIZE


SCENARIOS: list[tuple[str, Callable[[random.Random], tuple[list[str], str]], dict[str, Any]]] = [
    ("english-like, defaults", english_like, {}),
    ("english-like, all options", english_like, {"whole_words": True, "collapse_whitespace": True, "casefold": True}),
    ("mixed case, ignore_case=False", mixed_case, {"ignore_case": False}),
    ("CJK, no spaces", cjk, {}),
    ("one letter, all found (adversarial)", one_letter, {}),
    ("one letter, one absent (worst case)", one_letter_and_absent, {}),
]


def measure(make: Callable[[random.Random], tuple[list[str], str]], options: dict[str, Any], repeat: int) -> str:
    keywords, text = make(random.Random(12))
    started = time.perf_counter()
    evaluator = contains(keywords, **options)
    built = time.perf_counter() - started
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        verdict = evaluator(text)
        best = min(best, time.perf_counter() - started)
    flag = "" if best < TARGET_S else "  OVER TARGET"
    found = len(verdict.metadata["found"])
    return f"build {built * 1000:6.1f} ms   call {best * 1000:6.1f} ms   found {found:4d}/{len(keywords)}{flag}"


def main() -> None:
    """Print the timings of every scenario."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="calls per scenario; the best is shown")
    args = parser.parse_args()
    print(f"{KEYWORDS} keywords, {SIZE:,}-character output, best of {args.repeat}")
    for label, make, options in SCENARIOS:
        print(f"  {label:36s} {measure(make, options, args.repeat)}")


if __name__ == "__main__":
    main()
