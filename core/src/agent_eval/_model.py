"""The records agent-eval passes around: cases, verdicts, results and reports."""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import repeat
from typing import Any, Literal

import attrs

from agent_eval._agent_run import AgentRun, ToolCall, Usage
from agent_eval._codec import (
    ANY,
    MAPPING,
    InvalidRecord,
    NotPlain,
    codec_of,
    items_as_is,
    paused_gc,
    record,
    records,
    tuple_of,
)

Status = Literal["passed", "failed", "error", "skipped"]
STATUSES: tuple[Status, ...] = ("passed", "failed", "error", "skipped")

REPORT_FORMAT = "agent-eval/report"
REPORT_VERSION = 1


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


@attrs.frozen
class Case:
    """One input for the agent and the evaluators that grade its answer."""

    name: str
    input: Any
    expected: Any = attrs.field(default=None, kw_only=True)
    evaluator: Any = attrs.field(default=None, kw_only=True)
    evaluators: tuple[Any, ...] = attrs.field(default=(), converter=tuple_of, kw_only=True)
    metadata: Mapping[str, Any] = attrs.field(factory=dict, kw_only=True)
    #: Where the case was defined (``suite.yaml:12``), when it came from a file.
    location: str | None = attrs.field(default=None, kw_only=True)
    #: A stable digest of the case as written in its file (name, input, expected, evaluator entries).
    fingerprint: str | None = attrs.field(default=None, kw_only=True)
    #: The weight of each of :attr:`all_evaluators` in the case's score, in order (empty: each weighs 1).
    weights: tuple[float, ...] = attrs.field(default=(), converter=tuple_of, kw_only=True)
    #: With a threshold the case passes when its weighted mean score reaches it and no evaluation errored.
    threshold: float | None = attrs.field(default=None, kw_only=True)

    @property
    def all_evaluators(self) -> tuple[Any, ...]:
        """``evaluator`` (when given) followed by ``evaluators``."""
        if self.evaluator is None:
            return self.evaluators
        return (self.evaluator, *self.evaluators)


#: The fields :func:`plain_cases` sets, in order: every field of :class:`Case` (a test keeps it so).
PLAIN_CASE_FIELDS = (
    "name",
    "input",
    "expected",
    "evaluator",
    "evaluators",
    "metadata",
    "location",
    "fingerprint",
    "weights",
    "threshold",
)
_SETTERS = tuple(getattr(Case, field).__set__ for field in PLAIN_CASE_FIELDS)


def plain_cases(
    names: list[str],
    inputs: Iterable[Any],
    *,
    expected: Iterable[Any],
    evaluators: Iterable[tuple[Any, ...]],
    metadata: Iterable[dict[str, Any]],
    locations: Iterable[str],
    fingerprints: Iterable[str],
    weights: Iterable[tuple[float, ...]],
    threshold: Iterable[float | None],
) -> list[Case]:
    """``Case(...)`` of each name with the values at its place in the other columns (``repeat`` a value
    many share), values that need no conversion (tuples already): a third of the time, as the cases of
    a large suite are made a column at a time, each field set by its slot."""
    cases = list(map(object.__new__, repeat(Case, len(names))))
    columns: tuple[Iterable[Any], ...] = (names, inputs, expected, repeat(None), evaluators, metadata)
    columns += (locations, fingerprints, weights, threshold)
    for setter, column in zip(_SETTERS, columns, strict=True):
        deque(map(setter, cases, column), maxlen=0)
    return cases


