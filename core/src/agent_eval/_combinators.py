"""Evaluators made of evaluators: all of them, any of them, or not this one.

Members are called as the runner calls any evaluator (:func:`agent_eval.invoke`): sync or async,
with or without ``ctx``, returning a bool or a Verdict, raising :class:`~agent_eval.Skip` when they
cannot judge. Skipped members are left out: ``all`` and ``any`` are skipped only when every member
was, ``not`` when its member was. A member that errors (raises, or returns something else) makes the
combinator error, naming that member: a crash is never hidden behind another member's pass.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from agent_eval._calling import Call, callable_name, invoke, to_evaluation
from agent_eval._errors import AgentEvalError, Skip
from agent_eval._grading import labelled, weight_problem, weighted_mean
from agent_eval._model import Case, Evaluation, Verdict, sum_usage
from agent_eval._text import describe_error

_PLAIN = frozenset({bool, Verdict})


class MemberError(AgentEvalError):
    """A member of a combinator raised an error (or returned what an evaluator may not)."""

    def __init__(self, message: str, metadata: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        #: Facts the member's error carried (a judge's token usage), kept as the runner keeps them.
        self.metadata = metadata or {}


class Combinator:
    """What ``all``, ``any`` and ``not`` share: their members, their weights, and how members are graded."""

    name: ClassVar[str]

    def __init__(self, members: Sequence[Callable[..., Any]], weights: Sequence[float] = ()) -> None:
        self.members = tuple(members)
        self.weights = tuple(float(weight) for weight in weights)
        self._calls = tuple(Call.of(member) for member in self.members)
        # Sync inline members are graded one after the other; anything else concurrently.
        self._sequential = all(call.inline and not call.is_async for call in self._calls)

    def __repr__(self) -> str:
        return f"{self.name}({', '.join(callable_name(member) for member in self.members)})"

    def check_case(self, case: Case) -> None:
        """Refuse a case that a member cannot grade (each member's own ``check_case`` says)."""
        for member in self.members:
            check = getattr(member, "check_case", None)
            if check is None:
                continue
            try:
                check(case)
            except (ValueError, TypeError, AgentEvalError) as error:
                raise ValueError(f"{callable_name(member)}: {error}") from None

    async def aclose(self) -> None:
        """Let each member release what it holds for the run (a judge's HTTP client)."""
        failure: Exception | None = None
        for member in self.members:
            close = getattr(member, "aclose", None)
            if close is None:
                continue
            try:
                await close()
            except Exception as error:  # the other members still close
                failure = failure or error
        if failure is not None:
            raise failure

    async def grade_members(self, output: Any, ctx: Any) -> list[Evaluation]:
        """Every member's evaluation; a member's error is raised as a :class:`MemberError` naming it."""
        if self._sequential:
            graded = [await self._grade(call, output, ctx) for call in self._calls]
        else:
            graded = list(await asyncio.gather(*(self._grade(call, output, ctx) for call in self._calls)))
        for evaluation, error in graded:
            if evaluation.status != "error":
                continue
            if isinstance(error, MemberError):  # a nested combinator's: the path to the member that erred
                message = f"{evaluation.name}: {error}"
            elif error is not None:
                message = f"{evaluation.name} raised {evaluation.error}"
            else:  # it returned what an evaluator may not
                message = f"{evaluation.name} {evaluation.error}"
            metadata = dict(evaluation.metadata)
            usage = sum_usage(member.metadata.get("usage") for member, _ in graded)
            if usage:  # what every member spent, the one that erred and the others
                metadata["usage"] = usage
            failure = MemberError(message, metadata)
            if error is None:
                raise failure
            # with the member's own frames, so a report shows where the member raised
            raise failure.with_traceback(error.__traceback__) from error
        return [evaluation for evaluation, _ in graded]

    async def _grade(self, call: Call, output: Any, ctx: Any) -> tuple[Evaluation, Exception | None]:
        try:
            if call.inline and not call.is_async:
                value = call(output, ctx)
                if type(value) not in _PLAIN and inspect.isawaitable(value):
                    value = await value
            else:
                value = await invoke(call.func, output, ctx)
        except Skip as skip:
            return Evaluation(call.name, "skipped", reason=skip.reason), None
        except Exception as error:
            facts = getattr(error, "metadata", None)
            metadata = dict(facts) if isinstance(facts, Mapping) else {}
            return Evaluation(call.name, "error", error=describe_error(error), metadata=metadata), error
        return to_evaluation(call.name, value, 0.0), None

    def ran(self, graded: Sequence[Evaluation]) -> list[Evaluation]:
        """The members that ran (were not skipped); Skip when none did."""
        ran = [evaluation for evaluation in graded if evaluation.status != "skipped"]
        if not ran:
            raise Skip(f"{self.name}: every member was skipped — {_reasons(graded)}")
        return ran

    def verdict(self, passed: bool, score: float, reason: str, graded: Sequence[Evaluation]) -> Verdict:
        """The combinator's Verdict, its members' outcomes (and the tokens they spent) in its metadata."""
        members = [_outcome(evaluation) for evaluation in graded]
        metadata: dict[str, Any] = {"members": members}
        usage = sum_usage(evaluation.metadata.get("usage") for evaluation in graded)
        if usage:
            metadata["usage"] = usage
        return Verdict(passed, score, reason, metadata=metadata)


class AllOf(Combinator):
    """Passes when every member that ran passed; the score is their weighted mean."""

    name = "all"

    async def __call__(self, output: Any, ctx: Any = None) -> Verdict:
        graded = await self.grade_members(output, ctx)
        ran = self.ran(graded)
        failed = [evaluation for evaluation in ran if evaluation.status == "failed"]
        skipped = len(graded) - len(ran)
        if failed:
            reason = f"all: {len(failed)} of {len(ran)} failed — {_reasons(failed)}"
        else:
            reason = f"all: {len(ran)} of {len(ran)} passed" + (f" ({skipped} skipped)" if skipped else "")
        score = weighted_mean(graded, self.weights)
        return self.verdict(not failed, 0.0 if score is None else score, reason, graded)


class AnyOf(Combinator):
    """Passes when a member passed; the score is the best score of the members that ran."""

    name = "any"

    async def __call__(self, output: Any, ctx: Any = None) -> Verdict:
        graded = await self.grade_members(output, ctx)
        ran = self.ran(graded)
        score = max(_score(evaluation) for evaluation in ran)
        passing = [evaluation for evaluation in ran if evaluation.status == "passed"]
        if not passing:
            return self.verdict(False, score, f"any: no member passed — {_reasons(ran)}", graded)
        best = max(passing, key=_score)
        return self.verdict(True, score, f"any: {best.name} passed{_aside(best)}", graded)


class Not(Combinator):
    """Passes when its one member fails; the score is 1 minus the member's."""

    name = "not"

    async def __call__(self, output: Any, ctx: Any = None) -> Verdict:
        (member,) = await self.grade_members(output, ctx)
        if member.status == "skipped":
            raise Skip(f"not: {member.name} was skipped{_aside(member)}")
        reason = f"not: {member.name} {member.status}{_aside(member)}"
        return self.verdict(member.status == "failed", 1.0 - _score(member), reason, [member])


def all_of(*evaluators: Callable[..., Any], weights: Sequence[float] | None = None) -> AllOf:
    """An evaluator that passes when every one of ``evaluators`` does; its score is their weighted mean."""
    members = _members("all_of", evaluators)
    if weights is not None:
        weights = tuple(weights)
        if len(weights) != len(members):
            raise ValueError(f"all_of() got {len(weights)} weights for {len(members)} evaluators; give one for each")
        for weight in weights:
            problem = weight_problem(weight)
            if problem:
                raise ValueError(f"all_of(): {problem}")
    return AllOf(members, weights or ())


def any_of(*evaluators: Callable[..., Any]) -> AnyOf:
    """An evaluator that passes when one of ``evaluators`` does; its score is the best of theirs."""
    return AnyOf(_members("any_of", evaluators))


def not_(evaluator: Callable[..., Any]) -> Not:
    """An evaluator that passes when ``evaluator`` fails; its score is 1 minus that evaluator's."""
    return Not(_members("not_", (evaluator,)))


def _members(function: str, evaluators: Sequence[Any]) -> tuple[Callable[..., Any], ...]:
    if not evaluators:
        raise ValueError(f"{function}() needs at least one evaluator")
    for evaluator in evaluators:
        if not callable(evaluator):
            raise TypeError(f"{function}(): {evaluator!r} is not an evaluator (a callable)")
    return tuple(evaluators)


def _score(evaluation: Evaluation) -> float:
    if evaluation.score is not None:
        return evaluation.score
    return 1.0 if evaluation.status == "passed" else 0.0


def _aside(evaluation: Evaluation) -> str:
    """`` (its reason)``, or nothing when it gave none."""
    return f" ({evaluation.reason})" if evaluation.reason else ""


def _reasons(evaluations: Sequence[Evaluation]) -> str:
    return "; ".join(labelled(evaluation.name, evaluation.reason or evaluation.status) for evaluation in evaluations)


def _outcome(evaluation: Evaluation) -> dict[str, Any]:
    outcome: dict[str, Any] = {"name": evaluation.name, "status": evaluation.status, "score": evaluation.score}
    if evaluation.reason is not None:
        outcome["reason"] = evaluation.reason
    return outcome
