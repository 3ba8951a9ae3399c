"""The HTML report in a real Chromium: names keep their words at 420 px, labels agree, controls show as
escapes, and where an error was raised is on the page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_eval._model import EvalReport, EvalResult, Evaluation
from agent_eval._report import html
from tests.core.test_report_html_browser import Page, browser, chromium  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser

NAMES = [
    "greets the customer politely by name",
    "refund policy for damaged items bought online",
    "says which warranty covers accidental damage",
]
WORDS_IN = """
(selector) => Array.from(document.querySelectorAll(selector)).flatMap((element) => {
  const text = element.firstChild;
  let start = 0;
  return text.textContent.split(" ").map((word) => {
    const range = document.createRange();
    range.setStart(text, start);
    range.setEnd(text, start + word.length);
    start += word.length + 1;
    return [word, range.getClientRects().length];
  });
})
"""


@pytest.fixture(scope="module")
def report_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cases = [
        EvalResult(
            NAMES[0], "Say hello", output="hello \x1b[31mred\x1b[0m \x1b]0;title\x07", status="passed", score=1.0,
            reason="found 'hello'", evaluations=(Evaluation("says", "passed", score=1.0, reason="found 'hello'"),),
        ),
        EvalResult(
            NAMES[1], "Refund?", output="within 30 days", status="failed", score=0.0,
            reason="The answer gives the refund window but never says that damaged items bought online are covered",
            evaluations=(Evaluation("judge", "failed", score=0.0, reason="never says \x9b2J it"),),
        ),
        EvalResult(
            NAMES[2], "Warranty?", status="error", error="RuntimeError: agent broke",
            frames=("answers_agent.py:16 in agent",),
        ),
    ]  # fmt: skip
    path = tmp_path_factory.mktemp("hostile-html") / "report.html"
    html.write(EvalReport(cases, name="warranty support"), path)
    return path


@pytest.fixture
def page(browser: Any, report_page: Path) -> Iterator[Page]:  # noqa: F811 - the fixture imported above
    loaded = Page(browser, report_page)
    yield loaded
    loaded.page.close()


def test_names_keep_their_words_whole_on_a_420_pixel_screen(page: Page) -> None:
    page.page.set_viewport_size({"width": 420, "height": 900})
    page.expect_names(NAMES)
    broken = [word for word, lines in page.page.evaluate(WORDS_IN, "tr.case button.toggle") if lines != 1]
    assert broken == []
    assert page.page.evaluate("document.documentElement.scrollWidth") <= 420
    reasons = page.page.evaluate(WORDS_IN, "tr.case td.reason .clamp")
    assert [word for word, lines in reasons if lines > 1] == []


def test_counts_are_labelled_alike_in_the_summary_and_the_filters(page: Page) -> None:
    assert page.page.inner_text(".stat.error span") == "Errors"
    button = page.page.locator("button[data-status='error']")
    assert button.evaluate("(element) => element.firstChild.textContent") == "Errors"
    assert page.page.locator("tr.case .pill").all_inner_texts() == ["PASS", "FAIL", "ERROR"]


def test_control_characters_show_as_escapes_and_errors_say_where_they_were_raised(page: Page) -> None:
    for name in NAMES:
        page.page.click(f"tr.case:has-text('{name}') button.toggle")
    output = page.page.locator("tr.details .block:has(h3:text-is('Output')) pre").first.text_content()
    assert output == "hello \\x1b[31mred\\x1b[0m \\x1b]0;title\\x07"
    reasons = page.page.locator("table.evaluations td.reason").all_text_contents()
    assert "never says \\x9b2J it" in reasons
    raised = page.page.locator("tr.details .block:has(h3:text-is('Raised at')) pre").text_content()
    assert raised == "at answers_agent.py:16 in agent"
    assert page.errors == []
