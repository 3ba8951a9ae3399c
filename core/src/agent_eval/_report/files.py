"""Writing report files safely: atomically (in parts, as they are made), or one line at a time.

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
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

from agent_eval._json import encode


def write_atomic(path: str | Path, text: str | Iterable[bytes]) -> None:
    """Write ``text`` (or UTF-8 parts, written one after another) to ``path`` through a temporary file in
    the same folder and ``os.replace``.

    A reader sees the old file or the new one, never half of one; on error the old file stays.
    A FIFO or a character device is written through instead; a symbolic link keeps pointing at the
    file, which is replaced. Parts let a large report be written as it is made, never held whole.
    """
    parts: Iterable[bytes] = (text.encode("utf-8"),) if isinstance(text, str) else text
    target = Path(path)
    if _is_stream(target):
        with _open_stream(target) as stream:
            _write_parts(stream, parts)
        return
    target = Path(os.path.realpath(target)) if target.is_symlink() else target
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    # os.open with 0o666 lets the umask decide the permissions, as for any file the user writes
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(handle, "wb", buffering=_BUFFER) as stream:
            _write_parts(stream, parts, let_go=True)
            stream.flush()
            os.fsync(stream.fileno())
            _let_go(stream.fileno())  # all of it is on the disk now: the next file's pages take these
        temporary.replace(target)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


#: Bytes gathered before each write of :func:`write_atomic` (a large report is written in many parts).
_BUFFER = 1 << 20
#: Bytes written to a file between two of the calls of :func:`_let_go` that :class:`_Unlet` makes as it grows.
_LET_GO_EVERY = 8 << 20


def _write_parts(stream: IO[bytes], parts: Iterable[bytes], *, let_go: bool = False) -> None:
    """Write ``parts`` to ``stream``; with ``let_go``, the file's pages are let go of as it grows (:class:`_Unlet`)."""
    write = stream.write
    if not let_go:
        for part in parts:
            write(part)
        return
    unlet = _Unlet(stream.fileno(), before=stream.flush)
    for part in parts:
        write(part)
        unlet.add(len(part))


class _Unlet:
    """Counts the bytes written to a file; every :data:`_LET_GO_EVERY` of them, :func:`_let_go` of its pages
    (``before`` first: what a buffer holds goes to the file)."""

    def __init__(self, fd: int, *, before: Callable[[], object] | None = None) -> None:
        self._fd = fd
        self._before = before
        self._size = 0

    def add(self, size: int) -> None:
        """Count ``size`` bytes more."""
        self._size += size
        if self._size >= _LET_GO_EVERY:
            self._size = 0
            if self._before is not None:
                self._before()
            _let_go(self._fd)


def _let_go(fd: int) -> None:
    """Have the system start writing the file's new pages to the disk, without waiting for them, and let go
    of those it has written.

    ``POSIX_FADV_DONTNEED`` over the whole file is how (Linux; a system without it keeps them, and writes
    them to the disk in its own time or when the file is synced). The pages let go of are the ones the
    file's next parts (or the next file) are then written into, so a report of hundreds of MB takes as much
    memory again as a few ranges of it, not its size of memory the system has to find: a VM that gives its
    free memory back to its host (free page reporting) pays for each page it touches anew, 570 MB written in
    1.5-2.3 s against 0.3-0.5 s so. A file read again is read from the disk.
    """
    advise = getattr(os, "posix_fadvise", None)
    if advise is not None:
        with contextlib.suppress(OSError):
            advise(fd, 0, 0, os.POSIX_FADV_DONTNEED)


_LINE_BREAKS = ((b"\xc2\x85", b"\\u0085"), (b"\xe2\x80\xa8", b"\\u2028"), (b"\xe2\x80\xa9", b"\\u2029"))
#: os.writev (not on Windows), and how many buffers one call may take (IOV_MAX is 1,024 on Linux and macOS).
_writev = getattr(os, "writev", None)
_WRITEV_MOST = 1024


def unbroken(data: bytes) -> bytes:
    """``data`` with the line breaks JSON leaves unescaped (U+0085, U+2028, U+2029) escaped: str.splitlines
    and other readers end a line at each."""
    if not data.isascii():
        for char, escape in _LINE_BREAKS:
            data = data.replace(char, escape)
    return data


class LineWriter:
    """Appends lines of JSON, each call's handed to the operating system at once (``os.write`` or
    ``os.writev`` on the file's descriptor, no buffer in this process), so a crash loses no line written."""

    def __init__(self, path: str | Path) -> None:
        target = Path(path)
        streamed = _is_stream(target)
        if streamed:
            self._stream: IO[bytes] = _open_stream(target, buffering=0)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            self._stream = target.open("ab", buffering=0)
        # os.write on the descriptor: the file object's write costs as much again as the system call
        self._fd = self._stream.fileno()
        #: A regular file's pages are let go of as it grows; a stream has none.
        self._unlet = None if streamed else _Unlet(self._fd)

    def write(self, record: dict[str, Any]) -> None:
        """Append ``record`` as one line."""
        self.write_line(encode(record))

    def write_line(self, line: bytes) -> None:
        """Append a line of compact JSON (without its newline)."""
        self._write(unbroken(line + b"\n"))

    def write_parts(self, parts: list[bytes | memoryview]) -> None:
        """Append the bytes of ``parts``: whole lines of compact JSON together, each part already free of the
        line breaks :func:`unbroken` escapes. One system call takes up to :data:`_WRITEV_MOST` parts, and
        nothing joins them: a copy of their size for each call would leave the heap of a large run full
        of holes (18 MB more at 100,000 cases)."""
        if _writev is None:
            self._write(b"".join(parts))
            return
        fd = self._fd
        for start in range(0, len(parts), _WRITEV_MOST):
            some = parts[start : start + _WRITEV_MOST]
            written = _writev(fd, some)
            size = sum(map(len, some))
            if written < size:  # the rest, as os.write does when it takes less
                self._write(b"".join(some)[written:], counted=False)
            if self._unlet is not None:
                self._unlet.add(size)

    def _write(self, data: bytes, *, counted: bool = True) -> None:
        written = os.write(self._fd, data)
        if written < len(data):  # a write may take less than it is given (a pipe, a signal)
            view = memoryview(data)[written:]
            while view:
                view = view[os.write(self._fd, view) :]
        if counted and self._unlet is not None:
            self._unlet.add(len(data))

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


def _open_stream(path: Path, *, buffering: int = _BUFFER) -> IO[bytes]:
    """Open a FIFO or a device for writing without waiting for a reader that may never come."""
    try:
        handle = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as error:
        if error.errno == errno.ENXIO:
            raise OSError(errno.ENXIO, "a FIFO that no program is reading", str(path)) from None
        raise
    os.set_blocking(handle, True)
    return os.fdopen(handle, "wb", buffering=buffering)
