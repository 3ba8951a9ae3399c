"""Suite files (YAML, JSON, JSONL): loading, and validating everything before any agent call.

Parsed data holds plain dicts (JSON and YAML give nothing else), so it is checked with
``isinstance(x, dict)``: the ``Mapping`` ABC check costs several times more per value.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from hashlib import blake2b
from itertools import repeat
from pathlib import Path
from typing import Any

import attrs
import orjson

from agent_eval._binding import EvaluatorBuilder
from agent_eval._cases import CASE_KEYS, Cases, Checker, metadata_problem
from agent_eval._entries import EntryReader
from agent_eval._errors import SuiteError, did_you_mean
from agent_eval._grading import threshold_problem
from agent_eval._model import Case, plain_cases
from agent_eval._paths import relative_to
from agent_eval._plainlines import (
    Columns,
    Known,
    PlainList,
    line_decoder,
    plain_shape,
    plain_shapes,
    text_names,
    written_known,
    written_texts,
)
from agent_eval._plugins import Registry, get_registry
from agent_eval._sourcemap import KEY, LineChunk
from agent_eval._sources import Lines, Place, Source, open_sources, position_key
from agent_eval._text import kind_of, short_repr

SUITE_KEYS = (
    "name",
    "description",
    "agent",
    "min_pass_rate",
    "concurrency",
    "timeout",
    "repeat",
    "case_pass_rate",
    "executor",
    "threshold",
    "evaluators",
    "cases",
)


@attrs.frozen
class SuiteFile:
    """A loaded, validated suite file."""

    path: Path
    name: str
    cases: Cases = attrs.field(converter=Cases)
    agent: str | None = attrs.field(default=None, kw_only=True)
    description: str | None = attrs.field(default=None, kw_only=True)
    min_pass_rate: float | None = attrs.field(default=None, kw_only=True)
    concurrency: int | None = attrs.field(default=None, kw_only=True)
    timeout: float | None = attrs.field(default=None, kw_only=True)
    #: Attempts per case (None: the caller's, else 1).
    repeat: int | None = attrs.field(default=None, kw_only=True)
    #: The share of a repeated case's attempts that must pass (None: the caller's, else 1.0).
    case_pass_rate: float | None = attrs.field(default=None, kw_only=True)
    #: The executor that runs the cases (None: the caller's, else ``local``), and its options.
    executor: str | None = attrs.field(default=None, kw_only=True)
    executor_options: dict[str, Any] = attrs.field(factory=dict, kw_only=True)


def load_suite(path: str | Path, *, registry: Registry | None = None) -> SuiteFile:
    """Load and validate a suite file; every problem found is raised together as a SuiteError."""
    path = Path(path)
    loader = _Loader(path, registry or get_registry())
    sources = open_sources(path)
    with relative_to(path.parent.resolve()):
        suite = loader.load(sources)
    if not loader.problems and not suite.cases:
        where = loader.cases_place.where() if loader.cases_place is not None else str(path)
        loader.problems.append(f"{where}: suite has no cases; add at least one")
    if loader.problems:
        raise SuiteError(sorted(loader.problems, key=position_key), source=str(path))
    return suite


class _Problems:
    """Every problem found, each as ``file:line:col: message``."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, place: Place, message: str) -> None:
        self.lines.append(f"{place.where()}: {message}{place.source.note}")


