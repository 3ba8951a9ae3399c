"""An on-disk cache of judge verdicts, so that re-running an unchanged suite asks the judge nothing.

Verdicts live in append-only segments, ``<cache dir>/judge/*.jsonl``. A run
that stores verdicts appends to a segment of its own, one line per verdict
(``<key> <JSON record>``), each line in a single ``write`` to a file opened for
appending: a line is whole or torn, and no two processes ever write to the
same file. A run reads every segment once, at its first lookup, into a dict;
a torn, cut or unreadable line is a miss, never an error. When segments pile
up, the loader merges the settled ones (nobody has written to them for an
hour) into one file, written under a temporary name and renamed, then deletes
them: a crash at any point leaves duplicates at worst.

The key hashes everything that shapes the answer (endpoint without
credentials, model, parameters, prompt version, system message, the user
message with the per-call marker code replaced, sample index), never the API
key. Only readable verdicts are stored, never errors.
"""

# Paths are strings: a cached run looks up thousands of entries, and pathlib costs 6 ms to import.
# ruff: noqa: PTH103, PTH105, PTH107, PTH116, PTH118, PTH123, PTH208

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import time
from collections.abc import Mapping
from typing import IO, Any

from agent_eval_judge.answer import JudgeAnswer, Unreadable

#: Bumped when the key or the stored layout changes; older entries then miss.
CACHE_FORMAT = 2

#: More segments than this and the settled ones are merged.
MAX_SEGMENTS = 32
#: Seconds without a write after which a segment counts as finished (its run is over or gone).
SETTLED_AFTER = 3600.0

_SUFFIX = ".jsonl"
_BLOCK = 64 * 1024
_KEY_LENGTH = 64

log = logging.getLogger("agent_eval_judge")
# Made once: json.dumps with options builds a new encoder on every call.
_encode_record = json.JSONEncoder(separators=(",", ":")).encode

Entry = tuple[JudgeAnswer, dict[str, Any]]


def canonical(value: Any) -> bytes:
    """``value`` as canonical JSON (sorted keys, no spaces), UTF-8."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8", "surrogatepass")


class KeyMaker:
    """Cache keys for one endpoint, model and set of parameters: the fixed part is hashed once per run."""

    def __init__(self, fixed: Mapping[str, Any]) -> None:
        # A JSON object ends itself, so nothing hashed after it can pass for part of it.
        self._base = hashlib.sha256(canonical({"format": CACHE_FORMAT, **fixed}) + b"\n")

    def key(self, *parts: str) -> str:
        """SHA-256 of the fixed part, then each part prefixed by its length (so parts cannot run together)."""
        digest = self._base.copy()
        for part in parts:
            data = part.encode("utf-8", "surrogatepass")
            digest.update(b"%d:" % len(data))
            digest.update(data)
        return digest.hexdigest()


class VerdictCache:
    """The verdicts under one folder: loaded once, looked up in memory, new ones appended to this run's segment."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self._index: dict[str, bytes] | None = None
        self._segment: IO[bytes] | None = None
        self._unwritable = False

    def get(self, key: str) -> Entry | None:
        """The stored answer and its facts (model, output mode), or None."""
        index = self._index if self._index is not None else self._load()
        raw = index.get(key)
        if raw is None:
            return None
        entry = decode(raw)
        if entry is None:
            del index[key]
            log.warning("agent-eval judge cache: ignoring an unreadable entry in %s", self.directory)
        return entry

    def put(self, key: str, answer: JudgeAnswer, facts: Mapping[str, Any]) -> None:
        """Store ``answer``; a failure to write is logged once and otherwise ignored."""
        record = {"answer": answer.to_dict(), "facts": dict(facts), "t": int(time.time())}
        payload = _encode_record(record).encode("ascii")
        if self._index is not None:
            self._index[key] = payload
        if not self._unwritable:
            self._append(key.encode("ascii") + b" " + payload + b"\n")

    def stored(self) -> dict[str, Entry]:
        """Every readable entry, by key (the folder as a fresh run would see it)."""
        index = self._load()
        entries = {key: decode(raw) for key, raw in index.items()}
        return {key: entry for key, entry in entries.items() if entry is not None}

    def close(self) -> None:
        """Write out and close this run's segment (idempotent)."""
        segment, self._segment = self._segment, None
        if segment is not None:
            try:
                segment.close()
            except OSError as error:
                self._cannot_write(error)

    def _append(self, line: bytes) -> None:
        try:
            if self._segment is None:
                self._segment = _new_segment(self.directory)
            self._segment.write(line)
        except OSError as error:
            # A torn line is a miss for later runs; stop here rather than glue the next line onto it.
            self._unwritable = True
            self._cannot_write(error)

    def _cannot_write(self, error: OSError) -> None:
        log.warning(
            "agent-eval judge cache: cannot write to %s (%s); this run's verdicts are not all stored",
            self.directory,
            error.strerror or error,
        )

    def _load(self) -> dict[str, bytes]:
        index: dict[str, bytes] = {}
        self._index = index
        names = _segments(self.directory)
        if len(names) > MAX_SEGMENTS:
            names = compact(self.directory, names)
        read: set[str] = set()
        for _ in range(2):
            missing = False
            for name in names:
                if name not in read:
                    read.add(name)
                    missing |= not _read_segment(os.path.join(self.directory, name), index)
            if not missing:
                break
            # Another process merged segments while we listed them: read what it wrote.
            names = _segments(self.directory)
        return index


