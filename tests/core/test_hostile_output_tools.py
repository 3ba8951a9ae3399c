"""Tool names, arguments, results and errors are shown as text in every output of a real run: never as
rich markup, terminal control sequences, Markdown, XML or HTML."""

from __future__ import annotations

import re
from pathlib import Path

from tests.core.test_history_agent_runs import CASES
from tests.data.reports.project import Project
from tests.data.reports.trajectories import HOSTILE, agent_source

RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]")


def test_hostile_tool_text_is_plain_text_in_the_console_markdown_junit_and_html(tmp_path: Path) -> None:
    project = Project(tmp_path)
    (tmp_path / "tools_agent.py").write_text(agent_source(), encoding="utf-8")
    project.suite(CASES, name="tools", agent="tools_agent:agent")
    done = project.cli(
        "run", "suite.yaml", "-v", "--markdown", "r.md", "--junit", "r.xml", "--html", "r.html", "--repeat", "2"
    )
    assert done.returncode == 1, done.stderr
    assert "internal error" not in done.stderr
    for text in (done.stdout, *(Path(tmp_path, name).read_text(encoding="utf-8") for name in ("r.md", "r.xml"))):
        assert not RAW_CONTROL.search(text)
    flat = " ".join(done.stdout.split())
    assert "delete_account [/b] \\x1b]0;pwned\\x07 </script>" in flat  # markup and ESC shown, not obeyed
    junit = (tmp_path / "r.xml").read_text(encoding="utf-8")
    assert "<script>" not in junit and "permission denied [/b] \\x1b]0;pwned\\x07 &lt;/script&gt;" in junit
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert HOSTILE not in page and "<script>window.__pwned" not in page
    assert page.count("<script") == 2
