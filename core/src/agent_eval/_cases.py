"""Cases: the keys a case has, turning a mapping into a Case, and checking cases before a run.

This is the one place cases are checked. Suite files (which know where each case stands in the file)
and ``EvalSuite`` (given cases in Python) both use it, and a :class:`Cases` collection that was
checked once is never checked again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from agent_eval._calling import callable_name
from agent_eval._errors import AgentEvalError, SuiteError
from agent_eval._grading import threshold_problem, weight_problem
from agent_eval._model import Case
from agent_eval._text import describe_error, kind_of, short_repr

#: The keys of a case in a suite file.
CASE_KEYS = ("name", "input", "expected", "evaluator", "evaluators", "metadata", "threshold")
#: The keys of a case given in Python as a dict: a suite file weighs each evaluator entry instead.
PYTHON_CASE_KEYS = (*CASE_KEYS, "weights")
#: The keys a case must have.
REQUIRED_KEYS = ("name", "input")


class Cases(tuple[Case, ...]):
    """Cases that were checked together: names unique, every evaluator accepts its case."""

    __slots__ = ()

    def select(self, wanted: Iterable[Case]) -> Cases:
        """Some of these cases (still checked: a part of a checked whole is checked)."""
        return Cases(wanted)


def unknown_keys(data: Mapping[Any, Any]) -> list[Any]:
    """The keys of ``data`` that a case given in Python does not have."""
    return [key for key in data if key not in PYTHON_CASE_KEYS]


def missing_keys(data: Mapping[Any, Any]) -> list[str]:
    """The required keys ``data`` lacks."""
    return [key for key in REQUIRED_KEYS if key not in data]


def name_problem(name: Any) -> str | None:
    """What is wrong with ``name`` as a case name, or None."""
    if isinstance(name, str) and name.strip():
        return None
    return f"the case name must be a non-empty string, got {short_repr(name)}"


def metadata_problem(metadata: Any) -> str | None:
    """What is wrong with ``metadata`` as a case's metadata (None, or a mapping), or None."""
    if metadata is None or isinstance(metadata, Mapping):
        return None
    return f"'metadata' must be a mapping, got {kind_of(metadata)}"


def evaluator_problem(evaluator: Any, case: Case) -> str | None:
    """What is wrong with using ``evaluator`` on ``case`` (its own ``check_case`` says), or None."""
    if not callable(evaluator):
        return f"evaluator {short_repr(evaluator)} is not callable"
    check = getattr(evaluator, "check_case", None)
    if check is None:
        return None
    try:
        check(case)
    except (ValueError, TypeError, AgentEvalError) as error:
        return f"{callable_name(evaluator)}: {error}"
    except Exception as error:  # a bug in the evaluator: reported as a problem, not a crash
        return f"{callable_name(evaluator)}: check_case failed: {describe_error(error)}"
    return None


def grading_problems(case: Case) -> list[str]:
    """What is wrong with the weights and threshold of a case given in Python."""
    found = []
    if case.threshold is not None and (problem := threshold_problem(case.threshold)):
        found.append(problem)
    if case.weights:
        count = len(case.all_evaluators)
        if len(case.weights) != count:
            found.append(f"'weights' has {len(case.weights)} weights for {count} evaluators; give one for each")
        found.extend(problem for weight in case.weights if (problem := weight_problem(weight)))
    return found


