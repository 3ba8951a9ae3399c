"""Values of any type, from agents and evaluators, never crash a run: every report writer shows each as a
safe, bounded text, and an invalid Verdict is that evaluation's error."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_eval import EvalSuite, Skip, Verdict
from agent_eval._history import History
from agent_eval._model import EvalReport, EvalResult, Evaluation
from tests.data.reports.project import Project


class Unprintable:
    """An object whose __repr__ and __str__ both raise."""

    def __repr__(self) -> str:
        raise RuntimeError("no repr for you")

    def __str__(self) -> str:
        raise RuntimeError("no str either")


def cyclic() -> list[Any]:
    items: list[Any] = [1, "two"]
    items.append(items)
    return items


def deep(depth: int = 10**5) -> list[Any]:
    outer: list[Any] = []
    inner = outer
    for _ in range(depth):
        inner.append([])
        inner = inner[0]
    return outer


def numbers() -> Iterator[int]:
    yield from range(3)


#: The values, made fresh for each run (a generator is spent once read).
VALUES: dict[str, Callable[[], Any]] = {
    "lone surrogate": lambda: "half a pair: \ud83d and \udca9 alone",
    "int over 4300 digits": lambda: 10**5000,
    "unprintable object": Unprintable,
    "self-referencing list": cyclic,
    "list nested 100000 deep": deep,
    "bytes": lambda: b"\xff\xfe\x00 not utf-8 \x1b[31m",
    "set": lambda: {1, 2, 3},
    "generator": numbers,
    "dict with tuple keys": lambda: {(1, 2): "pair", ("a",): [1], None: "none"},
}


def report_with(value: Callable[[], Any]) -> EvalReport:
    """A run where the value is an agent's output, a case's input, expected and metadata, and an evaluator's."""

    def agent(question: Any) -> Any:
        return value()

    def judge(output: Any) -> Verdict:
        return Verdict(False, 0.5, "judged", metadata={"seen": value(), "usage": {"total_tokens": 10**5000}})

    cases = [
        {"name": "output", "input": "q", "evaluator": lambda output: True},
        {"name": "everywhere", "input": value(), "expected": value(), "metadata": {"m": value()}, "evaluator": judge},
    ]
    return EvalSuite(agent, cases, name="values").run(print=False)


def evaluator_report() -> EvalReport:
    """A run whose evaluators return or raise what no evaluator should."""

    def skips(output: Any) -> bool:
        raise Skip(42)  # type: ignore[arg-type]

    returned: dict[str, Callable[[Any], Any]] = {
        "reason 123": lambda output: Verdict(False, reason=123),  # type: ignore[arg-type]
        "skip 42": skips,
        "score 10**400": lambda output: Verdict(True, score=10**400),
        "huge metadata": lambda output: Verdict(True, metadata={"count": 10**5000, "nested": {(1, 2): 10**5000}}),
        "set reason": lambda output: Verdict(True, reason={"a"}),  # type: ignore[arg-type]
        "list metadata": lambda output: Verdict(True, metadata=[1, 2]),  # type: ignore[arg-type]
    }
    cases = [{"name": name, "input": "q", "evaluator": check} for name, check in returned.items()]
    return EvalSuite(lambda question: "an answer", cases, name="verdicts").run(print=False)


REPORTS: dict[str, Callable[[], EvalReport]] = {
    name: (lambda make=make: report_with(make)) for name, make in VALUES.items()
}
REPORTS["invalid verdicts"] = evaluator_report


def write_console(report: EvalReport, folder: Path) -> None:
    from agent_eval._report.console import print_report

    for verbose in (False, True):
        stream = io.StringIO()
        print_report(report, file=stream, verbose=verbose)
        stream.getvalue().encode("utf-8")  # nothing a terminal could not be sent


def write_json(report: EvalReport, folder: Path) -> None:
    from agent_eval._report import json as json_report

    json_report.write(report, folder / "r.json")
    assert len(json_report.read(folder / "r.json").cases) == report.total


def _raise(error: OSError) -> None:
    raise error


