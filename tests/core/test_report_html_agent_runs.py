"""The HTML report's data and summary for agent runs: tool calls and attempts made to show, the pass
rate's interval drawn on a track, the agents' tokens and cost, and a Flaky filter when a case is flaky."""

from __future__ import annotations

import json
import re

from agent_eval import EvalReport, ToolCall
from agent_eval._report import html
from agent_eval._text import DISPLAY_LIMIT
from tests.core.test_report_html import collect
from tests.data.reports.trajectories import HOSTILE, repeated_report, report, result


def visible_text(page: str) -> str:
    return " ".join(" ".join(collect(page).text).split())


def test_tool_calls_travel_with_their_order_and_raw_arguments_are_marked() -> None:
    data = html.page_data(report())
    calls = data["cases"][0]["tool_calls"]
    assert [call["name"] for call in calls] == [
        "get_warranty",
        "delete_account [/b] \\x1b]0;pwned\\x07 </script><script>window.__pwned=1</script>",
        "search",
    ]
    assert [call["raw"] for call in calls] == [False, False, True]
    assert calls[0]["arguments"] == {"product": "kettle"} and calls[0]["result"] == "2 years"
    assert calls[1]["error"] == "permission denied [/b] \\x1b]0;pwned\\x07 </script><script>window.__pwned=1</script>"
    assert calls[2]["arguments"] == '{"q": "kettle'


def test_a_huge_tool_result_arrives_as_its_json_text_capped() -> None:
    huge = ToolCall("dump", {"rows": list(range(20))}, result={"rows": ["x" * 100] * 1000})
    [case] = html.page_data(EvalReport([result("big", "passed", tool_calls=(huge,))]))["cases"]
    shown = case["tool_calls"][0]["result"]
    assert isinstance(shown, str) and shown.startswith('{"rows": ["xxx')
    assert len(shown) < DISPLAY_LIMIT + 200 and "[cut: " in shown
    assert case["tool_calls"][0]["arguments"] == {"rows": list(range(20))}


def test_every_attempt_travels_with_its_output_evaluations_and_tool_calls() -> None:
    [flaky, _] = html.page_data(repeated_report())["cases"]
    assert flaky["flaky"] is True
    attempts = flaky["attempts"]
    assert [attempt["status"] for attempt in attempts] == ["passed", "failed", "passed"]
    assert [len(attempt["tool_calls"]) for attempt in attempts] == [1, 3, 0]
    assert [e["name"] for e in attempts[1]["evaluations"]] == ["says", "max_steps"]
    assert attempts[1]["output"] == "attempt two [/b] \\x1b]0;pwned\\x07 </script><script>window.__pwned=1</script>"
    assert attempts[1]["tool_calls"][2]["raw"] is True


def test_the_embedded_data_holds_no_markup_character_even_from_tools() -> None:
    page = collect(html.render(report()))
    data = page.scripts[0][1]
    assert not re.search(r"[<>&]", data)
    assert json.loads(data)["cases"][0]["tool_calls"][1]["name"].startswith("delete_account")
    assert HOSTILE not in html.render(report())


def test_the_pass_rate_is_drawn_on_a_track_with_its_interval_and_said_in_text() -> None:
    page = html.render(report())
    assert "Pass rate 50.0% (95% CI 15.0–85.0%)" in visible_text(page)
    band = re.search(r'<i class="band" style="left:([\d.]+)%;width:([\d.]+)%" title="95% CI 15.0–85.0%">', page)
    assert band is not None
    assert abs(float(band.group(1)) - 15.004) < 0.01 and abs(float(band.group(2)) - 69.992) < 0.01
    assert '<i class="mark" style="left:50.000%">' in page


def test_with_repeats_the_attempt_pass_rate_pass_at_1_and_pass_hat_k_are_shown() -> None:
    text = visible_text(html.render(repeated_report()))
    assert re.search(r"Attempt pass rate 83\.3% \(95% CI [\d.]+–[\d.]+%\)", text), text
    assert "pass@1 83.3% · pass^3 50.0%" in text
    assert "Attempt pass rate" not in visible_text(html.render(EvalReport([result("a", "passed")])))


def test_the_agents_tokens_and_cost_are_in_the_summary_and_the_run_details() -> None:
    text = visible_text(html.render(report()))
    assert "1,274 Agent tokens $0.0153 Agent cost" in text
    assert "Agent token usage input_tokens 1,030, output_tokens 244" in text
    plain = visible_text(html.render(EvalReport([result("a", "passed")])))
    assert "Agent tokens" not in plain and "Agent cost" not in plain


def test_a_flaky_filter_is_offered_only_when_some_case_is_flaky() -> None:
    def buttons(shown: EvalReport) -> list[str | None]:
        tags = collect(html.render(shown)).tags
        return [attrs.get("data-status") for tag, attrs in tags if tag == "button" and "data-status" in attrs]

    assert buttons(report())[-1] == "flaky"
    assert "flaky" not in buttons(EvalReport([result("a", "passed")]))
    assert '<button type="button" data-status="flaky" aria-pressed="false">Flaky<span class="count">1</span>' in (
        html.render(report())
    )
