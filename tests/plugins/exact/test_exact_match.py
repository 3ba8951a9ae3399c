"""The contract of `exact_match`, written before the implementation (seed 002's exactMatch)."""

from __future__ import annotations

from typing import Any

import pytest

from agent_eval import Case, EvaluatorContext, Verdict
from agent_eval_exact import exact_match


def grade(evaluator: Any, output: Any, expected: Any = None) -> Verdict:
    ctx = EvaluatorContext(Case("case", "input", expected=expected), output)
    verdict = evaluator(output, ctx)
    assert isinstance(verdict, Verdict)
    return verdict


# Seed 002: exactMatch('yes') is case-sensitive, exactMatch('Yes', { ignoreCase: true }) is not.


def test_equal_text_passes_with_score_one() -> None:
    verdict = grade(exact_match("yes"), "yes")
    assert (verdict.passed, verdict.score) == (True, 1.0)
    assert verdict.reason == "exact match"


def test_case_matters_by_default() -> None:
    verdict = grade(exact_match("yes"), "Yes")
    assert (verdict.passed, verdict.score) == (False, 0.0)
    assert verdict.reason == "differs at character 1: expected 'yes' got 'Yes'"


def test_ignore_case_accepts_any_case() -> None:
    assert grade(exact_match("Yes", ignore_case=True), "yES").passed is True


def test_ignore_case_folds_unicode_case() -> None:
    assert grade(exact_match("STRASSE", ignore_case=True), "straße").passed is True


def test_surrounding_whitespace_is_ignored_by_default() -> None:
    assert grade(exact_match("4"), "  4\n").passed is True
    assert grade(exact_match(" 4 "), "4").passed is True


def test_strip_false_compares_whitespace_too() -> None:
    verdict = grade(exact_match("4", strip=False), "4\n")
    assert verdict.passed is False
    assert verdict.reason == "differs at character 2: expected '4' got '4\\n'"


def test_inner_whitespace_always_counts() -> None:
    assert grade(exact_match("2 + 2"), "2  + 2").passed is False


# The expected answer from the case.


def test_without_an_argument_the_case_expected_is_used() -> None:
    assert grade(exact_match(), "4", expected="4").passed is True
    assert grade(exact_match(), "5", expected="4").passed is False


def test_the_factory_argument_wins_over_the_case() -> None:
    assert grade(exact_match("4"), "4", expected="5").passed is True


def test_check_case_rejects_a_case_without_expected() -> None:
    with pytest.raises(ValueError, match="expected"):
        exact_match().check_case(Case("adds", "2 + 2"))


def test_check_case_accepts_a_case_with_expected_or_a_factory_argument() -> None:
    exact_match().check_case(Case("adds", "2 + 2", expected="4"))
    exact_match("4").check_case(Case("adds", "2 + 2"))


def test_calling_without_any_expected_is_an_error() -> None:
    with pytest.raises(ValueError, match="expected"):
        exact_match()("4")


def test_an_empty_expected_string_is_an_expected_answer() -> None:
    exact_match("").check_case(Case("silent", "say nothing"))
    assert grade(exact_match(""), "  ").passed is True


# Values that are not text.


def test_a_number_expected_compares_as_text_with_a_text_output() -> None:
    assert grade(exact_match(4), "4").passed is True
    assert grade(exact_match(), "4", expected=4).passed is True
    assert grade(exact_match(4), "4.0").passed is False


def test_structured_values_are_compared_as_values() -> None:
    assert grade(exact_match({"a": 1, "b": [1, 2]}), {"b": [1, 2], "a": 1}).passed is True
    assert grade(exact_match(), [1, 2.0], expected=[1, 2]).passed is True


def test_structured_difference_names_the_path() -> None:
    verdict = grade(exact_match({"a": {"items": [1, 2, 3]}}), {"a": {"items": [1, 2, 4]}})
    assert verdict.passed is False
    assert verdict.reason == "differs at $.a.items[2]: expected 3 got 4"


def test_structured_difference_reports_missing_and_extra_keys() -> None:
    assert grade(exact_match({"a": 1, "b": 2}), {"a": 1}).reason == "differs at $.b: expected 2 got nothing"
    assert grade(exact_match({"a": 1}), {"a": 1, "c": 3}).reason == "differs at $.c: expected nothing got 3"


def test_structured_difference_reports_list_lengths() -> None:
    assert grade(exact_match([1, 2]), [1, 2, 3]).reason == "differs at $: expected 2 items got 3"


def test_booleans_are_not_numbers_in_structured_values() -> None:
    assert grade(exact_match([True]), [1]).passed is False


def test_structured_expected_compares_as_json_text_with_a_text_output() -> None:
    assert grade(exact_match({"a": 1}), '{"a": 1}').passed is True


def test_none_output_is_empty_text() -> None:
    assert grade(exact_match(""), None).passed is True


# Where two texts first differ.


def test_reason_shortens_both_sides_around_the_first_difference() -> None:
    expected = "Thank you for asking. Our warranty is 2 years, extendable to 4 with the premium plan."
    output = "Thank you for asking. Our warranty is 2 years. Call now to extend it!"
    verdict = grade(exact_match(expected), output)
    assert verdict.reason == (
        "differs at character 46: expected '… warranty is 2 years, extendable to 4 wi…' "
        "got '… warranty is 2 years. Call now to extend…'"
    )


def test_reason_shows_where_a_shorter_output_ends() -> None:
    verdict = grade(exact_match("extendable to 4."), "extendable to 4")
    assert verdict.reason == "differs at character 16: expected 'extendable to 4.' got 'extendable to 4' (ends)"


def test_reason_gives_line_and_column_in_multiline_text() -> None:
    verdict = grade(exact_match("a\nb\nc"), "a\nb\nx")
    assert verdict.reason == "differs at character 5 (line 3, column 1): expected 'a\\nb\\nc' got 'a\\nb\\nx'"


def test_reason_position_ignores_case_when_asked() -> None:
    verdict = grade(exact_match("Hello World", ignore_case=True), "hello there")
    assert verdict.reason is not None
    assert verdict.reason.startswith("differs at character 7:")


# Options are checked when the evaluator is made.


@pytest.mark.parametrize("option", ["ignore_case", "strip"])
def test_flags_must_be_booleans(option: str) -> None:
    with pytest.raises(TypeError, match=rf"{option} must be true or false, got 'yes'"):
        exact_match("a", **{option: "yes"})  # type: ignore[arg-type]


def test_the_evaluator_is_named_exact_match_and_runs_inline() -> None:
    evaluator = exact_match("a")
    assert evaluator.name == "exact_match"
    assert evaluator.inline is True


def test_factory_docstring_first_line_describes_it() -> None:
    assert exact_match.__doc__ is not None
    assert "expected" in exact_match.__doc__.splitlines()[0]