def write_jsonl(report: EvalReport, folder: Path) -> None:
    from agent_eval._report.json import CaseStream

    stream = CaseStream(folder / "r.jsonl", {"run_id": "r1", "odd": report.cases[0].output}, on_error=_raise)
    for index, result in enumerate(report.cases):
        stream.case(index, result)
    stream.finish(report)
    lines = (folder / "r.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["case"] * report.total + ["summary"]


def write_junit(report: EvalReport, folder: Path) -> None:
    from agent_eval._report import junit

    junit.write(report, folder / "r.xml")
    assert len(ET.parse(folder / "r.xml").getroot().findall("testsuite/testcase")) == report.total


def write_html(report: EvalReport, folder: Path) -> None:
    from agent_eval._report import html

    html.write(report, folder / "r.html")
    assert (folder / "r.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def write_markdown(report: EvalReport, folder: Path) -> None:
    from agent_eval._report import markdown

    markdown.write(report, folder / "r.md")
    (folder / "r.md").read_text(encoding="utf-8")


def write_history(report: EvalReport, folder: Path) -> None:
    history = History(folder / "runs.db")
    run_id = history.record(report)
    loaded = history.load(run_id).report
    assert [result.status for result in loaded.cases] == [result.status for result in report.cases]
    write_console(loaded, folder)  # what `show` prints


WRITERS: dict[str, Callable[[EvalReport, Path], None]] = {
    "console": write_console,
    "json": write_json,
    "jsonl": write_jsonl,
    "junit": write_junit,
    "html": write_html,
    "markdown": write_markdown,
    "history": write_history,
}


@pytest.fixture(scope="module")
def reports() -> dict[str, EvalReport]:
    return {}


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize("value", list(REPORTS))
def test_every_writer_writes_every_value(
    value: str, writer: str, reports: dict[str, EvalReport], tmp_path: Path
) -> None:
    if value not in reports:
        reports[value] = REPORTS[value]()
    WRITERS[writer](reports[value], tmp_path)


def test_values_are_written_as_bounded_text_in_the_json_report() -> None:
    from agent_eval._codec import MAX_DEPTH, jsonable

    written = {name: jsonable(make()) for name, make in VALUES.items()}
    assert written["lone surrogate"] == "half a pair: \ufffd and \ufffd alone"
    assert written["int over 4300 digits"] == "<int of 5,001 digits: 100000000000…000000000000>"
    assert written["unprintable object"] == "<Unprintable object>"
    assert written["self-referencing list"] == [1, "two", "<list that contains itself>"]
    assert written["set"] == [1, 2, 3]
    assert written["dict with tuple keys"] == {"(1, 2)": "pair", "('a',)": [1], "None": "none"}
    assert written["generator"].startswith("<generator object numbers at ")
    text = json.dumps(written["list nested 100000 deep"])
    assert text.count("[") == MAX_DEPTH and text.endswith('"<list nested deeper than 100 levels>"' + "]" * MAX_DEPTH)
    assert jsonable("\ud83d\udca9") == "\U0001f4a9"  # a pair of surrogates is the character they stand for


def test_an_invalid_verdict_is_that_evaluations_error_naming_what_was_wrong() -> None:
    results = {result.name: result for result in evaluator_report().cases}
    assert (results["reason 123"].status, results["reason 123"].evaluations[0].error) == (
        "error",
        "returned Verdict(reason=123); reason must be a string or None",
    )
    assert (results["skip 42"].status, results["skip 42"].reason) == ("skipped", "42")
    assert results["score 10**400"].status == "error"
    assert "score must be from 0 to 1" in (results["score 10**400"].evaluations[0].error or "")
    assert results["huge metadata"].status == "passed"
    assert results["set reason"].evaluations[0].error == (
        "returned Verdict(reason={'a'}); reason must be a string or None"
    )
    assert results["list metadata"].evaluations[0].error == (
        "returned Verdict(metadata=[1, 2]); metadata must be a mapping"
    )


SET_AND_BINARY_SUITE = """\
name: yaml values
agent: answers_agent:agent
cases:
  - name: a set
    input: !!set {a, b}
    evaluators: [{says: a}]
  - name: bytes
    input: !!binary aGVsbG8gdGhlcmU=
    expected: !!binary AAEC/w==
    evaluators: [{says: hello}]
"""


def test_yaml_set_and_binary_inputs_reach_every_report(tmp_path: Path) -> None:
    project = Project(tmp_path)
    (tmp_path / "suite.yaml").write_text(SET_AND_BINARY_SUITE, encoding="utf-8")
    done = run_cli(
        "run", "suite.yaml", "--json", "r.json", "--jsonl", "r.jsonl", "--junit", "r.xml", "--html", "r.html",
        "--markdown", "r.md", cwd=tmp_path, env=project.env(),
    )  # fmt: skip
    assert done.returncode == 1, done.stderr  # the agent cannot look these up: errors, not a crash
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert sorted(report["cases"][0]["input"]) == ["a", "b"]
    assert report["cases"][1]["input"] == "hello there"
    assert report["cases"][1]["expected"] == "\x00\x01\x02\ufffd"
    assert "hello there" in (tmp_path / "r.xml").read_text(encoding="utf-8")
    shown = run_cli("show", "latest", "-v", cwd=tmp_path, env=project.env())
    assert shown.returncode == 0, shown.stderr


# --- generated values ------------------------------------------------------------------------------------

TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=30)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([5000, -4400, 20]).map(lambda digits: 10 ** abs(digits) * (1 if digits > 0 else -1)),
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT,
    st.binary(max_size=20),
    st.builds(Unprintable),
    st.frozensets(st.integers(), max_size=3),
)
VALUES_OF_ANY_KIND = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.one_of(TEXT, st.integers(), st.tuples(st.integers()), st.none()), inner, max_size=4),
        st.sets(st.integers(), max_size=3),
    ),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=VALUES_OF_ANY_KIND, text=TEXT)
def test_no_generated_value_breaks_any_writer(value: Any, text: str, tmp_path: Path) -> None:
    evaluation = Evaluation("judge", "failed", score=0.5, reason=text, error=text, metadata={"v": value, text: value})
    result = EvalResult(
        text or "case",
        value,
        output=value,
        expected=value,
        status="failed",
        score=0.5,
        reason=text,
        error=text,
        metadata={"v": value},
        evaluations=(evaluation, evaluation),
    )
    report = EvalReport([result], name=text, metadata={"suite": text, "v": value, "min_pass_rate": value})
    for name, write in WRITERS.items():
        folder = tmp_path / name
        folder.mkdir(exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        write(report, folder)