@attrs.frozen
class EvaluatorContext:
    """What an evaluator receives as ``ctx``: the case, the agent's output and timing."""

    case: Case
    output: Any
    agent_ctx: AgentContext = attrs.field(factory=AgentContext, kw_only=True)
    #: How long the agent took to answer, in milliseconds.
    duration_ms: float = attrs.field(default=0.0, kw_only=True)
    #: What the agent returned as an AgentRun (None when it returned its bare answer): see :attr:`run`.
    agent_run: AgentRun | None = attrs.field(default=None, kw_only=True, repr=False)
    #: Which attempt of a repeated case this is, from 0 (a judge keys its cache by it).
    attempt: int = attrs.field(default=0, kw_only=True)

    @property
    def run(self) -> AgentRun:
        """What the agent did: its answer, tool calls, usage and cost (a bare answer made no tool call)."""
        return self.agent_run if self.agent_run is not None else AgentRun(self.output)

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The tool calls the agent made, in order."""
        return self.agent_run.tool_calls if self.agent_run is not None else ()

    @property
    def usage(self) -> Usage | None:
        """The agent's token usage, when it reported one."""
        return self.agent_run.usage if self.agent_run is not None else None

    @property
    def cost_usd(self) -> float | None:
        """What the agent's work cost in US dollars, when it reported it."""
        return self.agent_run.cost_usd if self.agent_run is not None else None

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
    score: float | None = attrs.field(default=None, kw_only=True)
    reason: str | None = attrs.field(default=None, kw_only=True)
    error: str | None = attrs.field(default=None, kw_only=True)
    #: Where the evaluator's error was raised: its innermost frames, ``file:line in function``.
    frames: tuple[str, ...] = attrs.field(default=(), converter=tuple_of, kw_only=True)
    duration_ms: float = attrs.field(default=0.0, kw_only=True)
    metadata: Mapping[str, Any] = attrs.field(factory=dict, kw_only=True, metadata=MAPPING)

    @property
    def passed(self) -> bool:
        """True when the evaluator passed the output."""
        return self.status == "passed"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of this evaluation."""
        return codec_of(Evaluation).to_dict(self)

    def _derived(self) -> dict[str, Any]:
        return {"passed": self.status == "passed"}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Evaluation:
        """Load what :meth:`to_dict` wrote."""
        evaluation: Evaluation = codec_of(cls).from_dict(data)
        return evaluation


@attrs.frozen
class Attempt:
    """One of the independent runs of a repeated case: the agent's output and its evaluations."""

    index: int
    status: Status
    output: Any = attrs.field(default=None, kw_only=True, metadata=ANY)
    score: float | None = attrs.field(default=None, kw_only=True)
    reason: str | None = attrs.field(default=None, kw_only=True)
    error: str | None = attrs.field(default=None, kw_only=True)
    duration_ms: float = attrs.field(default=0.0, kw_only=True)
    evaluations: tuple[Evaluation, ...] = attrs.field(
        default=(), converter=tuple_of, kw_only=True, metadata=records(Evaluation)
    )
    tool_calls: tuple[ToolCall, ...] = attrs.field(
        default=(), converter=tuple_of, kw_only=True, metadata=records(ToolCall)
    )
    usage: Usage | None = attrs.field(default=None, kw_only=True, metadata=record(Usage))
    cost_usd: float | None = attrs.field(default=None, kw_only=True)

    @property
    def passed(self) -> bool:
        """True when this attempt passed."""
        return self.status == "passed"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of this attempt."""
        return codec_of(Attempt).to_dict(self)

    def _derived(self) -> dict[str, Any]:
        return {"passed": self.status == "passed"}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Attempt:
        """Load what :meth:`to_dict` wrote."""
        attempt: Attempt = codec_of(cls).from_dict(data)
        return attempt


@attrs.frozen
class EvalResult:
    """The outcome of one case: the agent's output and every evaluation of it.

    A repeated case has its ``attempts``; it passes when its ``pass_fraction`` reaches the run's
    ``case_pass_rate``, and its output, evaluations and tool calls are those of the first attempt that
    did not pass (of the first attempt, when it passed).
    """

    name: str
    input: Any = attrs.field(metadata=ANY)
    output: Any = attrs.field(default=None, kw_only=True, metadata=ANY)
    expected: Any = attrs.field(default=None, kw_only=True, metadata=ANY)
    status: Status = attrs.field(kw_only=True)
    score: float | None = attrs.field(default=None, kw_only=True)
    reason: str | None = attrs.field(default=None, kw_only=True)
    error: str | None = attrs.field(default=None, kw_only=True)
    #: Where the agent's error was raised: its innermost frames, ``file:line in function``.
    frames: tuple[str, ...] = attrs.field(default=(), converter=tuple_of, kw_only=True)
    duration_ms: float = attrs.field(default=0.0, kw_only=True)
    metadata: Mapping[str, Any] = attrs.field(factory=dict, kw_only=True, metadata=MAPPING)
    evaluations: tuple[Evaluation, ...] = attrs.field(
        default=(), converter=tuple_of, kw_only=True, metadata=records(Evaluation)
    )
    #: The tool calls the agent made, in order.
    tool_calls: tuple[ToolCall, ...] = attrs.field(
        default=(), converter=tuple_of, kw_only=True, metadata=records(ToolCall)
    )
    #: The agent's token usage (the judge's is in each evaluation's metadata and the report's ``usage``).
    usage: Usage | None = attrs.field(default=None, kw_only=True, metadata=record(Usage))
    cost_usd: float | None = attrs.field(default=None, kw_only=True)
    #: The independent runs of a repeated case, in order (empty when the case ran once).
    attempts: tuple[Attempt, ...] = attrs.field(default=(), converter=tuple_of, kw_only=True, metadata=records(Attempt))
    #: The case's fingerprint (see :attr:`Case.fingerprint`), for resuming a run.
    fingerprint: str | None = attrs.field(default=None, kw_only=True)
    #: This result's JSON, made once (see :func:`case_json`).
    _json: bytes | None = attrs.field(default=None, init=False, eq=False, repr=False)

    @property
    def passed(self) -> bool:
        """True when every evaluation that ran passed (for a repeated case: enough attempts passed)."""
        return self.status == "passed"

    @property
    def pass_fraction(self) -> float | None:
        """The share of attempts that passed, skipped ones left out (one attempt: 1.0 or 0.0); None if none ran."""
        if not self.attempts:
            return None if self.status == "skipped" else (1.0 if self.status == "passed" else 0.0)
        ran = [attempt for attempt in self.attempts if attempt.status != "skipped"]
        return sum(attempt.status == "passed" for attempt in ran) / len(ran) if ran else None

    @property
    def flaky(self) -> bool:
        """True when some attempts passed and some did not (failed or errored)."""
        statuses = {attempt.status for attempt in self.attempts}
        return "passed" in statuses and bool(statuses & {"failed", "error"})

    def outcomes(self) -> list[bool]:
        """Each attempt that ran (skipped ones left out): passed or not. One attempt for an unrepeated case."""
        if not self.attempts:
            return [] if self.status == "skipped" else [self.status == "passed"]
        return [attempt.status == "passed" for attempt in self.attempts if attempt.status != "skipped"]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of this result."""
        return codec_of(EvalResult).to_dict(self)

    def _derived(self) -> dict[str, Any]:
        if self.attempts:
            return {"passed": self.status == "passed", "pass_fraction": self.pass_fraction, "flaky": self.flaky}
        return {"passed": self.status == "passed"}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvalResult:
        """Load what :meth:`to_dict` wrote."""
        result: EvalResult = codec_of(cls).from_dict(data)
        return result


