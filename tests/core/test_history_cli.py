"""``agent-eval runs`` and ``agent-eval show`` on runs recorded by the real ``agent-eval run``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.data.reports.project import Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project(tmp_path)
    project.suite()
    return project


def times(text: str) -> str:
    """``text`` with durations blanked: the stored report keeps them to the microsecond."""
    return re.sub(r"\d+(\.\d+)? m?s\b", "T", text)


def record(project: Project, json_path: str = "r.json") -> str:
    done = project.cli("run", "suite.yaml", "--json", json_path)
    assert done.returncode == 1, done.stderr
    return str(json.loads((project.root / json_path).read_text(encoding="utf-8"))["metadata"]["run_id"])


def test_runs_lists_recorded_runs_newest_first(project: Project) -> None:
    first, second = record(project, "a.json"), record(project, "b.json")
    done = project.cli("runs")
    assert done.returncode == 0, done.stderr
    assert "Recorded runs (newest first)" in done.stdout
    assert done.stdout.index(second) < done.stdout.index(first)
    row = next(line for line in done.stdout.splitlines() if first in line)
    cells = [cell.strip() for cell in row.strip("│ ").split("│")]
    assert cells[2:] == ["demo", "50.0%", "5", "2", "1", "1", "1", cells[-1]]


def test_runs_json_and_limit(project: Project) -> None:
    ids = [record(project, f"{i}.json") for i in range(3)]
    done = project.cli("runs", "--json", "--limit", "2")
    assert done.returncode == 0
    runs = json.loads(done.stdout)
    assert [run["id"] for run in runs] == [ids[2], ids[1]]
    assert runs[0]["suite"] == "demo"
    assert (runs[0]["passed"], runs[0]["failed"], runs[0]["errored"], runs[0]["skipped"]) == (2, 1, 1, 1)
    assert runs[0]["pass_rate"] == 0.5 and runs[0]["interrupted"] is False


def test_runs_without_a_history_says_so_and_succeeds(project: Project) -> None:
    done = project.cli("runs")
    assert done.returncode == 0
    assert "No runs recorded in .agent-eval/runs.db yet" in done.stdout
    assert not (project.root / ".agent-eval").exists()


def test_runs_reads_another_history_file(project: Project) -> None:
    project.cli("run", "suite.yaml", "--history", "other.db")
    done = project.cli("runs", "--history", "other.db", "--json")
    assert len(json.loads(done.stdout)) == 1
    assert json.loads(project.cli("runs", "--json").stdout) == []


def test_show_prints_the_stored_run_as_run_printed_it(project: Project) -> None:
    ran = project.cli("run", "suite.yaml")
    run_id = json.loads(project.cli("runs", "--json").stdout)[0]["id"]
    done = project.cli("show", "latest")
    assert done.returncode == 0, done.stderr
    first, *rest = done.stdout.splitlines()
    assert first.startswith(f"Run {run_id} · ")
    assert "suite.yaml · agent answers_agent:agent" in first
    assert times("\n".join(rest)) == times(ran.stdout.rstrip("\n"))


def test_show_accepts_an_id_prefix_and_quiet_prints_only_the_summary(project: Project) -> None:
    run_id = record(project)
    done = project.cli("show", run_id[:15], "--quiet")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == done.stdout.strip().splitlines()[0]
    assert done.stdout.startswith("2 passed, 1 failed, 1 error, 1 skipped · pass rate 50.0%")


def test_show_re_exports_json_and_html(project: Project) -> None:
    run_id = record(project)
    done = project.cli("show", run_id, "--json", "again.json", "--html", "again.html")
    assert done.returncode == 0, done.stderr
    original = json.loads((project.root / "r.json").read_text(encoding="utf-8"))
    assert json.loads((project.root / "again.json").read_text(encoding="utf-8")) == original
    page = (project.root / "again.html").read_text(encoding="utf-8")
    assert "<h1>demo</h1>" in page and run_id in page


def test_show_an_unknown_run_is_one_line_and_exit_2(project: Project) -> None:
    record(project)
    done = project.cli("show", "nope")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: no run 'nope' in .agent-eval/runs.db; `agent-eval runs` lists the recorded runs"
    )


def test_show_without_a_history_is_one_line_and_exit_2(project: Project) -> None:
    done = project.cli("show", "latest")
    assert done.returncode == 2
    assert done.stderr.strip() == "error: no run history at .agent-eval/runs.db; `agent-eval run` records one"


def test_show_latest_tilde_beyond_the_history_is_one_line_and_exit_2(project: Project) -> None:
    record(project)
    done = project.cli("show", "latest~1")
    assert done.returncode == 2
    assert done.stderr.strip() == "error: 'latest~1' needs 2 recorded runs; .agent-eval/runs.db holds 1"


def test_show_an_unwritable_export_is_one_line_and_exit_2(project: Project) -> None:
    record(project)
    (project.root / "taken").write_text("a file")
    done = project.cli("show", "latest", "--html", "taken/x.html")
    assert done.returncode == 2
    assert done.stderr.strip() == "error: --html taken/x.html: 'taken' is a file, not a folder"


START_UP = """
import sys
from agent_eval.cli import entry
try:
    entry(sys.argv[1:])
except SystemExit:
    pass
heavy = ["sqlite3", "agent_eval._history", "agent_eval._report.html", "agent_eval._report.junit",
         "agent_eval._report.markdown", "xml.etree.ElementTree", "rich.progress"]
print("IMPORTED", [name for name in heavy if name in sys.modules])
"""


@pytest.mark.parametrize("command", [["--version"], ["list-evaluators"], ["runs", "--help"]])
def test_cli_start_up_imports_no_history_or_report_code(tmp_path: Path, command: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", START_UP, *command], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.stdout.strip().splitlines()[-1] == "IMPORTED []", done.stderr
