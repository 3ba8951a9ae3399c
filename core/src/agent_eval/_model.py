"""The records agent-eval passes around: cases, verdicts, results and reports."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import attrs

from agent_eval._errors import SuiteError

Status = Literal["passed", "failed", "error", "skipped"]
STATUSES: tuple[Status, ...] = ("passed", "failed", "error", "skipped")

REPORT_FORMAT = "agent-eval/report"
REPORT_VERSION = 1

_CASE_KEYS = ("name", "input", "expected", "evaluator", "evaluators", "metadata")


@attrs.frozen
class Verdict:
    """An evaluator's judgement: passed or not, an optional 0..1 score and a reason."""

    passed: bool
    score: float | None = None
    reason: str | None = None
    #: Extra facts about the evaluation (a judge's token ``usage``, ``cached``, ...).
    metadata: Mapping[str, Any] = attrs.field(factory=dict, kw_only=True)


@attrs.frozen
class AgentContext:
    """What the agent receives as ``ctx``: a session id and an environment."""

    session_id: str = "eval"
    env: Mapping[str, str] = attrs.Factory(dict)


def _tuple(items: Iterable[Any]) -> tuple[Any, ...]:
    # A Python function rather than the builtin ``tuple``: attrs inspects a converter's signature,
    # and for a builtin that means tokenizing its text signature (9 ms at import).
    return tuple(items)


@attrs.frozen
class Case:
    """One input for the agent and the evaluators that grade its answer."""

    name: str
    input: Any
    expected: Any = None
    evaluator: Any = None
    evaluators: tuple[Any, ...] = attrs.field(default=(), converter=_tuple)
    metadata: Mapping[str, Any] = attrs.Factory(dict)
    #: Where the case was defined (``suite.yaml:12``), when it came from a file.
    location: str | None = attrs.field(default=None, kw_only=True)

    @property
    def all_evaluators(self) -> tuple[Any, ...]:
        """``evaluator`` (when given) followed by ``evaluators``."""
        if self.evaluator is None:
            return self.evaluators
        return (self.evaluator, *self.evaluators)

    @classmethod
    def coerce(cls, value: Case | Mapping[str, Any], index: int = 0) -> Case:
        """Return ``value`` as a Case; a mapping must use the Case's keys."""
        if isinstance(value, Case):
            return value
        if not isinstance(value, Mapping):
            raise SuiteError([f"case #{index + 1}: expected a Case or a dict, got {type(value).__name__}"])
        unknown = [key for key in value if key not in _CASE_KEYS]
        if unknown:
            raise SuiteError(
                [f"case #{index + 1}: unknown key {unknown[0]!r}; a case has keys {', '.join(_CASE_KEYS)}"]
            )
        if "name" not in value or "input" not in value:
            missing = "name" if "name" not in value else "input"
            raise SuiteError([f"case #{index + 1}: missing key {missing!r}"])
        return cls(
            name=value["name"],
            input=value["input"],
            expected=value.get("expected"),
            evaluator=value.get("evaluator"),
            evaluators=value.get("evaluators") or (),
            metadata=value.get("metadata") or {},
        )


@attrs.frozen
class EvaluatorContext:
    """What an evaluator receives as ``ctx``: the case, the agent's output and timing."""

    case: Case
    output: Any
    agent_ctx: AgentContext = attrs.Factory(AgentContext)
    #: How long the agent took to answer, in milliseconds.
    duration_ms: float = 0.0

    @property
    def name(self) -> str:
        """The case's name."""
        return self.case.name

    @property
    def input(self) -> Any:
        """The case's input."""
        return self.case.input

    @property
    def expected(self) -> Any:
        """The case's reference answer, or None."""
        return self.case.expected

    @property
    def metadata(self) -> Mapping[str, Any]:
        """The case's metadata."""
        return self.case.metadata