class _Loader:
    """The suite's own keys; its cases are read by a :class:`_CaseReader`."""

    def __init__(self, path: Path, registry: Registry) -> None:
        self.path = path
        self._problems = _Problems()
        self.problems = self._problems.lines
        self.entries = EntryReader(EvaluatorBuilder(registry), self._problems.add)
        self.checker = Checker()
        #: Where the cases were given, for the message of a suite without any (None: the whole file).
        self.cases_place: Place | None = None

    def load(self, sources: list[Source] | Lines) -> SuiteFile:
        if isinstance(sources, Lines):
            return SuiteFile(self.path, self.path.stem, self._cases(sources, _Shared()))
        if len(sources) != 1 or sources[0].is_line:
            return SuiteFile(self.path, self.path.stem, self._cases([Place(s) for s in sources], _Shared()))
        place = Place(sources[0])
        data = place.value
        if isinstance(data, list):
            data = place.source.data = {"cases": data}
        if not isinstance(data, dict):
            self._problems.add(place, f"a suite file holds a mapping with 'cases', got {kind_of(data)}")
            return SuiteFile(self.path, self.path.stem, [])
        return self._suite(place, data)

    def _suite(self, place: Place, data: dict[str, Any]) -> SuiteFile:
        for key in data:
            if key not in SUITE_KEYS:
                hint = did_you_mean(str(key), SUITE_KEYS)
                message = f"unknown key {key!r}.{hint} A suite has: {', '.join(SUITE_KEYS)}"
                self._problems.add(place.child(key, KEY), message)
        options = _Options(place, data, self._problems)
        name = options.text("name") or self.path.stem
        agent = options.text("agent")
        if agent is not None and ":" not in agent:
            message = f"agent {agent!r} must be MODULE:ATTRIBUTE, e.g. my_agents:support"
            self._problems.add(place.child("agent"), message)
        evaluators = self._reader().evaluator_list(place.child("evaluators"), data.get("evaluators"), "suite")
        shared = _Shared(evaluators, data.get("evaluators"), options.number("threshold", 0.0, 1.0))
        cases = self._cases(self._case_places(place, data), shared)
        return SuiteFile(
            self.path,
            name,
            cases,
            agent=agent,
            description=options.text("description"),
            min_pass_rate=options.number("min_pass_rate", 0.0, 1.0),
            concurrency=options.whole("concurrency"),
            timeout=options.number("timeout", 0.0, math.inf, open_low=True),
            repeat=options.whole("repeat"),
            case_pass_rate=options.number("case_pass_rate", 0.0, 1.0),
            **options.executor(),
        )

    def _case_places(self, place: Place, data: dict[str, Any]) -> list[Place] | Lines:
        if "cases" not in data:
            message = "missing 'cases': a list of cases, or the path of a .jsonl/.json/.yaml file"
            self._problems.add(place, message)
            return []
        cases = data["cases"]
        if cases is None or cases == "":
            message = "'cases' is empty; give a list of cases, or the path of a .jsonl/.json/.yaml file"
            self._problems.add(place.child("cases"), message)
            return []
        self.cases_place = place.child("cases")
        if isinstance(cases, str):
            return self._external_cases(cases, place.child("cases"))
        if not isinstance(cases, list):
            self._problems.add(place.child("cases"), f"'cases' must be a list (or a file path), got {kind_of(cases)}")
            return []
        return [place.child("cases", index) for index in range(len(cases))]

    def _external_cases(self, reference: str, pointer: Place) -> list[Place] | Lines:
        # Made absolute without following symbolic links: a link is read (or refused) under its own name.
        target = Path(os.path.abspath(self.path.parent / reference))  # noqa: PTH100 - resolve() follows links
        try:
            sources = open_sources(target, origin=pointer.where())
        except SuiteError as error:
            self.problems.extend(error.problems)
            return []
        if isinstance(sources, Lines):
            return sources
        if len(sources) == 1 and not sources[0].is_line:
            only = Place(sources[0])
            if not isinstance(only.value, list):
                self._problems.add(only, f"a cases file holds a list of cases, got {kind_of(only.value)}")
                return []
            return [only.child(index) for index in range(len(only.value))]
        return [Place(line) for line in sources]

    def _reader(self, shared: _Shared | None = None) -> _CaseReader:
        return _CaseReader(self._problems, self.entries, self.checker, _Shared() if shared is None else shared)

    def _cases(self, places: list[Place] | Lines, shared: _Shared) -> list[Case]:
        reader = self._reader(shared)
        if isinstance(places, Lines):
            return reader.read_lines(places)
        cases = [reader.read(place, index) for index, place in enumerate(places)]
        return [case for case in cases if case is not None]


@attrs.frozen
class _Shared:
    """What a suite gives each of its cases: evaluators (built, with weights, and as written), a threshold."""

    evaluators: list[tuple[Any, float]] = attrs.Factory(list)
    entries: Any = None
    threshold: float | None = None
    #: ``repr(entries)``, for each case's fingerprint.
    entries_text: str = attrs.field(init=False)

    @entries_text.default
    def _entries_text(self) -> str:
        return repr(self.entries)


_CASE_KEYS = frozenset(CASE_KEYS)


#: Whether plain lines of a JSON Lines file are read by :meth:`_CaseReader._chunk` (tests turn it off to
#: compare with :meth:`_CaseReader.read`).
QUICK_LINES = True
#: The fewest lines of a JSON Lines file read by :func:`line_decoder` first: msgspec's import (about 8 ms)
#: is paid back from about there on (tests set it lower).
TYPED_LINES = 10_000


