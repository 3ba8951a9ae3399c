"""The scoring contract of `contains`, written before the implementation (seed 000's scorer, seed 002's contains)."""

from __future__ import annotations

import pytest

from agent_eval import Verdict
from agent_eval_contains import contains

GOOD = "Our warranty is 2 years, extendable to 4."
INCOMPLETE = "Our warranty lasts 2 years."
UPSELL = "Our warranty is 2 years, extendable to 4. Call now to upgrade!"


def grade(evaluator: object, output: object) -> Verdict:
    verdict = evaluator(output)  # type: ignore[operator]
    assert isinstance(verdict, Verdict)
    return verdict


# Seed 000: the three demo answers.


def test_good_answer_scores_one_and_passes() -> None:
    verdict = grade(contains(["2 years", "extendable"], forbidden=["call now"]), GOOD)
    assert (verdict.passed, verdict.score) == (True, 1.0)


def test_partial_credit_scores_half_and_fails() -> None:
    verdict = grade(contains(["2 years", "extendable"], forbidden=["call now"]), INCOMPLETE)
    assert (verdict.passed, verdict.score) == (False, 0.5)
    assert verdict.reason == "missing: 'extendable'"


def test_forbidden_phrase_fails_even_with_every_keyword_found() -> None:
    verdict = grade(contains(["2 years", "extendable"], forbidden=["call now"]), UPSELL)
    assert verdict.passed is False
    assert verdict.score == 1.0  # the score is the fraction of keywords found, as in the seed
    assert verdict.reason == "forbidden phrase found: 'call now'"


def test_empty_output_with_no_keywords_scores_one_and_passes() -> None:
    verdict = grade(contains([]), "")
    assert (verdict.passed, verdict.score) == (True, 1.0)


def test_no_keywords_fails_only_on_a_forbidden_phrase() -> None:
    assert grade(contains([], forbidden="call now"), "Thanks!").passed is True
    verdict = grade(contains([], forbidden="call now"), "Call NOW")
    assert (verdict.passed, verdict.score) == (False, 1.0)


def test_matching_ignores_case_by_default() -> None:
    assert grade(contains(["WARRANTY"]), GOOD).passed is True
    assert grade(contains(["WARRANTY"], ignore_case=False), GOOD).passed is False


def test_score_is_the_fraction_of_keywords_found() -> None:
    verdict = grade(contains(["a", "b", "c", "d"]), "a c d")
    assert verdict.score == 0.75
    assert verdict.passed is False
    assert verdict.reason == "missing: 'b'"


def test_reason_lists_every_missing_keyword_in_order() -> None:
    verdict = grade(contains(["one", "two", "three"]), "two")
    assert verdict.reason == "missing: 'one', 'three'"
    assert verdict.score == pytest.approx(1 / 3)


def test_reason_names_what_matched_on_success() -> None:
    verdict = grade(contains(["2 years", "extendable"]), GOOD)
    assert verdict.reason == "found: '2 years', 'extendable'"


def test_long_lists_in_reasons_are_cut_with_a_count() -> None:
    keywords = [f"k{i}" for i in range(20)]
    verdict = grade(contains(keywords), "nothing here")
    assert verdict.reason is not None
    assert verdict.reason.startswith("missing: 'k0', 'k1', 'k2', 'k3', 'k4'")
    assert verdict.reason.endswith("and 15 more")


def test_metadata_lists_found_missing_and_forbidden() -> None:
    verdict = grade(contains(["2 years", "extendable"], forbidden=["call now", "upgrade"]), UPSELL)
    assert dict(verdict.metadata) == {
        "found": ["2 years", "extendable"],
        "missing": [],
        "forbidden": ["call now", "upgrade"],
    }


# match_all=False: any keyword will do (seed 002).


def test_any_mode_passes_with_one_keyword_and_scores_one() -> None:
    verdict = grade(contains(["yes", "sure", "ok"], match_all=False), "Sure, I can do that.")
    assert (verdict.passed, verdict.score) == (True, 1.0)
    assert verdict.reason == "found: 'sure'"


def test_any_mode_scores_zero_when_nothing_is_found() -> None:
    verdict = grade(contains(["yes", "sure", "ok"], match_all=False), "No.")
    assert (verdict.passed, verdict.score) == (False, 0.0)
    assert verdict.reason == "none found: 'yes', 'sure', 'ok'"


def test_any_mode_still_fails_on_a_forbidden_phrase() -> None:
    verdict = grade(contains(["yes"], match_all=False, forbidden=["but"]), "yes, but no")
    assert (verdict.passed, verdict.score) == (False, 1.0)
    assert verdict.reason == "forbidden phrase found: 'but'"


def test_any_mode_without_keywords_passes() -> None:
    assert grade(contains([], match_all=False), "anything").passed is True


def test_missing_and_forbidden_are_both_reported() -> None:
    verdict = grade(contains(["refund"], forbidden=["call now", "act fast"]), "Act fast, call now!")
    assert verdict.reason == "missing: 'refund'; forbidden phrases found: 'call now', 'act fast'"


# A bare string is one keyword.


def test_a_bare_string_is_one_keyword_not_a_list_of_characters() -> None:
    verdict = grade(contains("hello"), "help me")
    assert (verdict.passed, verdict.score) == (False, 0.0)
    assert verdict.reason == "missing: 'hello'"


def test_a_bare_forbidden_string_is_one_phrase() -> None:
    assert grade(contains([], forbidden="xyz"), "x y z").passed is True


