"""The HTML report of agent runs in a real Chromium: a case's trajectory step by step with its tool error
marked, the attempt strip of a repeated case, its attempts in the details, the Flaky filter and the
pass rate's interval drawn as a band."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_eval._report import html
from tests.core.test_report_html_browser import Page, browser, chromium  # noqa: F401 - fixtures
from tests.data.reports.trajectories import HOSTILE, report

pytestmark = pytest.mark.browser

SHOWN = HOSTILE.replace("\x1b", "\\x1b").replace("\x07", "\\x07")


@pytest.fixture(scope="module")
def report_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("agent-runs-html") / "report.html"
    html.write(report(), path)
    return path


@pytest.fixture
def page(browser: Any, report_page: Path) -> Iterator[Page]:  # noqa: F811 - the fixture imported above
    loaded = Page(browser, report_page)
    yield loaded
    loaded.page.close()


def test_an_expanded_case_shows_its_trajectory_in_order_with_the_tool_error_marked(page: Page) -> None:
    page.page.click("tr.case:has-text('uses tools') button.toggle")
    steps = page.page.locator("tr.details .trajectory li.step")
    page.expect(steps).to_have_count(3)
    heading = page.page.locator("tr.details .trajectory h3").text_content()
    assert heading == "Trajectory (3 steps, 1 failed)"
    assert steps.locator(".step-number").all_text_contents() == ["1", "2", "3"]
    assert steps.locator(".tool").all_text_contents() == ["get_warranty", f"delete_account {SHOWN}", "search"]
    assert steps.nth(0).locator("pre").all_text_contents() == ['{\n  "product": "kettle"\n}', "2 years"]
    failed = steps.nth(1)
    assert "failed" in (failed.get_attribute("class") or "")
    page.expect(failed.locator(".pill.error")).to_have_text("TOOL ERROR")
    assert failed.locator("pre.error-text").text_content() == f"permission denied {SHOWN}"
    assert steps.nth(0).locator(".pill").count() == 0 and steps.nth(2).locator(".pill").count() == 0
    raw = steps.nth(2)
    assert raw.locator(".step-label").first.text_content() == "Arguments (raw text: not valid JSON)"
    assert raw.locator("pre.raw").text_content() == '{"q": "kettle'
    assert page.page.locator("script").count() == 2
    assert page.pwned() is None and page.errors == []


def test_a_repeated_case_shows_an_attempt_strip_and_a_flaky_tag_in_place_of_the_pill(page: Page) -> None:
    row = page.page.locator("tr.case:has-text('flaky')")
    assert row.locator(".pill").count() == 0
    squares = row.locator(".strip .square")
    page.expect(squares).to_have_count(3)
    titles = [squares.nth(i).get_attribute("title") for i in range(3)]
    assert titles == ["attempt 1: passed, score 1.00", "attempt 2: failed, score 0.00", "attempt 3: passed, score 1.00"]
    assert [squares.nth(i).get_attribute("class") for i in range(3)] == [
        "square passed",
        "square failed",
        "square passed",
    ]
    page.expect(row.locator(".tally")).to_have_text("2/3")
    page.expect(row.locator(".tag.flaky")).to_have_text("flaky")
    assert page.page.locator("tr.case:has-text('uses tools') .pill").text_content() == "FAIL"


def test_the_attempts_are_listed_in_the_details_and_open_to_their_trajectory(page: Page) -> None:
    page.page.click("tr.case:has-text('flaky') button.toggle")
    attempts = page.page.locator("tr.details section.attempts details.attempt")
    page.expect(attempts).to_have_count(3)
    assert attempts.locator(".attempt-number").all_text_contents() == ["Attempt 1", "Attempt 2", "Attempt 3"]
    assert attempts.locator(".pill").all_text_contents() == ["PASS", "FAIL", "PASS"]
    assert attempts.nth(1).locator(".trajectory").count() == 0  # built when opened
    attempts.nth(1).locator("summary").click()
    second = attempts.nth(1)
    page.expect(second.locator(".trajectory li.step")).to_have_count(3)
    assert second.locator(".block:has(h3:text-is('Output')) pre").text_content() == f"attempt two {SHOWN}"
    assert second.locator("table.evaluations td.name").all_text_contents() == ["says", "max_steps"]
    page.expect(second.locator(".trajectory li.step.failed .pill.error")).to_have_text("TOOL ERROR")
    # the case's own trajectory is its attempts': not shown twice
    assert page.page.locator("tr.details > td > .trajectory").count() == 0
    assert page.pwned() is None and page.errors == []


def test_the_flaky_filter_shows_only_flaky_cases(page: Page) -> None:
    page.page.click("button[data-status='flaky']")
    page.shown("1 of 4 cases")
    page.expect_names(["flaky"])
    page.page.click("button[data-status='all']")
    page.shown("4 cases")


def test_the_search_finds_a_case_by_the_name_of_a_tool_it_called(page: Page) -> None:
    page.page.fill("#search", "delete_account")  # the flaky case's failing attempt made that call too
    page.shown("2 of 4 cases")
    page.expect_names(["uses tools", "flaky"])


def test_the_pass_rate_interval_is_drawn_as_a_band_over_the_track(page: Page) -> None:
    rate = page.page.locator(".rate.case-rate")
    page.expect(rate.locator(".figure")).to_have_text("Pass rate 50.0% (95% CI 15.0–85.0%)")
    track = rate.locator(".track").bounding_box()
    band = rate.locator(".band").bounding_box()
    assert track is not None and band is not None
    assert abs((band["x"] - track["x"]) / track["width"] - 0.150) < 0.02
    assert abs(band["width"] / track["width"] - 0.700) < 0.02
    assert band["height"] > 0
    page.expect(page.page.locator(".rate.attempt-rate .figure")).to_contain_text("Attempt pass rate 50.0% (95% CI")
