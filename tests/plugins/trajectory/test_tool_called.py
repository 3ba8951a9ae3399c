"""tool_called and tool_not_called: whether a tool was called, how often, and with what."""

from __future__ import annotations

from typing import Any

import pytest
from trajectory_support import call, ctx

from agent_eval import ToolCall, Verdict
from agent_eval_trajectory import tool_called, tool_not_called

KETTLE = call("search", {"q": "kettle", "page": 1})


def grade(made: list[ToolCall], name: str = "search", **options: Any) -> Verdict:
    return tool_called(name, **options)(None, ctx(*made))


def test_passes_when_the_tool_was_called_once_or_more() -> None:
    verdict = grade([call("lookup"), KETTLE])
    assert (verdict.passed, verdict.score, verdict.reason) == (True, 1.0, "search called 1 time")
    assert grade([KETTLE, KETTLE]).passed


def test_fails_when_the_tool_was_not_called_and_lists_the_tools_that_were() -> None:
    verdict = grade([call("lookup"), call("get_warranty"), call("lookup")])
    assert (verdict.passed, verdict.score) == (False, 0.0)
    assert verdict.reason == "search was not called; tools called: lookup, get_warranty"
    assert grade([]).reason == "search was not called; no tool was called"


def test_by_default_a_call_needs_at_least_the_arguments_given() -> None:
    assert grade([KETTLE], args={"q": "kettle"}).passed
    assert grade([KETTLE], args={"q": "kettle", "page": 1}).passed
    verdict = grade([KETTLE], args={"q": "toaster"})
    assert (verdict.passed, verdict.score) == (False, 0.0)
    assert verdict.reason == (
        'search with at least {"q": "toaster"} was not called; '
        'search was called with other arguments: {"q": "kettle", "page": 1}'
    )


@pytest.mark.parametrize(
    ("rule", "args", "passes"),
    [
        ("exact", {"q": "kettle", "page": 1}, True),
        ("exact", {"q": "kettle"}, False),
        ("subset", {"q": "kettle", "page": 1, "sort": "price"}, True),
        ("subset", {"q": "kettle"}, False),
        ("superset", {"q": "kettle"}, True),
        ("superset", {"q": "kettle", "sort": "price"}, False),
        ("superset", {}, True),
    ],
)
def test_args_match_compares_the_call_made_with_the_args_given(rule: str, args: dict[str, Any], passes: bool) -> None:
    assert grade([KETTLE], args=args, args_match=rule).passed is passes


def test_exact_with_no_arguments_wants_a_call_without_arguments() -> None:
    assert grade([call("search")], args={}, args_match="exact").passed
    assert not grade([KETTLE], args={}, args_match="exact").passed


def test_values_compare_as_json_values_and_nested_values_whole() -> None:
    assert not grade([call("search", {"exact": True})], args={"exact": 1}).passed
    assert grade([call("search", {"page": 1})], args={"page": 1.0}).passed
    nested = call("search", {"filters": {"brand": "acme", "color": "red"}})
    assert not grade([nested], args={"filters": {"brand": "acme"}}).passed


def test_raw_text_arguments_count_without_args_and_never_match_args() -> None:
    raw = call("search", '{"q": kettle')
    assert grade([raw]).passed
    verdict = grade([raw], args={"q": "kettle"})
    assert not verdict.passed
    assert verdict.reason == (
        'search with at least {"q": "kettle"} was not called; '
        "search was called with arguments not valid JSON: '{\"q\": kettle'"
    )


def test_a_call_that_raised_counts() -> None:
    assert grade([call("search", {"q": "kettle"}, error="TimeoutError")], args={"q": "kettle"}).passed


def test_times_asks_for_exactly_that_many_matching_calls() -> None:
    other = call("search", {"q": "toaster"})
    assert grade([KETTLE, other, KETTLE], args={"q": "kettle"}, times=2).passed
    too_few = grade([KETTLE, other], args={"q": "kettle"}, times=2)
    assert (too_few.passed, too_few.score) == (False, 0.5)
    assert too_few.reason == (
        'search with at least {"q": "kettle"} called 1 time, expected exactly 2 times; '
        'search was called with other arguments: {"q": "toaster"}'
    )
    too_many = grade([KETTLE] * 4, times=2)
    assert (too_many.passed, too_many.score) == (False, 0.5)
    assert too_many.reason == "search called 4 times, expected exactly 2 times"


def test_times_zero_passes_only_when_no_matching_call_was_made() -> None:
    assert grade([call("search", {"q": "toaster"})], args={"q": "kettle"}, times=0).passed
    verdict = grade([KETTLE, KETTLE], args={"q": "kettle"}, times=0)
    assert (verdict.passed, verdict.score) == (False, 0.0)
    assert verdict.reason == 'search with at least {"q": "kettle"} called 2 times, expected never'


def test_min_and_max_times_bound_the_count() -> None:
    assert not grade([KETTLE], min_times=2).passed
    assert grade([KETTLE] * 2, min_times=2).passed
    assert grade([KETTLE] * 3, min_times=2, max_times=3).passed
    over = grade([KETTLE] * 4, min_times=2, max_times=3)
    assert (over.passed, over.score, over.reason) == (False, 0.75, "search called 4 times, expected 2 to 3 times")
    under = grade([KETTLE] * 1, min_times=4, max_times=5)
    assert (under.passed, under.score) == (False, 0.25)
    assert grade([], min_times=0, max_times=1).passed
    at_most = grade([KETTLE] * 3, min_times=0, max_times=1)
    assert (at_most.passed, at_most.reason) == (False, "search called 3 times, expected at most 1 time")


def test_verdict_metadata_holds_the_count() -> None:
    assert grade([KETTLE, call("lookup"), KETTLE]).metadata == {"count": 2}


def test_tool_not_called_passes_when_the_tool_was_never_called() -> None:
    verdict = tool_not_called("delete_user")(None, ctx(call("search"), call("lookup")))
    assert (verdict.passed, verdict.score, verdict.reason) == (True, 1.0, "delete_user was not called")


def test_tool_not_called_fails_on_any_call_of_the_tool_even_one_that_raised() -> None:
    made = [call("search"), call("delete_user", {"id": 7}, error="PermissionError"), call("delete_user", {"id": 8})]
    verdict = tool_not_called("delete_user")(None, ctx(*made))
    assert (verdict.passed, verdict.score) == (False, 0.0)
    assert verdict.reason == 'delete_user was called 2 times, first: delete_user({"id": 7})'
    once = tool_not_called("delete_user")(None, ctx(made[1]))
    assert once.reason == 'delete_user was called 1 time: delete_user({"id": 7})'
