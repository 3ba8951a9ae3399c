"""A JSON Lines suite read by the quick way for plain lines is the suite the full reading makes.

Plain lines (a mapping of known keys, a new name, evaluators as an earlier line had them) skip the
places the full reading keeps for its messages. Generated suites, with and without problems, are loaded
both ways: the cases (every field) and the problems (their text and order) must be the same.
"""

from __future__ import annotations

import json
import os
from datetime import timedelta
from itertools import repeat
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_eval import SuiteError, load_suite
from agent_eval import _sourcemap as sourcemap
from agent_eval import _suite as suite_module
from agent_eval._calling import callable_name
from agent_eval._model import PLAIN_CASE_FIELDS, Case, plain_cases
from agent_eval._sourcemap import UNSURE, json_lines, load_json

settings.register_profile(
    "lines-ci",
    max_examples=80,
    deadline=timedelta(seconds=5),
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile("lines-explore", settings.get_profile("lines-ci"), max_examples=3000, derandomize=False)
PROFILE = settings.get_profile("lines-explore" if os.environ.get("HYPOTHESIS_PROFILE") == "explore" else "lines-ci")

NAMES = st.one_of(st.sampled_from(["a", "b", "c", " ", "", "é 日本"]), st.integers(0, 3), st.none(), st.just([1]))
ENTRIES = st.sampled_from(
    [
        [{"contains": "answer"}],
        [{"contains": ["x", "y"]}],
        [{"contains": {"keywords": ["x"], "match_all": False}}],
        [{"contains": "answer", "weight": 2}],
        [{"contains": "answer", "weight": -1}],
        [{"contain": "answer"}],
        [{"exact_match": {}}],
        [{"all": [{"contains": "a"}, {"contains": "b"}]}],
        [],
        "contains",
        None,
    ]
)


@st.composite
def case_line(draw: st.DrawFn) -> str:
    """One line of a cases file: mostly plain, often with something the full reading has to tell."""
    case: dict[str, Any] = {}
    if draw(st.integers(0, 9)):
        case["name"] = draw(NAMES) if draw(st.integers(0, 3)) == 0 else draw(st.sampled_from(["p", "q", "r", "s"]))
    if draw(st.integers(0, 9)):
        case["input"] = draw(
            st.one_of(st.text(max_size=5), st.integers(), st.dictionaries(st.text(max_size=2), st.none()))
        )
    if draw(st.booleans()):
        case["evaluators"] = draw(ENTRIES)
    extra = draw(st.sampled_from(["", "", "", "expected", "metadata", "bad metadata", "threshold", "evaluator", "key"]))
    if extra == "expected":
        case["expected"] = draw(st.one_of(st.none(), st.text(max_size=3), st.floats(allow_nan=False)))
    elif extra == "metadata":
        case["metadata"] = {"k": draw(st.integers())}
    elif extra == "bad metadata":
        case["metadata"] = [1]
    elif extra == "threshold":
        case["threshold"] = draw(st.sampled_from([0.5, 2, None, "x"]))
    elif extra == "evaluator":
        case["evaluator"] = {"contains": "x"}
    elif extra == "key":
        case["nmae"] = 1
    text = json.dumps(case, ensure_ascii=draw(st.booleans()))
    twist = draw(st.sampled_from(["none"] * 8 + ["blank", "not json", "not a mapping", "key twice"]))
    if twist == "blank":
        return "  "
    if twist == "not json":
        return text[:-1]
    if twist == "not a mapping":
        return "[1, 2]"
    if twist == "key twice":
        return text[:-1] + (', "name": "twice"}' if len(case) else '"name": "twice"}')
    return text


WAYS = ("typed", "mappings")  # the quick ways: plain lines read by msgspec first, or as mappings only


def _loaded(path: Path, way: str) -> Any:
    """The cases, field by field (evaluators by name), or the problems, read the ``way`` given (or the full
    way: every line by the reader that keeps places for its messages)."""
    previous = suite_module.QUICK_LINES, suite_module.TYPED_LINES, sourcemap._CHUNK
    suite_module.QUICK_LINES = way in WAYS
    suite_module.TYPED_LINES = 0 if way == "typed" else 10**9
    sourcemap._CHUNK = 3 if way in WAYS else previous[2]  # the quick ways across chunks, the full way in one
    try:
        suite = load_suite(path)
    except SuiteError as error:
        return ("problems", error.problems)
    finally:
        suite_module.QUICK_LINES, suite_module.TYPED_LINES, sourcemap._CHUNK = previous
    return [
        (
            case.name,
            repr(case.input),
            repr(case.expected),
            case.evaluator,
            [callable_name(evaluator) for evaluator in case.evaluators],
            case.metadata,
            case.location,
            case.fingerprint,
            case.weights,
            case.threshold,
        )
        for case in suite.cases
    ]


@PROFILE
@given(st.lists(case_line(), min_size=1, max_size=8))
def test_a_jsonl_suite_loads_the_same_with_and_without_the_quick_way(tmp_path: Path, lines: list[str]) -> None:
    path = tmp_path / "suite.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert _loaded(path, "typed") == _loaded(path, "mappings") == _loaded(path, "full")


@PROFILE
@given(st.lists(case_line(), min_size=1, max_size=8), st.sampled_from(["", "threshold: 0.5\n", "bad: 1\n"]))
def test_a_cases_file_named_by_a_suite_loads_the_same_with_and_without_the_quick_way(
    tmp_path: Path, lines: list[str], more: str
) -> None:
    (tmp_path / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    path = tmp_path / "suite.yaml"
    path.write_text(f"evaluators:\n  - contains: shared\n{more}cases: cases.jsonl\n", encoding="utf-8")
    assert _loaded(path, "typed") == _loaded(path, "mappings") == _loaded(path, "full")


@pytest.mark.parametrize(
    "names",
    [
        ["a", "b", "c", "d", "e", "d"],  # twice in one chunk
        ["a", "b", "c", "d", "a", "f"],  # again in a later chunk
        ["a", "b", "c", "a", "b", "c"],
        ["a", "b", "c", "d", "e", "f", "g", "h", "i", "g"],
        ["a", "b", " ", "d", "e", "f"],
    ],
)
def test_plain_chunks_with_a_name_twice_load_the_same_with_and_without_the_quick_way(
    tmp_path: Path, names: list[str]
) -> None:
    path = tmp_path / "suite.jsonl"
    entries = [{"contains": "answer"}]
    lines = [json.dumps({"name": name, "input": f"q {name}", "evaluators": entries}) for name in names]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert _loaded(path, "typed") == _loaded(path, "mappings") == _loaded(path, "full")


#: Evaluator lists as a line may write them: the same list in other spacing, a key twice, numbers.
WRITTEN_ENTRIES = st.sampled_from(
    [
        '[{"contains": "answer"}]',
        '[{"contains":"answer"}]',
        '[ {"contains": "answer"} ]',
        '[{"contains": "answer", "contains": "other"}]',
        '[{"contains": ["x", "y"]}]',
        '[{"contains": "answer", "weight": 2}]',
        '[{"contains": "answer", "weight": 2.0}]',
        '[{"contains": "answer", "weight": 12345678901234567890123}]',
        '[{"contains": "answer", "weight": NaN}]',
        '[{"exact_match": {}}]',
        "[]",
        "null",
    ]
)
#: Values of a line's input, expected answer or metadata, as written, often with what a quick reader may
#: read otherwise than the precise one.
WRITTEN_VALUES = st.sampled_from(
    [
        '"q"',
        '"colon: here"',
        "1",
        "-0",
        "1.5e300",
        "1e400",
        "1e-400",
        "0.1",
        "-0.0",
        "1E+2",
        "3.14159265358979323846264338327950288",
        "2.2250738585072011e-308",
        "123456789012345678.5",
        "12345678901234567890",
        "1" * 320,
        '{"k": 1}',
        '{"k": 1, "k": 2}',
        '{"k": {"j": [1, {"k": 2, "k": 3}]}}',
        "[" * 101 + "]" * 101,
        "[" * 99 + "]" * 99,
        "null",
        "NaN",
        '"tab\\there"',
    ]
)


WRITTEN_METADATA = st.sampled_from(["null", "{}", '{"a": 1}', '{"a": 1, "a": 2}', "[1]"])


@st.composite
def plain_line(draw: st.DrawFn, index: int) -> str:
    """A line of a large cases file: mostly plain, its keys written in any order."""
    fields = [f'"name": "case {index}"', f'"input": {draw(WRITTEN_VALUES)}']
    if draw(st.booleans()):
        fields.append(f'"evaluators": {draw(WRITTEN_ENTRIES)}')
    if draw(st.integers(0, 3)) == 0:
        fields.append(f'"expected": {draw(WRITTEN_VALUES)}')
    if draw(st.integers(0, 3)) == 0:
        fields.append(f'"metadata": {draw(WRITTEN_METADATA)}')
    if draw(st.integers(0, 9)) == 0:
        fields.append(
            draw(st.sampled_from(['"threshold": null', '"threshold": 0.5', '"evaluator": {"contains": "x"}']))
        )
    return "{" + draw(st.sampled_from([", ", ","])).join(draw(st.permutations(fields))) + "}"


@PROFILE
@given(st.data(), st.integers(1, 12))
def test_a_large_plain_jsonl_suite_loads_the_same_each_way(tmp_path: Path, data: st.DataObject, count: int) -> None:
    lines = [data.draw(plain_line(index)) for index in range(count)]
    if data.draw(st.booleans()):
        lines[data.draw(st.integers(0, count - 1))] = lines[0]  # a name twice
    path = tmp_path / "suite.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert _loaded(path, "typed") == _loaded(path, "mappings") == _loaded(path, "full")


@pytest.mark.parametrize(
    "entries",
    [
        '[{"contains": "answer", "weight": 12345678901234567890123}]',  # beyond 64 bits: orjson cannot write it
        '[{"contains": "answer", "weight": NaN}]',
        '[{"contains": "answer", "contains": "other"}]',
    ],
)
def test_evaluator_lists_only_the_precise_parser_reads_load_the_same_each_way(tmp_path: Path, entries: str) -> None:
    path = tmp_path / "suite.jsonl"
    plain = '[{"contains": "answer"}]'
    written = [plain, entries, entries, entries, plain, entries]
    lines = [f'{{"name": "case {i}", "input": "q", "evaluators": {text}}}' for i, text in enumerate(written)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert _loaded(path, "typed") == _loaded(path, "mappings") == _loaded(path, "full")


def test_plain_lines_of_a_large_file_are_read_by_the_typed_decoder(tmp_path: Path) -> None:
    path = tmp_path / "suite.jsonl"
    lines = [{"name": f"case {i}", "input": f"q {i}", "evaluators": [{"contains": "answer"}]} for i in range(12)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    typed = []
    reading = suite_module._CaseReader._typed

    def counted(self: Any, *args: Any) -> bool:
        typed.append(reading(self, *args))
        return typed[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(suite_module._CaseReader, "_typed", counted)
        assert _loaded(path, "typed") == _loaded(path, "full")
    assert typed == [False, True, True, True]  # the first chunk's list was not known yet


def test_a_name_twice_names_where_it_first_was_after_its_chunk_was_read(tmp_path: Path) -> None:
    path = tmp_path / "suite.jsonl"
    lines = [f'{{{" " * i}"input": "q", "name": "case {i}"}}' for i in range(7)]
    lines += [
        '{"name": "case 4", "input": "q"}',
        '{"name": "case 1", "input": "q"}',
        "",
        '{"name": "case 6", "input": "q"}',
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for way in ("typed", "mappings", "full"):
        problems = _loaded(path, way)
        assert problems == (
            "problems",
            [
                f"{path}:8:10: duplicate case name 'case 4' (first at {path}:5:28); names must be unique",
                f"{path}:9:10: duplicate case name 'case 1' (first at {path}:2:25); names must be unique",
                f"{path}:11:10: duplicate case name 'case 6' (first at {path}:7:30); names must be unique",
            ],
        ), way


def test_plain_lines_are_read_the_quick_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "suite.jsonl"
    lines = [{"name": f"case {i}", "input": f"q {i}", "evaluators": [{"contains": "answer"}]} for i in range(50)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    full = []
    read = suite_module._CaseReader.read
    monkeypatch.setattr(suite_module._CaseReader, "read", lambda self, *a: full.append(1) or read(self, *a))
    assert len(load_suite(path).cases) == 50
    assert len(full) == 1  # the first line: its evaluators had not been read before


def test_a_duplicate_of_a_name_read_the_quick_way_names_where_it_first_was(tmp_path: Path) -> None:
    path = tmp_path / "suite.jsonl"
    first = '{"name": "a", "input": "x", "evaluators": [{"contains": "y"}]}'
    path.write_text(first + "\n" + first + "\n\n" + '  {"input": "x",  "name": "a"}\n', encoding="utf-8")
    with pytest.raises(SuiteError) as raised:
        load_suite(path)
    assert raised.value.problems == [
        f"{path}:2:10: duplicate case name 'a' (first at {path}:1:10); names must be unique",
        f"{path}:4:27: duplicate case name 'a' (first at {path}:1:10); names must be unique",
    ]


def test_plain_cases_are_the_cases_their_columns_make() -> None:
    assert PLAIN_CASE_FIELDS == tuple(field.name for field in attrs.fields(Case))  # a new field: set it there too
    columns: dict[str, Any] = {
        "expected": ["e", None],
        "evaluators": [(len,), ()],
        "metadata": [{"k": 1}, {}],
        "locations": ["s.jsonl:3", "s.jsonl:4"],
        "fingerprints": ["ab", "cd"],
        "weights": [(2.0,), ()],
        "threshold": [0.5, None],
    }
    made = plain_cases(["n", "m"], [{"i": 1}, "x"], **columns)
    shared = plain_cases(["n"], [{"i": 1}], **{key: iter(repeat(values[0])) for key, values in columns.items()})
    for at, (name, value) in enumerate([("n", {"i": 1}), ("m", "x")]):
        each = {key: values[at] for key, values in columns.items()}
        case = Case(
            name,
            value,
            expected=each["expected"],
            evaluators=each["evaluators"],
            metadata=each["metadata"],
            location=each["locations"],
            fingerprint=each["fingerprints"],
            weights=each["weights"],
            threshold=each["threshold"],
        )
        assert made[at] == case
        assert repr(made[at]) == repr(case)
    assert shared == made[:1]


LINE_TEXTS = st.sampled_from(
    [
        '{"name": "a", "input": "x"}',
        '{"name": "a", "name": "b"}',
        '{"x": {"k": 1, "k": 2}}',
        '{"q": "say \\":\\" here"}',
        "",
        "  \t",
        "[1, 2",
        "1, 2",
        '{"big": 123456789012345678901234567890}',
        '{"e": "\\u00e9"}',
        '{"a" : 1}',
        "[" * 101 + "]" * 101,
        "[" * 60 + "{}" + "]" * 60,
    ]
)


@PROFILE
@given(st.lists(LINE_TEXTS, max_size=12), st.integers(1, 4))
def test_json_lines_read_in_chunks_are_the_lines_read_one_by_one(lines: list[str], size: int) -> None:
    text = "\n".join(lines)
    whole = json_lines(text)
    original = sourcemap._CHUNK
    sourcemap._CHUNK = size
    try:
        chunked = json_lines(text)
    finally:
        sourcemap._CHUNK = original
    assert [(n, line, repr(v)) for n, line, v in chunked] == [(n, line, repr(v)) for n, line, v in whole]
    for number, line, value in whole:
        if value is not UNSURE:
            assert repr(value) == repr(load_json(line)), f"line {number}"
