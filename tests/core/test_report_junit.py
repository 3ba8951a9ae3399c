"""The JUnit XML report: valid against the JUnit XSD CI tools read, with failures and errors told apart."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import xmlschema

from agent_eval._model import EvalReport, EvalResult, Evaluation
from agent_eval._report import junit

XSD = Path(__file__).parent.parent / "data" / "reports" / "junit-10.xsd"


@pytest.fixture(scope="module")
def schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(XSD)


def case(name: str, status: Any, **more: Any) -> EvalResult:
    return EvalResult(name, more.pop("input", "question"), output=more.pop("output", "answer"), status=status, **more)


def sample() -> EvalReport:
    return EvalReport(
        [
            case("greets", "passed", score=1.0, reason="found 'hello'", duration_ms=1500),
            case(
                "adds",
                "failed",
                score=0.5,
                reason="contains: missing '4'",
                evaluations=(
                    Evaluation("contains", "failed", score=0.5, reason="missing '4'"),
                    Evaluation("exact_match", "passed", score=1.0),
                ),
                expected="4",
            ),
            case("times out", "error", error="timed out after 2 s", output=None),
            case("judged", "skipped", reason="no judge configured"),
        ],
        name="warranty",
        total_ms=2345.6,
        started_at="2026-01-02T03:04:05+00:00",
        metadata={"run_id": "r1", "suite_file": "suite.yaml", "plugins": {"agent-eval-contains": "0.1.0"}},
    )


def parse(text: str) -> ET.Element:
    return ET.fromstring(text.encode("utf-8"))


def test_the_report_is_valid_against_the_junit_xsd(schema: xmlschema.XMLSchema) -> None:
    schema.validate(junit.render(sample()))


def test_one_testsuite_per_run_with_counts_time_and_timestamp() -> None:
    root = parse(junit.render(sample()))
    [suite] = root.findall("testsuite")
    assert suite.attrib == {
        "name": "warranty",
        "tests": "4",
        "failures": "1",
        "errors": "1",
        "skipped": "1",
        "time": "2.346",
        "timestamp": "2026-01-02T03:04:05+00:00",
    }
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("4", "1", "1")


def test_one_testcase_per_case_with_the_suite_as_classname_and_seconds() -> None:
    cases = parse(junit.render(sample())).findall("testsuite/testcase")
    assert [(c.get("name"), c.get("classname")) for c in cases] == [
        ("greets", "warranty"),
        ("adds", "warranty"),
        ("times out", "warranty"),
        ("judged", "warranty"),
    ]
    assert cases[0].get("time") == "1.500"


def test_failure_error_and_skipped_are_told_apart() -> None:
    greets, adds, times_out, judged = parse(junit.render(sample())).findall("testsuite/testcase")
    assert [child.tag for child in greets] == ["system-out"]
    failure = adds.find("failure")
    assert failure is not None and adds.find("error") is None
    assert failure.get("message") == "contains: missing '4'"
    assert failure.text == "contains: failed score=0.5: missing '4'\nexact_match: passed score=1"
    error = times_out.find("error")
    assert error is not None and times_out.find("failure") is None
    assert error.get("message") == "timed out after 2 s"
    skipped = judged.find("skipped")
    assert skipped is not None and skipped.get("message") == "no judge configured"


def test_system_out_holds_input_output_and_expected() -> None:
    adds = parse(junit.render(sample())).findall("testsuite/testcase")[1]
    out = adds.findtext("system-out")
    assert out == "input:\nquestion\n\noutput:\nanswer\n\nexpected:\n4\n\nscore: 0.5"


def test_structured_output_is_shown_as_json() -> None:
    report = EvalReport([case("json", "passed", output={"answer": 4, "why": "sum"})])
    out = parse(junit.render(report)).findtext("testsuite/testcase/system-out") or ""
    assert '"answer": 4' in out


def test_run_facts_are_properties() -> None:
    properties = {
        p.get("name"): p.get("value") for p in parse(junit.render(sample())).findall("testsuite/properties/property")
    }
    assert properties["run_id"] == "r1"
    assert properties["suite_file"] == "suite.yaml"
    assert properties["plugin:agent-eval-contains"] == "0.1.0"
    assert properties["interrupted"] == "false"
    assert properties["pass_rate"] == "0.3333"


def test_control_characters_in_agent_output_are_made_safe(schema: xmlschema.XMLSchema) -> None:
    nasty = "bell\x07 escape\x1b[31m nul\x00 form\x0c surrogate\ud800 ok\ttab\nline é 😀"
    report = EvalReport([case(f"name\x01{nasty}", "failed", output=nasty, reason=f"why\x02{nasty}")])
    text = junit.render(report)
    schema.validate(text)
    testcase = parse(text).find("testsuite/testcase")
    assert testcase is not None
    assert testcase.get("name", "").startswith("name\\x01bell\\x07")
    out = testcase.findtext("system-out") or ""
    assert "escape\\x1b[31m nul\\x00 form\\x0c surrogate\\ud800 ok\ttab\nline é 😀" in out


def test_markup_in_agent_output_stays_text() -> None:
    payload = "</system-out><testcase name='fake'/>&amp; <![CDATA[x]]>"
    root = parse(junit.render(EvalReport([case("x", "failed", output=payload, reason=payload)])))
    assert len(root.findall("testsuite/testcase")) == 1
    assert payload in (root.findtext("testsuite/testcase/system-out") or "")
    failure = root.find("testsuite/testcase/failure")
    assert failure is not None and failure.get("message") == payload


def test_a_long_reason_is_cut_in_the_message_attribute() -> None:
    reason = "word " * 1000
    failure = parse(junit.render(EvalReport([case("x", "failed", reason=reason)]))).find("testsuite/testcase/failure")
    assert failure is not None
    assert len(failure.get("message", "")) == junit.MESSAGE_LIMIT


def test_an_interrupted_run_says_so(schema: xmlschema.XMLSchema) -> None:
    report = EvalReport([case("a", "passed")], name="s", interrupted=True, planned=5)
    text = junit.render(report)
    schema.validate(text)
    root = parse(text)
    assert root.findtext("testsuite/system-out") == (
        "INTERRUPTED: 1 of 5 planned cases finished; the other 4 did not run and are not listed."
    )
    properties = {p.get("name"): p.get("value") for p in root.findall("testsuite/properties/property")}
    assert (properties["interrupted"], properties["planned"]) == ("true", "5")


def test_an_empty_run_is_still_valid(schema: xmlschema.XMLSchema) -> None:
    schema.validate(junit.render(EvalReport([])))


def test_write_replaces_the_file_atomically(tmp_path: Path, schema: xmlschema.XMLSchema) -> None:
    target = tmp_path / "out" / "junit.xml"
    junit.write(sample(), target)
    schema.validate(str(target))
    assert sorted(p.name for p in target.parent.iterdir()) == ["junit.xml"]
