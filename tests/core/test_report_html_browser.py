"""The HTML report in a real headless Chromium: it renders, filters, searches, and runs no agent script."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_eval._model import EvalReport, EvalResult, Evaluation
from agent_eval._report import html
from tests.data.reports.project import Project

pytestmark = pytest.mark.browser

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ATTACKS = {
    "script": "<script>window.__pwned=1</script>",
    "close": "</script><script>window.__pwned=2</script>",
    "img": '<img src=x onerror="window.__pwned=3">',
}


def _install_chromium() -> None:
    """Install Debian's chromium when the tests may (root with apt-get); otherwise skip, saying why."""
    if not shutil.which("apt-get"):
        pytest.skip("Chromium is not installed and this system has no apt-get; install a chromium package")
    if os.geteuid() != 0:
        pytest.skip("Chromium is not installed; run `sudo apt-get install -y chromium` (the tests are not root)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", "chromium"]
    # said on the terminal, past pytest's capture: installing a system package is worth knowing about
    sys.__stderr__.write(
        "\nagent-eval tests: Chromium is missing; installing Debian's chromium for the HTML report's browser "
        f"tests ({' '.join(install)}, then apt-get update if that fails; a minute or two)...\n"
    )
    sys.__stderr__.flush()
    done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:  # the package lists may be missing or stale
        subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, text=True, timeout=600)
        done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        pytest.skip(f"`apt-get install chromium` failed: {done.stderr.strip().splitlines()[-1:]}")


@pytest.fixture(scope="session")
def chromium() -> str:
    """The path of Debian's chromium, installed on first use."""
    path = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        _install_chromium()
        path = shutil.which("chromium") or "/usr/bin/chromium"
    return path


@pytest.fixture(scope="module")
def browser(chromium: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the dev dependency group")
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=chromium,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 900},
        )
        yield context
        context.close()