def decode(raw: bytes) -> Entry | None:
    """A stored record's answer and facts, or None when it is not one."""
    try:
        # Records are written as ASCII; anything else is damage.
        data = json.loads(raw.decode("ascii"))
        if not isinstance(data, dict):
            return None
        answer = JudgeAnswer.from_dict(data.get("answer"))
    except (ValueError, Unreadable, RecursionError):
        return None
    facts = data.get("facts")
    return answer, dict(facts) if isinstance(facts, dict) else {}


def _segments(directory: str) -> list[str]:
    try:
        names = os.listdir(directory)
    except OSError:  # nothing stored yet, or not a folder: every lookup misses
        return []
    # Names start with the creation time, so later segments win for a key stored twice.
    return sorted(name for name in names if name.endswith(_SUFFIX) and not name.startswith("."))


def _read_segment(path: str, index: dict[str, bytes]) -> bool:
    """Add the segment's lines to ``index``; False when the file is gone."""
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except FileNotFoundError:
        return False
    except OSError:
        return True
    lines = data.split(b"\n")
    # What follows the last newline is empty, or a line whose writer was cut off.
    lines.pop()
    for line in lines:
        if len(line) > _KEY_LENGTH + 1 and line[_KEY_LENGTH] == 0x20:
            index[line[:_KEY_LENGTH].decode("latin-1")] = line[_KEY_LENGTH + 1 :]
    return True


def _segment_name(stamp: int) -> str:
    return f"{stamp:020d}-{os.getpid()}-{os.urandom(4).hex()}{_SUFFIX}"


def _new_segment(directory: str) -> IO[bytes]:
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, _segment_name(time.time_ns()))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | getattr(os, "O_BINARY", 0)
    # Written in blocks of 64 KiB and at the end of the run, not one system call per verdict: a crash
    # loses the verdicts of the last block at most (and may tear one line, which is then a miss).
    return open(os.open(path, flags, 0o600), "ab", buffering=_BLOCK)


def compact(directory: str, names: list[str], *, settled_after: float = SETTLED_AFTER) -> list[str]:
    """Merge the settled segments among ``names`` into one; return the names to read now.

    Only segments nobody has written to for ``settled_after`` seconds are
    merged, so a running writer keeps its file. Each key keeps its last
    readable record. The merged file is complete before its name appears, and
    the old segments are deleted after: two loaders merging at once leave
    duplicates, never gaps.
    """
    now = time.time()
    settled: list[str] = []
    for name in names:
        try:
            if now - os.stat(os.path.join(directory, name)).st_mtime > settled_after:
                settled.append(name)
        except OSError:
            continue
    if len(settled) < 2:
        return names
    merged: dict[str, bytes] = {}
    for name in settled:
        lines: dict[str, bytes] = {}
        _read_segment(os.path.join(directory, name), lines)
        merged.update((key, raw) for key, raw in lines.items() if decode(raw) is not None)
    # Named after the newest merged segment, so that segments written since still come after it.
    final = _segment_name(_stamp(settled[-1]))
    temporary = os.path.join(directory, "." + final + ".tmp")
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        with open(os.open(temporary, flags, 0o600), "wb") as stream:
            stream.write(b"".join(key.encode("latin-1") + b" " + raw + b"\n" for key, raw in merged.items()))
            # The old segments are deleted next: their lines must be on disk first.
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, os.path.join(directory, final))
    except OSError as error:
        _remove(temporary)
        log.warning("agent-eval judge cache: cannot merge segments in %s (%s)", directory, error.strerror or error)
        return names
    for name in settled:
        _remove(os.path.join(directory, name))
    _remove_stale_temporaries(directory, now - settled_after)
    return sorted({*names, final} - set(settled))


def _stamp(name: str) -> int:
    head = name.split("-", 1)[0]
    return int(head) if head.isdigit() else time.time_ns()


def _remove_stale_temporaries(directory: str, before: float) -> None:
    """Temporary files of merges that a crash interrupted."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        if name.startswith(".") and name.endswith(".tmp"):
            path = os.path.join(directory, name)
            try:
                if os.stat(path).st_mtime < before:
                    os.remove(path)
            except OSError:
                continue


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.remove(path)
