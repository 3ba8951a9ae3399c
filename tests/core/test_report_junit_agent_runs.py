"""The JUnit report of agent runs: each case's tool calls, tokens and cost as properties and its trajectory
in system-out; a repeated case's attempts as properties and its message starting with how many passed."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema

from agent_eval import Case, EvalReport
from agent_eval._attempts import combine_attempts
from agent_eval._report import junit
from tests.data.reports.trajectories import HOSTILE, repeated_report, report, result

XSD = Path(__file__).parent.parent / "data" / "reports" / "junit-10.xsd"
#: Control characters XML 1.0 cannot hold, and ESC, which a terminal showing the log would obey.
RAW_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


@pytest.fixture(scope="module")
def schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(XSD)


def cases_of(text: str) -> dict[str, ET.Element]:
    root = ET.fromstring(text.encode("utf-8"))
    return {case.attrib["name"]: case for case in root.iter("testcase")}


def properties(element: ET.Element) -> dict[str, str]:
    holder = element.find("properties")
    return {} if holder is None else {p.attrib["name"]: p.attrib["value"] for p in holder.findall("property")}


def test_reports_with_tool_calls_and_attempts_are_valid_against_the_junit_xsd(schema: xmlschema.XMLSchema) -> None:
    schema.validate(junit.render(report()))
    schema.validate(junit.render(repeated_report()))


def test_a_case_with_tool_calls_has_their_count_tokens_and_cost_as_properties() -> None:
    cases = cases_of(junit.render(report()))
    assert properties(cases["uses tools"]) == {
        "tool_calls": "3",
        "failed_tool_calls": "1",
        "agent_tokens": "1234",
        "cost_usd": "0.0123",
    }
    assert cases["plain"].find("properties") is None
    assert [child.tag for child in cases["uses tools"]] == ["properties", "failure", "system-out"]


def test_the_trajectory_is_in_system_out_step_by_step_with_the_error_marked() -> None:
    out = cases_of(junit.render(report()))["uses tools"].findtext("system-out") or ""
    trajectory = out.split("trajectory: ", 1)[1].splitlines()
    shown = HOSTILE.replace("\x1b", "\\x1b").replace("\x07", "\\x07")
    assert trajectory[:3] == ["3 tool calls (1 failed)", '1. get_warranty {"product": "kettle"}', "   → 2 years"]
    assert trajectory[3].startswith(f"2. delete_account {shown} ")
    assert trajectory[4] == f"   ✗ error: permission denied {shown}"
    assert trajectory[5] == '3. search (raw arguments, not valid JSON) {"q": "kettle'
    assert trajectory[6].startswith('   → {"hits": [1, 2]')
    assert "trajectory" not in (cases_of(junit.render(report()))["plain"].findtext("system-out") or "")


def test_a_repeated_case_has_its_attempts_as_properties_and_its_message_starts_with_the_tally() -> None:
    cases = cases_of(junit.render(repeated_report()))
    flaky = cases["flaky"]
    found = properties(flaky)
    assert {key: found[key] for key in ("attempts", "passed_attempts", "pass_fraction", "flaky")} == {
        "attempts": "3",
        "passed_attempts": "2",
        "pass_fraction": "0.6667",
        "flaky": "true",
    }
    failure = flaky.find("failure")
    assert failure is not None
    assert failure.attrib["message"].startswith("2/3 attempts passed")
    assert properties(cases["steady"])["flaky"] == "false"
    out = flaky.findtext("system-out") or ""
    attempts = out.split("attempts:\n", 1)[1].splitlines()
    assert attempts[0] == "attempt 1: passed score=1: found '4'"
    assert attempts[1:3] == ["  trajectory: 1 tool call", '  1. get_warranty {"product": "kettle"}']
    assert attempts[4] == "attempt 2: failed score=0: says: missing '4'"
    assert attempts[-1] == "attempt 3: passed score=1: found '4'"


def test_an_errored_repeated_case_message_starts_with_the_tally_too() -> None:
    crashed = combine_attempts(
        Case("crashes", "q"), [result("crashes", "passed"), result("crashes", "error", error="boom")], 1.0
    )
    text = junit.render(EvalReport([crashed]))
    error = cases_of(text)["crashes"].find("error")
    assert error is not None and error.attrib["message"] == "1/2 attempts passed; attempt 2: boom"


def test_the_suite_has_the_interval_the_agents_totals_and_the_repeat_figures() -> None:
    root = ET.fromstring(junit.render(report()).encode("utf-8"))
    suite = properties(root.find("testsuite"))  # type: ignore[arg-type]
    assert (suite["ci_low"], suite["ci_high"]) == ("0.1500", "0.8500")
    assert (suite["agent_tokens"], suite["cost_usd"]) == ("1274", "0.0153")
    assert suite["repeat"] == "3" and suite["pass_at_1"] == "0.4167"
    assert "attempt_ci_low" in suite and "attempt_ci_high" in suite and "pass_hat_1" in suite


def test_hostile_tool_text_is_escaped_and_no_control_character_is_left() -> None:
    text = junit.render(report())
    assert not RAW_CONTROL.search(text)
    assert "</script>" not in text and "&lt;/script&gt;" in text
    assert "[/b] \\x1b]0;pwned\\x07" in text
