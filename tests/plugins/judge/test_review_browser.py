"""The review page in a real headless Chromium: labelling with the keyboard, progress kept across a reload,
the labels file it downloads read by ``calibrate``, agent text shown as text, thousands of cases."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from calibrate_helpers import judge_by, kappa_by_hand, review, says_pass, write_report
from helpers import run_cli

from agent_eval import EvalResult, Evaluation, ToolCall
from agent_eval.testing import ChatServer
from tests.core.test_report_html_browser import CHROMIUM_FLAGS, chromium  # noqa: F401 - the fixture

pytestmark = pytest.mark.browser

ANSWERS = {
    "q0": "judge-pass: the kettle can go back within 30 days",
    "q1": "judge-pass: sure, any time",
    "q2": "judge-fail: no",
    "q3": "judge-pass: yes, with the receipt",
    "q4": "judge-fail: ask the shop",
}


@pytest.fixture(scope="module")
def browser(chromium: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:  # noqa: F811
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the dev dependency group")
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("review-profile")),
            executable_path=chromium,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 900},
            accept_downloads=True,
        )
        yield context
        context.close()


class Page:
    """A review page open in the browser, with the requests it made and the errors it met."""

    def __init__(self, context: Any, path: Path) -> None:
        from playwright.sync_api import expect

        self.expect = expect
        self.page = context.new_page()
        self.requests: list[str] = []
        self.problems: list[str] = []
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("pageerror", lambda error: self.problems.append(str(error)))
        self.page.on("console", lambda message: self.problems.append(message.text))
        self.url = path.resolve().as_uri()
        self.page.goto(self.url)
        self.ready()

    def ready(self) -> None:
        self.page.wait_for_selector("body[data-ready='true']", timeout=20_000)

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.page.keyboard.press(key)

    def heading(self) -> str:
        return str(self.page.locator("#case h2").text_content())

    def progress(self) -> str:
        return str(self.page.locator("#progress-text").text_content())

    def close(self) -> None:
        self.page.close()


def run_suite(tmp_path: Path) -> dict[str, Any]:
    """Run a five-case suite judged by the test server through the real CLI; the JSON report's data."""
    (tmp_path / "answers_agent.py").write_text(
        f"ANSWERS = {ANSWERS!r}\n\ndef agent(question):\n    return ANSWERS[question]\n"
    )
    cases = [
        {"name": f"c{i}", "input": f"q{i}", "evaluators": [{"llm_judge": "The answer says whether it can go back"}]}
        for i in range(5)
    ]
    suite = {"name": "returns", "agent": "answers_agent:agent", "cases": cases}
    (tmp_path / "suite.yaml").write_text(json.dumps(suite), encoding="utf-8")
    # in a process of its own: the browser's driver runs an event loop in this one
    done = run_cli("run", "suite.yaml", "--json", "run.json", "--no-history", cwd=tmp_path, process=True)
    assert done.returncode == 1, done.stderr  # two of the five fail
    data: dict[str, Any] = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    return data


def test_label_three_cases_with_the_keyboard_reload_download_and_calibrate(
    browser: Any, tmp_path: Path, judge_at: ChatServer
) -> None:
    judge_at.responder = judge_by(says_pass)
    run = run_suite(tmp_path)
    assert len(judge_at.chat_requests) == 5
    assert review(tmp_path, "run.json").returncode == 0
    page = Page(browser, tmp_path / "review.html")
    assert page.progress() == "0 of 5 labelled · 0 pass · 0 fail"
    assert page.heading() == "c0"
    page.keys("p", "f")  # c0 pass, c1 fail
    page.keys("n")
    page.page.keyboard.type("says no, pass it")  # in the note, p and f are letters
    page.keys("Escape", "p")  # c2 pass, with its note
    assert page.progress() == "3 of 5 labelled · 2 pass · 1 fail"
    assert page.heading() == "c3"

    page.page.reload()
    page.ready()
    assert page.progress() == "3 of 5 labelled · 2 pass · 1 fail"
    assert page.heading() == "c3"  # where the person was
    page.keys("k")
    page.expect(page.page.locator("#note")).to_have_value("says no, pass it")
    page.expect(page.page.locator(".row .badge")).to_have_text(["P", "F", "P", "·", "·"])

    with page.page.expect_download() as info:
        page.page.click("#download")
    download = info.value
    assert download.suggested_filename == f"labels-{run['metadata']['run_id']}.jsonl"
    labels = tmp_path / "labels.jsonl"
    download.save_as(labels)
    lines = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()]
    header, *rows = lines
    assert {key: header[key] for key in ("format", "version", "suite_file", "run", "report")} == {
        "format": "agent-eval/labels",
        "version": 1,
        "suite_file": "suite.yaml",
        "run": run["metadata"]["run_id"],
        "report": "run.json",
    }
    assert rows == [
        {"name": "c0", "output": ANSWERS["q0"], "label": "pass", "note": ""},
        {"name": "c1", "output": ANSWERS["q1"], "label": "fail", "note": ""},
        {"name": "c2", "output": ANSWERS["q2"], "label": "pass", "note": "says no, pass it"},
    ]
    assert page.requests == [page.url, page.url] and page.problems == []  # the page and its reload, nothing else
    page.close()

    done = run_cli("calibrate", "labels.jsonl", "--json", cwd=tmp_path, process=True)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    # c0: both pass; c1: the judge passed what the person failed; c2: the judge failed what the person passed
    assert figures["confusion"] == {"true_pass": 1, "false_fail": 1, "false_pass": 1, "true_fail": 0}
    assert figures["n"] == 3 and figures["agreement"] == pytest.approx(1 / 3)
    assert figures["kappa"] == pytest.approx(kappa_by_hand(1, 1, 1, 0)) == pytest.approx(-0.5)
    assert figures["false_pass_rate"] == 1.0 and figures["false_fail_rate"] == 0.5
    assert figures["suite_file"] == "suite.yaml" and figures["run"] == run["metadata"]["run_id"]
    assert len(judge_at.chat_requests) == 5  # the run's verdicts, from the cache


