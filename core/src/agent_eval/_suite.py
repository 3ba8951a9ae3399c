"""Suite files (YAML, JSON, JSONL): loading, and validating everything before any agent call."""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from agent_eval._calling import Call, NamedEvaluator, short_repr
from agent_eval._errors import AgentEvalError, SuiteError, did_you_mean
from agent_eval._model import Case
from agent_eval._plugins import Registry, describe_error, get_registry
from agent_eval._runner import case_problem
from agent_eval._sourcemap import KEY, Path_, Position, SourceError, json_positions, load_json, load_yaml
from agent_eval._text import relative_to

SUITE_KEYS = ("name", "description", "agent", "min_pass_rate", "concurrency", "timeout", "evaluators", "cases")
CASE_KEYS = ("name", "input", "expected", "evaluator", "evaluators", "metadata")
FORMATS = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl"}
MAX_BYTES = 200 * 1024 * 1024


@attrs.frozen
class SuiteFile:
    """A loaded, validated suite file."""

    path: Path
    name: str
    cases: list[Case]
    agent: str | None = None
    description: str | None = None
    min_pass_rate: float | None = None
    concurrency: int | None = None
    timeout: float | None = None


def load_suite(path: str | Path, *, registry: Registry | None = None) -> SuiteFile:
    """Load and validate a suite file; every problem found is raised together as a SuiteError."""
    path = Path(path)
    loader = _Loader(path, registry or get_registry())
    return loader.load()


class _Source:
    """One parsed file and a way to turn a path inside it into ``file:line:column``."""

    def __init__(self, path: Path, data: Any, positions: dict[Path_, Position] | None, text: str) -> None:
        self.path = path
        self.data = data
        self._positions = positions
        self._text = text

    def where(self, at: Path_) -> str:
        if self._positions is None:
            self._positions = _safe_json_positions(self._text)
        for end in range(len(at), -1, -1):
            position = self._positions.get(at[:end])
            if position is not None:
                return f"{self.path}:{position[0]}:{position[1]}"
        return f"{self.path}:1:1"

    def location(self, at: Path_) -> str:
        """``file:line`` where that is known without work (YAML, JSONL), else the file alone.

        JSON positions are only worked out for errors: scanning a large file for every case would
        cost more than loading it.
        """
        if self._positions is None:
            return str(self.path)
        return self.where(at).rsplit(":", 1)[0]


def _where(place: tuple[_Source, Path_]) -> str:
    source, at = place
    return source.where(at)


def _safe_json_positions(text: str) -> dict[Path_, Position]:
    try:
        return json_positions(text)
    except (ValueError, IndexError):
        return {}


def _read(path: Path) -> tuple[str, str]:
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise SuiteError([f"{path}: unknown suite file type {path.suffix!r}; use .yaml, .yml, .json or .jsonl"])
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise SuiteError([f"{path}: {size:,} bytes is too large for a suite file (limit {MAX_BYTES:,})"])
        return path.read_text(encoding="utf-8-sig"), kind  # -sig: a byte-order mark is not content
    except FileNotFoundError:
        raise SuiteError([f"{path}: no such file"]) from None
    except IsADirectoryError:
        raise SuiteError([f"{path}: is a directory, not a suite file"]) from None
    except UnicodeDecodeError as error:
        raise SuiteError([f"{path}: not UTF-8 text (byte {error.start})"]) from None
    except OSError as error:
        raise SuiteError([f"{path}: cannot read: {error.strerror}"]) from None


def _parse(path: Path) -> list[_Source]:
    """The file as one source (YAML, JSON) or one source per line (JSONL)."""
    text, kind = _read(path)
    try:
        if kind == "yaml":
            data, positions = load_yaml(text)
            return [_Source(path, data, positions, text)]
        if kind == "json":
            return [_Source(path, load_json(text), None, text)]
    except SourceError as error:
        raise SuiteError([f"{path}:{error.line}:{error.column}: {error.message}"]) from None
    return _parse_lines(path, text)


def _parse_lines(path: Path, text: str) -> list[_Source]:
    sources: list[_Source] = []
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = load_json(line)
        except SourceError as error:
            problems.append(f"{path}:{number}:{error.column}: {error.message}")
            continue
        sources.append(_LineSource(path, data, line, number))
    if problems:
        raise SuiteError(problems, source=str(path))
    return sources