class Checker:
    """Checks cases one at a time as they are built, remembering names; problems are collected."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        #: Where each name was first seen (or how to find out: working out a place can cost), or the
        #: number of the JSON Lines line it was on, for :attr:`line_where` to place.
        self._first_seen: dict[str, str | int | Callable[[], str]] = {}
        #: Where the name on a line of the JSON Lines file being read stands, by the line's number.
        self.line_where: Callable[[int], str] | None = None
        #: The names of lines noted a run of lines at a time (:meth:`claim`), and those runs with their
        #: lines' numbers: a set takes a name in one look, where a mapping to its line takes more.
        self._line_names: set[str] = set()
        self._runs: list[tuple[list[str], Sequence[int]]] = []

    def duplicate(self, name: str, where: str | Callable[[], str]) -> str | None:
        """The problem when ``name`` was seen before, else None (and ``name`` is remembered here)."""
        if name in self._line_names:
            self._merge()
        first = self._first_seen.get(name)
        if first is None:
            self._first_seen[name] = where
            return None
        if isinstance(first, int) and self.line_where is not None:
            shown = self.line_where(first)
        else:
            shown = first() if callable(first) else str(first)
        return f"duplicate case name {name!r} (first at {shown}); names must be unique"

    def new(self, names: list[str]) -> bool:
        """True when no name of ``names`` was seen before or is there twice."""
        unique = set(names)
        seen = self._first_seen.keys()
        return len(unique) == len(names) and seen.isdisjoint(unique) and self._line_names.isdisjoint(unique)

    def note(self, names: list[str], numbers: Sequence[int]) -> None:
        """Remember each of ``names`` (:meth:`new` ones) as first seen on the line of its number."""
        self._line_names.update(names)
        self._runs.append((names, numbers))

    def claim(self, names: list[str], numbers: Sequence[int]) -> bool:
        """:meth:`note` the names when they are :meth:`new`, in one look at each; else note none."""
        if self._first_seen.keys().isdisjoint(names):
            count = len(self._line_names)
            self._line_names.update(names)
            if len(self._line_names) == count + len(names):
                self._runs.append((names, numbers))
                return True
            self._line_names.clear()  # which of them were there before is found again, once:
            self._merge()  # a name is there twice, so the suite does not load; its names are all mapped
        return False

    def _merge(self) -> None:
        """Map the names of :meth:`claim`'s runs to their lines, as any other."""
        for names, numbers in self._runs:
            self._first_seen.update(zip(names, numbers, strict=True))
        self._line_names.clear()
        self._runs.clear()

    def evaluator_problems(self, case: Case) -> list[str]:
        """What each evaluator of ``case`` objects to (nothing when all accept it)."""
        found = (evaluator_problem(evaluator, case) for evaluator in case.all_evaluators)
        return [problem for problem in found if problem]


def coerce(value: Case | Mapping[str, Any], index: int = 0) -> Case:
    """``value`` as a Case; a mapping must have the keys of a case and no others."""
    if isinstance(value, Case):
        return value
    if not isinstance(value, Mapping):
        raise SuiteError([f"case #{index + 1}: expected a Case or a dict, got {type(value).__name__}"])
    unknown = unknown_keys(value)
    if unknown:
        keys = ", ".join(PYTHON_CASE_KEYS)
        raise SuiteError([f"case #{index + 1}: unknown key {unknown[0]!r}; a case has keys {keys}"])
    missing = missing_keys(value)
    if missing:
        raise SuiteError([f"case #{index + 1}: missing key {missing[0]!r}"])
    return Case(
        value["name"],
        value["input"],
        expected=value.get("expected"),
        evaluator=value.get("evaluator"),
        evaluators=value.get("evaluators") or (),
        metadata={} if value.get("metadata") is None else value["metadata"],
        weights=value.get("weights") or (),
        threshold=value.get("threshold"),
    )


def check_cases(cases: Iterable[Case | Mapping[str, Any]]) -> Cases:
    """The cases, coerced and checked; a :class:`Cases` is returned as it is (it was checked)."""
    if isinstance(cases, Cases):
        return cases
    checker = Checker()
    built = [coerce(value, index) for index, value in enumerate(cases)]
    names = [case.name for case in built]
    try:
        unique = len(set(names)) == len(names)  # most suites: no name to look up case by case
    except TypeError:  # a name that is not text (reported below) and cannot be hashed
        unique = False
    accepting: set[int] = set()  # evaluators (by id) that accept every case: callable, without check_case
    for index, case in enumerate(built):
        where = case.location or f"case #{index + 1}"
        problem = name_problem(case.name)
        if problem is None and not unique:
            problem = checker.duplicate(case.name, where)
        if problem is not None:
            checker.problems.append(f"{where}: {problem}")
        metadata = case.metadata
        if type(metadata) is not dict and (problem := metadata_problem(metadata)) is not None:
            checker.problems.append(f"{where}: case {case.name!r}: {problem}")
        if case.threshold is not None or case.weights:
            label = f"case {case.name!r}"
            checker.problems.extend(f"{where}: {label}: {found}" for found in grading_problems(case))
        evaluators = case.all_evaluators
        if not all(id(evaluator) in accepting for evaluator in evaluators):
            found = checker.evaluator_problems(case)
            label = f"case {case.name!r}"
            checker.problems.extend(f"{where}: {label}: {problem}" for problem in found)
            accepting.update(id(e) for e in evaluators if callable(e) and not hasattr(e, "check_case"))
    if checker.problems:
        raise SuiteError(checker.problems)
    return Cases(built)
