"""The files a user names: read as bounded UTF-8 text from regular files only, and folders made for writing.

Everything agent-eval reads from a path the user gave (suites, cases files, reports, plugins' schema
files) goes through :func:`read_text_file`, so a named pipe never blocks, a device is never read
without end, and every failure is one :class:`~agent_eval.FileReadError` naming the file.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
from pathlib import Path

from agent_eval._errors import FileReadError

#: The most :func:`read_text_file` reads from one file unless told otherwise.
MAX_BYTES = 200 * 1024 * 1024
#: The most read of a report agent-eval wrote (JSON or JSON Lines): 100,000 cases repeated 5 times are
#: 420 MB of JSON; the bound is there so that a file no run wrote fails at once, not after filling memory.
MAX_REPORT_BYTES = 4 * 1024 * 1024 * 1024

_BOM = b"\xef\xbb\xbf"
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1 << 20
_KINDS = (
    (stat.S_ISDIR, "is a directory, not a file"),
    (stat.S_ISFIFO, "is a named pipe (FIFO), not a regular file"),
    (stat.S_ISCHR, "is a character device, not a regular file"),
    (stat.S_ISBLK, "is a block device, not a regular file"),
    (stat.S_ISSOCK, "is a socket, not a regular file"),
)


def read_text_file(path: str | os.PathLike[str], *, limit: int = MAX_BYTES, advice: str = "split it up") -> str:
    """The text of the regular file ``path`` (UTF-8; a byte-order mark is dropped), at most ``limit`` bytes.

    Raises :class:`~agent_eval.FileReadError` when the path is empty, does not exist, is not a
    regular file (a folder, a named pipe, a device), holds more than ``limit`` bytes (the error ends with
    ``advice``) or is not UTF-8 text (with the line and column of the first bad byte).
    """
    return decode_text(read_file_bytes(path, limit=limit, advice=advice), path)


def decode_text(data: bytes, path: str | os.PathLike[str]) -> str:
    """What :func:`read_text_file` makes of the bytes :func:`read_file_bytes` read from ``path``."""
    return _decode(data, display(os.fspath(path)))


def is_utf8(data: bytes) -> bool:
    """True when ``data`` is UTF-8 text, found without holding its text: a piece at a time."""
    if data.isascii():
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for start in range(0, len(view), _CHUNK):
            decoder.decode(view[start : start + _CHUNK])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def read_file_bytes(path: str | os.PathLike[str], *, limit: int = MAX_BYTES, advice: str = "split it up") -> bytes:
    """The bytes of the regular file ``path``, refused as :func:`read_text_file` refuses it (but for its
    text): for a reader that hands them to a parser of its own and decodes them only when that refuses."""
    name = os.fspath(path)
    shown = display(name)
    if not name:
        raise FileReadError("''", "is an empty path; give the path of a file")
    if "\0" in name:
        raise FileReadError(shown, "has a NUL byte in its name, which no file name can hold; remove it")
    _check_kind(name, shown, _stat(name, shown).st_mode)
    try:
        # O_NONBLOCK: a named pipe put in place after the check above still cannot block the open.
        handle = os.open(name, _FLAGS)
    except OSError as error:
        raise _os_problem(name, shown, error) from None
    try:
        info = os.fstat(handle)
        _check_kind(name, shown, info.st_mode)  # what was opened, not what the path named a moment ago
        if info.st_size > limit:
            raise FileReadError(shown, f"is too large: {info.st_size:,} bytes, more than {limit:,}; {advice}")
        data = _read_at_most(handle, limit + 1, info.st_size + 1)
    except OSError as error:
        raise _os_problem(name, shown, error) from None
    finally:
        os.close(handle)
    if len(data) > limit:
        raise FileReadError(shown, f"is too large: more than {limit:,} bytes; {advice}")
    return data


def display(name: str) -> str:
    """A path as messages show it: as it is, or quoted with escapes when it holds control characters.

    Surrogates count too: a file name that is not UTF-8 arrives holding them, and no output can print them.
    """
    return repr(name) if any(ord(c) < 32 or ord(c) == 127 or 0xD800 <= ord(c) <= 0xDFFF for c in name) else name


def make_folder(folder: Path) -> None:
    """Create ``folder`` and its parents; a file standing where a folder must be is named in the error."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = _file_in_the_way(folder)
        if blocker is None:
            raise
        raise NotADirectoryError(errno.ENOTDIR, f"{str(blocker)!r} is a file, not a folder", str(folder)) from None


def make_parent(path: Path) -> None:
    """Create the folder ``path`` is to be written in (see :func:`make_folder`)."""
    make_folder(path.parent)


def _stat(name: str, shown: str) -> os.stat_result:
    try:
        return Path(name).stat()
    except OSError as error:
        raise _os_problem(name, shown, error) from None


def _check_kind(name: str, shown: str, mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    for test, problem in _KINDS:
        if test(mode):
            raise FileReadError(shown, problem)
    raise FileReadError(shown, "is not a regular file")


def _read_at_most(handle: int, most: int, first: int) -> bytes:
    chunks = []
    want = max(first, 1)
    while most > 0:
        chunk = os.read(handle, min(most, want))
        if not chunk:
            break
        chunks.append(chunk)
        most -= len(chunk)
        want = _CHUNK
    return b"".join(chunks)


def _decode(data: bytes, shown: str) -> str:
    if data.startswith(_BOM):  # a byte-order mark is not content
        data = data[len(_BOM) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        start = data.rfind(b"\n", 0, error.start) + 1
        column = len(data[start : error.start].decode("utf-8")) + 1
        problem = f"is not UTF-8 text: byte 0x{data[error.start]:02x} cannot be decoded; save the file as UTF-8"
        raise FileReadError(shown, problem, line=line, column=column) from None


def _os_problem(name: str, shown: str, error: OSError) -> FileReadError:
    if isinstance(error, FileNotFoundError):
        return FileReadError(shown, "does not exist")
    if isinstance(error, NotADirectoryError):
        blocker = _file_in_the_way(Path(name))
        if blocker is not None:
            return FileReadError(shown, f"does not exist: {str(blocker)!r} is a file, not a folder")
    if isinstance(error, IsADirectoryError):
        return FileReadError(shown, "is a directory, not a file")
    return FileReadError(shown, f"cannot be read: {error.strerror or error}")


def _file_in_the_way(path: Path) -> Path | None:
    """The first ancestor of ``path`` that exists and is not a folder."""
    for ancestor in reversed(path.parents):
        if str(ancestor) in ("", "."):
            continue
        if ancestor.exists() and not ancestor.is_dir():
            return ancestor
    if path.exists() and not path.is_dir():
        return path
    return None
