"""Pairing two lists by a yes/no relation: as many pairs as possible, in any order or keeping order.

Both functions take the relation as ``rows``: ``rows[i]`` lists, in increasing order, the indices
``j`` of the right-hand items that left-hand item ``i`` may be paired with. They return the pairs
``(i, j)`` sorted by ``i``; every index appears in at most one pair.

Greedy first-fit pairing is not enough: with left ``[x, y]``, right ``[p, q]``, ``x`` fitting
both and ``y`` only ``p``, first-fit pairs ``x`` with ``p`` and leaves ``y`` alone. Both functions
here always find the largest number of pairs.
"""

from __future__ import annotations

from collections.abc import Sequence

Rows = Sequence[Sequence[int]]
Pairs = list[tuple[int, int]]


def maximum_matching(rows: Rows, right: int) -> Pairs:
    """The most pairs, in any order (Hopcroft–Karp: O(E·√V) for E related pairs and V items)."""
    left_match = [-1] * len(rows)
    right_match = [-1] * right
    _first_fit(rows, left_match, right_match)
    while True:
        layers = _layers(rows, left_match, right_match)
        if layers is None:
            break
        depth, limit = layers
        _augment_all(rows, left_match, right_match, depth, limit)
    return [(i, j) for i, j in enumerate(left_match) if j >= 0]


def _first_fit(rows: Rows, left_match: list[int], right_match: list[int]) -> None:
    # A cheap start: most items pair at first sight, and the phases below only repair the rest.
    for i, row in enumerate(rows):
        for j in row:
            if right_match[j] < 0:
                left_match[i], right_match[j] = j, i
                break


def _layers(rows: Rows, left_match: list[int], right_match: list[int]) -> tuple[list[int], int] | None:
    """Breadth-first layers from the unpaired left items, up to the first layer that reaches an unpaired right one.

    Returns each left item's layer (-1: not reached) and that last layer, or None when no
    augmenting path is left, that is when the pairing is maximum.
    """
    depth = [-1] * len(rows)
    queue = [i for i, j in enumerate(left_match) if j < 0]
    for i in queue:
        depth[i] = 0
    limit = -1
    for i in queue:  # the list grows while it is walked: a queue
        if limit >= 0 and depth[i] >= limit:
            break
        for j in rows[i]:
            k = right_match[j]
            if k < 0:
                limit = depth[i]
            elif depth[k] < 0:
                depth[k] = depth[i] + 1
                queue.append(k)
    return None if limit < 0 else (depth, limit)


def _augment_all(rows: Rows, left_match: list[int], right_match: list[int], depth: list[int], limit: int) -> None:
    """Flip a maximal set of vertex-disjoint shortest augmenting paths (depth-first, without recursion)."""
    cursor = [0] * len(rows)
    for root in range(len(rows)):
        if left_match[root] >= 0:
            continue
        path: list[int] = [root]  # left items; each but the last is followed by the right item via[k]
        via: list[int] = []
        while path:
            i = path[-1]
            row = rows[i]
            step = -1
            while cursor[i] < len(row):
                j = row[cursor[i]]
                cursor[i] += 1
                k = right_match[j]
                if (depth[i] == limit) if k < 0 else (depth[i] < limit and depth[k] == depth[i] + 1):
                    step = j
                    break
            if step < 0:
                depth[i] = -1  # a dead end for the rest of this phase
                path.pop()
                if via:
                    via.pop()
                continue
            k = right_match[step]
            if k >= 0:
                path.append(k)
                via.append(step)
                continue
            via.append(step)
            for left, j in zip(path, via, strict=True):
                left_match[left], right_match[j] = j, left
            break


def longest_common_subsequence(rows: Rows, right: int) -> Pairs:
    """The most pairs that keep both orders (no two pairs cross): O(n·m) dynamic programming."""
    hits = [frozenset(row) for row in rows]
    table = [[0] * (right + 1)]
    for related in hits:
        above = table[-1]
        current = [0] * (right + 1)
        best = 0
        for j in range(right):
            if j in related:
                best = above[j] + 1
            elif above[j + 1] > best:
                best = above[j + 1]
            current[j + 1] = best
        table.append(current)
    pairs: Pairs = []
    i, j = len(rows), right
    while i and j:
        # A related pair always extends the best of the two shorter prefixes by one: take it.
        if j - 1 in hits[i - 1]:
            i, j = i - 1, j - 1
            pairs.append((i, j))
        elif table[i - 1][j] == table[i][j]:
            i -= 1
        else:
            j -= 1
    pairs.reverse()
    return pairs
