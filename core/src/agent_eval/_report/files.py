"""Writing report files safely: atomically, or one flushed line at a time."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from pathlib import Path
from typing import IO, Any


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and ``os.replace``.

    A reader sees the old file or the new one, never half of one; on error the old file stays.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    # os.open with 0o666 lets the umask decide the permissions, as for any file the user writes
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        temporary.replace(target)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


class LineWriter:
    """Appends one JSON object per line, flushed at once, so a crash loses no finished line."""

    def __init__(self, path: str | Path) -> None:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        self._stream: IO[str] = target.open("a", encoding="utf-8", newline="\n")

    def write(self, record: dict[str, Any]) -> None:
        """Append ``record`` as one line and flush it to the operating system."""
        line = json.dumps(record, ensure_ascii=False)
        if not line.isascii():
            # JSON leaves these three unescaped, and str.splitlines (and other readers) end a line at each
            line = line.translate(_LINE_BREAKS)
        self._stream.write(line + "\n")
        self._stream.flush()

    def close(self) -> None:
        """Close the file."""
        self._stream.close()
