"""A huge answer is kept whole in the record (JSON, JSON Lines, the history) and capped, with a note giving
its full size, in every report for people (HTML, JUnit, Markdown, the console)."""

from __future__ import annotations

import json
from pathlib import Path

from agent_eval._history import History
from tests.data.reports.project import Project

SIZE = 10 * 1024 * 1024
NOTE = f"[cut: {SIZE:,} characters in all; the JSON report has the whole text]"


def test_a_ten_megabyte_answer_is_whole_in_the_record_and_capped_for_people(tmp_path: Path) -> None:
    project = Project(tmp_path)
    answer = ("all work and no play " * (SIZE // 21 + 1))[:SIZE]
    project.answers({"Talk": answer})
    project.suite([{"name": "talks", "input": "Talk", "evaluators": [{"echoes": {}}]}])
    done = project.cli(
        "run", "suite.yaml", "-v", "--json", "r.json", "--jsonl", "r.jsonl", "--html", "r.html", "--junit", "r.xml",
        "--markdown", "r.md",
    )  # fmt: skip
    assert done.returncode == 1, done.stderr

    record = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["cases"][0]
    assert record["output"] == answer and record["reason"] == answer
    line = json.loads((tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert line["output"] == answer
    stored = History(tmp_path / ".agent-eval" / "runs.db").load("latest").report.cases[0]
    assert stored.output == answer  # the history keeps the record whole

    for name in ("r.html", "r.xml"):
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert len(text) < 200_000, name
        assert NOTE in text, name
    assert len((tmp_path / "r.md").read_text(encoding="utf-8")) < 5_000
    assert len(done.stdout) < 100_000
    # the reason column of the table, read across the lines it wraps onto
    reason = "".join("".join(line.split("│")[4].split()) for line in done.stdout.splitlines() if line.startswith("│"))
    assert reason.endswith("".join(NOTE.split()))
