"""`exact_match` with a dict or list expected and a text answer: the answer is read as JSON and the values compared."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_eval import Case, EvalSuite, EvaluatorContext, Verdict, load_suite, registry_of
from agent_eval_exact import exact_match, plugin


def grade(evaluator: Any, output: Any, expected: Any = None) -> Verdict:
    verdict = evaluator(output, EvaluatorContext(Case("case", "input", expected=expected), output))
    assert isinstance(verdict, Verdict)
    return verdict


@pytest.mark.parametrize(
    "answer",
    ['{"foo":"bar"}', '{"foo": "bar"}', '  {\n  "foo" : "bar"\n}\n', b'{"foo":"bar"}'],
)
def test_json_text_equals_a_structured_expected_whatever_its_spacing(answer: Any) -> None:
    verdict = grade(exact_match({"foo": "bar"}), answer)
    assert (verdict.passed, verdict.score, verdict.reason) == (True, 1.0, "equal as JSON values")


def test_key_order_does_not_matter_nor_does_the_expected_come_from_the_case() -> None:
    assert grade(
        exact_match(), '{"b": [1, {"y": 2, "x": 1}], "a": 1}', expected={"a": 1, "b": [1, {"x": 1, "y": 2}]}
    ).passed
    assert grade(exact_match([1, 2]), "[1,2]").passed
    assert grade(exact_match((1, 2)), "[1, 2.0]").passed


def test_a_different_json_value_names_the_first_difference() -> None:
    verdict = grade(exact_match({"foo": "bar", "n": [1, 2]}), '{"n": [1, 3], "foo": "bar"}')
    assert (verdict.passed, verdict.score) == (False, 0.0)
    assert verdict.reason == "differs at $.n[1]: expected 2 got 3 (compared as JSON values)"
    assert grade(exact_match([True]), "[1]").reason == "differs at $[0]: expected true got 1 (compared as JSON values)"


def test_an_answer_that_is_not_json_fails_with_the_parse_error() -> None:
    verdict = grade(exact_match({"foo": "bar"}), "foo is bar")
    assert (verdict.passed, verdict.score) == (False, 0.0)
    assert verdict.reason == (
        'expected the JSON value {"foo": "bar"}; the output is not JSON (Expecting value at line 1 column 1)'
    )
    assert grade(exact_match({"a": 1}), None).passed is False
    # text and number expected values are compared as text, as before
    assert grade(exact_match("{}"), "{ }").passed is False
    assert grade(exact_match(4), "4.0").passed is False


def test_an_answer_too_deep_or_too_long_to_parse_fails_instead_of_crashing() -> None:
    reason = "expected the JSON value [1]; the output cannot be read as JSON"
    assert grade(exact_match([1]), "[" * 100_000 + "]" * 100_000).reason == reason
    assert grade(exact_match([1]), "[1" + "0" * 5000 + "]").reason == reason


def test_a_suite_file_expected_mapping_passes_a_compact_json_answer(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        "cases:\n  - name: order\n    input: x\n    expected: {foo: bar, n: [1, 2]}\n    evaluators: [exact_match]\n",
        encoding="utf-8",
    )
    suite = load_suite(path, registry=registry_of(plugin))
    report = EvalSuite(lambda question: '{"n":[1,2],"foo":"bar"}', suite.cases).run(print=False)
    assert [(case.status, case.reason) for case in report.cases] == [("passed", "equal as JSON values")]
