"""The reports of a large run, joined from each case's JSON, are what encoding them whole makes.

A run writes each result's JSON once and joins the JSON report, the JSON Lines stream, the history's
copy and the page's data from those pieces; the page gets most cases as they are, and small values
are written without the general writer's bookkeeping. Each is checked here against the straightforward
way (encode whole documents, make every text of the page to show), on generated hostile values.
"""

from __future__ import annotations

import json
import math
import os
from datetime import timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import attrs
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_eval import EvalReport, EvalResult
from agent_eval._agent_run import ToolCall, Usage
from agent_eval._codec import _Writer, jsonable
from agent_eval._json import batches, document, encode
from agent_eval._model import Attempt, Evaluation, case_json
from agent_eval._report import html
from agent_eval._report import json as json_report

settings.register_profile(
    "reports-ci",
    max_examples=60,
    deadline=timedelta(seconds=5),
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("reports-explore", settings.get_profile("reports-ci"), max_examples=3000, derandomize=False)
PROFILE = settings.get_profile("reports-explore" if os.environ.get("HYPOTHESIS_PROFILE") == "explore" else "reports-ci")

# --- generated values ------------------------------------------------------------------------------------

HOSTILE_TEXT = st.sampled_from(
    [
        *("", " ", "plain", 'quote " inside', "back\\slash", "\x1b[31mred", "bell\x07", "line\nbreak", "tab\t"),
        *("del\x7f", "c1\x9b", "bidi\u202e", "sep\u2028", "nel\x85", "é", "日本", "</script>", "a & b < c > d"),
        *("\ud800", "x" * 30),
    ]
)
TEXT = st.one_of(st.text(max_size=12), HOSTILE_TEXT)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT,
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.one_of(TEXT, st.integers(), st.none()), inner, max_size=4),
    ),
    max_leaves=12,
)


@PROFILE
@given(VALUES)
def test_plain_values_are_written_as_the_writer_writes_them(value: Any) -> None:
    assert _same(jsonable(value), _Writer().value(value, 0))


