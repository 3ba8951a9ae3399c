"""The HTML report's markup: self-contained, every value escaped, only its own script allowed to run."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from agent_eval._model import EvalReport, EvalResult, Evaluation
from agent_eval._report import html

ATTACK = '<script>window.__pwned=1</script></script><script>window.__pwned=2</script><img src=x onerror="x=3">&amp;'


class Collector(HTMLParser):
    """Every start tag with its attributes, and the text inside each <script>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._in_script: dict[str, str | None] | None = None
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in_script = dict(attrs)
            self.scripts.append((self._in_script, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = None

    def handle_data(self, data: str) -> None:
        if self._in_script is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)
        else:
            self.text.append(data)


def collect(page: str) -> Collector:
    collector = Collector()
    collector.feed(page)
    collector.close()
    return collector


def hostile_report(**more: Any) -> EvalReport:
    result = EvalResult(
        f"case {ATTACK}",
        ATTACK,
        output=ATTACK,
        status="failed",
        score=0.0,
        reason=f"reason {ATTACK}",
        evaluations=(Evaluation("judge", "failed", score=0.0, reason=ATTACK, metadata={"model": ATTACK}),),
        expected=ATTACK,
    )
    return EvalReport(
        [result, EvalResult("fine", "q", output="a", status="passed", score=1.0)],
        name=f"suite {ATTACK}",
        started_at="2026-01-02T03:04:05+00:00",
        metadata={"run_id": "r1", "agent": ATTACK, "judge_models": [ATTACK], "plugins": {"p": "1"}},
        **more,
    )


def test_only_the_pages_own_two_scripts_exist_and_no_tag_carries_an_event_handler() -> None:
    page = collect(html.render(hostile_report()))
    assert [attrs.get("type") for attrs, _ in page.scripts] == ["application/json", None]
    handlers = [(tag, name) for tag, attrs in page.tags for name in attrs if name.startswith("on")]
    assert handlers == []
    assert not [tag for tag, _ in page.tags if tag in ("img", "iframe", "object", "embed", "link", "base")]


def test_embedded_data_has_no_markup_characters_and_parses_back_to_the_report() -> None:
    report = hostile_report()
    page = collect(html.render(report))
    data = page.scripts[0][1]
    assert not re.search(r"[<>&]", data)
    assert "\\u003c/script\\u003e" in data
    assert json.loads(data) == json.loads(report.to_json())


def test_the_content_security_policy_allows_only_the_inline_script_by_its_hash() -> None:
    page = collect(html.render(hostile_report()))
    [policy] = [attrs["content"] for tag, attrs in page.tags if attrs.get("http-equiv") == "Content-Security-Policy"]
    assert policy is not None
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["default-src"] == "'none'"
    script = page.scripts[1][1]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert directives["script-src"] == f"'sha256-{digest}'"
    assert "unsafe-inline" not in directives["script-src"]


def test_the_page_loads_nothing_from_anywhere() -> None:
    text = html.render(hostile_report())
    page = collect(text)
    linked = [(tag, attrs) for tag, attrs in page.tags if {"src", "href", "action", "srcset"} & set(attrs)]
    assert linked == []
    assert "url(" not in text and "@import" not in text


def test_summary_and_run_details_show_agent_text_escaped() -> None:
    text = html.render(hostile_report())
    page = collect(text)
    visible = "".join(page.text)
    assert f"suite {ATTACK}" in visible  # shown as text after the parser decoded the escapes
    assert f"agent {ATTACK}" in visible
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in text


def test_counts_pass_rate_and_verdict_are_in_the_summary() -> None:
    page = collect(html.render(hostile_report(total_ms=1500)))
    visible = " ".join(" ".join(page.text).split())
    assert "BELOW THE BAR" in visible
    assert "50.0% Pass rate · bar 100%" in visible
    assert "1 Passed 1 Failed 0 Errors 0 Skipped 1.50 s Time" in visible


def test_a_run_at_or_above_its_bar_is_marked_passed() -> None:
    report = EvalReport([EvalResult("a", "q", output="a", status="passed", score=1.0)], metadata={"min_pass_rate": 0.8})
    assert '<span class="verdict ok">PASSED</span>' in html.render(report)


def test_an_interrupted_run_says_so() -> None:
    report = EvalReport([EvalResult("a", "q", output="a", status="passed")], interrupted=True, planned=7)
    text = html.render(report)
    assert '<span class="verdict interrupted">INTERRUPTED</span>' in text
    assert "Interrupted: 1 of 7 planned cases finished; the others did not run and are not listed." in text


def test_filter_buttons_carry_each_status_count() -> None:
    page = collect(html.render(hostile_report()))
    statuses = [attrs["data-status"] for tag, attrs in page.tags if tag == "button" and "data-status" in attrs]
    assert statuses == ["all", "passed", "failed", "error", "skipped"]


def test_write_puts_one_file_in_place(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    html.write(hostile_report(), target)
    assert target.read_text(encoding="utf-8") == html.render(hostile_report())
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def _css_rules(text: str) -> list[tuple[str, str]]:
    """Each rule of a stylesheet as (the at-rule it sits in, or "", its selector); braces must balance."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.DOTALL)
    rules: list[tuple[str, str]] = []
    stack: list[str] = []
    start = 0
    for match in re.finditer(r"[{}]", text):
        if match.group() == "{":
            stack.append(" ".join(text[start : match.start()].split()))
        else:
            assert stack, f"a closing brace without its opening one at offset {match.start()}"
            selector = stack.pop()
            if not selector.startswith("@"):
                rules.append((stack[-1] if stack else "", selector))
        start = match.end()
    assert not stack, f"unclosed blocks: {stack}"
    assert not text[start:].strip(), f"text after the last rule: {text[start:].strip()[:80]!r}"
    return rules


def test_the_stylesheet_balances_and_states_each_rule_once_per_block() -> None:
    rules = _css_rules(html._asset("report.css"))
    assert len(rules) > 50
    repeated = sorted({rule for rule in rules if rules.count(rule) > 1})
    assert not repeated, f"rules given twice in the same block: {repeated}"
    assert all(";" not in selector and "}" not in selector for _, selector in rules), rules


def test_the_stylesheet_check_finds_a_rule_given_twice_and_a_broken_block() -> None:
    assert _css_rules("a { x: 1 }\n@media (w) { a { y: 2 } }") == [("", "a"), ("@media (w)", "a")]
    rules = _css_rules("a { x: 1 }\nb { y: 2 }\na { x: 1 }")
    assert rules.count(("", "a")) == 2
    with pytest.raises(AssertionError, match="unclosed"):
        _css_rules("@media (w) { a { x: 1 }")