class _LineSource(_Source):
    """One line of a JSONL file: positions are that line's."""

    def __init__(self, path: Path, data: Any, text: str, number: int) -> None:
        super().__init__(path, data, None, text)
        self.number = number

    def where(self, at: Path_) -> str:
        _, line, column = super().where(at).rsplit(":", 2)
        return f"{self.path}:{self.number + int(line) - 1}:{column}"

    def location(self, at: Path_) -> str:
        return f"{self.path}:{self.number}"


class _Loader:
    """Validates a parsed suite, collecting every problem before raising.

    Parsed data holds plain dicts (JSON and YAML give nothing else), so it is checked with
    ``isinstance(x, dict)``: the ``Mapping`` ABC check costs several times more per value.
    """

    def __init__(self, path: Path, registry: Registry) -> None:
        self.path = path
        self.registry = registry
        self.problems: list[str] = []
        self._built: dict[tuple[str, str], Any] = {}
        self._signatures: dict[str, inspect.Signature | None] = {}

    def problem(self, source: _Source, at: Path_, message: str) -> None:
        self.problems.append(f"{source.where(at)}: {message}")

    def load(self) -> SuiteFile:
        sources = _parse(self.path)
        with relative_to(self.path.parent.resolve()):
            suite = self._load(sources)
        if self.problems:
            raise SuiteError(sorted(self.problems, key=_position_key), source=str(self.path))
        return suite

    def _load(self, sources: list[_Source]) -> SuiteFile:
        if len(sources) != 1 or isinstance(sources[0], _LineSource):
            cases = self._cases([(source, ()) for source in sources], [])
            return SuiteFile(self.path, self.path.stem, cases)
        source = sources[0]
        data = source.data
        if isinstance(data, list):
            data = {"cases": data}
            source.data = data
        if not isinstance(data, dict):
            self.problem(source, (), f"a suite file holds a mapping with 'cases', got {_kind(data)}")
            return SuiteFile(self.path, self.path.stem, [])
        return self._suite(source, data)

    def _suite(self, source: _Source, data: Mapping[str, Any]) -> SuiteFile:
        for key in data:
            if key not in SUITE_KEYS:
                hint = did_you_mean(str(key), SUITE_KEYS)
                self.problem(source, (key, KEY), f"unknown key {key!r}.{hint} A suite has: {', '.join(SUITE_KEYS)}")
        name = self._optional(source, data, "name", str) or self.path.stem
        agent = self._optional(source, data, "agent", str)
        if agent is not None and ":" not in agent:
            self.problem(source, ("agent",), f"agent {agent!r} must be MODULE:ATTRIBUTE, e.g. my_agents:support")
        shared = self._evaluator_list(source, ("evaluators",), data.get("evaluators"), "suite")
        case_sources = self._case_sources(source, data)
        cases = self._cases(case_sources, shared)
        return SuiteFile(
            path=self.path,
            name=name,
            cases=cases,
            agent=agent,
            description=self._optional(source, data, "description", str),
            min_pass_rate=self._number(source, data, "min_pass_rate", 0.0, 1.0),
            concurrency=self._whole(source, data, "concurrency"),
            timeout=self._number(source, data, "timeout", 0.0, math.inf, open_low=True),
        )

    def _case_sources(self, source: _Source, data: Mapping[str, Any]) -> list[tuple[_Source, Path_]]:
        cases = data.get("cases")
        if cases is None:
            self.problem(source, (), "missing 'cases': a list of cases, or the path of a .jsonl/.json/.yaml file")
            return []
        if isinstance(cases, str):
            return self._external_cases(source, cases)
        if not isinstance(cases, list):
            self.problem(source, ("cases",), f"'cases' must be a list (or a file path), got {_kind(cases)}")
            return []
        return [(source, ("cases", index)) for index in range(len(cases))]

    def _external_cases(self, source: _Source, reference: str) -> list[tuple[_Source, Path_]]:
        target = (self.path.parent / reference).resolve()
        try:
            sources = _parse(target)
        except SuiteError as error:
            self.problems.extend(error.problems)
            return []
        if len(sources) == 1 and not isinstance(sources[0], _LineSource):
            only = sources[0]
            if not isinstance(only.data, list):
                self.problem(only, (), f"a cases file holds a list of cases, got {_kind(only.data)}")
                return []
            return [(only, (index,)) for index in range(len(only.data))]
        return [(line, ()) for line in sources]

    def _cases(self, entries: list[tuple[_Source, Path_]], shared: list[Any]) -> list[Case]:
        cases: list[Case] = []
        first_seen: dict[str, tuple[_Source, Path_]] = {}
        for index, (source, at) in enumerate(entries):
            data = _get(source.data, at)
            case = self._case(source, at, data, index, shared)
            name = data.get("name") if isinstance(data, dict) else None
            if isinstance(name, str) and name in first_seen:
                self.problem(
                    source,
                    (*at, "name"),
                    f"duplicate case name {name!r} (first at {_where(first_seen[name])}); names must be unique",
                )
                continue
            if isinstance(name, str):
                first_seen[name] = (source, (*at, "name"))
            if case is not None:
                cases.append(case)
        return cases

    def _case(self, source: _Source, at: Path_, data: Any, index: int, shared: list[Any]) -> Case | None:
        if not isinstance(data, dict):
            self.problem(source, at, f"a case is a mapping with 'name', 'input', 'evaluators'; got {_kind(data)}")
            return None
        label = f"case {data['name']!r}" if isinstance(data.get("name"), str) else f"case #{index + 1}"
        count = len(self.problems)
        for key in data:
            if key not in CASE_KEYS:
                hint = did_you_mean(str(key), CASE_KEYS)
                self.problem(
                    source, (*at, key, KEY), f"{label}: unknown key {key!r}.{hint} A case has: {', '.join(CASE_KEYS)}"
                )
        name = self._case_name(source, at, data, index, label)
        if "input" not in data:
            self.problem(source, at, f"{label}: missing 'input'")
        metadata = data.get("metadata") or {}
        if not isinstance(metadata, dict):
            self.problem(source, (*at, "metadata"), f"{label}: 'metadata' must be a mapping, got {_kind(metadata)}")
        own = self._evaluator_list(source, (*at, "evaluators"), data.get("evaluators"), label)
        if "evaluator" in data:
            own = self._evaluator_list(source, (*at, "evaluator"), [data["evaluator"]], label, single=True) + own
        if len(self.problems) > count:
            return None
        case = Case(
            name,
            data.get("input"),
            data.get("expected"),
            None,
            (*shared, *own),
            metadata,
            location=source.location(at),
        )
        self._check_evaluators(source, at, case, label)
        return case

    def _case_name(self, source: _Source, at: Path_, data: Mapping[str, Any], index: int, label: str) -> str:
        name = data.get("name", f"#{index + 1}")
        if isinstance(name, int) and not isinstance(name, bool):
            return str(name)
        if not isinstance(name, str) or not name.strip():
            self.problem(source, (*at, "name"), f"{label}: 'name' must be a non-empty string, got {_kind(name)}")
            return f"#{index + 1}"
        return name

    def _check_evaluators(self, source: _Source, at: Path_, case: Case, label: str) -> None:
        for evaluator in case.evaluators:
            problem = case_problem(evaluator, case)
            if problem:
                self.problem(source, at, f"{label}: {problem}")

    def _evaluator_list(
        self, source: _Source, at: Path_, entries: Any, label: str, *, single: bool = False
    ) -> list[Any]:
        if entries is None:
            return []
        if not isinstance(entries, list):
            self.problem(source, at, f"{label}: 'evaluators' must be a list of `name: arguments`, got {_kind(entries)}")
            return []
        built = []
        for index, entry in enumerate(entries):
            evaluator = self._evaluator(source, at if single else (*at, index), entry, label)
            if evaluator is not None:
                built.append(evaluator)
        return built

    def _evaluator(self, source: _Source, at: Path_, entry: Any, label: str) -> Any:
        if isinstance(entry, str):
            name, arguments = entry, None
        elif isinstance(entry, dict) and len(entry) == 1:
            name, arguments = next(iter(entry.items()))
        else:
            self.problem(
                source, at, f"{label}: an evaluator is `name: arguments` (one key), got {_describe_entry(entry)}"
            )
            return None
        key = (str(name), repr(arguments))
        if key in self._built:
            return self._built[key]
        try:
            evaluator = self._build(str(name), arguments)
        except AgentEvalError as error:
            self.problem(source, at, f"{label}: {error}")
            return None
        self._built[key] = evaluator
        return evaluator

    def _build(self, name: str, arguments: Any) -> Any:
        factory = self.registry.factory(name)
        args: tuple[Any, ...] = ()
        kwargs: dict[str, Any] = {}
        if isinstance(arguments, dict):
            kwargs = {str(k): v for k, v in arguments.items()}
        elif arguments is not None:
            args = (arguments,)
        self._bind(name, factory, args, kwargs)
        try:
            evaluator = factory(*args, **kwargs)
        except (Exception, SystemExit) as error:
            raise AgentEvalError(f"{name}: {_plain_error(error)}") from None
        if not callable(evaluator):
            raise AgentEvalError(f"{name}: the factory returned {short_repr(evaluator)}, not an evaluator")
        return _named(evaluator, name)

    def _bind(self, name: str, factory: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if name not in self._signatures:
            try:
                self._signatures[name] = inspect.signature(factory)
            except (TypeError, ValueError):
                self._signatures[name] = None
        signature = self._signatures[name]
        if signature is None:
            return
        try:
            signature.bind(*args, **kwargs)
        except TypeError as error:
            raise AgentEvalError(f"{name}: {_binding_problem(signature, kwargs, error)}") from None

    def _optional(self, source: _Source, data: Mapping[str, Any], key: str, kind: type) -> Any:
        value = data.get(key)
        if value is not None and not isinstance(value, kind):
            self.problem(source, (key,), f"{key!r} must be a {kind.__name__}, got {_kind(value)}")
            return None
        return value

    def _number(
        self, source: _Source, data: Mapping[str, Any], key: str, low: float, high: float, *, open_low: bool = False
    ) -> float | None:
        value = data.get(key)
        if value is None:
            return None
        number = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        if not number or value < low or value > high or (open_low and value == low):
            bound = f"more than {low:g}" if open_low else f"from {low:g} to {high:g}"
            self.problem(source, (key,), f"{key!r} must be a number {bound}, got {short_repr(value)}")
            return None
        return float(value)

    def _whole(self, source: _Source, data: Mapping[str, Any], key: str) -> int | None:
        value = data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            self.problem(source, (key,), f"{key!r} must be a whole number of at least 1, got {short_repr(value)}")
            return None
        return value


def _position_key(problem: str) -> tuple[str, int, int]:
    """Sort problems by file, then line and column."""
    location = problem.split(": ", 1)[0]
    parts = location.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return parts[0], int(parts[1]), int(parts[2])
    return location, 0, 0


def _named(evaluator: Any, name: str) -> Any:
    """The evaluator under its registered name, wrapped when it does not carry that name itself."""
    if Call.of(evaluator).name == name:
        return evaluator
    return NamedEvaluator(evaluator, name)


def _binding_problem(signature: inspect.Signature, kwargs: Mapping[str, Any], error: TypeError) -> str:
    accepted = [p.name for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values())
    for key in kwargs:
        if key not in accepted and not takes_any:
            return f"unknown argument {key!r}.{did_you_mean(key, accepted)} It takes: {', '.join(accepted)}"
    return f"{error}; it takes: {', '.join(accepted)}"


def _plain_error(error: BaseException) -> str:
    if isinstance(error, ValueError | TypeError | AgentEvalError):
        return " ".join(str(error).split())
    return describe_error(error)


def _get(data: Any, at: Path_) -> Any:
    return functools.reduce(lambda node, key: node[key], at, data)


def _kind(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int | float):
        return f"a number ({value!r})"
    if isinstance(value, str):
        return f"a string ({short_repr(value, 40)})"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def _describe_entry(entry: Any) -> str:
    if isinstance(entry, dict):
        keys = ", ".join(repr(k) for k in entry) or "no keys"
        return f"a mapping with {keys}"
    return _kind(entry)