def _same(a: Any, b: Any) -> bool:
    """The same JSON values, whatever the order of keys (the page reads them by name)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def evaluation(data: st.DataObject) -> Evaluation:
    return Evaluation(
        data.draw(TEXT) or "e",
        data.draw(st.sampled_from(["passed", "failed", "error", "skipped"])),
        score=data.draw(st.one_of(st.none(), st.floats(0, 1))),
        reason=data.draw(st.one_of(st.none(), TEXT)),
        error=data.draw(st.one_of(st.none(), TEXT)),
        frames=data.draw(st.lists(TEXT, max_size=2)),
        metadata=data.draw(st.dictionaries(TEXT, VALUES, max_size=3)),
    )


def results(data: st.DataObject) -> EvalResult:
    arguments = st.one_of(TEXT, st.dictionaries(TEXT, VALUES, max_size=2))
    call = st.builds(lambda name, given, result: ToolCall(name or "t", given, result=result), TEXT, arguments, VALUES)
    calls = data.draw(st.lists(call, max_size=2))
    attempts = []
    if data.draw(st.booleans()):
        attempts = [
            Attempt(index, data.draw(st.sampled_from(["passed", "failed"])), output=data.draw(VALUES), tool_calls=calls)
            for index in range(data.draw(st.integers(1, 3)))
        ]
    return EvalResult(
        data.draw(TEXT) or "case",
        data.draw(VALUES),
        output=data.draw(VALUES),
        expected=data.draw(VALUES),
        status=data.draw(st.sampled_from(["passed", "failed", "error", "skipped"])),
        score=data.draw(st.one_of(st.none(), st.floats(0, 1))),
        reason=data.draw(st.one_of(st.none(), TEXT, st.just("y" * 25_000))),
        metadata=data.draw(st.dictionaries(TEXT, VALUES, max_size=3)),
        evaluations=[evaluation(data) for _ in range(data.draw(st.integers(0, 2)))],
        tool_calls=calls if data.draw(st.booleans()) else (),
        usage=data.draw(st.one_of(st.none(), st.builds(Usage, st.integers(0, 2**40), st.integers(0, 9)))),
        attempts=attempts,
        fingerprint=data.draw(st.one_of(st.none(), st.just("0123456789abcdef0123"))),
    )


def report_of(data: st.DataObject) -> EvalReport:
    cases = [results(data) for _ in range(data.draw(st.integers(0, 3)))]
    metadata = data.draw(st.dictionaries(TEXT, VALUES, max_size=3))
    return EvalReport(cases, name=data.draw(st.one_of(st.none(), TEXT)), metadata=metadata)


# --- documents joined from pieces ------------------------------------------------------------------------


@PROFILE
@given(st.data())
def test_a_report_joined_from_its_cases_is_the_report_encoded_whole(data: st.DataObject) -> None:
    report = report_of(data)
    whole = report.to_dict()
    pieces = [case_json(case) for case in report.cases]
    for indent in (False, True):
        joined = b"".join(document(report.summary_dict(), "cases", pieces, indent=indent))
        _assert_same_document(joined, whole, indent)
        # in batches of one case, of several, of all: the same document
        for size in (1, 2 * max(map(len, pieces), default=1), 1 << 20):
            with mock.patch("agent_eval._json._BATCH", size):
                batched = b"".join(document(report.summary_dict(), "cases", batches(pieces), indent=indent))
            assert batched == joined
    _assert_same_document(report.to_json().encode("utf-8"), whole, True)
    _assert_same_document(report.to_json(indent=None).encode("utf-8"), whole, False)


def _assert_same_document(joined: bytes, whole: dict[str, Any], indent: bool) -> None:
    """The same bytes as the whole document encoded in one call; when orjson refuses a part of it (an int
    beyond 64 bits) that part is written by the standard library, so only the values are the same."""
    try:
        reference = orjson.dumps(whole, option=orjson.OPT_INDENT_2 if indent else 0)
    except orjson.JSONEncodeError:
        assert json.loads(joined) == json.loads(encode(whole, indent=indent))
    else:
        assert joined == reference


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False), TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=4)),
    max_leaves=12,
)


@PROFILE
@given(st.lists(JSON_VALUES, max_size=6), st.dictionaries(TEXT, JSON_VALUES, min_size=1, max_size=3))
def test_an_indented_document_is_orjson_s_indentation_of_it_in_batches_of_any_size(
    items: list[Any], head: dict[str, Any]
) -> None:
    pieces = [orjson.dumps(jsonable(item)) for item in items]
    head = {key: value for key, value in jsonable(head).items() if key != "cases"} or {"n": 1}
    expected = orjson.dumps({**head, "cases": [orjson.loads(piece) for piece in pieces]}, option=orjson.OPT_INDENT_2)
    # one item a batch, a few, all in one; the items may also come joined in batches of their own
    for size in (1, 2 * max(map(len, pieces), default=1), 1 << 20):
        with mock.patch("agent_eval._json._BATCH", size):
            assert b"".join(document(head, "cases", pieces, indent=True)) == expected
            assert b"".join(document(head, "cases", batches(pieces), indent=True)) == expected


def test_a_report_with_an_int_orjson_refuses_is_still_one_document_of_the_same_values() -> None:
    result = EvalResult("big", 2**80, output=-(2**70), status="passed", metadata={"n": 2**65})
    report = EvalReport([result, EvalResult("small", 1, output=1.5e16, status="failed")], metadata={"m": 2**64})
    assert json.loads(report.to_json()) == json.loads(json.dumps(report.to_dict()))
    assert json.loads(report.to_json(indent=None)) == report.to_dict()


@PROFILE
@given(st.data())
def test_each_stream_line_and_report_file_is_what_it_was_made_as_whole(data: st.DataObject) -> None:
    import tempfile

    report = report_of(data)
    with tempfile.TemporaryDirectory() as folder:
        stream_path, report_path = Path(folder) / "r.jsonl", Path(folder) / "r.json"
        stream = json_report.CaseStream(stream_path, {"run_id": "r1", "n": 2**70}, on_error=pytest.fail)
        for index, case in enumerate(report.cases):
            stream.case(index, case)
        stream.finish(report)
        json_report.write(report, report_path)
        lines = stream_path.read_bytes().split(b"\n")
        written = report_path.read_bytes()
    assert written == (report.to_json() + "\n").encode("utf-8")
    run = jsonable({"run_id": "r1", "n": 2**70})
    for index, case in enumerate(report.cases):
        record = {"type": "case", "run": run, "index": index, **case.to_dict()}
        assert json.loads(lines[index]) == json.loads(encode(record))
        try:
            expected = orjson.dumps(record)
        except orjson.JSONEncodeError:
            continue  # the standard library wrote a part of it: the same values, checked above
        for char, escape in ((b"\xc2\x85", b"\\u0085"), (b"\xe2\x80\xa8", b"\\u2028"), (b"\xe2\x80\xa9", b"\\u2029")):
            expected = expected.replace(char, escape)
        assert lines[index] == expected


# --- the page's data --------------------------------------------------------------------------------------


@PROFILE
@given(st.data())
def test_the_page_gets_each_case_as_its_texts_are_made_to_show(data: st.DataObject) -> None:
    result = results(data)
    assert _same(json.loads(html._case_piece(result)), html._case_data(result.to_dict()))


def test_a_plain_case_goes_to_the_page_as_its_own_json() -> None:
    result = EvalResult("case 1", "question 1", output="the answer", status="passed", score=1.0)
    assert html._case_piece(result) is case_json(result)
    for hostile in ("\x1b[2J", "x\u202ey", "a\nb", "z" * 20_001, "\x7f", 'say "hi"'):
        other = EvalResult("case 1", "question 1", output=hostile, status="passed")
        assert html._case_piece(other) is not case_json(other)


@PROFILE
@given(st.data())
def test_the_page_s_cases_looked_at_in_batches_are_each_as_it_is_made_to_show(data: st.DataObject) -> None:
    cases = [
        plain_results(data) if data.draw(st.booleans()) else results(data) for _ in range(data.draw(st.integers(0, 5)))
    ]
    each = b",".join(html._case_piece(result) for result in cases)
    for size in (1, 2, 1000):
        with mock.patch("agent_eval._report.html._CASES", size):
            assert b",".join(html._case_pieces(cases)) == each


def test_a_batch_of_plain_cases_goes_to_the_page_as_their_own_json_joined() -> None:
    cases = [EvalResult(f"case {n}", f"question {n}", output="é", status="passed", score=1.0) for n in range(3)]
    with mock.patch("agent_eval._report.html._case_piece", side_effect=html._case_piece) as each:
        assert list(html._case_pieces(cases)) == [b",".join(case_json(result) for result in cases)]
        assert not each.called
        for hostile in ("\x1b[2J", "x\u202ey", "a\nb", "z" * 20_001, "\x7f", 'say "hi"'):
            other = [*cases, EvalResult("case 3", "question 3", output=hostile, status="passed")]
            each.reset_mock()
            joined = b",".join(html._case_pieces(other))
            assert each.call_count == len(other), hostile
            assert joined == b",".join(map(html._case_piece, other))


def test_the_page_data_escapes_what_could_end_its_script_element() -> None:
    result = EvalResult("</script><script>alert(1)</script>", "a & b", output="<b>", status="passed")
    page = html.render(EvalReport([result]))
    data = page.split('id="report-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data and ">" not in data and "&" not in data
    assert json.loads(data)["cases"][0]["name"] == "</script><script>alert(1)</script>"


# --- JUnit written as text --------------------------------------------------------------------------------


def _element_tree_junit(report: EvalReport) -> str:
    """The JUnit document as it was made before: a tree of ElementTree elements, indented and written."""
    from xml.etree.ElementTree import Element, SubElement, indent, tostring

    from agent_eval._report import junit

    name = junit._suite_name(report)
    counts = {"tests": str(report.total), "failures": str(report.failed), "errors": str(report.errored)}
    root = Element("testsuites", {"name": "agent-eval", **counts, "time": junit._seconds(report.total_ms)})
    attributes = {"name": name, **counts, "skipped": str(report.skipped), "time": junit._seconds(report.total_ms)}
    if report.started_at:
        attributes["timestamp"] = report.started_at
    suite = SubElement(root, "testsuite", junit._one_line_all(attributes))
    properties = SubElement(suite, "properties")
    for key, value in junit._properties(report):
        SubElement(properties, "property", {"name": junit.cell(key), "value": junit.cell(value)})
    for result in report.cases:
        case = SubElement(
            suite,
            "testcase",
            junit._one_line_all({"name": result.name, "classname": name, "time": junit._seconds(result.duration_ms)}),
        )
        found = junit._case_properties(result)
        if found:
            holder = SubElement(case, "properties")
            for key, value in found:
                SubElement(holder, "property", {"name": key, "value": junit.cell(value)})
        why = junit._why(result)
        if result.status in ("failed", "error"):
            message = {"message": junit._message(why or result.status), "type": result.status}
            SubElement(case, "failure" if result.status == "failed" else "error", message).text = junit._details(result)
        elif result.status == "skipped":
            SubElement(case, "skipped", {"message": junit._message(why or "skipped")})
        SubElement(case, "system-out").text = junit._output_text(result)
    if report.interrupted:
        SubElement(suite, "system-out").text = junit._interrupted_note(report)
    indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + tostring(root, encoding="unicode") + "\n"


@PROFILE
@given(st.data())
def test_junit_written_as_text_is_what_element_tree_wrote(data: st.DataObject) -> None:
    from agent_eval._report import junit

    report = report_of(data)
    report = EvalReport(
        report.cases,
        name=report.name,
        total_ms=data.draw(st.floats(0, 1e7)),
        started_at=data.draw(st.one_of(st.none(), TEXT)),
        interrupted=data.draw(st.booleans()),
        metadata=report.metadata,
    )
    assert junit.render(report) == _element_tree_junit(report)


@pytest.mark.parametrize("batch", [1, 2, 1000])
def test_junit_written_in_batches_is_the_document_rendered(tmp_path: Path, batch: int) -> None:
    from agent_eval._report import junit

    cases = [EvalResult(f"case {index}", "question", output="é", status="passed", score=1.0) for index in range(5)]
    report = EvalReport(cases, name="batches")
    with mock.patch("agent_eval._report.junit._BATCH", batch):
        junit.write(report, tmp_path / "r.xml")
    assert (tmp_path / "r.xml").read_text(encoding="utf-8") == junit.render(report)


# --- JUnit: plain passed cases made in one go -------------------------------------------------------------

#: Texts that need no escaping, and each kind that does: markup, quotes, controls, surrogates, the cap's edge.
JUNIT_TEXTS = [
    *("case 1", "question 1", "the answer", "", " ", "é日本", "\U0001f600", "%s {} \\", "'single'"),
    *("]]>", "<b>bold</b>", "a & b", "&amp;", 'say "hi"', "x > y", "\x00", "\x1b[31m", "bell\x07"),
    *("line\nbreak", "tab\t", "cr\r", "\x85", "\x7f", "\u2028", "\u202e", "\ufffe", "\ud800", "\udc00\ud800"),
    *("x" * 20_000, "y" * 19_990, "z" * 20_001),
]
JUNIT_TEXT = st.one_of(st.text(max_size=12), st.sampled_from(JUNIT_TEXTS))
#: Scores of any size a run's statistics can add up (their squares stay finite), and those that are no number.
SCORES = st.one_of(st.floats(-1e150, 1e150), st.sampled_from([-0.0, math.nan, math.inf, -math.inf]))
DURATIONS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1e-320, 0.017, 0.3999999, 0.4, 0.49999, 0.5, 62.5, 499.5, 1e300]),
    st.integers(-10, 10**12),
)


def plain_results(data: st.DataObject) -> EvalResult:
    """Results most of which are passed cases with only texts and a score (the JUnit writer's plain ones)."""
    rare = st.integers(0, 9).map(lambda n: n == 0)
    return EvalResult(
        data.draw(JUNIT_TEXT) or "case",
        data.draw(JUNIT_TEXT if data.draw(st.integers(0, 9)) else VALUES),
        output=data.draw(JUNIT_TEXT if data.draw(st.integers(0, 9)) else VALUES),
        expected=data.draw(st.one_of(st.none(), JUNIT_TEXT, VALUES)),
        status=data.draw(st.sampled_from(["passed"] * 6 + ["failed", "error", "skipped"])),
        score=data.draw(st.one_of(st.none(), st.just(1.0), SCORES, st.sampled_from([1, 0, True]))),
        duration_ms=data.draw(DURATIONS),
        usage=Usage(3, 4) if data.draw(rare) else None,
        cost_usd=0.25 if data.draw(rare) else None,
        tool_calls=[ToolCall("t", {})] if data.draw(rare) else (),
        attempts=[Attempt(0, "passed")] if data.draw(rare) else (),
    )


@PROFILE
@given(st.data())
def test_a_plain_testcase_is_the_element_the_general_writer_makes(data: st.DataObject) -> None:
    from agent_eval._report import junit

    result = plain_results(data)
    classname = junit._attribute(junit.cell(data.draw(JUNIT_TEXT)))
    plain = junit._plain_testcase(result, classname)
    assert plain is None or plain == junit._testcase(result, classname)


@PROFILE
@given(st.data())
def test_junit_of_plain_cases_is_what_element_tree_wrote(data: st.DataObject) -> None:
    from agent_eval._report import junit

    cases = [plain_results(data) for _ in range(data.draw(st.integers(0, 4)))]
    report = EvalReport(cases, name=data.draw(st.one_of(st.none(), JUNIT_TEXT)))
    assert junit.render(report) == _element_tree_junit(report)


def test_a_plain_passed_case_is_made_in_one_go_and_any_other_is_not() -> None:
    from agent_eval._report import junit

    plain = EvalResult("case 1", "question 1", output="the answer", expected="answer", status="passed", score=0.5)
    assert junit._plain_testcase(plain, "suite") == junit._testcase(plain, "suite")
    assert junit._plain_testcase(attrs.evolve(plain, score=None, expected=None, duration_ms=0.2), "suite") is not None
    others = [
        *(attrs.evolve(plain, name=name) for name in ("a<b", "a&b", 'say "hi"', "x>y", "tab\t", "\ud800", "\x1b")),
        *(attrs.evolve(plain, output=text) for text in ("]]>", "a\nb", "\u202e", "x" * 20_000)),
        attrs.evolve(plain, input={"q": 1}),
        attrs.evolve(plain, expected=["answer"]),
        attrs.evolve(plain, status="failed"),
        attrs.evolve(plain, score=1),
        attrs.evolve(plain, usage=Usage(1, 2)),
        attrs.evolve(plain, cost_usd=0.1),
        attrs.evolve(plain, tool_calls=[ToolCall("t", {})]),
        attrs.evolve(plain, attempts=[Attempt(0, "passed")]),
    ]
    for other in others:
        assert junit._plain_testcase(other, "suite") is None, other


@pytest.mark.parametrize("field", ["name", "input", "output", "expected"])
def test_each_hostile_text_is_written_as_the_general_writer_writes_it(field: str) -> None:
    from agent_eval._report import junit

    plain = EvalResult("case 1", "question 1", output="the answer", expected="answer", status="passed", score=1.0)
    for text in JUNIT_TEXTS:
        result = attrs.evolve(plain, **{field: text})
        assert junit._plain_testcase(result, "suite") in (None, junit._testcase(result, "suite")), text


def test_each_time_and_score_is_written_as_the_general_writer_writes_it() -> None:
    from agent_eval._report import junit

    plain = EvalResult("case 1", "question 1", output="the answer", status="passed")
    durations = [0.0, -0.0, 1e-320, 0.017, 0.3999999, 0.4, 0.49999, 0.5, 0.5000001, 62.5, 499.5, math.nan, math.inf]
    scores = [None, 1.0, 0.0, -0.0, 0.5, 1 / 3, 123456.789, 1e-7, math.nan, math.inf, -math.inf, 1, 0, True]
    for duration in [*durations, *(-value for value in durations), 7, -3]:
        for score in scores:
            result = attrs.evolve(plain, duration_ms=duration, score=score)
            assert junit._plain_testcase(result, "suite") in (None, junit._testcase(result, "suite")), result
