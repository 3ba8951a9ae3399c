"""Paths relative to the suite file being loaded, for evaluators that read files (schemas, data)."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

# pathlib loads only when used: evaluators import this module on their first call.
_suite_dir: contextvars.ContextVar[Path | None] = contextvars.ContextVar("agent_eval_suite_dir", default=None)


def resolve_path(path: str | Path) -> Path:
    """``path`` relative to the suite file being loaded (or the current directory)."""
    from pathlib import Path

    candidate = Path(path).expanduser()
    if candidate.is_absolute():
        return candidate
    base = _suite_dir.get()
    return (base / candidate) if base is not None else Path.cwd() / candidate


@contextlib.contextmanager
def relative_to(directory: Path) -> Iterator[None]:
    """While loading a suite file, make :func:`resolve_path` resolve against its directory."""
    token = _suite_dir.set(directory)
    try:
        yield
    finally:
        _suite_dir.reset(token)
