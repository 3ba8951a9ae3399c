"""max_steps, max_latency, max_tokens and max_cost: budgets on what the agent's run used."""

from __future__ import annotations

import pytest
from trajectory_support import call, ctx

from agent_eval import Skip, Usage
from agent_eval_trajectory import max_cost, max_latency, max_steps, max_tokens


def test_max_steps_counts_every_tool_call_including_those_that_raised() -> None:
    made = [call("search"), call("search", error="TimeoutError"), call("lookup")]
    assert max_steps(3)(None, ctx(*made)).reason == "3 calls, at most 3 allowed"
    verdict = max_steps(2)(None, ctx(*made))
    assert (verdict.passed, verdict.score, verdict.reason) == (
        False,
        pytest.approx(2 / 3),
        "3 calls, more than the 2 allowed",
    )


def test_max_steps_zero_allows_no_call() -> None:
    assert max_steps(0)(None, ctx()).passed
    verdict = max_steps(0)(None, ctx(call("search")))
    assert (verdict.passed, verdict.score) == (False, 0.0)


def test_max_latency_compares_the_agents_time_with_the_limit_in_seconds() -> None:
    verdict = max_latency(2)(None, ctx(duration_ms=1500))
    assert (verdict.passed, verdict.score, verdict.reason) == (True, 1.0, "took 1.5 s, at most 2 s allowed")
    over = max_latency(2)(None, ctx(duration_ms=2500))
    assert (over.passed, over.score, over.reason) == (False, 0.8, "took 2.5 s, more than the 2 s allowed")
    assert max_latency(0.5)(None, ctx(duration_ms=120)).reason == "took 120 ms, at most 500 ms allowed"


def test_max_tokens_adds_input_and_output_tokens() -> None:
    assert max_tokens(1500)(None, ctx(usage=Usage(1200, 300))).passed
    verdict = max_tokens(1000)(None, ctx(usage=Usage(1200, 300)))
    assert (verdict.passed, verdict.score) == (False, pytest.approx(2 / 3))
    assert verdict.reason == "1,500 tokens (1,200 in, 300 out), more than the 1,000 allowed"


def test_max_tokens_is_skipped_when_the_agent_reported_no_usage() -> None:
    with pytest.raises(Skip) as skipped:
        max_tokens(1000)(None, ctx())
    assert skipped.value.reason.startswith("the agent reported no token usage")


def test_max_cost_compares_the_cost_in_dollars() -> None:
    verdict = max_cost(0.05)(None, ctx(cost_usd=0.0123))
    assert (verdict.passed, verdict.reason) == (True, "cost $0.0123, at most $0.05 allowed")
    over = max_cost(0.01)(None, ctx(cost_usd=0.02))
    assert (over.passed, over.score, over.reason) == (False, 0.5, "cost $0.02, more than the $0.01 allowed")
    assert max_cost(0)(None, ctx(cost_usd=0.0)).passed


def test_max_cost_is_skipped_when_the_agent_reported_no_cost() -> None:
    with pytest.raises(Skip) as skipped:
        max_cost(1)(None, ctx(usage=Usage(1, 1)))
    assert skipped.value.reason.startswith("the agent reported no cost")


def test_a_cost_that_is_not_a_number_is_an_error_not_a_pass() -> None:
    with pytest.raises(ValueError, match="not a finite number"):
        max_cost(1)(None, ctx(cost_usd=float("nan")))
