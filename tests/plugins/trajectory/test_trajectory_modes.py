"""trajectory_match, spec first: each mode and argument rule, the scores, and the reasons."""

from __future__ import annotations

from typing import Any

import pytest
from trajectory_support import call, ctx, want

from agent_eval import ToolCall, Verdict
from agent_eval_trajectory import trajectory_match

MODES = ("strict", "unordered", "subset", "superset")


def grade(expected: list[Any], made: list[ToolCall], **options: Any) -> Verdict:
    return trajectory_match(expected, **options)(None, ctx(*made))


def outcome(expected: list[Any], made: list[ToolCall], **options: Any) -> tuple[bool, float]:
    verdict = grade(expected, made, **options)
    assert verdict.score is not None
    return verdict.passed, verdict.score


# --- modes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_two_empty_lists_pass_with_score_one(mode: str) -> None:
    verdict = grade([], [], mode=mode)
    assert (verdict.passed, verdict.score) == (True, 1.0)
    assert verdict.reason == "no calls expected and none made"


@pytest.mark.parametrize("mode", MODES)
def test_the_same_calls_in_the_same_order_pass_every_mode(mode: str) -> None:
    made = [call("search", {"q": "kettle"}), call("get_warranty", {"product": "kettle"})]
    expected = [want("search", {"q": "kettle"}), want("get_warranty", {"product": "kettle"})]
    assert outcome(expected, made, mode=mode) == (True, 1.0)


def test_strict_fails_calls_in_another_order_and_says_which() -> None:
    verdict = grade([want("lookup"), want("search")], [call("search"), call("lookup")], mode="strict")
    assert (verdict.passed, verdict.score) == (False, 0.5)
    assert verdict.reason == "out of order: expected lookup before search; 1 of 2 expected calls in order (2 made)"


def test_strict_scores_the_longest_common_subsequence_over_the_longer_list() -> None:
    # b, c keep their order; a was made last although expected first: 2 of 3.
    verdict = grade([want("a"), want("b"), want("c")], [call("b"), call("c"), call("a")], mode="strict")
    assert (verdict.passed, verdict.score) == (False, pytest.approx(2 / 3))
    assert verdict.reason is not None
    assert verdict.reason.startswith("out of order: expected a before b;")
    # Four made, two of them in the expected order: 2 / max(2, 4).
    assert outcome([want("a"), want("b")], [call("x"), call("a"), call("y"), call("b")], mode="strict") == (False, 0.5)


def test_strict_names_the_missing_and_the_extra_call() -> None:
    verdict = grade([want("a"), want("b")], [call("a"), call("x", {"id": 7})], mode="strict")
    assert verdict.reason == 'missing call 2 of 2: b; extra call: x({"id": 7}); 1 of 2 expected calls in order (2 made)'


@pytest.mark.parametrize("mode", ["unordered", "subset", "superset"])
def test_the_same_calls_in_another_order_pass_every_mode_but_strict(mode: str) -> None:
    made = [call("b", {"n": 2}), call("a", {"n": 1}), call("b", {"n": 3})]
    expected = [want("b", {"n": 3}), want("a", {"n": 1}), want("b", {"n": 2})]
    assert outcome(expected, made, mode=mode) == (True, 1.0)
    assert outcome(expected, made, mode="strict")[0] is False


def test_unordered_counts_repeated_calls_as_a_multiset() -> None:
    assert outcome([want("a")], [call("a"), call("a")], mode="unordered") == (False, 0.5)
    assert outcome([want("a"), want("a")], [call("a")], mode="unordered") == (False, 0.5)
    assert outcome([want("a"), want("a")], [call("a"), call("a")], mode="unordered") == (True, 1.0)


def test_unordered_scores_pairs_over_the_longer_list_and_names_both_problems() -> None:
    verdict = grade([want("a"), want("b"), want("c")], [call("c"), call("x")], mode="unordered")
    assert (verdict.passed, verdict.score) == (False, pytest.approx(1 / 3))
    assert verdict.reason == (
        "missing call 1 of 3: a (and 1 more missing); extra call: x(); 1 of 3 expected calls matched (2 made)"
    )


def test_subset_passes_when_every_call_made_was_expected() -> None:
    assert outcome([want("a"), want("b")], [call("b")], mode="subset") == (True, 1.0)
    assert outcome([want("a")], [], mode="subset") == (True, 1.0)


def test_subset_scores_over_the_calls_made_and_names_only_the_extra_ones() -> None:
    made = [call("a"), call("delete_user", {"id": 7}), call("b"), call("c")]
    verdict = grade([want("a"), want("b"), want("c"), want("d")], made, mode="subset")
    assert (verdict.passed, verdict.score) == (False, 0.75)
    assert verdict.reason == 'extra call: delete_user({"id": 7}); 3 of 4 calls made were expected'


def test_subset_counts_repeated_calls() -> None:
    assert outcome([want("a")], [call("a"), call("a")], mode="subset") == (False, 0.5)


