"""trajectory_match against brute force on random small trajectories, and the pairing code on larger ones.

The reference here is written independently of the plugin: its own argument rules on plain
dicts, and exhaustive search over every injective pairing (any order) or every order-keeping one.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching
from trajectory_support import ctx

from agent_eval import ToolCall
from agent_eval_trajectory import trajectory_match
from agent_eval_trajectory.matching import longest_common_subsequence, maximum_matching

MODES = ("strict", "unordered", "subset", "superset")
RULES = ("exact", "ignore", "subset", "superset")
MIRROR = {"exact": "exact", "ignore": "ignore", "subset": "superset", "superset": "subset"}
NAMES = ("a", "b", "c")
KEYS = ("x", "y")
VALUES: tuple[Any, ...] = (1, 2, True, "1")

# --- the reference ------------------------------------------------------------------------------


def json_equal(left: Any, right: Any) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    return bool(left == right)


def reference_agrees(made: dict[str, Any] | str, expected: dict[str, Any] | None, rule: str) -> bool:
    if expected is None or rule == "ignore":
        return True
    if isinstance(made, str):
        return False
    made_has_expected = all(k in made and json_equal(made[k], v) for k, v in expected.items())
    expected_has_made = all(k in expected and json_equal(expected[k], v) for k, v in made.items())
    if rule == "exact":
        return made_has_expected and expected_has_made
    return expected_has_made if rule == "subset" else made_has_expected


def most_pairs(related: Callable[[int, int], bool], made: int, expected: int, ordered: bool) -> int:
    """The most pairs over every injective pairing (every order-keeping one when ``ordered``), tried one by one."""

    def best(i: int, taken: frozenset[int], after: int) -> int:
        if i == made:
            return 0
        result = best(i + 1, taken, after)  # made call i left unpaired
        for j in range(after if ordered else 0, expected):
            if j not in taken and related(i, j):
                result = max(result, 1 + best(i + 1, taken | {j}, j + 1))
        return result

    return best(0, frozenset(), 0)


def reference_score(made: list[ToolCall], expected: list[dict[str, Any]], mode: str, rule: str) -> float:
    def related(i: int, j: int) -> bool:
        return made[i].name == expected[j]["name"] and reference_agrees(
            made[i].arguments,  # type: ignore[arg-type]
            expected[j].get("args"),
            rule,
        )

    pairs = most_pairs(related, len(made), len(expected), ordered=mode == "strict")
    out_of = {"subset": len(made), "superset": len(expected)}.get(mode, max(len(made), len(expected)))
    return 1.0 if out_of == 0 else pairs / out_of


# --- random trajectories ------------------------------------------------------------------------


def random_arguments(rng: random.Random) -> dict[str, Any]:
    return {key: rng.choice(VALUES) for key in KEYS if rng.random() < 0.5}


def random_case(rng: random.Random, *, plain: bool) -> tuple[list[ToolCall], list[dict[str, Any]]]:
    """Up to six made and six expected calls; unless ``plain``, some raw-text arguments and names alone."""
    made = []
    for _ in range(rng.randint(0, 6)):
        raw = not plain and rng.random() < 0.1
        arguments: dict[str, Any] | str = "{x: 1" if raw else random_arguments(rng)
        made.append(ToolCall(rng.choice(NAMES), arguments, error="boom" if rng.random() < 0.1 else None))
    expected: list[dict[str, Any]] = []
    for _ in range(rng.randint(0, 6)):
        name = rng.choice(NAMES)
        any_arguments = not plain and rng.random() < 0.15
        expected.append({"name": name} if any_arguments else {"name": name, "args": random_arguments(rng)})
    return made, expected


def swapped(made: list[ToolCall], expected: list[dict[str, Any]]) -> tuple[list[ToolCall], list[dict[str, Any]]]:
    """The expected calls as made, and the made ones as expected."""
    return [ToolCall(e["name"], e["args"]) for e in expected], [{"name": c.name, "args": c.arguments} for c in made]


def score(made: list[ToolCall], expected: list[dict[str, Any]], mode: str, rule: str) -> tuple[bool, float]:
    verdict = trajectory_match(expected, mode=mode, args=rule)(None, ctx(*made))
    assert verdict.score is not None
    assert verdict.reason
    return verdict.passed, verdict.score


CASES = 300


@pytest.mark.parametrize("seed", range(4))
def test_scores_equal_the_brute_force_optimum_and_passing_means_score_one(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(CASES // 4):
        made, expected = random_case(rng, plain=False)
        outcomes = {}
        for mode in MODES:
            for rule in RULES:
                passed, got = score(made, expected, mode, rule)
                want = reference_score(made, expected, mode, rule)
                assert got == pytest.approx(want), (mode, rule, made, expected)
                assert 0.0 <= got <= 1.0
                assert passed is (got == 1.0), (mode, rule, made, expected)
                outcomes[mode, rule] = passed
        for rule in RULES:
            if outcomes["strict", rule]:
                assert outcomes["unordered", rule], (rule, made, expected)
            if outcomes["unordered", rule]:
                assert outcomes["subset", rule] and outcomes["superset", rule], (rule, made, expected)


@pytest.mark.parametrize("seed", range(2))
def test_subset_and_superset_mirror_each_other(seed: int) -> None:
    rng = random.Random(100 + seed)
    for _ in range(CASES // 2):
        made, expected = random_case(rng, plain=True)
        mirrored_made, mirrored_expected = swapped(made, expected)
        for rule in RULES:
            subset = score(made, expected, "subset", rule)
            superset = score(mirrored_made, mirrored_expected, "superset", MIRROR[rule])
            assert subset == superset, (rule, made, expected)
            back = score(made, expected, "superset", rule)
            assert back == score(mirrored_made, mirrored_expected, "subset", MIRROR[rule]), (rule, made, expected)
            for symmetric in ("strict", "unordered"):
                there = score(made, expected, symmetric, rule)
                assert there == score(mirrored_made, mirrored_expected, symmetric, MIRROR[rule])


def test_the_reference_sees_the_first_fit_trap() -> None:
    # A check on the check: the reference finds two pairs where first-fit finds one.
    made = [ToolCall("f", {"a": 1, "b": 2}), ToolCall("f", {"a": 1})]
    expected = [{"name": "f", "args": {"a": 1}}, {"name": "f", "args": {"a": 1, "b": 2}}]
    assert reference_score(made, expected, "unordered", "superset") == 1.0
    assert reference_score(made, expected, "strict", "superset") == 0.5


# --- the pairing code on larger inputs ----------------------------------------------------------


def random_rows(rng: random.Random, left: int, right: int, density: float) -> list[list[int]]:
    return [[j for j in range(right) if rng.random() < density] for _ in range(left)]


def check_pairs(rows: Sequence[Sequence[int]], pairs: Sequence[tuple[int, int]], ordered: bool) -> None:
    assert len({i for i, _ in pairs}) == len({j for _, j in pairs}) == len(pairs)
    assert all(j in rows[i] for i, j in pairs)
    if ordered:
        assert [j for _, j in pairs] == sorted(j for _, j in pairs)
        assert [i for i, _ in pairs] == sorted(i for i, _ in pairs)


def scipy_maximum(rows: Sequence[Sequence[int]], right: int) -> int:
    if not rows or not right:
        return 0
    dense = np.zeros((len(rows), right), dtype=np.int8)
    for i, row in enumerate(rows):
        dense[i, list(row)] = 1
    matched = maximum_bipartite_matching(csr_matrix(dense), perm_type="column")
    by_assignment = linear_sum_assignment(-dense)
    assert int(dense[by_assignment].sum()) == int((matched >= 0).sum())  # two references agree
    return int((matched >= 0).sum())


def reference_lcs(rows: Sequence[Sequence[int]], right: int) -> int:
    related = [set(row) for row in rows]
    table = [[0] * (right + 1) for _ in range(len(rows) + 1)]
    for i in range(1, len(rows) + 1):
        for j in range(1, right + 1):
            diagonal = table[i - 1][j - 1] + 1 if j - 1 in related[i - 1] else 0
            table[i][j] = max(table[i - 1][j], table[i][j - 1], diagonal)
    return table[-1][-1]


@pytest.mark.parametrize("density", [0.02, 0.08, 0.3, 0.9])
def test_maximum_matching_agrees_with_scipy_on_larger_random_relations(density: float) -> None:
    rng = random.Random(int(density * 1000))
    for _ in range(25):
        left, right = rng.randint(0, 60), rng.randint(0, 60)
        rows = random_rows(rng, left, right, density)
        pairs = maximum_matching(rows, right)
        check_pairs(rows, pairs, ordered=False)
        assert len(pairs) == scipy_maximum(rows, right)


@pytest.mark.parametrize("density", [0.05, 0.3, 0.9])
def test_longest_common_subsequence_agrees_with_the_textbook_table(density: float) -> None:
    rng = random.Random(int(density * 1000) + 1)
    for _ in range(25):
        left, right = rng.randint(0, 40), rng.randint(0, 40)
        rows = random_rows(rng, left, right, density)
        pairs = longest_common_subsequence(rows, right)
        check_pairs(rows, pairs, ordered=True)
        assert len(pairs) == reference_lcs(rows, right)


def test_maximum_matching_completes_a_path_through_every_pair() -> None:
    # Item i fits i and i+1, the last only 0: first-fit leaves the last alone.
    n = 500
    rows = [[i, i + 1] for i in range(n - 1)] + [[0]]
    pairs = maximum_matching(rows, n)
    check_pairs(rows, pairs, ordered=False)
    assert len(pairs) == n
    assert math.isclose(len(pairs) / n, 1.0)