class _CaseReader:
    """Reads one case after another: keys, name, input, metadata, evaluators, then the shared checks.

    A suite of many cases repeats a few evaluator lists: each list is read once (by its text), and a
    case's texts for messages are made only when there is a problem to tell.
    """

    def __init__(self, problems: _Problems, entries: EntryReader, checker: Checker, shared: _Shared) -> None:
        self.problems = problems
        self.entries = entries
        self.checker = checker
        #: What the suite gives each of the cases read.
        self.shared = shared
        #: The evaluators and weights each evaluator list gave (read without a problem), by its repr.
        self._graded_lists: dict[str, tuple[tuple[Any, ...], tuple[float, ...]]] = {}
        #: Those of them whose evaluators have no ``check_case`` to call, by their JSON text (:meth:`_chunk`).
        self._plain_lists: dict[bytes, PlainList] = {}
        #: The same, by their text as written on a line orjson read (:meth:`_typed`).
        self._written_lists: dict[bytes, PlainList] = {}
        #: Lines of the JSON Lines file being read that gave no case (for each case's index).
        self._dropped = 0

    def read_lines(self, lines: Lines) -> list[Case]:
        """The cases of a JSON Lines file; when a line is not JSON, only such lines are problems.

        Neither the lines nor their values are kept; most lines of a large file are plain
        (:mod:`agent_eval._plainlines`) and become cases without the places :meth:`read` keeps for its
        messages, a chunk of lines at a time.
        """
        count = len(self.problems.lines)
        self.checker.line_where = lines.name_where
        cases: list[Case] = []
        typed = line_decoder if QUICK_LINES and lines.line_count >= TYPED_LINES else None
        for chunk in lines.chunks(typed):
            if not chunk.typed:
                self._chunk(chunk, lines, cases)
            elif not self._typed(chunk, lines, cases):
                self._untyped(chunk, lines, cases)
        if lines.problems:  # reading stopped at the first line that is not JSON: only those lines are told
            del self.problems.lines[count:]
            self.problems.lines.extend(lines.problems)
            return []
        return cases

    def _typed(self, chunk: LineChunk, lines: Lines, cases: list[Case]) -> bool:
        """Read a chunk of typed lines (:func:`line_decoder`'s) when all are plain: their names new and
        their evaluator lists known by their text as written; True when so."""
        known = written_known(chunk.values, self._written_lists)
        if known is None:
            return False
        columns = Columns.of_typed(chunk.values, chunk.numbers)
        if not all(map(str.strip, columns.names)) or not self.checker.claim(columns.names, chunk.numbers):
            return False
        cases.extend(self._plain_cases(columns, known, lines))
        return True

    def _untyped(self, chunk: LineChunk, lines: Lines, cases: list[Case]) -> None:
        """Read a chunk of typed lines as mappings (:meth:`_chunk`), then know the evaluator lists known
        by their JSON text by their text as written too (taken from a line orjson read, keys checked)."""
        read = lines.untyped(chunk)
        if read is None:
            return
        self._chunk(read, lines, cases)
        precise = set(read.precise)
        for written, at in written_texts(chunk.values).items():
            if written not in self._written_lists and at not in precise:
                known = self._plain_lists.get(orjson.dumps(read.values[at].get("evaluators")))
                if known is not None:
                    self._written_lists[written] = known

    def _chunk(self, chunk: LineChunk, lines: Lines, cases: list[Case]) -> None:
        """Read a chunk of lines (mappings) into ``cases``: the plain ones a run at a time
        (:meth:`_plain_run`), the others by :meth:`read`.

        Most chunks are plain through and through (:mod:`agent_eval._plainlines`), and found so a
        column at a time: a plain line is one :meth:`read` would have nothing to say of, read by orjson
        (not one of the chunk's ``precise``: its values hold no NaN, no integer beyond 64 bits), whose
        evaluator list is known by its JSON text (cheaper to make than its ``repr`` and as telling for
        such values). A chunk whose names are not all new text, different from each other, is read
        line by line.
        """
        values = chunk.values
        names = text_names(values) if QUICK_LINES else None
        if names is not None:
            entries = list(map(dict.get, values, repeat("evaluators")))
            known = None if chunk.precise or not plain_shapes(values) else self._known_list(entries)
            if known is not None:
                if self.checker.claim(names, chunk.numbers):
                    cases.extend(self._plain_cases(Columns.of_mappings(values, names, chunk.numbers), known, lines))
                    return
            elif self.checker.new(names):
                self._mixed(chunk, names, entries, lines, cases)
                return
        for at in range(len(values)):
            case = self._line(chunk, at, lines, len(cases))
            if case is not None:
                cases.append(case)

    def _known_list(self, entries: list[Any]) -> PlainList | None:
        """What the evaluator list of every line gives (see :meth:`_plain_known`), when all lines have
        the same (found by the JSON text of all, which is the first's as many times)."""
        first = orjson.dumps(entries[0])
        known = self._plain_lists.get(first)
        if known is None or orjson.dumps(entries) != b"[" + b",".join(repeat(first, len(entries))) + b"]":
            return None
        return known

    def _mixed(self, chunk: LineChunk, names: list[str], entries: list[Any], lines: Lines, cases: list[Case]) -> None:
        """Read a chunk of plain lines and others (:meth:`_chunk`) in order, the plain ones made together
        at the end (their names, all new and different, cannot be those of the others)."""
        precise = set(chunk.precise)
        made: list[Case | None] = []  # None where a plain line's case goes
        plain: list[int] = []
        known: list[PlainList] = []
        for at, data in enumerate(chunk.values):
            found = None  # a line read before may have made its list known: looked up in turn
            if at not in precise and plain_shape(data):
                found = self._plain_lists.get(orjson.dumps(entries[at]))
            if found is None:
                case = self._line(chunk, at, lines, len(cases) + len(made))
                if case is not None:
                    made.append(case)
            else:
                plain.append(at)
                known.append(found)
                made.append(None)
        if plain:
            columns = Columns.of_mappings(chunk.values, names, chunk.numbers).pick(plain)
            self.checker.note(columns.names, columns.numbers)
            built = iter(self._plain_cases(columns, known, lines))
            made = [next(built) if case is None else case for case in made]
        cases.extend(made)  # type: ignore[arg-type]  # each None was made a case

    def _plain_cases(self, columns: Columns, known: Known, lines: Lines) -> list[Case]:
        """The cases of plain lines (their names noted as seen already) with what their evaluator lists
        give, ``known`` (the same for all, or each line's)."""
        evaluators: Iterable[tuple[Any, ...]]
        weights: Iterable[tuple[float, ...]]
        threshold: Iterable[float | None]
        tails: Iterable[str]
        if isinstance(known, PlainList):
            evaluators, weights, threshold, tails = (
                repeat(known.evaluators),
                repeat(known.weights),
                repeat(known.threshold),
                repeat(known.tail),
            )
        else:
            evaluators, weights = [each.evaluators for each in known], [each.weights for each in known]
            threshold, tails = [each.threshold for each in known], [each.tail for each in known]
        names, given, expected = columns.names, columns.given, columns.expected
        return plain_cases(
            names,
            given,
            expected=expected,
            evaluators=evaluators,
            metadata=columns.metadata,
            locations=map(f"{lines.path}:".__add__, map(str, columns.numbers)),
            fingerprints=_digests(names, given, expected, tails),
            weights=weights,
            threshold=threshold,
        )

    def _line(self, chunk: LineChunk, at: int, lines: Lines, index: int) -> Case | None:
        """The case of the line at ``at`` of ``chunk``, read the full way (:meth:`read`) as the case at ``index``."""
        source = lines.source(chunk.numbers[at], chunk.lines[at], chunk.values[at])
        case = self.read(Place(source), index + self._dropped)
        if case is None:
            self._dropped += 1
        return case

    def read(self, place: Place, index: int) -> Case | None:
        data = place.value
        if not isinstance(data, dict):
            message = f"a case is a mapping with 'name', 'input', 'evaluators'; got {kind_of(data)}"
            self.problems.add(place, message)
            return None
        count = len(self.problems.lines)
        if not data.keys() <= _CASE_KEYS:
            for key in data:
                if key not in _CASE_KEYS:
                    hint = did_you_mean(str(key), CASE_KEYS)
                    message = f"{_label(data, index)}: unknown key {key!r}.{hint} A case has: {', '.join(CASE_KEYS)}"
                    self.problems.add(place.child(key, KEY), message)
        name = self._name(place, data, index)
        if "input" not in data:
            self.problems.add(place, f"{_label(data, index)}: missing 'input'")
        metadata = data.get("metadata")
        if metadata is not None and (problem := metadata_problem(metadata)):
            self.problems.add(place.child("metadata"), f"{_label(data, index)}: {problem}")
        entries_text = repr(data.get("evaluators"))
        evaluators, weights = self._graded(place, data, index, entries_text)
        threshold = data.get("threshold")
        if threshold is None:
            threshold = self.shared.threshold
        elif problem := threshold_problem(threshold):
            self.problems.add(place.child("threshold"), f"{_label(data, index)}: {problem}")
        if name is not None:
            duplicate = self.checker.duplicate(name, place.name_where)
            if duplicate:
                self.problems.add(place.child("name"), duplicate)
                return None
        if len(self.problems.lines) > count or name is None:
            return None
        case = Case(
            name,
            data.get("input"),
            expected=data.get("expected"),
            evaluators=evaluators,
            metadata=metadata or {},
            location=place.location(),
            fingerprint=_fingerprint(name, data, entries_text, self.shared.entries_text, threshold),
            weights=weights,
            threshold=None if threshold is None else float(threshold),
        )
        for evaluator in case.all_evaluators:  # most evaluators have no check_case: no call to make
            if not callable(evaluator) or hasattr(evaluator, "check_case"):
                for problem in self.checker.evaluator_problems(case):
                    self.problems.add(place, f"{_label(data, index)}: {problem}")
                break
        return case

    def _graded(
        self, place: Place, data: dict[str, Any], index: int, entries_text: str
    ) -> tuple[tuple[Any, ...], tuple[float, ...]]:
        """The case's evaluators and their weights (none when all weigh 1): the suite's, its ``evaluator``,
        its ``evaluators``. A case without ``evaluator`` whose list was read before without a problem
        gets what that list gave."""
        alone = "evaluator" not in data
        if alone:
            known = self._graded_lists.get(entries_text)
            if known is not None:
                return known
        count = len(self.problems.lines)
        label = _label(data, index)
        own = self.evaluator_list(place.child("evaluators"), data.get("evaluators"), label)
        if not alone:
            own = self.evaluator_list(place.child("evaluator"), [data["evaluator"]], label, single=True) + own
        graded = (*self.shared.evaluators, *own)
        evaluators = tuple(evaluator for evaluator, _ in graded)
        weights = tuple(weight for _, weight in graded) if any(weight != 1 for _, weight in graded) else ()
        if alone and len(self.problems.lines) == count:
            self._graded_lists[entries_text] = (evaluators, weights)
            if all(callable(evaluator) and not hasattr(evaluator, "check_case") for evaluator in evaluators):
                self._plain_known(data.get("evaluators"), entries_text, evaluators, weights)
        return evaluators, weights

    def _plain_known(
        self, entries: Any, entries_text: str, evaluators: tuple[Any, ...], weights: tuple[float, ...]
    ) -> None:
        """Let :meth:`_chunk` give ``evaluators`` to the cases whose entries are these (when their JSON text
        tells them apart: it does not for NaN, or integers beyond 64 bits)."""
        try:
            key = orjson.dumps(entries)
        except orjson.JSONEncodeError:
            return
        if repr(orjson.loads(key)) == entries_text:
            shared = self.shared
            tail = ", None" + _fingerprint_tail(entries_text, shared.entries_text, shared.threshold)
            threshold = None if shared.threshold is None else float(shared.threshold)
            self._plain_lists[key] = PlainList(evaluators, weights, threshold, tail)

    def _name(self, place: Place, data: dict[str, Any], index: int) -> str | None:
        name = data["name"] if "name" in data else f"#{index + 1}"
        if type(name) is str and name.strip():
            return name
        if isinstance(name, int) and not isinstance(name, bool):
            return str(name)
        if not isinstance(name, str) or not name.strip():
            message = f"{_label(data, index)}: 'name' must be a non-empty string, got {kind_of(name)}"
            self.problems.add(place.child("name"), message)
            return None
        return name

    def evaluator_list(
        self, place: Place, entries: Any, label: str, *, single: bool = False
    ) -> list[tuple[Any, float]]:
        """The evaluators of a list of entries, each with its weight; each bad entry is a problem at its place."""
        if entries is None:
            return []
        if not isinstance(entries, list):
            message = f"{label}: 'evaluators' must be a list of `name: arguments`, got {kind_of(entries)}"
            self.problems.add(place, message)
            return []
        built = []
        for index, entry in enumerate(entries):
            read = self.entries.read(place if single else place.child(index), entry, label)
            if read is not None:
                built.append(read)
        return built


