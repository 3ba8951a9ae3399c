"""Pairing the calls an agent made with the calls expected of it, by one of the four modes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs

from agent_eval_trajectory.arguments import Items, agrees, items_of
from agent_eval_trajectory.matching import Rows, longest_common_subsequence, maximum_matching
from agent_eval_trajectory.options import Expected

if TYPE_CHECKING:
    from agent_eval import ToolCall

#: A call reduced to what pairing looks at: its name and its arguments' comparable form.
Key = tuple[str, Items | None]


@attrs.frozen
class Comparison:
    """How made calls (index ``i``) and expected calls (index ``j``) were paired."""

    #: ``(i, j)`` pairs the score counts, by ``i``.
    pairs: tuple[tuple[int, int], ...]
    #: In strict mode, ``(i, j)`` pairs of calls that match but not in the expected order, by ``j``.
    out_of_order: tuple[tuple[int, int], ...]
    #: Expected calls paired with nothing.
    missing: tuple[int, ...]
    #: Made calls paired with nothing.
    extra: tuple[int, ...]


def compare(made: Sequence[ToolCall], expected: Sequence[Expected], mode: str, rule: str) -> Comparison:
    """Pair ``made`` with ``expected``: keeping order for ``strict``, in any order for the other modes."""
    made_keys = [(call.name, items_of(call.arguments)) for call in made]
    expected_keys = [(call.name, None if call.args is None else items_of(call.args)) for call in expected]
    rows = relation(made_keys, expected_keys, rule)
    if mode == "strict":
        pairs = longest_common_subsequence(rows, len(expected))
        out_of_order = _out_of_order(rows, pairs, len(expected))
    else:
        pairs, out_of_order = maximum_matching(rows, len(expected)), []
    paired_made = {i for i, _ in pairs} | {i for i, _ in out_of_order}
    paired_expected = {j for _, j in pairs} | {j for _, j in out_of_order}
    return Comparison(
        pairs=tuple(pairs),
        out_of_order=tuple(sorted(out_of_order, key=lambda pair: pair[1])),
        missing=tuple(j for j in range(len(expected)) if j not in paired_expected),
        extra=tuple(i for i in range(len(made)) if i not in paired_made),
    )


def relation(made: Sequence[Key], expected: Sequence[Key], rule: str) -> list[list[int]]:
    """For each made call, the expected calls it matches: the same name, and arguments that agree."""
    by_name: dict[str, list[int]] = {}
    for j, (name, _) in enumerate(expected):
        by_name.setdefault(name, []).append(j)
    # Calls with the same name and arguments match the same expected calls: work that out once.
    known: dict[Key, list[int]] = {}
    rows = []
    for key in made:
        row = known.get(key)
        if row is None:
            name, items = key
            row = known[key] = [j for j in by_name.get(name, ()) if agrees(items, expected[j][1], rule)]
        rows.append(row)
    return rows


def _out_of_order(rows: Rows, pairs: Sequence[tuple[int, int]], right: int) -> list[tuple[int, int]]:
    """Among the calls the order left unpaired, the most pairs that match regardless of order."""
    left_made = sorted(set(range(len(rows))) - {i for i, _ in pairs})
    left_expected = sorted(set(range(right)) - {j for _, j in pairs})
    if not left_made or not left_expected:
        return []
    position = {j: index for index, j in enumerate(left_expected)}
    sub_rows = [[position[j] for j in rows[i] if j in position] for i in left_made]
    return [(left_made[a], left_expected[b]) for a, b in maximum_matching(sub_rows, len(left_expected))]
