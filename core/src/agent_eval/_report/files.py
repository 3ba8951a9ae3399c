"""Writing report files safely: atomically, or one flushed line at a time.

A path may also name a FIFO or a character device (``/dev/stdout``, ``/dev/null``, a pipe another
program reads): the report is then written through to it, never put in its place. A FIFO that no
program is reading is refused rather than waited on forever. Anything else that is not a regular file
(a directory, a socket, a block device) is refused.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path
from typing import IO, Any

from agent_eval._json import dumps


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and ``os.replace``.

    A reader sees the old file or the new one, never half of one; on error the old file stays.
    A FIFO or a character device is written through instead; a symbolic link keeps pointing at the
    file, which is replaced.
    """
    target = Path(path)
    if _is_stream(target):
        with _open_stream(target) as stream:
            stream.write(text)
        return
    target = Path(os.path.realpath(target)) if target.is_symlink() else target
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
        if _is_stream(target):
            self._stream: IO[str] = _open_stream(target)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            self._stream = target.open("a", encoding="utf-8", newline="\n")

    def write(self, record: dict[str, Any]) -> None:
        """Append ``record`` as one line and flush it to the operating system."""
        line = dumps(record)
        if not line.isascii():
            # JSON leaves these three unescaped, and str.splitlines (and other readers) end a line at each
            line = line.translate(_LINE_BREAKS)
        self._stream.write(line + "\n")
        self._stream.flush()

    def close(self) -> None:
        """Close the file."""
        self._stream.close()


def _is_stream(path: Path) -> bool:
    """True for a FIFO or a character device; an OSError for anything else that is not a regular file."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return False
    except NotADirectoryError:
        return False  # mkdir says which part of the path is a file
    if stat.S_ISREG(mode):
        return False
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return True
    what = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
    raise OSError(errno.EINVAL, f"{what}; give the path of a file to write", str(path))


def _open_stream(path: Path) -> IO[str]:
    """Open a FIFO or a device for writing without waiting for a reader that may never come."""
    try:
        handle = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as error:
        if error.errno == errno.ENXIO:
            raise OSError(errno.ENXIO, "a FIFO that no program is reading", str(path)) from None
        raise
    os.set_blocking(handle, True)
    return os.fdopen(handle, "w", encoding="utf-8", newline="\n")
