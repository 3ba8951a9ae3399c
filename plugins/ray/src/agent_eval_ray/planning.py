"""How a run is split: lanes (Ray tasks at once, each with its share of the concurrency) and batches of cases.

The run's concurrency is the number of cases in flight over the whole cluster: ``lanes`` Ray tasks run at
once and share it, so ``--concurrency 100`` on two workers runs two tasks of 50 cases at a time.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import attrs

#: Batches per lane when the batch size is left to the executor: enough to even out lanes that finish
#: at different times, few enough that each task's start-up cost is spread over many cases.
BATCHES_PER_LANE = 4


@attrs.frozen
class Batch:
    """Some cases of a run, sent to one Ray task."""

    #: Each case's index into the plan's cases.
    indices: tuple[int, ...]
    #: Each case's position among the suite file's cases.
    positions: tuple[int, ...] = attrs.field(kw_only=True)
    #: Each case's name and fingerprint, which the worker checks against the suite file it loads.
    keys: tuple[tuple[str, str | None], ...] = attrs.field(kw_only=True)


def lane_concurrencies(concurrency: int, workers: int, cases: int) -> list[int]:
    """The concurrency of each lane: as many lanes as workers (at most one per case in flight), sharing it."""
    lanes = max(1, min(concurrency, workers, cases))
    share, extra = divmod(concurrency, lanes)
    return [share + (1 if lane < extra else 0) for lane in range(lanes)]


def batch_size(cases: int, lanes: Sequence[int]) -> int:
    """Cases per batch: a few batches per lane, and never fewer cases than a lane runs at once."""
    if cases == 0:
        return 1
    spread = math.ceil(cases / (len(lanes) * BATCHES_PER_LANE))
    return max(1, min(cases, max(spread, max(lanes))))


def batches(positions: Sequence[int], keys: Sequence[tuple[str, str | None]], size: int) -> Iterator[Batch]:
    """The plan's cases in order, ``size`` at a time."""
    for start in range(0, len(positions), size):
        stop = min(start + size, len(positions))
        yield Batch(tuple(range(start, stop)), positions=tuple(positions[start:stop]), keys=tuple(keys[start:stop]))
