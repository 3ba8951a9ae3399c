"""The report's totals of what the agents did: their tokens and cost, summed over the cases."""

from __future__ import annotations

import json

from agent_eval import EvalReport, Usage
from tests.data.reports.trajectories import report, result


def test_agent_usage_sums_every_case_and_every_attempt_of_a_repeated_one() -> None:
    totals = report()
    # 1000 + 234 from the tool-using case; the flaky case's usage is its attempts' (10 + 5, 20 + 5)
    assert totals.agent_usage == Usage(1030, 244)
    assert totals.agent_usage.total_tokens == 1274
    assert totals.cost_usd is not None and abs(totals.cost_usd - 0.0153) < 1e-12


def test_without_any_usage_or_cost_both_totals_are_none() -> None:
    plain = EvalReport([result("a", "passed"), result("b", "failed")])
    assert plain.agent_usage is None and plain.cost_usd is None
    data = plain.to_dict()
    assert data["agent_usage"] is None and data["cost_usd"] is None


def test_a_cost_that_is_not_a_finite_number_is_left_out_of_the_sum() -> None:
    costs = EvalReport(
        [result("a", "passed", cost_usd=0.5), result("b", "passed", cost_usd=float("nan")), result("c", "passed")]
    )
    assert costs.cost_usd == 0.5
    assert EvalReport([result("a", "passed", cost_usd=float("inf"))]).cost_usd is None


def test_the_totals_are_written_as_derived_keys_and_the_report_reads_back() -> None:
    data = json.loads(report().to_json())
    assert data["agent_usage"] == {"input_tokens": 1030, "output_tokens": 244, "total_tokens": 1274}
    assert abs(data["cost_usd"] - 0.0153) < 1e-12
    assert data["cases"][0]["tool_calls"][1]["error"].startswith("permission denied")
    assert data["cases"][0]["usage"] == {"input_tokens": 1000, "output_tokens": 234, "total_tokens": 1234}
    back = EvalReport.from_dict(data)
    assert back.agent_usage == report().agent_usage
    assert back.cases[0].tool_calls == report().cases[0].tool_calls