@attrs.frozen
class EvalReport:
    """All results of a run, in input order, with counts and the pass rate."""

    cases: tuple[EvalResult, ...] = attrs.field(converter=tuple_of, metadata=records(EvalResult))
    name: str | None = attrs.field(default=None, kw_only=True)
    total_ms: float = attrs.field(default=0.0, kw_only=True)
    started_at: str | None = attrs.field(default=None, kw_only=True)
    #: True when the run was stopped (Ctrl-C) before every case finished.
    interrupted: bool = attrs.field(default=False, kw_only=True)
    #: How many cases the run was asked to run (``total`` may be less if interrupted); None: ``total``.
    planned: int | None = attrs.field(default=None, kw_only=True)
    #: Facts about the run: suite file, agent reference, versions, ...
    metadata: Mapping[str, Any] = attrs.field(factory=dict, kw_only=True, metadata=MAPPING)

    passed: int = attrs.field(init=False)
    failed: int = attrs.field(init=False)
    errored: int = attrs.field(init=False)
    skipped: int = attrs.field(init=False)
    #: The cases' JSON-ready dicts, made once: every report writer of a run reads the same ones.
    _case_dicts: list[dict[str, Any]] | None = attrs.field(default=None, init=False, eq=False, repr=False)
    #: Figures over every case (stats, usage, ...), each worked out once: every writer shows them.
    _figures: dict[str, Any] = attrs.field(factory=dict, init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        counts = dict.fromkeys(STATUSES, 0)
        for result in self.cases:
            counts[result.status] += 1
        object.__setattr__(self, "passed", counts["passed"])
        object.__setattr__(self, "failed", counts["failed"])
        object.__setattr__(self, "errored", counts["error"])
        object.__setattr__(self, "skipped", counts["skipped"])
        if self.planned is None:
            object.__setattr__(self, "planned", len(self.cases))

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
    def stats(self) -> dict[str, Any]:
        """How sure the figures are: the pass rate's 95% interval, the mean score, pass@k with repeats.

        See :func:`agent_eval._run_stats.run_stats` for every key; undefined values are None.
        """
        stats = self._figures.get("stats")
        if stats is None:
            from agent_eval._run_stats import run_stats

            stats = self._figures["stats"] = run_stats(self.cases, self.tally())
        return {key: dict(value) if isinstance(value, dict) else value for key, value in stats.items()}

    @property
    def usage(self) -> dict[str, int]:
        """Token usage summed over every evaluation that reported ``usage``."""
        usage = self._figures.get("usage")
        if usage is None:
            usage = self._figures["usage"] = sum_usage(self.tally().evaluation_usages)
        return dict(usage)

    @property
    def agent_usage(self) -> Usage | None:
        """The agents' token usage summed over the cases (a repeated case's sums its attempts); None if none had one."""
        if "agent_usage" not in self._figures:
            self._figures["agent_usage"] = total_usage(self.tally().agent_usages)
        usage: Usage | None = self._figures["agent_usage"]
        return usage

    @property
    def cost_usd(self) -> float | None:
        """What the agents' work cost in US dollars, summed over the cases; None when no case reported a cost."""
        if "cost_usd" not in self._figures:
            self._figures["cost_usd"] = total_cost(self.tally().costs)
        cost: float | None = self._figures["cost_usd"]
        return cost

    def tally(self) -> Tally:
        """What the report's figures are worked out from, gathered once (:func:`tally_of`); do not change it."""
        found: Tally | None = self._figures.get("tally")
        if found is None:
            found = self._figures["tally"] = tally_of(self.cases)
        return found

    def with_metadata(self, metadata: Mapping[str, Any]) -> EvalReport:
        """This report with ``metadata`` instead of its own; what was worked out of its cases (the same) is kept."""
        report = attrs.evolve(self, metadata=metadata)
        object.__setattr__(report, "_figures", self._figures)
        object.__setattr__(report, "_case_dicts", self._case_dicts)
        return report

    def case_dicts(self) -> list[dict[str, Any]]:
        """Each case as :meth:`EvalResult.to_dict` writes it, worked out once per report (do not change them)."""
        if self._case_dicts is None:
            object.__setattr__(self, "_case_dicts", [case.to_dict() for case in self.cases])
        assert self._case_dicts is not None
        return self._case_dicts

    def case_json(self) -> Iterator[bytes]:
        """Each case's JSON (:func:`case_json`), in order: what the writers of a run join into documents."""
        return map(case_json, self.cases)  # (no generator's frame between the writer and each call)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the whole report; :meth:`from_dict` loads it back.

        Its ``cases`` are :meth:`case_dicts`, shared by every call: copy one before changing it.
        """
        return {**self.summary_dict(), "cases": self.case_dicts()}

    def summary_dict(self) -> dict[str, Any]:
        """:meth:`to_dict` without the cases: the counts, the statistics and the run's facts."""
        agent_usage = self.agent_usage
        counts = {
            "format": REPORT_FORMAT,
            "version": REPORT_VERSION,
            "passed": self.passed,
            "failed": self.failed,
            "errored": self.errored,
            "skipped": self.skipped,
            "total": self.total,
            "pass_rate": self.pass_rate,
            "usage": self.usage,
            "agent_usage": None if agent_usage is None else agent_usage.to_dict(),
            "cost_usd": self.cost_usd,
            "stats": self.stats,
        }
        return codec_of(EvalReport).to_dict(self, counts, skip=("cases",))

    def to_json(self, *, indent: int | None = 2) -> str:
        """The report as a JSON document (indented by two spaces, or compact with ``indent=None``)."""
        from agent_eval._json import document

        parts = document(self.summary_dict(), "cases", self.case_json(), indent=indent is not None)
        return b"".join(parts).decode("utf-8")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EvalReport:
        """Load a report written by :meth:`to_dict` (or read back from ``to_json``)."""
        if not isinstance(data, Mapping) or not isinstance(data.get("cases"), list):
            raise InvalidRecord("not an agent-eval report: expected an object with a 'cases' list")
        try:
            report: EvalReport = codec_of(cls).from_dict(data)
        except InvalidRecord as error:
            raise InvalidRecord(f"not an agent-eval report: {error}") from None
        return report

    @classmethod
    def from_json(cls, text: str) -> EvalReport:
        """Load a report from the JSON that :meth:`to_json` wrote; ValueError says what is wrong with it."""
        with paused_gc():
            return cls.from_dict(parse_json(text))


@attrs.define
class Tally:
    """What the figures of a report are worked out from, gathered in one pass over its cases by :func:`tally_of`
    (each pass over 100,000 cases costs about 10 ms, and every writer shows the figures)."""

    #: The cases that ran (not skipped), and how many of them passed.
    ran: int = 0
    passed: int = 0
    #: The scores of the cases that ran, each a finite number.
    scores: list[float] = attrs.Factory(list)
    #: The most attempts any case made (0 when none was repeated).
    repeat: int = 0
    #: The names of the evaluators whose evaluations the cases hold.
    evaluators: set[str] = attrs.Factory(set)
    #: The ``usage`` of each evaluation that reported one, and each (non-empty) ``model`` an evaluation named.
    evaluation_usages: list[Any] = attrs.Factory(list)
    models: list[Any] = attrs.Factory(list)
    #: The agent's usage and cost of each case that has one.
    agent_usages: list[Usage] = attrs.Factory(list)
    costs: list[float] = attrs.Factory(list)


def tally_of(cases: Iterable[EvalResult]) -> Tally:
    """The :class:`Tally` of ``cases``."""
    ran = passed = repeat = 0
    scores: list[float] = []
    evaluators: set[str] = set()
    usages: list[Any] = []
    models: list[Any] = []
    agent_usages: list[Usage] = []
    costs: list[float] = []
    for case in cases:
        status = case.status
        if status != "skipped":
            ran += 1
            if status == "passed":
                passed += 1
            # a float as the runner makes it is checked at once; anything else (a report read back) by _finite
            score = case.score
            if (type(score) is float and -_BIGGEST <= score <= _BIGGEST) or (score is not None and _finite(score)):
                scores.append(score)
        if case.attempts and len(case.attempts) > repeat:
            repeat = len(case.attempts)
        if case.usage is not None:
            agent_usages.append(case.usage)
        if case.cost_usd is not None:
            costs.append(case.cost_usd)
        for evaluation in case.evaluations:
            evaluators.add(evaluation.name)
            metadata = evaluation.metadata
            if metadata:  # most have none
                if "usage" in metadata:
                    usages.append(metadata["usage"])
                model = metadata.get("model")
                if model:
                    models.append(model)
    return Tally(ran, passed, scores, repeat, evaluators, usages, models, agent_usages, costs)


_BIGGEST = sys.float_info.max


def _maker(cls: type) -> Callable[..., Any]:
    """A function that makes a ``cls`` record from a value for each of its fields, in the fields' order
    (every one given, none converted, by position: 18 keywords cost more than the rest of the call): the
    slots are set directly, in about half the time of ``cls(...)``. For the runner, which makes a result,
    an evaluation and a context per case from values it built itself."""
    names = [field.name for field in attrs.fields(cls)]
    scope: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    lines = [f"def make({', '.join(names)}, /):", "    record = _new(_cls)"]
    for index, name in enumerate(names):
        scope[f"_set{index}"] = getattr(cls, name).__set__
        lines.append(f"    _set{index}(record, {name})")
    lines.append("    return record")
    exec("\n".join(lines), scope)  # noqa: S102 - the code is made here from the class's field names
    make: Callable[..., Any] = scope["make"]
    return make


#: ``EvaluatorContext(...)``, ``Evaluation(...)`` and ``EvalResult(...)`` of values that need no conversion
#: (tuples already), every field given in order (``_json`` None for a result): see :data:`CONTEXT_FIELDS`,
#: :data:`EVALUATION_FIELDS` and :data:`RESULT_FIELDS`.
make_context: Callable[..., EvaluatorContext] = _maker(EvaluatorContext)
make_evaluation: Callable[..., Evaluation] = _maker(Evaluation)
make_result: Callable[..., EvalResult] = _maker(EvalResult)
#: The order of the makers' arguments (a test keeps these the classes' fields).
CONTEXT_FIELDS = ("case", "output", "agent_ctx", "duration_ms", "agent_run", "attempt")
EVALUATION_FIELDS = ("name", "status", "score", "reason", "error", "frames", "duration_ms", "metadata")
RESULT_FIELDS = (
    "name", "input", "output", "expected", "status", "score", "reason", "error", "frames", "duration_ms",
    "metadata", "evaluations", "tool_calls", "usage", "cost_usd", "attempts", "fingerprint", "_json",
)  # fmt: skip


def parse_json(text: str) -> Any:
    """The data of a report's JSON text; ValueError (``not an agent-eval report: …``) when it is not JSON."""
    import json

    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}"
        raise InvalidRecord(f"not an agent-eval report: invalid JSON at {where}: {error.msg}") from None
    except RecursionError:
        raise InvalidRecord("not an agent-eval report: its JSON nests too deeply to read") from None
    except ValueError:  # the only other thing json.loads refuses: an integer too long to convert
        raise InvalidRecord("not an agent-eval report: it holds an integer of more than 4,300 digits") from None


