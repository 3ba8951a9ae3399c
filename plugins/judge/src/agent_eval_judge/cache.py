"""An on-disk cache of judge verdicts, so that re-running an unchanged suite asks the judge nothing.

One JSON file per key under ``<cache dir>/judge/``, written atomically. The key
hashes everything that shapes the answer (endpoint without credentials, model,
messages with the per-call marker code replaced, parameters, prompt version,
sample index), never the API key. Only readable verdicts are stored; an entry
that cannot be read is a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent_eval_judge.answer import JudgeAnswer, Unreadable

#: Bumped when the stored layout changes; older entries then miss.
CACHE_FORMAT = 1

log = logging.getLogger("agent_eval_judge")


def cache_key(parts: Mapping[str, Any]) -> str:
    """The SHA-256 of ``parts`` as canonical JSON (sorted keys, no spaces)."""
    canonical = json.dumps({"format": CACHE_FORMAT, **parts}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class VerdictCache:
    """Verdicts stored one file per key; unreadable entries are misses and write failures are warnings."""

    def __init__(self, root: Path) -> None:
        self.directory = root / "judge"

    def path(self, key: str) -> Path:
        """Where the entry for ``key`` lives."""
        return self.directory / key[:2] / (key + ".json")

    def get(self, key: str) -> tuple[JudgeAnswer, dict[str, Any]] | None:
        """The stored answer and its facts (model, output mode, usage), or None."""
        path = self.path(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as error:
            log.warning("agent-eval judge cache: ignoring unreadable entry %s (%s)", path, type(error).__name__)
            return None
        try:
            if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT:
                raise Unreadable("unknown format")
            answer = JudgeAnswer.from_dict(data.get("answer"))
        except Unreadable:
            log.warning("agent-eval judge cache: ignoring malformed entry %s", path)
            return None
        facts = data.get("facts")
        return answer, dict(facts) if isinstance(facts, dict) else {}

    def put(self, key: str, answer: JudgeAnswer, facts: Mapping[str, Any]) -> None:
        """Store ``answer`` atomically; a failure to write is logged and otherwise ignored."""
        record = {
            "format": CACHE_FORMAT,
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "answer": answer.to_dict(),
            "facts": dict(facts),
        }
        path = self.path(key)
        text = json.dumps(record, ensure_ascii=False)
        try:
            try:
                _write_atomic(path, text)
            except FileNotFoundError:
                path.parent.mkdir(parents=True, exist_ok=True)
                _write_atomic(path, text)
        except OSError as error:
            log.warning("agent-eval judge cache: cannot write %s (%s)", path, error.strerror or type(error).__name__)


def _write_atomic(path: Path, text: str) -> None:
    # No fsync: a torn entry is only a miss, and a run may write thousands of them.
    handle, temporary = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        Path(temporary).replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(temporary).unlink()
        raise