@pytest.fixture(scope="module")
def cli_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An HTML report written by the real CLI, from a run whose agent answers with markup."""
    project = Project(tmp_path_factory.mktemp("html-project"))
    project.answers(
        {
            "Say hello": "hello there",
            "script": f"hello {ATTACKS['script']}",
            "close": ATTACKS["close"],
            "img": ATTACKS["img"],
            "Grade me": "score=0.75 findme-needle",
            "Crash": {"raise": "agent broke"},
        }
    )
    cases = [
        {"name": "greets", "input": "Say hello", "evaluators": [{"says": "hello"}]},
        {"name": f"name {ATTACKS['script']}", "input": "script", "evaluators": [{"says": "hello"}]},
        {"name": "closes the script", "input": "close", "evaluators": [{"says": ATTACKS["img"]}]},
        {"name": "image", "input": "img", "evaluators": [{"says": "hello"}, {"graded": {}}]},
        {"name": "grades", "input": "Grade me", "evaluators": [{"graded": {}}]},
        {"name": "skips", "input": "Say hello", "evaluators": [{"never_judges": {}}]},
        {"name": "crashes", "input": "Crash", "evaluators": [{"says": "x"}]},
    ]
    project.suite(cases, name=f"hostile {ATTACKS['close']}")
    # in a process of its own: the browser's driver runs an event loop in this one
    done = project.cli("run", "suite.yaml", "--html", "report.html", "--no-history", process=True)
    assert done.returncode == 1, done.stderr
    return project.root / "report.html"


class Page:
    """A loaded report page and the requests it made."""

    def __init__(self, context: Any, path: Path) -> None:
        from playwright.sync_api import expect

        self.expect = expect
        self.page = context.new_page()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.url = path.resolve().as_uri()
        self.page.goto(self.url)
        self.page.wait_for_selector("body[data-ready='true']", timeout=20_000)

    def rows(self) -> Any:
        return self.page.locator("tr.case")

    def names(self) -> list[str]:
        return [name.strip() for name in self.page.locator("tr.case button.toggle").all_text_contents()]

    def expect_names(self, names: list[str]) -> None:
        """Wait until the table lists exactly these cases (the search applies after a short pause)."""
        self.expect(self.page.locator("tr.case button.toggle")).to_have_text(names)

    def shown(self, text: str) -> None:
        self.expect(self.page.locator("#shown")).to_have_text(text)

    def pwned(self) -> Any:
        return self.page.evaluate("() => window.__pwned")


@pytest.fixture
def page(browser: Any, cli_report: Path) -> Iterator[Page]:
    loaded = Page(browser, cli_report)
    yield loaded
    loaded.page.close()


def test_the_page_renders_the_summary_and_every_case(page: Page) -> None:
    page.expect_names(
        ["greets", f"name {ATTACKS['script']}", "closes the script", "image", "grades", "skips", "crashes"]
    )
    page.shown("7 cases")
    summary = page.page.locator("header.summary")
    page.expect(summary.locator("h1")).to_have_text(f"hostile {ATTACKS['close']}")
    page.expect(summary.locator(".stat.passed b")).to_have_text("3")
    page.expect(summary.locator(".stat.failed b")).to_have_text("2")
    page.expect(summary.locator(".stat.error b")).to_have_text("1")
    page.expect(summary.locator(".stat.skipped b")).to_have_text("1")
    page.expect(summary.locator(".verdict")).to_have_text("BELOW THE BAR")
    statuses = page.page.locator("tr.case .pill").all_text_contents()
    assert statuses == ["PASS", "PASS", "FAIL", "FAIL", "PASS", "SKIP", "ERROR"]
    assert page.errors == []


def test_the_status_filter_shows_only_that_status(page: Page) -> None:
    page.page.click("button[data-status='failed']")
    page.shown("2 of 7 cases")
    page.expect_names(["closes the script", "image"])
    page.page.click("button[data-status='error']")
    page.shown("1 of 7 cases")
    page.expect_names(["crashes"])
    page.expect(page.page.locator("button[data-status='error']")).to_have_attribute("aria-pressed", "true")
    page.page.click("button[data-status='all']")
    page.shown("7 cases")


def test_the_search_box_finds_text_in_names_reasons_and_outputs(page: Page) -> None:
    page.page.fill("#search", "FINDME-needle")  # in one agent output, any case
    page.shown("1 of 7 cases")
    page.expect_names(["grades"])
    page.page.fill("#search", "agent broke")  # in an error
    page.shown("1 of 7 cases")
    page.expect_names(["crashes"])
    page.page.fill("#search", "no such text anywhere")
    page.shown("0 of 7 cases")
    page.expect(page.page.locator("#empty")).to_be_visible()
    page.page.fill("#search", "")
    page.shown("7 cases")


def test_search_and_filter_combine(page: Page) -> None:
    page.page.fill("#search", "hello")
    page.page.click("button[data-status='passed']")
    page.shown("2 of 7 cases")
    page.expect_names(["greets", f"name {ATTACKS['script']}"])


def test_a_case_expands_to_input_output_and_every_evaluation(page: Page) -> None:
    page.page.click("tr.case:has-text('image') button.toggle")
    details = page.page.locator("tr.details")
    page.expect(details).to_have_count(1)
    blocks = details.locator(".block h3").all_text_contents()
    assert blocks[:2] == ["Input", "Output"]
    assert "Evaluations (2)" in blocks
    evaluation_rows = details.locator("table.evaluations tbody tr")
    page.expect(evaluation_rows).to_have_count(2)
    assert evaluation_rows.locator("td.name").all_text_contents() == ["says", "graded"]
    page.page.click("tr.case:has-text('image') button.toggle")
    page.expect(details).to_have_count(0)


def test_agent_markup_shows_as_text_and_no_agent_script_runs(page: Page) -> None:
    for name in ("name", "closes the script", "image"):
        page.page.click(f"tr.case:has-text('{name}') button.toggle")
    outputs = page.page.locator("tr.details .block:has(h3:text-is('Output')) pre").all_text_contents()
    assert outputs == [f"hello {ATTACKS['script']}", ATTACKS["close"], ATTACKS["img"]]
    reasons = page.page.locator("tr.case td.reason").all_text_contents()
    assert f"missing '{ATTACKS['img']}'" in reasons
    assert page.page.locator("img").count() == 0
    assert page.page.locator("script").count() == 2
    page.page.wait_for_timeout(200)  # give an onerror handler the time it would need
    assert page.pwned() is None
    assert page.errors == []


def test_the_page_makes_no_network_request(page: Page) -> None:
    page.page.click("tr.case:has-text('image') button.toggle")
    page.page.fill("#search", "hello")
    page.shown("4 of 7 cases")
    assert page.requests == [page.url]


def test_five_thousand_cases_render_in_pages_and_stay_searchable(browser: Any, tmp_path: Path) -> None:
    statuses = ("passed", "passed", "passed", "failed", "error", "skipped")
    cases = [
        EvalResult(
            f"case {i:04d}",
            f"question {i} " + "lorem ipsum " * 30,
            output=f"answer {i} " + "dolor sit amet " * 60,
            status=statuses[i % len(statuses)],
            score=(i % 100) / 100,
            reason=f"reason {i}",
            evaluations=(Evaluation("says", statuses[i % len(statuses)], score=0.5, reason="why"),),
        )
        for i in range(5000)
    ]
    path = tmp_path / "big.html"
    html.write(EvalReport(cases, name="big"), path)
    start = time.perf_counter()
    page = Page(browser, path)
    load_seconds = time.perf_counter() - start
    assert page.rows().count() == 200
    page.shown("5000 cases")
    page.page.click("#more")
    # Bringing the button into view may also load a page by itself (infinite scroll): at least one more.
    page.page.wait_for_function("document.querySelectorAll('tr.case').length >= 400")
    shown = page.rows().count()
    assert shown % 200 == 0 and 400 <= shown < 5000, shown
    start = time.perf_counter()
    page.page.fill("#search", "answer 4321 ")
    page.shown("1 of 5000 cases")
    search_seconds = time.perf_counter() - start
    page.expect_names(["case 4321"])
    page.page.fill("#search", "")
    page.page.click("button[data-status='error']")
    page.shown("833 of 5000 cases")
    assert page.rows().count() == 200
    assert load_seconds < 10 and search_seconds < 5, (load_seconds, search_seconds)
    page.page.close()