def _label(data: dict[str, Any], index: int) -> str:
    """How messages name a case: by its name, else by its number."""
    named = isinstance(data.get("name"), str) and data["name"].strip()
    return f"case {data['name']!r}" if named else f"case #{index + 1}"


def fingerprint(name: str, data: dict[str, Any], shared_entries: Any, threshold: Any = None) -> str:
    """What makes a case the same case from one run to the next: its name, input, expected answer, the
    evaluator entries that grade it (the suite's shared ones included), as written in the file, and the
    threshold it is held to.

    ``--resume`` takes a finished case over only when its fingerprint is unchanged.
    """
    return _fingerprint(name, data, repr(data.get("evaluators")), repr(shared_entries), threshold)


def _fingerprint(name: str, data: dict[str, Any], entries_text: str, shared_text: str, threshold: Any) -> str:
    """:func:`fingerprint` from the reprs a reader has made already (``repr`` of a tuple joins its items')."""
    tail = _fingerprint_tail(entries_text, shared_text, threshold)
    return _digest(name, data.get("input"), data.get("expected"), data.get("evaluator"), tail)


def _digest(name: str, given: Any, expected: Any, evaluator: Any, tail: str) -> str:
    """The fingerprint of a case from its name, input, expected answer and evaluator, and the rest of what
    it holds as :func:`_fingerprint_tail` writes it."""
    return _digests((name,), (given,), (expected,), (f", {evaluator!r}{tail}",))[0]


