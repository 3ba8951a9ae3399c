"""What the cases of a batch that did not come back say: the worker lost, or the task that failed, by name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_eval import Case, EvalResult, describe_error


def worker_name(worker: Mapping[str, Any] | None) -> str | None:
    """``192.0.2.7/3f2a9c1b (pid 4242)``: the node's address, the start of the worker id, the process."""
    if not worker:
        return None
    return f"{worker.get('node')}/{str(worker.get('id'))[:8]} (pid {worker.get('pid')})"


def failure(error: BaseException, worker: Mapping[str, Any] | None) -> str:
    """The error of each unfinished case of a batch whose Ray task ended with ``error``."""
    name = worker_name(worker)
    cause = getattr(error, "cause", None)
    if isinstance(cause, BaseException):  # the task raised (RayTaskError): what it raised is the news
        where = f" on worker {name}" if name else ""
        return f"Ray task failed{where}: {describe_error(cause)}"
    what = f"{type(error).__name__}: {_first_line(error)}".rstrip(": ")
    if name is None:
        return f"Ray task failed before it reached a worker: {what}"
    return f"lost Ray worker {name}: {what}"


def not_rebuilt(reason: str, worker: Mapping[str, Any] | None) -> str:
    """The error of each case of a batch whose worker could not rebuild the run."""
    return f"Ray worker {worker_name(worker) or '?'} could not rebuild the run: {reason}"


def errored(case: Case, error: str) -> EvalResult:
    """A case that did not run to the end, with its error."""
    return EvalResult(
        case.name,
        case.input,
        expected=case.expected,
        status="error",
        error=error,
        metadata=case.metadata,
        fingerprint=case.fingerprint,
    )


def _first_line(error: BaseException) -> str:
    """Ray's messages run over many lines (advice, log paths); the first says what happened."""
    try:
        text = str(error)
    except Exception:
        return ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else ""
