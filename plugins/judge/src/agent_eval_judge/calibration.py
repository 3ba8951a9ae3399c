"""Grading labelled outputs with a suite's judges, as ``agent-eval calibrate`` does: no agent is called.

A label is matched to the suite's case of the same name; the case's judge evaluations are its
``llm_judge`` evaluators (the entries of its ``evaluators`` list and those the suite gives every case;
a judge inside ``all``, ``any`` or ``not`` is not one, as its verdict is not the case's). Each judge is
called as the runner calls it (:func:`agent_eval.invoke`), with the case as context, so the verdict
cache applies. With models given, every judge is built again with each model in turn.
"""

from __future__ import annotations

import asyncio
import difflib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import attrs

from agent_eval_judge.evaluator import LLMJudge

if TYPE_CHECKING:
    from agent_eval import Case, SuiteFile
    from agent_eval_judge.labels import Label, LabelsFile

Status = Literal["passed", "failed", "error", "skipped"]


@attrs.frozen
class Judged:
    """One judge's verdict on one labelled output (``reason`` holds the error or skip reason)."""

    criteria: str
    status: Status
    score: float | None = attrs.field(default=None, kw_only=True)
    reason: str | None = attrs.field(default=None, kw_only=True)
    model: str | None = attrs.field(default=None, kw_only=True)


@attrs.frozen
class Graded:
    """A labelled output and the verdicts of its case's judges, in the case's order."""

    label: Label
    verdicts: tuple[Judged, ...]

    @property
    def status(self) -> Status:
        """As a case's: an error if a judge erred, skipped if all were, else passed when every one that ran did."""
        statuses = {verdict.status for verdict in self.verdicts}
        if "error" in statuses:
            return "error"
        if statuses == {"skipped"}:
            return "skipped"
        return "failed" if "failed" in statuses else "passed"

    @property
    def score(self) -> float | None:
        """The mean score of the judges that ran, or None."""
        scores = [verdict.score for verdict in self.verdicts if verdict.score is not None]
        return sum(scores) / len(scores) if scores else None

    @property
    def problem(self) -> str | None:
        """Why no verdict counts (the first error, or the skip reason), or None."""
        wanted = "error" if self.status == "error" else "skipped" if self.status == "skipped" else None
        return next((verdict.reason or wanted for verdict in self.verdicts if verdict.status == wanted), None)


@attrs.frozen
class Grading:
    """Every labelled output graded by one judge configuration: a model, or the suite's own (None)."""

    model: str | None
    graded: tuple[Graded, ...]


@attrs.frozen
class Matched:
    """The labels matched to the suite's cases: those with judges to grade them, and those without."""

    pairs: tuple[tuple[Label, Case, tuple[LLMJudge, ...]], ...]
    without_judge: tuple[Label, ...] = ()


def judges_of(case: Case) -> tuple[LLMJudge, ...]:
    """The case's judge evaluations: its ``llm_judge`` evaluators, in order."""
    from agent_eval import callable_name

    return tuple(
        evaluator
        for evaluator in case.all_evaluators
        if isinstance(evaluator, LLMJudge) and callable_name(evaluator) == "llm_judge"
    )


def match(labels: LabelsFile, suite: SuiteFile) -> tuple[Matched, list[str]]:
    """Each label with its case and the case's judges; a label naming no case is a ``file:line`` problem."""
    cases = {case.name: case for case in suite.cases}
    problems: list[str] = []
    pairs: list[tuple[Label, Case, tuple[LLMJudge, ...]]] = []
    without: list[Label] = []
    for label in labels.labels:
        case = cases.get(label.name)
        if case is None:
            close = difflib.get_close_matches(label.name, list(cases), n=1, cutoff=0.6)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            problems.append(f"{labels.path}:{label.line}: no case {label.name!r} in {suite.path}.{hint}")
            continue
        judges = judges_of(case)
        if judges:
            pairs.append((label, case, judges))
        else:
            without.append(label)
    return Matched(tuple(pairs), tuple(without)), problems


def with_model(matched: Matched, model: str) -> tuple[Matched, list[str]]:
    """The same labels with every judge built again to ask ``model``; a judge agent cannot, and is a problem."""
    rebuilt: dict[int, LLMJudge] = {}
    problems: list[str] = []
    pairs = []
    for label, case, judges in matched.pairs:
        again = []
        for judge in judges:
            if judge.options.judge_agent is not None:
                problem = f"case {case.name!r}: its llm_judge asks a judge agent; --model applies to endpoint judges"
                if problem not in problems:
                    problems.append(problem)
                continue
            if id(judge) not in rebuilt:
                rebuilt[id(judge)] = LLMJudge(attrs.evolve(judge.options, model=model))
            again.append(rebuilt[id(judge)])
        pairs.append((label, case, tuple(again)))
    return Matched(tuple(pairs), matched.without_judge), problems


def grade(configurations: Sequence[tuple[str | None, Matched]], *, concurrency: int) -> list[Grading]:
    """Grade every label with each configuration's judges, ``concurrency`` labels at a time, in one event loop."""
    return asyncio.run(_grade_all(configurations, concurrency))


async def _grade_all(configurations: Sequence[tuple[str | None, Matched]], concurrency: int) -> list[Grading]:
    gate = asyncio.Semaphore(concurrency)

    async def one(label: Label, case: Case, judges: tuple[LLMJudge, ...]) -> Graded:
        async with gate:
            verdicts = await asyncio.gather(*(_verdict(judge, label, case) for judge in judges))
        return Graded(label, tuple(verdicts))

    judges = {id(judge): judge for _, matched in configurations for *_, held in matched.pairs for judge in held}
    try:
        tasks = [[one(*pair) for pair in matched.pairs] for _, matched in configurations]
        done = await asyncio.gather(*(asyncio.gather(*batch) for batch in tasks))
    finally:
        for judge in judges.values():
            await judge.aclose()  # the run's HTTP client and the cache segment close with the last one
    return [Grading(model, tuple(graded)) for (model, _), graded in zip(configurations, done, strict=True)]


async def _verdict(judge: LLMJudge, label: Label, case: Case) -> Judged:
    """The judge's verdict on the labelled output, as the runner would grade it: a skip or an error is kept."""
    from agent_eval import AgentEvalError, AgentRun, EvaluatorContext, Skip, Verdict, describe_error, invoke

    criteria = judge.options.criteria
    run = AgentRun(label.output, tool_calls=label.tool_calls) if label.tool_calls else None
    ctx = EvaluatorContext(case, label.output, agent_run=run)
    try:
        value: Any = await invoke(judge, label.output, ctx)
    except Skip as skipped:
        return Judged(criteria, "skipped", reason=skipped.reason)
    except AgentEvalError as error:
        return Judged(criteria, "error", reason=" ".join(str(error).split()))
    except Exception as error:
        return Judged(criteria, "error", reason=describe_error(error))
    if not isinstance(value, Verdict):  # the judge returns Verdicts; anything else would be a bug to show
        return Judged(criteria, "error", reason=f"the judge returned {type(value).__name__}, not a Verdict")
    model = value.metadata.get("model") or value.metadata.get("judge_agent")
    return Judged(
        criteria,
        "passed" if value.passed else "failed",
        score=value.score,
        reason=value.reason,
        model=model if isinstance(model, str) else None,
    )
