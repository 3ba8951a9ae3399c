"""`matches`: a regular expression searched in the output; a bad pattern is caught when the evaluator is made."""

from __future__ import annotations

import pytest

from agent_eval import Verdict
from agent_eval_contains import matches


def grade(evaluator: object, output: object) -> Verdict:
    verdict = evaluator(output)  # type: ignore[operator]
    assert isinstance(verdict, Verdict)
    return verdict


def test_a_pattern_found_anywhere_passes_and_names_the_match() -> None:
    verdict = grade(matches(r"\d+ years"), "Our warranty is 2 years, extendable to 4.")
    assert (verdict.passed, verdict.score) == (True, 1.0)
    assert verdict.reason == r"'\d+ years' matched '2 years'"


def test_no_match_fails_and_names_the_pattern() -> None:
    verdict = grade(matches(r"\d+ months"), "Our warranty is 2 years.")
    assert (verdict.passed, verdict.score) == (False, 0.0)
    assert verdict.reason == r"no match for '\d+ months'"


def test_matching_is_case_sensitive_by_default() -> None:
    assert grade(matches("hello"), "HELLO").passed is False
    assert grade(matches("hello", ignore_case=True), "HELLO").passed is True


def test_a_pattern_is_shown_as_written_unless_it_needs_escaping() -> None:
    assert grade(matches("it's"), "no").reason == 'no match for "it\'s"'
    assert grade(matches("a\nb"), "no").reason == "no match for 'a\\nb'"


def test_inline_flags_work() -> None:
    assert grade(matches(r"(?m)^total: \d+$"), "items: 3\ntotal: 12\n").passed is True


def test_a_long_match_is_shortened_in_the_reason() -> None:
    verdict = grade(matches(r"a+"), "a" * 500)
    assert verdict.reason is not None
    assert len(verdict.reason) < 120
    assert "…" in verdict.reason


def test_structured_output_is_searched_as_json_text() -> None:
    assert grade(matches(r'"id": \d+'), {"id": 7}).passed is True


def test_an_invalid_pattern_is_an_error_when_the_evaluator_is_made() -> None:
    with pytest.raises(ValueError) as caught:
        matches("(")
    assert str(caught.value) == "invalid regular expression '(': missing ), unterminated subpattern at position 0"


def test_the_pattern_must_be_a_string() -> None:
    with pytest.raises(TypeError, match=r"pattern must be a string, got 42"):
        matches(42)  # type: ignore[arg-type]


def test_an_empty_pattern_is_an_error_since_it_matches_everything() -> None:
    with pytest.raises(ValueError, match="empty"):
        matches("")


def test_ignore_case_must_be_a_boolean() -> None:
    with pytest.raises(TypeError, match="ignore_case must be true or false"):
        matches("a", ignore_case="yes")  # type: ignore[arg-type]


def test_the_evaluator_is_named_matches_and_runs_inline() -> None:
    evaluator = matches("a")
    assert evaluator.name == "matches"
    assert evaluator.inline is True