def hostile_report(tmp_path: Path) -> Path:
    attack = '</script><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'
    call = ToolCall("search", {"q": attack}, result=attack)
    evaluation = Evaluation("llm_judge", "failed", score=0.0, reason=attack)
    results = [
        EvalResult(
            f"name {attack}",
            attack,
            output=f"out \u202egnp.exe {attack}",
            status="failed",
            tool_calls=[call],
            evaluations=[evaluation],
        ),
        EvalResult("second", "q", output={"html": attack}, status="passed"),
    ]
    return write_report(tmp_path, results, suite_file=None, run_id="hostile-run")


def test_agent_markup_shows_as_text_and_no_agent_script_runs(browser: Any, tmp_path: Path) -> None:
    hostile_report(tmp_path)
    assert review(tmp_path, "run.json").returncode == 0
    page = Page(browser, tmp_path / "review.html")
    assert page.page.evaluate("window.__pwned") is None
    assert page.page.locator("#case img, #list img").count() == 0
    assert page.heading().startswith("name </script><script>window.__pwned=1</script>")
    output = page.page.locator("#case pre.value").nth(1).text_content()
    assert output is not None and output.startswith("out \\u202egnp.exe </script>")  # the override is shown
    assert page.page.locator("table.evaluations td.reason").text_content() == output[len("out \\u202egnp.exe ") :]
    page.keys("b")  # blind: the run's verdicts are hidden
    assert page.page.locator("table.evaluations").count() == 0
    assert page.page.locator(".row .status").count() == 0
    page.page.reload()
    page.ready()
    assert page.page.locator("#blind").is_checked()  # kept, like the labels
    page.keys("b")
    assert page.page.locator(".row .status").count() == 2
    assert page.requests == [page.url, page.url] and page.problems == []
    page.close()


def test_help_opens_with_question_mark_and_any_key_closes_it_doing_nothing_else(browser: Any, tmp_path: Path) -> None:
    results = [EvalResult(f"c{i}", "q", output="a", status="passed") for i in range(3)]
    write_report(tmp_path, results, run_id="help-run")
    assert review(tmp_path, "run.json").returncode == 0
    page = Page(browser, tmp_path / "review.html")
    page.keys("?")
    assert page.page.locator("#help").is_visible()
    page.keys("p")
    assert not page.page.locator("#help").is_visible()
    assert page.progress() == "0 of 3 labelled · 0 pass · 0 fail"
    page.keys("p", "x")  # x clears the label of the case now shown (c1): c0 keeps its
    assert page.progress() == "1 of 3 labelled · 1 pass · 0 fail"
    page.keys("u")  # the next case with no label, from c1
    assert page.heading() == "c2"
    page.close()


def test_five_thousand_cases_open_fast_and_draw_only_the_rows_in_view(browser: Any, tmp_path: Path) -> None:
    results = [
        EvalResult(f"case {i:04d}", f"question {i}", output="answer " * 40, status="passed") for i in range(5000)
    ]
    write_report(tmp_path, results, suite_file=None, run_id="large-run")
    assert review(tmp_path, "run.json").returncode == 0
    started = time.perf_counter()
    page = Page(browser, tmp_path / "review.html")
    opened = time.perf_counter() - started
    assert opened < 10, opened
    assert page.page.locator(".row").count() < 100
    assert page.progress() == "0 of 5000 labelled · 0 pass · 0 fail"
    started = time.perf_counter()
    for _ in range(50):
        page.keys("f")
    labelled = time.perf_counter() - started
    assert page.heading() == "case 0050" and page.progress() == "50 of 5000 labelled · 0 pass · 50 fail"
    assert labelled < 10, labelled
    page.page.locator("#list").evaluate("list => { list.scrollTop = list.scrollHeight; }")
    page.expect(page.page.locator(".row .name").last).to_have_text("case 4999")
    assert page.page.locator(".row").count() < 100
    page.page.locator(".row", has_text="case 4999").click()
    assert page.heading() == "case 4999"
    page.close()