def test_superset_passes_when_every_expected_call_was_made() -> None:
    assert outcome([want("b"), want("a")], [call("a"), call("x"), call("b")], mode="superset") == (True, 1.0)
    assert outcome([], [call("x")], mode="superset") == (True, 1.0)


def test_superset_scores_over_the_calls_expected_and_names_only_the_missing_ones() -> None:
    expected = [want("search", {"q": "kettle"}), want("a"), want("b"), want("c")]
    verdict = grade(expected, [call("a"), call("x"), call("b"), call("c")], mode="superset")
    assert (verdict.passed, verdict.score) == (False, 0.75)
    assert verdict.reason == 'missing call 1 of 4: search({"q": "kettle"}); 3 of 4 expected calls made'


def test_superset_counts_repeated_calls() -> None:
    assert outcome([want("a"), want("a")], [call("a")], mode="superset") == (False, 0.5)


def test_mode_defaults_to_strict_and_args_to_exact() -> None:
    assert outcome([want("a"), want("b")], [call("b"), call("a")]) == (False, 0.5)
    assert outcome([want("a", {"q": 1})], [call("a", {"q": 1, "n": 2})], mode="unordered") == (False, 0.0)


# --- optimal pairing -----------------------------------------------------------------------------

#: First-fit pairing takes f(a=1, b=2) for the first expected call, f(a=1); f(a=1) then fits nothing.
GREEDY_MADE = [call("f", {"a": 1, "b": 2}), call("f", {"a": 1})]
GREEDY_EXPECTED = [want("f", {"a": 1}), want("f", {"a": 1, "b": 2})]


@pytest.mark.parametrize("mode", ["unordered", "subset", "superset"])
def test_parallel_calls_of_one_tool_are_paired_optimally_where_first_fit_fails(mode: str) -> None:
    assert outcome(GREEDY_EXPECTED, GREEDY_MADE, mode=mode, args="superset") == (True, 1.0)


@pytest.mark.parametrize("mode", ["unordered", "subset", "superset"])
def test_the_mirror_of_the_first_fit_trap_passes_under_args_subset(mode: str) -> None:
    made = [call("f", {"a": 1}), call("f", {"a": 1, "b": 2})]
    expected = [want("f", {"a": 1, "b": 2}), want("f", {"a": 1})]
    assert outcome(expected, made, mode=mode, args="subset") == (True, 1.0)


def test_strict_keeps_the_order_even_when_an_unordered_pairing_exists() -> None:
    # The only complete pairing crosses: made 1 with expected 2, made 2 with expected 1.
    assert outcome(GREEDY_EXPECTED, GREEDY_MADE, mode="strict", args="superset") == (False, 0.5)


# --- argument rules ------------------------------------------------------------------------------

RULE_CASES = [
    # (rule, made arguments, expected arguments, matches)
    ("exact", {"q": "kettle"}, {"q": "kettle"}, True),
    ("exact", {"q": "kettle", "page": 2}, {"q": "kettle"}, False),
    ("exact", {}, {"q": "kettle"}, False),
    ("exact", {"q": "toaster"}, {"q": "kettle"}, False),
    ("ignore", {"q": "toaster", "page": 2}, {"q": "kettle"}, True),
    ("ignore", {}, {"q": "kettle"}, True),
    ("subset", {"q": "kettle"}, {"q": "kettle", "page": 2}, True),
    ("subset", {}, {"q": "kettle"}, True),
    ("subset", {"q": "kettle", "page": 2}, {"q": "kettle"}, False),
    ("subset", {"q": "toaster"}, {"q": "kettle", "page": 2}, False),
    ("superset", {"q": "kettle", "page": 2}, {"q": "kettle"}, True),
    ("superset", {"q": "kettle"}, {}, True),
    ("superset", {"q": "kettle"}, {"q": "kettle", "page": 2}, False),
    ("superset", {"q": "toaster", "page": 2}, {"q": "kettle"}, False),
]


@pytest.mark.parametrize(("rule", "made", "expected", "matches"), RULE_CASES)
@pytest.mark.parametrize("mode", MODES)
def test_argument_rules_compare_what_was_made_with_what_was_expected(
    mode: str, rule: str, made: dict[str, Any], expected: dict[str, Any], matches: bool
) -> None:
    passed, score = outcome([want("search", expected)], [call("search", made)], mode=mode, args=rule)
    assert (passed, score) == ((True, 1.0) if matches else (False, 0.0))


@pytest.mark.parametrize("rule", ["exact", "ignore", "subset", "superset"])
def test_a_call_of_another_tool_never_matches(rule: str) -> None:
    assert outcome([want("search", {})], [call("lookup", {})], mode="unordered", args=rule) == (False, 0.0)


