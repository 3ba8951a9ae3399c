"""A large --json report has each case on one line of compact JSON under the indented run: the same data as
the indented document, whatever the cases hold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_eval._json import document, lined_document
from agent_eval._model import EvalReport, EvalResult, Evaluation, case_json
from agent_eval._report import json as json_report

texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), texts),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(texts, inner, max_size=3)),
    max_leaves=8,
)


@st.composite
def reports(draw: st.DrawFn) -> EvalReport:
    cases = [
        EvalResult(
            draw(texts),
            draw(values),
            output=draw(values),
            status=draw(st.sampled_from(["passed", "failed", "error", "skipped"])),
            metadata=draw(st.dictionaries(texts, values, max_size=2)),
            evaluations=[Evaluation("e", "passed", metadata={"m": draw(values)})],
        )
        for _ in range(draw(st.integers(0, 7)))
    ]
    return EvalReport(cases, name=draw(st.one_of(st.none(), texts)), metadata={"run_id": "r1", "odd": draw(values)})


@settings(max_examples=200, deadline=None)
@given(reports(), st.sampled_from([1, 64, 1 << 20]))
def test_the_lined_document_holds_what_the_indented_one_does(report: EvalReport, batch: int) -> None:
    head = report.summary_dict()
    pieces = [case_json(case) for case in report.cases]
    with mock.patch("agent_eval._json._BATCH", batch):
        lined = b"".join(lined_document(head, "cases", pieces))
    indented = b"".join(document(head, "cases", pieces, indent=True))
    assert json.loads(lined) == json.loads(indented)
    lines = lined.split(b"\n")
    start = lines.index(b'  "cases": [' if pieces else b'  "cases": []')
    # the run as the indented document has it, then each case on a line of its own, as compact as it was made
    assert lines[:start] == indented.split(b"\n")[:start]
    if pieces:
        items = lines[start + 1 : start + 1 + len(pieces)]
        assert [item.removeprefix(b"    ").removesuffix(b",") for item in items] == pieces
        assert lines[start + 1 + len(pieces) :] == [b"  ]", b"}"]
    else:
        assert lines[start + 1 :] == [b"}"]


@pytest.mark.parametrize(("cases", "lined"), [(2, False), (3, True)])
def test_a_report_of_lines_from_cases_or_more_is_written_a_case_a_line(
    tmp_path: Path, cases: int, lined: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(json_report, "LINES_FROM", 3)
    report = EvalReport([EvalResult(f"c{i}", "q", output={"a": [1, 2]}, status="passed") for i in range(cases)])
    path = tmp_path / "r.json"
    json_report.write(report, path)
    text = path.read_text(encoding="utf-8")
    assert json.loads(text) == json.loads(report.to_json())
    assert (text == report.to_json() + "\n") is not lined
    case_lines = [line for line in text.splitlines() if line.lstrip().startswith('{"name":')]
    assert len(case_lines) == (cases if lined else 0)
    assert json_report.read(path) == report


def test_a_large_report_is_half_the_size_and_reads_back_the_same(tmp_path: Path) -> None:
    from agent_eval._report.json import LINES_FROM

    results: list[Any] = [
        EvalResult(f"case {i}", f"question {i}", output=f"the answer {i}", status="passed", score=1.0)
        for i in range(LINES_FROM)
    ]
    report = EvalReport(results)
    path = tmp_path / "r.json"
    json_report.write(report, path)
    assert path.stat().st_size < 0.75 * len(report.to_json().encode("utf-8"))
    assert json_report.read(path) == report
    assert json_report.read_outcomes(path).cases[5].name == "case 5"