@attrs.frozen
class Evaluation:
    """The outcome of one evaluator on one case."""

    name: str
    status: Status
    score: float | None = None
    reason: str | None = None
    error: str | None = None
    duration_ms: float = 0.0
    metadata: Mapping[str, Any] = attrs.Factory(dict)

    @property
    def passed(self) -> bool:
        """True when the evaluator passed the output."""
        return self.status == "passed"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of this evaluation."""
        return {
            "name": self.name,
            "passed": self.passed,
            "status": self.status,
            "score": self.score,
            "reason": self.reason,
            "error": self.error,
            "duration_ms": round(self.duration_ms, 3),
            "metadata": jsonable(self.metadata),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Evaluation:
        """Load what :meth:`to_dict` wrote."""
        return cls(
            name=data["name"],
            status=data["status"],
            score=data.get("score"),
            reason=data.get("reason"),
            error=data.get("error"),
            duration_ms=data.get("duration_ms", 0.0),
            metadata=data.get("metadata") or {},
        )


@attrs.frozen
class EvalResult:
    """The outcome of one case: the agent's output and every evaluation of it."""

    name: str
    input: Any
    output: Any
    status: Status
    score: float | None = None
    reason: str | None = None
    error: str | None = None
    duration_ms: float = 0.0
    evaluations: tuple[Evaluation, ...] = ()
    expected: Any = None
    metadata: Mapping[str, Any] = attrs.Factory(dict)

    @property
    def passed(self) -> bool:
        """True when every evaluation that ran passed."""
        return self.status == "passed"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of this result."""
        return {
            "name": self.name,
            "input": jsonable(self.input),
            "output": jsonable(self.output),
            "expected": jsonable(self.expected),
            "passed": self.passed,
            "status": self.status,
            "score": self.score,
            "reason": self.reason,
            "error": self.error,
            "duration_ms": round(self.duration_ms, 3),
            "metadata": jsonable(self.metadata),
            "evaluations": [evaluation.to_dict() for evaluation in self.evaluations],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvalResult:
        """Load what :meth:`to_dict` wrote."""
        return cls(
            name=data["name"],
            input=data.get("input"),
            output=data.get("output"),
            status=data["status"],
            score=data.get("score"),
            reason=data.get("reason"),
            error=data.get("error"),
            duration_ms=data.get("duration_ms", 0.0),
            evaluations=tuple(Evaluation.from_dict(e) for e in data.get("evaluations", ())),
            expected=data.get("expected"),
            metadata=data.get("metadata") or {},
        )


def _results(cases: Iterable[EvalResult]) -> tuple[EvalResult, ...]:
    return tuple(cases)


@attrs.frozen
class EvalReport:
    """All results of a run, in input order, with counts and the pass rate."""

    cases: tuple[EvalResult, ...] = attrs.field(converter=_results)
    name: str | None = None
    total_ms: float = 0.0
    started_at: str | None = None
    #: True when the run was stopped (Ctrl-C) before every case finished.
    interrupted: bool = False
    #: How many cases the run was asked to run (``total`` may be less if interrupted).
    planned: int | None = None
    #: Facts about the run: suite file, agent reference, versions, ...
    metadata: Mapping[str, Any] = attrs.Factory(dict)

    passed: int = attrs.field(init=False)
    failed: int = attrs.field(init=False)
    errored: int = attrs.field(init=False)
    skipped: int = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        counts = dict.fromkeys(STATUSES, 0)
        for result in self.cases:
            counts[result.status] += 1
        object.__setattr__(self, "passed", counts["passed"])
        object.__setattr__(self, "failed", counts["failed"])
        object.__setattr__(self, "errored", counts["error"])
        object.__setattr__(self, "skipped", counts["skipped"])

    @property
    def total(self) -> int:
        """Number of cases in the report."""
        return len(self.cases)

    @property
    def pass_rate(self) -> float:
        """``passed / (total - skipped)``; 0.0 when nothing ran."""
        return self.rate()

    def rate(self, *, strict: bool = False) -> float:
        """The pass rate; with ``strict``, skipped cases count as failed."""
        ran = self.total if strict else self.total - self.skipped
        return self.passed / ran if ran else 0.0

    @property
    def usage(self) -> dict[str, int]:
        """Token usage summed over every evaluation that reported ``usage``."""
        return sum_usage(e.metadata.get("usage") for r in self.cases for e in r.evaluations)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the whole report; :meth:`from_dict` loads it back."""
        return {
            "format": REPORT_FORMAT,
            "version": REPORT_VERSION,
            "name": self.name,
            "started_at": self.started_at,
            "interrupted": self.interrupted,
            "planned": self.planned if self.planned is not None else self.total,
            "passed": self.passed,
            "failed": self.failed,
            "errored": self.errored,
            "skipped": self.skipped,
            "total": self.total,
            "pass_rate": self.pass_rate,
            "total_ms": round(self.total_ms, 3),
            "usage": self.usage,
            "metadata": jsonable(self.metadata),
            "cases": [result.to_dict() for result in self.cases],
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """The report as a JSON document."""
        import json

        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvalReport:
        """Load a report written by :meth:`to_dict` (or read back from ``to_json``)."""
        if not isinstance(data, Mapping) or not isinstance(data.get("cases"), list):
            raise ValueError("not an agent-eval report: expected an object with a 'cases' list")
        return cls(
            cases=[EvalResult.from_dict(case) for case in data["cases"]],
            name=data.get("name"),
            total_ms=data.get("total_ms", 0.0),
            started_at=data.get("started_at"),
            interrupted=bool(data.get("interrupted", False)),
            planned=data.get("planned"),
            metadata=data.get("metadata") or {},
        )

    @classmethod
    def from_json(cls, text: str) -> EvalReport:
        """Load a report from the JSON that :meth:`to_json` wrote."""
        import json

        return cls.from_dict(json.loads(text))


def sum_usage(usages: Iterable[Mapping[str, Any] | None]) -> dict[str, int]:
    """Add up token-usage mappings, key by key; non-numbers are ignored."""
    total: dict[str, int] = {}
    for usage in usages:
        if not usage:
            continue
        for key, value in usage.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                total[key] = total.get(key, 0) + int(value)
    return total


def jsonable(value: Any) -> Any:
    """``value`` with everything JSON cannot hold replaced by its ``repr``."""
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, Mapping):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return [jsonable(item) for item in value]
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", errors="replace")
    return repr(value)
