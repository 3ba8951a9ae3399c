"""Invalid options are refused by the factories, in one sentence naming the value and the fix."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from agent_eval_trajectory import (
    max_cost,
    max_latency,
    max_steps,
    max_tokens,
    tool_called,
    tool_not_called,
    trajectory_match,
)

INVALID: list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any], type[Exception], str]] = [
    # trajectory_match
    (
        trajectory_match,
        ([],),
        {"mode": "strcit"},
        ValueError,
        "unknown mode 'strcit'. Did you mean 'strict'? Choose one of: strict, unordered, subset, superset",
    ),
    (
        trajectory_match,
        ([],),
        {"args": "exakt"},
        ValueError,
        "unknown args rule 'exakt'. Did you mean 'exact'? Choose one of: exact, ignore, subset, superset",
    ),
    (trajectory_match, ([],), {"mode": 1}, TypeError, "mode must be one of strict, unordered, subset, superset, got 1"),
    (
        trajectory_match,
        ([],),
        {"args": {"q": "kettle"}},
        TypeError,
        "args must be one of exact, ignore, subset, superset (how each call's arguments are compared; "
        "the arguments go in each expected call), got {'q': 'kettle'}",
    ),
    (
        trajectory_match,
        ("search",),
        {},
        TypeError,
        "expected must be a list of calls such as [{name: search, args: {q: kettle}}], got 'search'",
    ),
    (
        trajectory_match,
        ({"name": "search"},),
        {},
        TypeError,
        "expected must be a list of calls such as [{name: search, args: {q: kettle}}] (one call goes in a list too), "
        "got {'name': 'search'}",
    ),
    (
        trajectory_match,
        ([{"name": "a"}, {"args": {"q": "kettle"}}],),
        {},
        ValueError,
        "expected call 2 has no name: give each call one, such as {name: search}, got {'args': {'q': 'kettle'}}",
    ),
    (
        trajectory_match,
        ([{"name": "search", "arguments": {"q": "kettle"}}],),
        {},
        ValueError,
        "expected call 1 has an unknown key 'arguments'. Did you mean 'args'? A call has: name, args",
    ),
    (
        trajectory_match,
        ([{"name": "search", "args": ["kettle"]}],),
        {},
        TypeError,
        "expected call 1's args (search) must be a mapping of argument names to values, such as {q: kettle}, "
        "got ['kettle']",
    ),
    (
        trajectory_match,
        ([{"name": ""}],),
        {},
        ValueError,
        "expected call 1's name must be a tool's name, got an empty string",
    ),
    (
        trajectory_match,
        ([{"name": 7}],),
        {},
        TypeError,
        "expected call 1's name must be a tool's name (a string), got 7",
    ),
    (
        trajectory_match,
        ([3],),
        {},
        TypeError,
        "expected call 1 must be a mapping such as {name: search, args: {q: kettle}}, got 3",
    ),
    # tool_called, tool_not_called
    (tool_called, (5,), {}, TypeError, "name must be a tool's name (a string), got 5"),
    (tool_not_called, ("",), {}, ValueError, "name must be a tool's name, got an empty string"),
    (
        tool_called,
        ("search",),
        {"args": "q=kettle"},
        TypeError,
        "args must be a mapping of argument names to values, such as {q: kettle}, got 'q=kettle'",
    ),
    (
        tool_called,
        ("search",),
        {"times": 2, "min_times": 2},
        ValueError,
        "times=2 asks for exactly that many calls: give either times or min_times/max_times",
    ),
    (
        tool_called,
        ("search",),
        {"times": 2, "max_times": 3},
        ValueError,
        "times=2 asks for exactly that many calls: give either times or min_times/max_times",
    ),
    (tool_called, ("search",), {"times": True}, TypeError, "times must be a whole number (how many calls), got True"),
    (tool_called, ("search",), {"times": -1}, ValueError, "times must be at least 0 (how many calls), got -1"),
    (
        tool_called,
        ("search",),
        {"min_times": 1.5},
        TypeError,
        "min_times must be a whole number (how many calls), got 1.5",
    ),
    (
        tool_called,
        ("search",),
        {"min_times": 3, "max_times": 2},
        ValueError,
        "max_times=2 is less than min_times=3: no count can pass",
    ),
    (
        tool_called,
        ("search",),
        {"min_times": 0},
        ValueError,
        "min_times=0 without max_times always passes: give max_times, or use tool_not_called",
    ),
    (
        tool_called,
        ("search",),
        {"args_match": "exact"},
        ValueError,
        "args_match='exact' compares with args: give args (args: {} for a call without arguments)",
    ),
    (
        tool_called,
        ("search",),
        {"args": {"q": "kettle"}, "args_match": "ignore"},
        ValueError,
        "unknown args_match 'ignore' (leave args out to accept any arguments). Choose one of: exact, subset, superset",
    ),
    (
        tool_called,
        ("search",),
        {"args": {"q": "kettle"}, "args_match": "supreset"},
        ValueError,
        "unknown args_match 'supreset'. Did you mean 'superset'? Choose one of: exact, subset, superset",
    ),
    # budgets
    (max_steps, (-1,), {}, ValueError, "n must be at least 0 (the most tool calls allowed), got -1"),
    (max_steps, (2.5,), {}, TypeError, "n must be a whole number (the most tool calls allowed), got 2.5"),
    (max_steps, (True,), {}, TypeError, "n must be a whole number (the most tool calls allowed), got True"),
    (max_steps, ("5",), {}, TypeError, "n must be a whole number (the most tool calls allowed), got '5'"),
    (max_tokens, (-5,), {}, ValueError, "n must be at least 0 (the most tokens allowed, input plus output), got -5"),
    (
        max_latency,
        (0,),
        {},
        ValueError,
        "seconds must be more than 0 (the agent's time allowed, in seconds), got 0",
    ),
    (
        max_latency,
        (float("nan"),),
        {},
        ValueError,
        "seconds must be a finite number (the agent's time allowed, in seconds), got nan",
    ),
    (
        max_latency,
        (float("inf"),),
        {},
        ValueError,
        "seconds must be a finite number (the agent's time allowed, in seconds), got inf",
    ),
    (
        max_latency,
        (False,),
        {},
        TypeError,
        "seconds must be a number (the agent's time allowed, in seconds), got False",
    ),
    (max_cost, (-0.5,), {}, ValueError, "usd must be at least 0 (the most US dollars allowed), got -0.5"),
    (max_cost, (float("inf"),), {}, ValueError, "usd must be a finite number (the most US dollars allowed), got inf"),
    (max_cost, ("0.1",), {}, TypeError, "usd must be a number (the most US dollars allowed), got '0.1'"),
]


@pytest.mark.parametrize(
    ("factory", "args", "kwargs", "error", "message"),
    INVALID,
    ids=[f"{case[0].__name__}-{index}" for index, case in enumerate(INVALID)],
)
def test_invalid_options_are_one_clear_sentence(
    factory: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        factory(*args, **kwargs)


def test_valid_options_build_evaluators() -> None:
    evaluators = [
        trajectory_match([{"name": "search", "args": {"q": "kettle"}}, {"name": "lookup", "args": None}, "get"]),
        tool_called("search", args={"q": "kettle"}, times=0),
        tool_called("search", min_times=0, max_times=2),
        tool_called("search", args={}, args_match="exact"),
        tool_not_called("delete_user"),
        max_steps(0),
        max_latency(0.5),
        max_tokens(10_000),
        max_cost(0),
    ]
    assert all(callable(evaluator) for evaluator in evaluators)
    assert [type(evaluator).name for evaluator in evaluators] == [
        "trajectory_match",
        "tool_called",
        "tool_called",
        "tool_called",
        "tool_not_called",
        "max_steps",
        "max_latency",
        "max_tokens",
        "max_cost",
    ]