def test_nested_values_are_compared_whole() -> None:
    made = [call("search", {"filters": {"brand": "acme", "color": "red"}, "q": "kettle"})]
    expected = [want("search", {"filters": {"brand": "acme"}})]
    assert outcome(expected, made, mode="unordered", args="superset") == (False, 0.0)
    whole = [want("search", {"filters": {"color": "red", "brand": "acme"}})]
    assert outcome(whole, made, mode="unordered", args="superset") == (True, 1.0)


@pytest.mark.parametrize(
    ("made", "expected", "matches"),
    [
        (True, 1, False),  # JSON's true is not 1
        (1, 1.0, True),
        ([1, 2], (1, 2), True),
        ([1, 2], [2, 1], False),
        ({"a": [True]}, {"a": [1]}, False),
        (float("nan"), float("nan"), True),
        (None, None, True),
        ("1", 1, False),
        ([], {}, False),
    ],
)
def test_values_are_equal_as_json_values_are(made: Any, expected: Any, matches: bool) -> None:
    verdict = grade([want("f", {"v": expected})], [call("f", {"v": made})], mode="unordered")
    assert verdict.passed is matches


def test_an_expected_call_without_args_matches_any_arguments_even_under_exact() -> None:
    made = [call("search", {"q": "kettle"}), call("search", "{not json")]
    assert outcome([want("search"), want("search")], made, mode="unordered", args="exact") == (True, 1.0)
    # args: {} is different: a call without arguments.
    assert outcome([want("search", {})], [call("search", {"q": "kettle"})], mode="unordered") == (False, 0.0)


def test_arguments_kept_as_raw_text_never_match_expected_arguments_and_the_reason_says_so() -> None:
    made = [call("search", '{"q": kettle')]
    for rule in ("exact", "subset", "superset"):
        verdict = grade([want("search", {"q": "kettle"})], made, mode="unordered", args=rule)
        assert (verdict.passed, verdict.score) == (False, 0.0)
        assert verdict.reason == (
            'missing call 1 of 1: search({"q": "kettle"}) (search was called with arguments not valid JSON: '
            "'{\"q\": kettle'); extra call: search('{\"q\": kettle') (arguments not valid JSON); "
            "0 of 1 expected call matched (1 made)"
        )
    assert outcome([want("search", {"q": "kettle"})], made, mode="unordered", args="ignore") == (True, 1.0)


def test_a_missing_call_names_the_call_of_that_tool_made_instead() -> None:
    verdict = grade([want("search", {"q": "kettle"})], [call("search", {"q": "kettel"})], mode="superset")
    assert verdict.reason == (
        'missing call 1 of 1: search({"q": "kettle"}) (search was called with other arguments: {"q": "kettel"}); '
        "0 of 1 expected call made"
    )


# --- calls that raised, and what expected may hold ---------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_call_that_raised_is_a_call_made(mode: str) -> None:
    failed = call("search", {"q": "kettle"}, error="TimeoutError: upstream")
    assert outcome([want("search", {"q": "kettle"})], [failed], mode=mode) == (True, 1.0)


def test_a_call_that_raised_is_an_extra_call_when_not_expected() -> None:
    failed = call("delete_user", {"id": 7}, error="PermissionError")
    verdict = grade([want("a")], [call("a"), failed], mode="subset")
    assert (verdict.passed, verdict.score) == (False, 0.5)
    assert verdict.reason is not None
    assert verdict.reason.startswith('extra call: delete_user({"id": 7})')


def test_expected_calls_may_be_bare_names_or_recorded_tool_calls() -> None:
    made = [call("search", {"q": "kettle"}), call("get_warranty", {"product": "kettle"})]
    recorded = [ToolCall("search", {"q": "kettle"}, result=["k1"]), "get_warranty"]
    assert outcome(recorded, made) == (True, 1.0)
    assert outcome([ToolCall("search", {"q": "toaster"}), "get_warranty"], made)[0] is False


def test_verdict_metadata_counts_the_calls() -> None:
    verdict = grade([want("a"), want("b")], [call("a"), call("c"), call("d")], mode="unordered")
    assert verdict.metadata == {"matched": 1, "expected": 2, "made": 3}


# --- reasons stay short --------------------------------------------------------------------------


def test_reasons_shorten_long_arguments_and_names() -> None:
    huge = {"text": "x" * 10_000}
    verdict = grade([want("t" * 500, huge)] * 50, [call("u" * 500, huge)] * 50, mode="unordered")
    assert verdict.reason is not None
    assert len(verdict.reason) < 400
    assert "…" in verdict.reason
    assert "(and 49 more missing)" in verdict.reason
    assert "(and 49 more extra)" in verdict.reason


def test_a_passing_reason_gives_the_counts() -> None:
    made = [call("a"), call("x"), call("b")]
    assert grade([want("a"), want("b")], made, mode="superset").reason == "2 of 2 expected calls made"
    assert grade([want("a"), want("b")], made[:1], mode="subset").reason == "1 of 1 call made was expected"
    assert grade(["a", "b"], made[::2], mode="strict").reason == "2 of 2 expected calls in order (2 made)"