def case_json(result: EvalResult) -> bytes:
    """``result.to_dict()`` as compact JSON, made once per result: a run writes each result several times
    (its --jsonl line, the history, the JSON report, the page), and only this text is kept meanwhile."""
    text = result._json
    if text is None:
        # a copy of exactly its size: orjson hands back its whole working buffer (8 KiB for a short text)
        text = memoryview(codec_of(EvalResult).json(result)).tobytes()
        object.__setattr__(result, "_json", text)
    return text


def graded_json(case: Case, output: Any, evaluation: Evaluation, duration_ms: float) -> bytes | None:
    """:func:`case_json` of the result the runner makes of a case graded by one evaluator that passed or failed
    it (no threshold, tool calls, usage or attempts: see ``_local._assemble``), made from these directly.

    The values are looked at as the careful writer would look at them (:func:`items_as_is`), and written
    by msgspec, into records shaped like the result's JSON and its evaluation's (:func:`_graded_records`):
    the same text, made in 1.0 µs against 1.8 µs for a dict written by orjson and copied to its size.
    None when one needs the careful way (the result's JSON is then made by :func:`case_json` when a
    writer asks for it).
    """
    reason, score, metadata = evaluation.reason, evaluation.score, evaluation.metadata
    name, fingerprint = case.name, case.fingerprint
    if (
        evaluation.error is not None
        or evaluation.frames
        or type(score) is not float
        or not (reason is None or type(reason) is str)
        or type(name) is not str
        or not (fingerprint is None or type(fingerprint) is str)
    ):
        return None
    status = evaluation.status
    passed = status == "passed"
    evaluated = evaluation.duration_ms
    try:
        # each as a container's items are looked at, a level above the values' own contents
        items_as_is((case.input, output, case.expected, case.metadata, metadata, score, duration_ms, evaluated), -1)
        encode, result, evaluation_record = _graded[0] or _graded_records()
        # in the order of RESULT_JSON_KEYS and EVALUATION_JSON_KEYS
        graded = evaluation_record(evaluation.name, status, score, reason, None, (), evaluated, metadata, passed)
        made = result(
            name, case.input, output, case.expected, status, score, reason, None, (), duration_ms,
            case.metadata, (graded,), (), None, None, (), fingerprint, passed,
        )  # fmt: skip
        return encode(made)
    except (NotPlain, TypeError, ValueError):  # a lone surrogate: msgspec raises UnicodeEncodeError
        return None


