"""Helpers for evaluator authors: an output as text, and paths relative to the suite file."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

# pathlib and json load only when used: evaluators import this module on their first call.
_suite_dir: contextvars.ContextVar[Path | None] = contextvars.ContextVar("agent_eval_suite_dir", default=None)


def as_text(output: Any) -> str:
    """The agent's output as text: strings as they are, bytes decoded, dicts and lists as JSON."""
    if isinstance(output, str):
        return output
    if output is None:
        return ""
    if isinstance(output, bytes | bytearray):
        return bytes(output).decode("utf-8", errors="replace")
    if isinstance(output, dict | list | tuple):
        import json

        try:
            return json.dumps(output, ensure_ascii=False)
        except (TypeError, ValueError):
            return str(output)
    return str(output)


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
