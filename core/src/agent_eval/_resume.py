"""Splitting a suite into shards, taking finished cases over from an earlier run, joining shards again."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from agent_eval._model import Case, EvalResult


def shard_of(name: str, shards: int) -> int:
    """The shard (0-based) a case belongs to: a stable hash of its name, the same on every machine."""
    digest = hashlib.blake2b(name.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % shards


def in_shard(cases: Sequence[Case], positions: Iterable[int], shard: int, shards: int) -> list[int]:
    """The positions whose case falls in ``shard`` (1-based) of ``shards``."""
    return [position for position in positions if shard_of(cases[position].name, shards) == shard - 1]


def suite_digest(cases: Sequence[Case], positions: Iterable[int]) -> str:
    """What identifies the set of cases a run was asked for, before sharding: their names and fingerprints.

    Shards of one suite (the same cases, split) share it; ``merge`` refuses shards whose digests differ.
    """
    # each name and fingerprint followed by a NUL, hashed as one text (a digest per case cost 3 µs)
    parts: list[str] = []
    for position in positions:
        case = cases[position]
        parts += (case.name, case.fingerprint or "")
    parts.append("")
    return hashlib.blake2b("\0".join(parts).encode("utf-8", "surrogatepass"), digest_size=10).hexdigest()


def finished(
    previous: Iterable[EvalResult],
    cases: Sequence[Case],
    positions: Iterable[int],
    *,
    repeat: int = 1,
    retry_errors: bool = False,
) -> dict[int, EvalResult]:
    """The results of ``previous`` that can stand for cases of this run, by position.

    A case is taken over when a result of the same name has the same fingerprint (name, input,
    expected and evaluator entries as written) and as many attempts as this run makes: a changed case
    runs again, and so does one whose old result has no fingerprint. With ``retry_errors``, a case
    whose status was error runs again.
    """
    attempts = repeat if repeat > 1 else 0
    by_name = {result.name: result for result in previous}
    taken: dict[int, EvalResult] = {}
    for position in positions:
        case = cases[position]
        result = by_name.get(case.name)
        if result is None or case.fingerprint is None or result.fingerprint != case.fingerprint:
            continue
        if len(result.attempts) != attempts:
            continue
        if retry_errors and result.status == "error":
            continue
        taken[position] = result
    return taken