#: The keys of a result's JSON and of its evaluations', in the order :meth:`EvalResult.to_dict` writes them.
RESULT_JSON_KEYS = (*RESULT_FIELDS[:-1], "passed")
EVALUATION_JSON_KEYS = (*EVALUATION_FIELDS, "passed")
#: msgspec's encoder and the records of :func:`graded_json`, made on first use (a run of 10,000 cases or
#: more writes its results' JSON as it goes; msgspec is imported for it then).
_graded: list[tuple[Callable[[Any], bytes], Callable[..., Any], Callable[..., Any]] | None] = [None]


def _graded_records() -> tuple[Callable[[Any], bytes], Callable[..., Any], Callable[..., Any]]:
    import threading

    import msgspec

    result = msgspec.defstruct("GradedResult", [(key, Any) for key in RESULT_JSON_KEYS])
    evaluation = msgspec.defstruct("GradedEvaluation", [(key, Any) for key in EVALUATION_JSON_KEYS])
    into, buffers = msgspec.json.Encoder().encode_into, threading.local()

    def encode(record: Any) -> bytes:
        # into a buffer of this thread's (runs in other threads write theirs at the same time), then copied
        # to its size: msgspec's own bytes grow by steps and shrink at the end, which leaves holes in the
        # heap that nothing of a run fills (14 MB more at 100,000 cases)
        buffer = getattr(buffers, "buffer", None)
        if buffer is None:
            buffer = buffers.buffer = bytearray()
        into(record, buffer)
        return bytes(buffer)

    made = _graded[0] = (encode, result, evaluation)
    return made


