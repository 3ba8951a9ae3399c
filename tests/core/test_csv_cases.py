"""CSV datasets (``cases: data.csv``), and a suite's own evaluators applied to cases from any referenced file."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import fake_plugin
import pytest

from agent_eval import EvalSuite, SuiteError
from agent_eval._plugins import registry_of
from agent_eval._suite import SuiteFile, load_suite

REGISTRY = registry_of(fake_plugin)

SUITE = """
evaluators:
  - has: [hello]
cases: {cases}
"""


def suite_with(tmp_path: Path, name: str, content: str | bytes) -> Path:
    cases = tmp_path / name
    if isinstance(content, bytes):
        cases.write_bytes(content)
    else:
        cases.write_text(content, encoding="utf-8", newline="")
    suite = tmp_path / "suite.yaml"
    suite.write_text(textwrap.dedent(SUITE).lstrip("\n").format(cases=name), encoding="utf-8")
    return suite


def load(path: Path) -> SuiteFile:
    return load_suite(path, registry=REGISTRY)


def problems(path: Path) -> list[str]:
    with pytest.raises(SuiteError) as caught:
        load(path)
    return caught.value.problems


def test_csv_rows_are_cases_and_other_columns_metadata(tmp_path: Path) -> None:
    text = 'name,input,expected,topic\ngreets,Say hello,,small talk\nadds,"What is 2 + 2?",4,maths\n'
    suite = load(suite_with(tmp_path, "data.csv", text))
    greets, adds = suite.cases
    assert (greets.name, greets.input, greets.expected, dict(greets.metadata)) == (
        "greets",
        "Say hello",
        None,  # an empty cell is no expected answer
        {"topic": "small talk"},
    )
    assert (adds.input, adds.expected, dict(adds.metadata)) == ("What is 2 + 2?", "4", {"topic": "maths"})
    assert greets.location == f"{tmp_path / 'data.csv'}:2"
    assert adds.location == f"{tmp_path / 'data.csv'}:3"


def test_the_suites_evaluators_grade_the_csv_cases(tmp_path: Path) -> None:
    suite = load(suite_with(tmp_path, "data.csv", "name,input\na,hello there\nb,bye\n"))
    assert all(len(case.evaluators) == 1 for case in suite.cases)
    report = EvalSuite(lambda question: question, suite.cases).run(print=False)
    assert [result.status for result in report.cases] == ["passed", "failed"]


def test_csv_cases_have_fingerprints(tmp_path: Path) -> None:
    first = load(suite_with(tmp_path, "data.csv", "name,input\na,x\nb,y\n")).cases
    again = load(suite_with(tmp_path, "data.csv", "name,input\na,x\nb,changed\n")).cases
    assert all(case.fingerprint for case in first)
    assert first[0].fingerprint == again[0].fingerprint
    assert first[1].fingerprint != again[1].fingerprint


def test_csv_with_a_byte_order_mark_quoted_newlines_crlf_and_blank_lines(tmp_path: Path) -> None:
    text = 'name,input\r\n\r\n"multi","line one\r\nline two"\r\nnext,"say ""hi"""\r\n'
    suite = load(suite_with(tmp_path, "data.csv", b"\xef\xbb\xbf" + text.encode("utf-8")))
    multi, following = suite.cases
    assert multi.input == "line one\r\nline two"
    assert following.input == 'say "hi"'
    assert (multi.location, following.location) == (f"{tmp_path / 'data.csv'}:3", f"{tmp_path / 'data.csv'}:5")


def test_a_long_field_is_read_whole(tmp_path: Path) -> None:
    long = "x" * 300_000
    suite = load(suite_with(tmp_path, "data.csv", f"name,input\na,{long}\n"))
    assert suite.cases[0].input == long