def _digests(names: Sequence[str], given: Iterable[Any], expected: Iterable[Any], ends: Iterable[str]) -> list[str]:
    """The fingerprint of each case from its name, input and expected answer, with its evaluator and
    :func:`_fingerprint_tail` written as its ``end`` (``repeat`` one that many share): the one place the
    text a fingerprint digests is written, for plain lines a chunk at a time and for any case alone."""
    copy = _DIGEST.copy
    digests = []
    for name, value, answer, end in zip(names, given, expected, ends, strict=False):  # as many as names
        digest = copy()
        digest.update(f"({name!r}, {value!r}, {answer!r}{end}".encode("utf-8", "surrogatepass"))
        digests.append(digest.hexdigest())
    return digests


#: The digest of fingerprints, copied for each (cheaper than making one).
_DIGEST = blake2b(digest_size=10)


def _fingerprint_tail(entries_text: str, shared_text: str, threshold: Any) -> str:
    """The end of what :func:`fingerprint` digests: all but the name, input, expected and evaluator."""
    if threshold is None:  # without a threshold, as before thresholds came: a run recorded then still resumes
        return f", {entries_text}, {shared_text})"
    return f", {entries_text}, {shared_text}, {threshold!r})"


class _Options:
    """The suite's scalar options, each checked for its type and range."""

    def __init__(self, place: Place, data: dict[str, Any], problems: _Problems) -> None:
        self.place = place
        self.data = data
        self.problems = problems

    def text(self, key: str) -> str | None:
        value = self.data.get(key)
        if value is not None and not isinstance(value, str):
            self.problems.add(self.place.child(key), f"{key!r} must be a str, got {kind_of(value)}")
            return None
        return value

    def number(self, key: str, low: float, high: float, *, open_low: bool = False) -> float | None:
        value = self.data.get(key)
        if value is None:
            return None
        number = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        if not number or value < low or value > high or (open_low and value == low):
            bound = f"more than {low:g}" if open_low else f"from {low:g} to {high:g}"
            self.problems.add(self.place.child(key), f"{key!r} must be a number {bound}, got {short_repr(value)}")
            return None
        return float(value)

    def executor(self) -> dict[str, Any]:
        """``executor: NAME`` or ``executor: {NAME: {option: value}}``, as SuiteFile's two fields."""
        value = self.data.get("executor")
        if value is None:
            return {}
        if isinstance(value, str) and value.strip():
            return {"executor": value}
        if isinstance(value, dict) and len(value) == 1:
            name, options = next(iter(value.items()))
            if isinstance(name, str) and (options is None or isinstance(options, dict)):
                return {"executor": name, "executor_options": {str(k): v for k, v in (options or {}).items()}}
        message = f"'executor' is a name or `name: {{option: value}}`, got {kind_of(value)}"
        self.problems.add(self.place.child("executor"), message)
        return {}

    def whole(self, key: str) -> int | None:
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            message = f"{key!r} must be a whole number of at least 1, got {short_repr(value)}"
            self.problems.add(self.place.child(key), message)
            return None
        return value