_MAX_COUNT = 2**63


def total_usage(usages: Iterable[Usage | None]) -> Usage | None:
    """The sum of the usages given; None when every one is None."""
    found = [usage for usage in usages if usage is not None]
    if not found:
        return None
    # what a report read back holds was checked to be whole numbers; sum them as such
    return Usage(sum(usage.input_tokens for usage in found), sum(usage.output_tokens for usage in found))


def total_cost(costs: Iterable[float | None]) -> float | None:
    """The sum of the costs given (infinite and NaN ones left out); None when none is a number."""
    import math

    found = [float(cost) for cost in costs if cost is not None and _finite(cost)]
    try:
        total = math.fsum(found) if found else None
    except OverflowError:  # partial sums past the largest float: the total is no finite number either
        return None
    return total if total is None or math.isfinite(total) else None


def _finite(value: float) -> bool:
    # False for NaN, the infinities and ints too big for a float (the comparison is exact, never raising)
    return isinstance(value, int | float) and not isinstance(value, bool) and abs(value) <= _BIGGEST


def sum_usage(usages: Iterable[Mapping[str, Any] | None]) -> dict[str, int]:
    """Add up token-usage mappings, key by key; non-numbers are ignored."""
    total: dict[str, int] = {}
    for usage in usages:
        if not usage or not isinstance(usage, Mapping):
            continue
        for key, value in usage.items():
            # a count no endpoint could report (NaN, infinite, past 2**63, not named by text) is not a count
            if not isinstance(key, str) or not isinstance(value, int | float) or isinstance(value, bool):
                continue
            if abs(value) < _MAX_COUNT:
                total[key] = total.get(key, 0) + int(value)
    return total