# Outputs that are not strings are searched as text.


def test_structured_output_is_searched_as_json_text() -> None:
    assert grade(contains(['"status": "ok"']), {"status": "ok"}).passed is True


def test_none_output_is_empty_text() -> None:
    verdict = grade(contains(["x"]), None)
    assert (verdict.passed, verdict.score) == (False, 0.0)


# Matching options, off by default.


def test_keywords_are_found_inside_words_by_default() -> None:
    assert grade(contains(["cat"]), "concatenate").passed is True


def test_whole_words_does_not_find_a_keyword_inside_a_word() -> None:
    assert grade(contains(["cat"], whole_words=True), "concatenate").passed is False
    assert grade(contains(["cat"], whole_words=True), "the cat sat").passed is True
    assert grade(contains(["cat"], whole_words=True), "cat").passed is True
    assert grade(contains(["cat"], whole_words=True), "(cat)").passed is True
    assert grade(contains(["cat"], whole_words=True), "cats").passed is False
    assert grade(contains(["cat"], whole_words=True), "_cat").passed is False


def test_whole_words_checks_only_edges_that_are_word_characters() -> None:
    assert grade(contains(["C++"], whole_words=True, ignore_case=False), "I like C++.").passed is True
    assert grade(contains(["C++"], whole_words=True, ignore_case=False), "I like C++x").passed is True
    assert grade(contains(["C++"], whole_words=True, ignore_case=False), "ObjC++").passed is False


def test_whole_words_finds_a_later_occurrence_after_a_rejected_one() -> None:
    assert grade(contains(["cat"], whole_words=True), "concatenate the cat").passed is True


def test_whole_words_understands_unicode_letters() -> None:
    assert grade(contains(["été"], whole_words=True), "un bel été.").passed is True
    assert grade(contains(["été"], whole_words=True), "étéval").passed is False


def test_whitespace_must_match_exactly_by_default() -> None:
    assert grade(contains(["2 years"]), "2\n  years").passed is False


def test_collapse_whitespace_treats_any_run_of_whitespace_as_one_space() -> None:
    assert grade(contains(["2 years"], collapse_whitespace=True), "2\n  years").passed is True
    assert grade(contains(["2  years"], collapse_whitespace=True), "2 years").passed is True
    assert grade(contains(["2 years"], collapse_whitespace=True), "2years").passed is False


def test_lowercasing_does_not_equate_sharp_s_with_ss() -> None:
    assert grade(contains(["straße"]), "STRASSE").passed is False


def test_casefold_equates_sharp_s_with_ss() -> None:
    assert grade(contains(["straße"], casefold=True), "STRASSE").passed is True
    assert grade(contains(["STRASSE"], casefold=True), "die Straße").passed is True


def test_forbidden_phrases_use_the_same_options() -> None:
    evaluator = contains([], forbidden=["call now"], whole_words=True, collapse_whitespace=True)
    assert grade(evaluator, "Please CALL\n NOW").passed is False
    assert grade(evaluator, "recall nowhere").passed is True


def test_duplicate_keywords_count_as_written() -> None:
    verdict = grade(contains(["a", "a", "b"]), "a")
    assert verdict.score == pytest.approx(2 / 3)


def test_keywords_that_differ_only_in_case_are_each_found() -> None:
    verdict = grade(contains(["Hello", "hello"]), "HELLO")
    assert (verdict.passed, verdict.score) == (True, 1.0)


# Options are checked when the evaluator is made.


@pytest.mark.parametrize(
    ("keywords", "fragment"),
    [
        (4, "got 4"),
        ({"a": 1}, "got {'a': 1}"),
        (["a", 4], "got 4"),
        (None, "got None"),
        ([["a"]], "got ['a']"),
    ],
)
def test_keywords_must_be_a_string_or_a_list_of_strings(keywords: object, fragment: str) -> None:
    with pytest.raises((TypeError, ValueError), match="keywords") as caught:
        contains(keywords)  # type: ignore[arg-type]
    assert fragment in str(caught.value)


def test_a_number_keyword_error_suggests_quoting() -> None:
    with pytest.raises(TypeError, match=r"quote it"):
        contains(4)  # type: ignore[arg-type]


def test_empty_keywords_are_an_error() -> None:
    with pytest.raises(ValueError, match="empty"):
        contains(["a", ""])
    with pytest.raises(ValueError, match="empty"):
        contains([], forbidden=[""])


def test_forbidden_must_be_a_string_or_a_list_of_strings() -> None:
    with pytest.raises(TypeError, match="forbidden"):
        contains([], forbidden=3)  # type: ignore[arg-type]


@pytest.mark.parametrize("option", ["match_all", "ignore_case", "whole_words", "collapse_whitespace", "casefold"])
def test_flags_must_be_booleans(option: str) -> None:
    with pytest.raises(TypeError, match=rf"{option} must be true or false, got 'no'"):
        contains(["a"], **{option: "no"})  # type: ignore[arg-type]


def test_casefold_without_ignore_case_is_an_error() -> None:
    with pytest.raises(ValueError, match="casefold"):
        contains(["a"], ignore_case=False, casefold=True)


def test_the_evaluator_is_named_contains_and_runs_inline() -> None:
    evaluator = contains(["a"])
    assert evaluator.name == "contains"
    assert evaluator.inline is True


def test_factory_docstring_first_line_describes_it() -> None:
    assert contains.__doc__ is not None
    assert "keywords" in contains.__doc__.splitlines()[0]
