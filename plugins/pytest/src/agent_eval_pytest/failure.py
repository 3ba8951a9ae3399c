"""What a case that did not pass shows: status, score, reason, each evaluation, and the agent's error.

The text is the report of the case, not of the plugin: no Python traceback of this package is shown.
Its first line says it all in one line, for pytest's short summary and JUnit's ``message``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from agent_eval import EvalResult, Evaluation, as_text, shorten

#: How much of an input, output or expected answer is shown.
VALUE_LIMIT = 1000
#: How much of one reason or error is shown in the first line.
HEADLINE_LIMIT = 300
#: How many frames of an error are shown, innermost last.
FRAMES_SHOWN = 10

_LABELS = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "skipped": "SKIP"}
_MARKUP: dict[str, dict[str, bool]] = {
    "passed": {"green": True},
    "failed": {"red": True},
    "error": {"red": True},
    "skipped": {"yellow": True},
}


class CaseFailed(Exception):
    """Raised by an item whose case failed or errored; pytest shows its :class:`CaseReport`."""

    def __init__(self, report: CaseReport) -> None:
        super().__init__(report.headline)
        self.report = report


class Crash:
    """Where and, in one line, why: what pytest's short summary, ``--tb=line`` and JUnit read."""

    def __init__(self, path: str, lineno: int, message: str) -> None:
        self.path = path
        self.lineno = lineno
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}:{self.lineno}: {self.message}"


class CaseReport:
    """A case's outcome as pytest shows a failure (it calls :meth:`toterminal`)."""

    def __init__(self, result: EvalResult, path: str, line: int | None) -> None:
        self.result = result
        self.headline = headline(result)
        self.reprcrash = Crash(path, line or 0, self.headline)
        self.where = f"{path}:{line}" if line else path

    def lines(self) -> Iterator[tuple[str, dict[str, bool]]]:
        """Each line with its terminal markup."""
        result = self.result
        yield self.headline, {"bold": True, **_MARKUP.get(result.status, {})}
        yield f"case {result.name!r} ({self.where})", {}
        for label, value in (("input", result.input), ("output", result.output), ("expected", result.expected)):
            if value is not None and (label != "output" or result.status != "error"):
                yield from _value(label, value)
        yield from _attempts(result)
        if result.evaluations:
            yield "evaluations:", {}
            width = max(len(evaluation.name) for evaluation in result.evaluations)
            for evaluation in result.evaluations:
                yield f"  {evaluation_line(evaluation, width)}", _MARKUP.get(evaluation.status, {})
        if result.error:
            yield f"error: {result.error}", {"red": True}
        for frame in frames_of(result):
            yield f"  {frame}", {}

    def toterminal(self, tw: Any) -> None:
        for text, markup in self.lines():
            tw.line(text, **markup)

    def __str__(self) -> str:
        return "\n".join(text for text, _ in self.lines())


def headline(result: EvalResult) -> str:
    """``failed · score 0.50 · missing: 'hello'``."""
    parts: list[str] = [result.status]
    if result.score is not None:
        parts.append(f"score {result.score:.2f}")
    why = "; ".join(text for text in (result.reason, result.error) if text)
    if why:
        parts.append(shorten(why, HEADLINE_LIMIT))
    return " · ".join(parts)


def evaluation_line(evaluation: Evaluation, width: int = 0) -> str:
    """``FAIL  contains  score 0.50  missing: 'hello'``, the name padded to ``width``."""
    label = _LABELS.get(evaluation.status, evaluation.status.upper())
    parts = [f"{label:<5} {evaluation.name:<{width}}"]
    if evaluation.score is not None:
        parts.append(f"score {evaluation.score:.2f}")
    for text in (evaluation.reason, evaluation.error):
        if text:
            parts.append(shorten(text, VALUE_LIMIT))
    return "  ".join(parts)


def skip_reason(result: EvalResult) -> str:
    """Why a case was skipped: its reason, else its skipped evaluations' reasons."""
    if result.reason:
        return result.reason
    reasons = [f"{e.name}: {e.reason}" for e in result.evaluations if e.status == "skipped" and e.reason]
    return "; ".join(reasons) or "skipped"


def frames_of(record: Any) -> list[str]:
    """The frames of the record's error, innermost last, when it carries them (``frames`` or ``traceback``)."""
    frames = getattr(record, "frames", None) or getattr(record, "traceback", None)
    if not frames:
        return []
    if isinstance(frames, str):
        return [line for line in frames.rstrip("\n").splitlines() if line.strip()]
    if not isinstance(frames, Sequence):
        return [shorten(str(frames), VALUE_LIMIT)]
    shown = [_frame(frame) for frame in frames]
    if len(shown) > FRAMES_SHOWN:
        shown = [f"… {len(shown) - FRAMES_SHOWN} outer frames", *shown[-FRAMES_SHOWN:]]
    return shown


def _frame(frame: Any) -> str:
    """One frame as ``path:line in name: code``, from a string, a mapping or a record."""
    if isinstance(frame, str):
        return shorten(frame, VALUE_LIMIT)

    def field(*names: str) -> Any:
        for name in names:
            value = frame.get(name) if isinstance(frame, dict) else getattr(frame, name, None)
            if value is not None:
                return value
        return None

    path = field("filename", "file", "path")
    if path is None:
        return shorten(str(frame), VALUE_LIMIT)
    text = f"{path}:{field('lineno', 'line') or '?'}"
    name = field("name", "function")
    if name:
        text += f" in {name}"
    code = field("code", "source", "text")
    if code:
        text += f": {shorten(str(code), VALUE_LIMIT)}"
    return text


def _value(label: str, value: Any) -> Iterator[tuple[str, dict[str, bool]]]:
    text = as_text(value)
    if len(text) > VALUE_LIMIT:
        text = text[: VALUE_LIMIT - 1] + "…"
    first, *rest = text.splitlines() or [""]
    yield f"{label}: {first}", {}
    for line in rest:
        yield f"  {line}", {}


def _attempts(result: EvalResult) -> Iterator[tuple[str, dict[str, bool]]]:
    """With repeats: how many attempts passed, then one line per attempt."""
    attempts = getattr(result, "attempts", None)
    if not attempts:
        return
    passed = sum(1 for attempt in attempts if getattr(attempt, "status", None) == "passed")
    flaky = " (flaky)" if getattr(result, "flaky", False) else ""
    yield f"attempts: {passed} of {len(attempts)} passed{flaky}", {}
    for number, attempt in enumerate(attempts, start=1):
        parts = [f"  {number}: {getattr(attempt, 'status', '?')}"]
        score = getattr(attempt, "score", None)
        if isinstance(score, int | float):
            parts.append(f"score {score:.2f}")
        why = "; ".join(str(t) for t in (getattr(attempt, "reason", None), getattr(attempt, "error", None)) if t)
        if why:
            parts.append(shorten(why, HEADLINE_LIMIT))
        yield " · ".join(parts), _MARKUP.get(str(getattr(attempt, "status", "")), {})
