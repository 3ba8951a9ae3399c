"""A suite file's evaluator entries: ``name``, ``name: arguments``, the combinators, each with its weight.

An entry is a bare name, or a mapping with exactly one evaluator key and optionally ``weight``::

    - exact_match
    - contains: [refund]
    - {matches: "\\d+ days", weight: 2}
    - any: [{contains: [refund]}, {contains: [money back]}]
    - not: {contains: [call now]}

``all``, ``any`` and ``not`` are combinators (their members are entries too) and ``weight`` weighs an
entry; no plugin may register an evaluator by those names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent_eval._binding import EvaluatorBuilder
from agent_eval._combinators import AllOf, AnyOf, Combinator, Not
from agent_eval._errors import AgentEvalError
from agent_eval._grading import weight_problem
from agent_eval._sources import Place
from agent_eval._text import kind_of

#: Where a problem is, and what it is.
Report = Callable[[Place, str], None]

_COMBINATORS: dict[str, type[Combinator]] = {"all": AllOf, "any": AnyOf, "not": Not}


class EntryReader:
    """Builds the evaluator (and weight) of each entry; every problem is reported at its own place.

    The same combinator entry gives the same evaluator object, as the builder does for the others.
    """

    def __init__(self, builder: EvaluatorBuilder, report: Report) -> None:
        self.builder = builder
        self.report = report
        self._combined: dict[str, Combinator] = {}

    def read(self, place: Place, entry: Any, label: str) -> tuple[Any, float] | None:
        """(evaluator, weight) of ``entry`` at ``place``, or None when it has a problem (reported)."""
        weight = 1.0
        if isinstance(entry, dict) and "weight" in entry:
            problem = weight_problem(entry["weight"])
            if problem:
                self.report(place.child("weight"), f"{label}: {problem}")
                return None
            weight = float(entry["weight"])
            entry = {key: value for key, value in entry.items() if key != "weight"}
            if not entry:
                self.report(place, f"{label}: an entry with 'weight' names the evaluator it weighs")
                return None
        evaluator = self._evaluator(place, entry, label)
        return None if evaluator is None else (evaluator, weight)

    def _evaluator(self, place: Place, entry: Any, label: str) -> Any:
        name = entry if isinstance(entry, str) else None
        if isinstance(entry, dict) and len(entry) == 1:
            name = next(iter(entry))
        if name in _COMBINATORS:
            if isinstance(entry, str):
                self.report(place, f"{label}: {name!r} combines evaluators: give them as `{name}: [...]`")
                return None
            return self._combinator(place.child(name), name, entry[name], label)
        if name == "weight":
            self.report(place, f"{label}: 'weight' weighs an evaluator: `{{contains: [x], weight: 2}}`")
            return None
        try:
            return self.builder.build(entry)
        except AgentEvalError as error:
            self.report(place, f"{label}: {error}")
            return None

    def _combinator(self, place: Place, name: str, members: Any, label: str) -> Combinator | None:
        placed = self._members(place, name, members, label)
        if placed is None:
            return None
        key = f"{name}:{members!r}"
        combined = self._combined.get(key)
        if combined is not None:
            return combined
        read = [self.read(member_place, entry, label) for member_place, entry in placed]
        built = [member for member in read if member is not None]
        if len(built) < len(read):
            return None
        combined = _COMBINATORS[name]([evaluator for evaluator, _ in built], [weight for _, weight in built])
        self._combined[key] = combined
        return combined

    def _members(self, place: Place, name: str, members: Any, label: str) -> list[tuple[Place, Any]] | None:
        """Each member entry with its place; ``not`` takes its one member as it is, or in a list."""
        if name == "not" and members is not None and not isinstance(members, list):
            return [(place, members)]
        if not isinstance(members, list) and members is not None:
            self.report(place, f"{label}: {name!r} takes a list of evaluators, got {kind_of(members)}")
            return None
        if not members:
            self.report(place, f"{label}: {name!r} has no members; give it at least one evaluator")
            return None
        if name == "not" and len(members) > 1:
            message = f"{label}: 'not' takes one evaluator, got {len(members)}; combine them with `all:` or `any:`"
            self.report(place, message)
            return None
        return [(place.child(index), entry) for index, entry in enumerate(members)]
