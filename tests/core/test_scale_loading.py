"""Reading a large suite quickly reads what the precise parser reads, and fingerprints stay as they were.

A JSON Lines suite is read by orjson, line by line, with the lines orjson could read otherwise than the
standard library (integers beyond 64 bits, escapes, a key twice) left to the parser that says where a
problem is; each case's fingerprint is made from reprs the reader has at hand. Both are checked here
against the straightforward way, on generated lines and values.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_eval import SuiteError
from agent_eval._sourcemap import UNSURE, SourceError, json_lines, load_json
from agent_eval._sources import parse
from agent_eval._suite import fingerprint

settings.register_profile(
    "loading-ci",
    max_examples=60,
    deadline=timedelta(seconds=5),
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("loading-explore", settings.get_profile("loading-ci"), max_examples=3000, derandomize=False)
PROFILE = settings.get_profile("loading-explore" if os.environ.get("HYPOTHESIS_PROFILE") == "explore" else "loading-ci")

HOSTILE_TEXT = st.sampled_from(
    [
        *("", " ", "plain", 'quote " inside', "back\\slash", "\x1b[31mred", "bell\x07", "line\nbreak", "tab\t"),
        *("del\x7f", "c1\x9b", "bidi\u202e", "sep\u2028", "nel\x85", "é", "日本", "</script>", "a & b < c > d"),
        *("x" * 30,),
    ]
)
TEXT = st.one_of(st.text(max_size=12), HOSTILE_TEXT)

# --- reading JSON Lines -----------------------------------------------------------------------------------

KEYS = st.sampled_from(["name", "input", "a", "b", 'q"uote', "é", "sp ace"])
LINE_VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**25), max_value=10**25),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=6),
        HOSTILE_TEXT,
    ),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=8,
)


@st.composite
def json_line(draw: st.DrawFn) -> str:
    """One line of JSON text, often with what the quick reader must leave to the precise one."""
    text = json.dumps(draw(LINE_VALUES), ensure_ascii=draw(st.booleans()))
    twist = draw(st.sampled_from(["none", "none", "duplicate", "spaced", "nested duplicate", "nan", "cut", "deep"]))
    if twist == "duplicate":
        text = '{"a": 1, "a": ' + text + "}"
    elif twist == "nested duplicate":
        text = '{"x": [{"k": 1, "z": 2, "k": ' + text + "}]}"
    elif twist == "spaced":
        text = '{"a" : ' + text + ', "b"\t: 2}'
    elif twist == "nan":
        text = '{"v": [NaN, Infinity, ' + text + "]}"
    elif twist == "cut":
        text = text[: max(len(text) - 1, 0)]
    elif twist == "deep":
        depth = draw(st.integers(95, 105))
        text = "[" * depth + text + "]" * depth
    return text


def _precisely(line: str) -> Any:
    try:
        return load_json(line)
    except SourceError as error:
        return ("problem", error.line, error.column, error.message)


@PROFILE
@given(st.lists(json_line(), min_size=1, max_size=6))
def test_json_lines_read_quickly_are_what_the_precise_parser_reads(lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    read = json_lines(text)
    assert [number for number, _, _ in read] == [n for n, line in enumerate(lines, 1) if line.strip(" \t\r")]
    for number, line, value in read:
        precise = _precisely(line)
        if value is UNSURE:
            continue
        assert not isinstance(precise, tuple), f"line {number}: read quickly, but the precise parser says {precise}"
        assert repr(value) == repr(precise)  # the same types too: 1 and 1.0 differ, and so do fingerprints


@PROFILE
@given(st.lists(json_line(), min_size=1, max_size=6))
def test_a_json_lines_file_has_the_problems_and_data_it_had(tmp_path_factory: Any, lines: list[str]) -> None:
    path = tmp_path_factory.mktemp("lines") / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected_problems = []
    expected_data = []
    for number, line in enumerate(lines, start=1):
        if not line.strip(" \t\r"):
            continue
        precise = _precisely(line)
        if isinstance(precise, tuple):
            expected_problems.append(f"{path}:{number}:{precise[2]}: {precise[3]}")
        else:
            expected_data.append(precise)
    if expected_problems:
        with pytest.raises(SuiteError) as raised:
            parse(path)
        assert raised.value.problems == expected_problems
    else:
        assert [repr(source.data) for source in parse(path)] == [repr(data) for data in expected_data]


def test_a_key_twice_is_refused_where_it_stands_however_the_line_is_written() -> None:
    for line, column in (('{"name": "a", "name": "b"}', 15), ('{"x": {"k": 1, "k": 2}}', 16)):
        read = json_lines(line + "\n" + '{"fine": 1}')
        assert read[0][2] is UNSURE and read[1][2] == {"fine": 1}
        with pytest.raises(SourceError) as raised:
            load_json(line)
        assert (raised.value.line, raised.value.column) == (1, column)


def test_integers_beyond_64_bits_and_floats_keep_their_exact_values() -> None:
    line = '{"big": 123456789012345678901234567890, "f": 0.1, "e": 1e16, "neg": -0.0, "i": 9007199254740993}'
    [(_, _, value)] = json_lines(line)
    assert value is UNSURE or repr(value) == repr(load_json(line))
    assert repr(load_json(line)["big"]) == "123456789012345678901234567890"


# --- fingerprints ------------------------------------------------------------------------------------------


@PROFILE
@given(TEXT, LINE_VALUES, LINE_VALUES, st.one_of(st.none(), st.floats(0, 1), st.integers(0, 1)))
def test_a_fingerprint_is_the_digest_it_always_was(name: str, given_input: Any, entries: Any, threshold: Any) -> None:
    data = {"name": name, "input": given_input, "evaluators": entries}
    shared = [{"contains": ["x"]}]
    graded = (name, data.get("input"), data.get("expected"), data.get("evaluator"), data.get("evaluators"))
    described = repr((*graded, shared) if threshold is None else (*graded, shared, threshold))
    before = hashlib.blake2b(described.encode("utf-8", "surrogatepass"), digest_size=10).hexdigest()
    assert fingerprint(name, data, shared, threshold) == before
    assert not math.isnan(threshold or 0)
