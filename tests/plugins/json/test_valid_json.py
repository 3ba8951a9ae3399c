"""The contract of `valid_json`, written before the implementation (seed 002's isValidJson, plus schemas)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_eval import Verdict
from agent_eval_json import valid_json

COLORS_SCHEMA = {
    "type": "object",
    "properties": {"items": {"type": "array", "items": {"type": "string"}}, "count": {"type": "integer"}},
    "required": ["items"],
}


def grade(evaluator: Any, output: Any) -> Verdict:
    verdict = evaluator(output)
    assert isinstance(verdict, Verdict)
    return verdict


# Parsing (seed 002's isValidJson).


def test_valid_json_passes_with_score_one() -> None:
    verdict = grade(valid_json(), '["red", "green", "blue"]')
    assert (verdict.passed, verdict.score, verdict.reason) == (True, 1.0, "valid JSON")


@pytest.mark.parametrize("text", ['{"a": 1}', "[]", "3", '"text"', "null", "true", ' \n {"a": [1, {"b": null}]}\n'])
def test_any_json_value_is_valid(text: str) -> None:
    assert grade(valid_json(), text).passed is True


def test_a_parse_error_names_the_message_line_and_column() -> None:
    verdict = grade(valid_json(), '{\n  "a": 1\n  "b": 2\n}')
    assert (verdict.passed, verdict.score) == (False, 0.0)
    assert verdict.reason is not None
    assert verdict.reason.startswith("invalid JSON: Expecting ',' delimiter at line 3 column 3")


def test_a_parse_error_shows_the_text_around_it() -> None:
    verdict = grade(valid_json(), '{"name": "Ada", "age": 36,}')
    assert verdict.reason == (
        "invalid JSON: Expecting property name enclosed in double quotes at line 1 column 27 near '…, \"age\": 36,}'"
    )


def test_an_empty_output_is_not_json() -> None:
    assert grade(valid_json(), "  \n").reason == "invalid JSON: the output is empty"
    assert grade(valid_json(), None).reason == "invalid JSON: the output is empty"


def test_nan_and_infinity_are_not_json() -> None:
    verdict = grade(valid_json(), '{"x": NaN}')
    assert (verdict.passed, verdict.reason) == (False, "invalid JSON: NaN is not a JSON value")
    assert grade(valid_json(), "[-Infinity]").passed is False


def test_deeply_nested_input_fails_instead_of_crashing() -> None:
    verdict = grade(valid_json(), "[" * 100_000)
    assert verdict.passed is False
    assert verdict.reason is not None
    assert verdict.reason.startswith("invalid JSON")


def test_a_number_too_long_to_read_fails_without_python_advice() -> None:
    verdict = grade(valid_json(), "1" * 5000)
    assert verdict.passed is False
    assert verdict.reason is not None
    assert verdict.reason.startswith("invalid JSON: Exceeds the limit")
    assert "sys." not in verdict.reason


def test_structured_output_already_counts_as_json() -> None:
    assert grade(valid_json(), {"items": ["red"]}).passed is True
    assert grade(valid_json(), [1, 2]).passed is True


def test_bytes_output_is_decoded() -> None:
    assert grade(valid_json(), b'{"a": 1}').passed is True


# Code fences.


FENCED = '```json\n{"items": ["red", "green"]}\n```'


def test_a_fenced_output_is_rejected_by_default_with_a_hint() -> None:
    verdict = grade(valid_json(), FENCED)
    assert verdict.passed is False
    assert verdict.reason is not None
    assert verdict.reason.startswith("invalid JSON: Expecting value at line 1 column 1")
    assert verdict.reason.endswith("(the output is in a ``` fence; allow_fence=True accepts that)")


def test_allow_fence_accepts_one_json_fence_around_the_whole_output() -> None:
    verdict = grade(valid_json(allow_fence=True), "\n" + FENCED + "\n")
    assert (verdict.passed, verdict.reason) == (True, "valid JSON (in a ``` fence)")
    assert grade(valid_json(allow_fence=True), '```\n{"a": 1}\n```').passed is True
    assert grade(valid_json(allow_fence=True), '```JSON\n{"a": 1}\n```').passed is True


def test_allow_fence_still_requires_the_fence_to_wrap_the_whole_output() -> None:
    assert grade(valid_json(allow_fence=True), "Here you go:\n" + FENCED).passed is False
    assert grade(valid_json(allow_fence=True), FENCED + "\n" + FENCED).passed is False


def test_allow_fence_accepts_unfenced_json_too() -> None:
    assert grade(valid_json(allow_fence=True), '{"a": 1}').passed is True


def test_allow_fence_rejects_invalid_json_inside_the_fence() -> None:
    verdict = grade(valid_json(allow_fence=True), "```json\n{oops}\n```")
    assert verdict.passed is False
    assert verdict.reason is not None
    assert verdict.reason.startswith(
        "invalid JSON: Expecting property name enclosed in double quotes at line 1 column 2"
    )


# Schemas.


def test_output_matching_the_schema_passes() -> None:
    verdict = grade(valid_json(COLORS_SCHEMA), '{"items": ["red", "green"], "count": 2}')
    assert (verdict.passed, verdict.reason) == (True, "valid JSON, matches the schema")


def test_a_schema_error_names_the_failing_path() -> None:
    verdict = grade(valid_json(COLORS_SCHEMA), '{"items": ["red", "green", 5]}')
    assert (verdict.passed, verdict.score) == (False, 0.0)
    assert verdict.reason == "$.items[2]: 5 is not of type 'string'"


def test_a_schema_failure_says_how_many_errors_there_were() -> None:
    verdict = grade(valid_json(COLORS_SCHEMA), '{"items": [1, "b", 3], "count": "two"}')
    assert verdict.reason is not None
    assert verdict.reason.endswith("(1 of 3 schema errors)")
    assert [error["path"] for error in verdict.metadata["errors"]] == ["$.items[0]", "$.items[2]", "$.count"]


def test_a_missing_required_property_is_reported_at_its_object() -> None:
    verdict = grade(valid_json(COLORS_SCHEMA), '{"count": 1}')
    assert verdict.reason == "$: 'items' is a required property"


def test_structured_output_is_validated_against_the_schema() -> None:
    assert grade(valid_json(COLORS_SCHEMA), {"items": ["a"]}).passed is True
    assert grade(valid_json(COLORS_SCHEMA), {"items": [1]}).passed is False


def test_the_default_draft_is_2020_12() -> None:
    # prefixItems exists in draft 2020-12 only; under draft 7 it would be ignored.
    schema = {"type": "array", "prefixItems": [{"type": "integer"}]}
    assert grade(valid_json(schema), '["one"]').passed is False


def test_a_schema_may_name_its_draft() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "array",
        "prefixItems": [{"type": "integer"}],
    }
    assert grade(valid_json(schema), '["one"]').passed is True


def test_formats_are_checked() -> None:
    schema = {"type": "string", "format": "date"}
    assert grade(valid_json(schema), '"2024-02-29"').passed is True
    assert grade(valid_json(schema), '"2024-02-30"').passed is False


def test_a_long_value_in_a_schema_error_is_shortened() -> None:
    verdict = grade(valid_json({"type": "string"}), json.dumps(list(range(1000))))
    assert verdict.reason is not None
    assert len(verdict.reason) < 200


def test_a_parse_error_is_reported_before_the_schema() -> None:
    verdict = grade(valid_json(COLORS_SCHEMA), "{")
    assert verdict.reason is not None
    assert verdict.reason.startswith("invalid JSON:")


# Schema options are checked when the evaluator is made.


def test_an_invalid_schema_is_an_error_when_the_evaluator_is_made() -> None:
    with pytest.raises(ValueError) as caught:
        valid_json({"type": "object", "properties": {"name": {"type": "strng"}}})
    assert str(caught.value) == (
        "invalid JSON Schema at $.properties.name.type: "
        "'strng' is not one of ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']"
    )


def test_an_invalid_schema_under_its_own_draft_is_an_error() -> None:
    with pytest.raises(ValueError, match="invalid JSON Schema"):
        valid_json({"$schema": "http://json-schema.org/draft-07/schema#", "required": "name"})


@pytest.mark.parametrize("schema", [5, True, ["type", "object"]])
def test_a_schema_must_be_a_mapping_or_a_path(schema: Any) -> None:
    with pytest.raises(TypeError, match=r"schema must be a JSON Schema object or the path of a \.json file, got"):
        valid_json(schema)


def test_a_schema_file_is_read_relative_to_the_current_directory(tmp_path: Path, monkeypatch: Any) -> None:
    (tmp_path / "colors.json").write_text(json.dumps(COLORS_SCHEMA), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    evaluator = valid_json("colors.json")
    assert grade(evaluator, '{"items": [5]}').reason == "$.items[0]: 5 is not of type 'string'"
    assert grade(valid_json(tmp_path / "colors.json"), '{"items": []}').passed is True


def test_a_missing_schema_file_is_an_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    with pytest.raises(ValueError, match=rf"schema file '{missing}' does not exist"):
        valid_json(str(missing))


def test_a_schema_file_that_is_not_json_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"type": "object",\n "required": [}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"schema file '.*broken.json' is not valid JSON: .* at line 2 column 15"):
        valid_json(str(path))


def test_a_schema_file_holding_an_invalid_schema_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"type": 12}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"invalid JSON Schema in '.*bad.json' at \$.type: "):
        valid_json(str(path))


def test_allow_fence_must_be_a_boolean() -> None:
    with pytest.raises(TypeError, match="allow_fence must be true or false, got 'yes'"):
        valid_json(allow_fence="yes")  # type: ignore[arg-type]


def test_the_evaluator_is_named_valid_json_and_runs_inline() -> None:
    evaluator = valid_json()
    assert evaluator.name == "valid_json"
    assert evaluator.inline is True


def test_factory_docstring_first_line_describes_it() -> None:
    assert valid_json.__doc__ is not None
    assert "JSON" in valid_json.__doc__.splitlines()[0]
