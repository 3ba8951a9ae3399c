"""Text from agents, evaluators, suites and judges is shown as text: never as rich markup, never as terminal
or document control sequences, in every output (table, summary, `show`, `runs`, `compare`, Markdown,
HTML, JUnit)."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from helpers import run_cli

from tests.data.reports.project import Project

#: Control characters no human-facing output may contain raw (newlines and tabs aside).
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e\ud800-\udfff]")
LINK = "[link=http://evil.example]click me[/link]"
JUDGE = """
import json


def judge(prompt):
    reason = "[/bold] the judge says " + LINK + " and \\x1b]0;pwned\\x07"
    return json.dumps({"reason": reason, "pass": False, "score": 0})
"""


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project(tmp_path)
    (tmp_path / "hostile_judge.py").write_text(textwrap.dedent(JUDGE).replace("LINK", repr(LINK)), encoding="utf-8")
    return project


def cli(project: Project, *args: str, **env: str) -> object:
    cache = str(project.root / "cache")
    variables = {**project.env(), "AGENT_EVAL_JUDGE_CACHE": "0", "AGENT_EVAL_CACHE_DIR": cache, **env}
    return run_cli(*args, cwd=project.root, env=variables)


def markup_suite(project: Project) -> None:
    project.answers(
        {
            "Say hello": "hello there",
            "Crash": {"raise": "bad [/bold] thing"},
            "Judge": "an answer",
        }
    )
    project.suite(
        [
            {"name": "reads [/path] from the disk", "input": "Say hello", "evaluators": [{"says": "hello"}]},
            {"name": "bracket keyword", "input": "Say hello", "evaluators": [{"contains": {"keywords": ["[/b]"]}}]},
            {"name": "crashes", "input": "Crash", "evaluators": [{"says": "x"}]},
            {
                "name": "judged",
                "input": "Judge",
                "evaluators": [{"llm_judge": {"criteria": "is right", "judge_agent": "hostile_judge:judge"}}],
            },
            {"name": f"links {LINK}", "input": "Say hello", "evaluators": [{"fails_saying": f"reason {LINK}"}]},
        ],
        name="demo [/x] [bold]",
    )


def test_markup_in_names_keywords_errors_and_judge_reasons_prints_as_text(project: Project) -> None:
    markup_suite(project)
    done = cli(project, "run", "suite.yaml", "--jsonl", "r.jsonl", "--json", "r.json", "--markdown", "r.md")
    assert done.returncode == 1, done.stderr  # below the bar, not an internal error (3)
    assert "internal error" not in done.stderr
    out = " ".join(done.stdout.split())
    for text in (
        "reads [/path] from",
        "missing: '[/b]'",
        "bad [/bold] thing",
        "[/bold] the judge says",
        "demo [/x] [bold]",
    ):
        assert text in out, text
    assert out.count(LINK) == 3  # a case name and two reasons, shown, not rendered as links
    assert all((project.root / name).exists() for name in ("r.json", "r.md"))


def test_runs_show_and_compare_read_back_a_history_full_of_markup(project: Project) -> None:
    markup_suite(project)
    assert cli(project, "run", "suite.yaml").returncode == 1
    assert cli(project, "run", "suite.yaml").returncode == 1
    runs = cli(project, "runs")
    assert runs.returncode == 0, runs.stderr
    assert "demo [/x] [bold]" in " ".join(runs.stdout.split())
    show = cli(project, "show", "latest")
    assert show.returncode == 0, show.stderr
    assert "bad [/bold] thing" in " ".join(show.stdout.split())
    verbose = cli(project, "show", "latest", "-v")
    assert verbose.returncode == 0, verbose.stderr
    assert LINK in " ".join(verbose.stdout.split())
    compare = cli(project, "compare", "latest~1", "latest")
    assert compare.returncode == 0, compare.stderr
    assert "demo [/x] [bold]" in compare.stdout


def escape_suite(project: Project) -> dict[str, str]:
    """Cases whose names, outputs, errors and reasons carry terminal control sequences."""
    hostile = {
        "title": "\x1b]0;pwned title\x07",
        "link": "\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\",
        "clear": "\x1b[2J\x1b[H",
        "nul": "before\x00after",
        "csi": "\x9b31mred",
        "bidi": "abc\u202edcba",
    }
    project.answers(
        {
            "Say hello": f"hello {hostile['title']} {hostile['link']} {hostile['nul']} {hostile['csi']}",
            "Crash": {"raise": f"agent broke {hostile['clear']} {hostile['title']}"},
            "Judge": "an answer",
        }
    )
    project.suite(
        [
            {"name": f"name {hostile['clear']}{hostile['bidi']}", "input": "Say hello", "evaluators": [{"says": "x"}]},
            {"name": "crashes", "input": "Crash", "evaluators": [{"says": "x"}]},
            {"name": "reasons", "input": "Say hello", "evaluators": [{"fails_saying": f"why {hostile['link']}"}]},
            {"name": "raises", "input": "Say hello", "evaluators": [{"raises_saying": f"oops {hostile['csi']}"}]},
            {
                "name": "judged",
                "input": "Judge",
                "evaluators": [{"llm_judge": {"criteria": "is right", "judge_agent": "hostile_judge:judge"}}],
            },
        ],
        name=f"suite {hostile['title']}",
    )
    return hostile


def test_control_sequences_are_shown_escaped_on_the_console(project: Project) -> None:
    escape_suite(project)
    for args in (("run", "suite.yaml"), ("run", "suite.yaml", "-v"), ("show", "latest"), ("runs",)):
        done = cli(project, *args)
        assert done.returncode in (0, 1), done.stderr
        assert not RAW_CONTROL.search(done.stdout), (args, done.stdout)
        assert not RAW_CONTROL.search(done.stderr), (args, done.stderr)
    out = " ".join(cli(project, "show", "latest", "-v").stdout.split())
    assert "agent broke \\x1b[2J\\x1b[H" in out
    assert "\\x1b]0;pwned title\\x07" in out
    assert "oops \\x9b31mred" in out


def test_control_sequences_are_shown_escaped_in_markdown_html_and_junit(project: Project) -> None:
    hostile = escape_suite(project)
    summary = project.root / "step-summary.md"
    done = cli(
        project, "run", "suite.yaml", "--markdown", "r.md", "--html", "r.html", "--junit", "r.xml", "--json", "r.json",
        GITHUB_STEP_SUMMARY=str(summary),
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    for name in ("r.md", "step-summary.md", "r.html", "r.xml"):
        text = (project.root / name).read_text(encoding="utf-8")
        assert not RAW_CONTROL.search(text), (name, RAW_CONTROL.search(text))
    markdown = (project.root / "r.md").read_text(encoding="utf-8")
    assert "\\\\x1b\\]0;pwned title\\\\x07" in markdown  # the escape, its backslash and ] escaped for Markdown
    page = (project.root / "r.html").read_text(encoding="utf-8")
    # in the page's data, as JSON: \x1b]8;;http://evil.example\x1b\click...
    assert "\\\\x1b]8;;http://evil.example\\\\x1b\\\\click" in page
    # the JSON report is the record: it keeps every character as the agent wrote it
    report = json.loads((project.root / "r.json").read_text(encoding="utf-8"))
    assert hostile["title"] in report["cases"][0]["output"]


def test_visible_escapes_controls_and_keeps_ordinary_text_as_it_is() -> None:
    from agent_eval._text import visible

    plain = "naïve café — 日本語 ✓"
    assert visible(plain) is plain
    assert visible("a\x1b[31mb\x07\x00\x9b\u202e") == "a\\x1b[31mb\\x07\\x00\\x9b\\u202e"
    assert visible("one\ntwo\tthree\r") == "one\\ntwo\\tthree\\r"
    assert visible("one\ntwo\tthree\r", lines=True) == "one\ntwo\tthree\\r"
    assert visible("lone \ud800") == "lone \\ud800"