def test_missing_columns_are_named_at_line_one(tmp_path: Path) -> None:
    path = suite_with(tmp_path, "data.csv", "title,question\na,b\n")
    csv = tmp_path / "data.csv"
    assert problems(path) == [
        f"{csv}:1: missing the column 'name'; its first line names the columns: name, input and optionally "
        f"expected (others become metadata) (from {path}:3:8)",
        f"{csv}:1: missing the column 'input'; its first line names the columns: name, input and optionally "
        f"expected (others become metadata) (from {path}:3:8)",
    ]


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("", 1, "has no header row"),
        ("name,input,name\n", 1, "column 'name' is named twice"),
        ("name,input,\n", 1, "column 3 has no name"),
        ('name,input\na,"open\nb,c\n', 3, "not valid CSV: unexpected end of data"),
        ('name,input\na,"quoted"tail\n', 2, "not valid CSV: ',' expected after '\"'"),
        ("name,input\na,b,c\n", 2, "the row has 3 fields, the header 2"),
        ("name,input\nok,x\n,y\n", 3, "case #2: 'name' must be a non-empty string, got a string ('')"),
        ("name,input\nsame,x\nother,y\nsame,z\n", 4, "duplicate case name 'same' (first at "),
    ],
)
def test_csv_problems_name_the_file_and_line(tmp_path: Path, text: str, line: int, fragment: str) -> None:
    path = suite_with(tmp_path, "data.csv", text)
    (problem,) = problems(path)
    assert problem.startswith(f"{tmp_path / 'data.csv'}:{line}: ")
    assert fragment in problem
    assert problem.endswith(f"(from {path}:3:8)")


def test_problems_of_several_rows_are_reported_in_line_order(tmp_path: Path) -> None:
    rows = "".join(f"c{i},x\n" if i % 5 else ",x\n" for i in range(1, 13))
    found = problems(suite_with(tmp_path, "data.csv", "name,input\n" + rows))
    assert [problem.split(": ", 1)[0].rsplit(":", 1)[1] for problem in found] == ["6", "11"]


def test_csv_is_read_as_other_cases_files_are_a_fifo_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "data.csv"
    os.mkfifo(fifo)
    suite = tmp_path / "suite.yaml"
    suite.write_text("cases: data.csv\n", encoding="utf-8")
    (problem,) = problems(suite)
    assert "is a named pipe (FIFO), not a regular file" in problem


def test_csv_that_is_not_utf8_is_refused_with_its_line(tmp_path: Path) -> None:
    (problem,) = problems(suite_with(tmp_path, "data.csv", b"name,input\ncaf\xe9,x\n"))
    assert problem.startswith(f"{tmp_path / 'data.csv'}:2:4: is not UTF-8 text")


def test_a_csv_file_is_not_a_suite_on_its_own(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    path.write_text("name,input\na,b\n", encoding="utf-8")
    (problem,) = problems(path)
    assert problem == f"{path}: a CSV file holds cases, not a suite; name it in a suite file: `cases: data.csv`"


def test_a_header_only_csv_is_a_suite_without_cases(tmp_path: Path) -> None:
    (problem,) = problems(suite_with(tmp_path, "data.csv", "name,input\n"))
    assert problem.endswith("suite has no cases; add at least one")


@pytest.mark.parametrize("kind", ["jsonl", "json", "yaml"])
def test_the_suites_evaluators_and_threshold_apply_to_cases_of_any_referenced_file(tmp_path: Path, kind: str) -> None:
    cases = [{"name": "a", "input": "hello", "evaluators": [{"has": "x"}]}, {"name": "b", "input": "bye"}]
    if kind == "jsonl":
        text = "".join(json.dumps(case) + "\n" for case in cases)
    else:
        text = json.dumps(cases)  # JSON is YAML too
    path = suite_with(tmp_path, f"data.{kind}", text)
    path.write_text(path.read_text(encoding="utf-8") + "threshold: 0.5\n", encoding="utf-8")
    first, second = load(path).cases
    assert (len(first.evaluators), len(second.evaluators)) == (2, 1)
    assert first.threshold == second.threshold == 0.5
    report = EvalSuite(lambda question: question, [first, second]).run(print=False)
    assert [(result.status, result.score) for result in report.cases] == [("passed", 0.5), ("failed", 0.0)]
