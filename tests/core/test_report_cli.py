"""Every report writer through the real ``agent-eval run``, interrupted runs, and the pass-rate gates."""

from __future__ import annotations

import json
import signal
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema

from agent_eval import __version__
from agent_eval._history import History
from tests.data.reports.project import Project

XSD = Path(__file__).parent.parent / "data" / "reports" / "junit-10.xsd"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def wait_for_lines(path: Path, count: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and len(path.read_text(encoding="utf-8").splitlines()) >= count:
            return
        time.sleep(0.02)
    raise AssertionError(f"{path} never reached {count} lines")


def slow_suite(project: Project) -> None:
    """Three quick cases, then five that take half a minute each."""
    answers = {f"q{i}": "hello" if i < 3 else {"sleep": 30, "text": "hello"} for i in range(8)}
    project.answers(answers)
    project.suite([{"name": f"c{i}", "input": f"q{i}", "evaluators": [{"says": "hello"}]} for i in range(8)])


# --- every writer ----------------------------------------------------------------------------------------


def test_run_writes_json_junit_html_and_markdown(project: Project) -> None:
    project.suite()
    done = project.cli(
        "run", "suite.yaml", "--no-history", "--json", "out/r.json", "--junit", "out/r.xml",
        "--html", "out/r.html", "--markdown", "out/r.md",
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    out = project.root / "out"
    assert sorted(p.name for p in out.iterdir()) == ["r.html", "r.json", "r.md", "r.xml"]

    report = json.loads((out / "r.json").read_text(encoding="utf-8"))
    assert [c["status"] for c in report["cases"]] == ["passed", "failed", "passed", "skipped", "error"]
    xmlschema.validate(str(out / "r.xml"), str(XSD))
    suite = ET.parse(out / "r.xml").getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("name"), suite.get("tests"), suite.get("failures"), suite.get("errors")) == (
        "demo",
        "5",
        "1",
        "1",
    )
    assert suite.get("skipped") == "1"
    page = (out / "r.html").read_text(encoding="utf-8")
    assert "<h1>demo</h1>" in page and "Content-Security-Policy" in page
    summary = (out / "r.md").read_text(encoding="utf-8")
    assert summary.startswith("### ❌ agent-eval: demo — 2 of 5 passed")
    assert "| adds | FAIL | 0.00 | missing '4' |" in summary
    assert "| crashes | ERROR |  | RuntimeError: agent broke on purpose |" in summary


def test_json_report_carries_the_run_metadata_and_no_environment(project: Project) -> None:
    project.suite()
    process = project.popen(
        "run", "suite.yaml", "--no-history", "--json", "r.json", "--junit", "r.xml", "--html", "r.html",
        "--markdown", "r.md", AGENT_EVAL_JUDGE_API_KEY="sk-test-SECRET-0123456789",
    )  # fmt: skip
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 1, stderr
    report = json.loads((project.root / "r.json").read_text(encoding="utf-8"))
    meta = report["metadata"]
    assert meta["suite"] == "demo"
    assert meta["suite_file"].endswith("suite.yaml")
    assert meta["agent"] == "answers_agent:agent"
    assert meta["agent_eval_version"] == __version__
    assert meta["plugins"] == {"report-evals": "0.3.1"}
    assert meta["judge_models"] == []
    assert meta["run_id"]
    assert report["started_at"] and report["usage"] == {}
    for name in ("r.json", "r.xml", "r.html", "r.md"):
        assert "SECRET" not in (project.root / name).read_text(encoding="utf-8")


def test_judge_models_and_token_usage_reach_every_report(project: Project) -> None:
    project.suite(
        [
            {"name": "one", "input": "Say hello", "evaluators": [{"fake_judge": "judge-a"}]},
            {"name": "two", "input": "Say hello", "evaluators": [{"fake_judge": "judge-b"}, {"says": "hello"}]},
        ]
    )
    done = project.cli(
        "run", "suite.yaml", "--no-history", "--json", "r.json", "--junit", "r.xml", "--html", "r.html",
        "--markdown", "r.md",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads((project.root / "r.json").read_text(encoding="utf-8"))
    assert report["metadata"]["judge_models"] == ["judge-a", "judge-b"]
    assert report["usage"] == {"prompt_tokens": 200, "completion_tokens": 40, "total_tokens": 240}
    properties = {p.get("name"): p.get("value") for p in ET.parse(project.root / "r.xml").getroot().iter("property")}
    assert properties["judge_models"] == "judge-a, judge-b"
    assert properties["usage:total_tokens"] == "240"
    assert "240 judge tokens" in (project.root / "r.md").read_text(encoding="utf-8")
    page = (project.root / "r.html").read_text(encoding="utf-8")
    assert "<b>240</b><span>Judge tokens</span>" in page
    assert "judge-a, judge-b" in page


def test_an_unwritable_report_path_is_one_line_and_exit_2(project: Project) -> None:
    project.suite()
    (project.root / "taken").write_text("a file, not a folder")
    done = project.cli("run", "suite.yaml", "--no-history", "--junit", "taken/r.xml")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == "error: --junit taken/r.xml: 'taken' is a file, not a folder"
    assert "Traceback" not in done.stderr


def test_reports_are_replaced_whole(project: Project) -> None:
    project.suite()
    (project.root / "r.xml").write_text("old " * 10_000)
    assert project.cli("run", "suite.yaml", "--no-history", "--junit", "r.xml").returncode == 1
    xmlschema.validate(str(project.root / "r.xml"), str(XSD))
    assert sorted(p.name for p in project.root.glob("*r.xml*")) == ["r.xml"]


# --- GitHub step summary ----------------------------------------------------------------------------------


def test_markdown_summary_is_appended_to_github_step_summary(project: Project) -> None:
    project.suite()
    summary = project.root / "step_summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    for _ in range(2):
        process = project.popen("run", "suite.yaml", "--no-history", GITHUB_STEP_SUMMARY=str(summary))
        process.communicate(timeout=60)
        assert process.returncode == 1
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n### ❌ agent-eval: demo — 2 of 5 passed")
    assert text.count("### ❌ agent-eval: demo") == 2
    assert "| crashes | ERROR |" in text


def test_an_unwritable_github_step_summary_is_a_warning_not_a_failure(project: Project) -> None:
    project.suite(min_pass_rate=0.4)
    process = project.popen("run", "suite.yaml", "--no-history", GITHUB_STEP_SUMMARY=str(project.root / "no/such/f"))
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 0
    assert "warning: cannot append to GITHUB_STEP_SUMMARY" in stderr


# --- JSON Lines survive a crash ---------------------------------------------------------------------------


def test_jsonl_keeps_every_finished_case_when_the_run_is_killed(project: Project) -> None:
    slow_suite(project)
    process = project.popen("run", "suite.yaml", "--no-history", "--jsonl", "cases.jsonl", "--json", "r.json")
    journal = project.root / "cases.jsonl"
    wait_for_lines(journal, 3)
    process.kill()
    process.communicate(timeout=30)
    assert process.returncode == -signal.SIGKILL
    text = journal.read_text(encoding="utf-8")
    assert text.endswith("\n")
    lines = [json.loads(line) for line in text.splitlines()]
    assert [(line["type"], line["name"], line["status"]) for line in lines] == [
        ("case", "c0", "passed"),
        ("case", "c1", "passed"),
        ("case", "c2", "passed"),
    ]
    assert lines[0]["run"]["suite"] == "demo"
    assert not (project.root / "r.json").exists()


# --- interrupted runs say so in every format --------------------------------------------------------------


def test_an_interrupted_run_writes_the_finished_cases_marked_interrupted_everywhere(project: Project) -> None:
    slow_suite(project)
    process = project.popen(
        "run", "suite.yaml", "--history", "h.db", "--jsonl", "cases.jsonl", "--json", "r.json",
        "--junit", "r.xml", "--html", "r.html", "--markdown", "r.md",
    )  # fmt: skip
    wait_for_lines(project.root / "cases.jsonl", 3)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    root = project.root

    report = json.loads((root / "r.json").read_text(encoding="utf-8"))
    assert (report["interrupted"], report["total"], report["planned"]) == (True, 3, 8)
    xmlschema.validate(str(root / "r.xml"), str(XSD))
    junit = ET.parse(root / "r.xml").getroot()
    assert junit.findtext("testsuite/system-out", "").startswith("INTERRUPTED: 3 of 8 planned cases finished")
    assert len(junit.findall("testsuite/testcase")) == 3
    assert "Interrupted: 3 of 8 planned cases finished" in (root / "r.html").read_text(encoding="utf-8")
    assert "**Interrupted:** 3 of 8 planned cases finished" in (root / "r.md").read_text(encoding="utf-8")
    summary = json.loads((root / "cases.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert (summary["type"], summary["interrupted"]) == ("summary", True)
    [run] = History(root / "h.db").runs()
    assert (run.interrupted, run.total) == (True, 3)


# --- history is recorded by run ---------------------------------------------------------------------------


def test_run_records_into_agent_eval_runs_db_by_default(project: Project) -> None:
    project.suite()
    done = project.cli("run", "suite.yaml", "--json", "r.json")
    assert done.returncode == 1
    run_id = json.loads((project.root / "r.json").read_text(encoding="utf-8"))["metadata"]["run_id"]
    history = History(project.root / ".agent-eval" / "runs.db")
    [run] = history.runs()
    assert run.id == run_id
    assert (run.suite, run.passed, run.failed, run.errored, run.skipped) == ("demo", 2, 1, 1, 1)
    assert history.load(run_id).report.to_dict() == json.loads((project.root / "r.json").read_text("utf-8"))


def test_history_option_moves_the_database_and_no_history_skips_it(project: Project) -> None:
    project.suite()
    project.cli("run", "suite.yaml", "--history", "elsewhere/h.db")
    project.cli("run", "suite.yaml", "--no-history")
    assert len(History(project.root / "elsewhere" / "h.db").runs()) == 1
    assert not (project.root / ".agent-eval").exists()


def test_history_and_no_history_together_are_a_usage_error(project: Project) -> None:
    project.suite()
    done = project.cli("run", "suite.yaml", "--history", "h.db", "--no-history")
    assert done.returncode == 2
    assert "--history and --no-history exclude each other" in done.stderr


def test_a_history_that_cannot_be_written_is_a_warning_and_the_run_still_counts(project: Project) -> None:
    project.suite(min_pass_rate=0.4)
    (project.root / "h.db").write_text("not a database " * 100)
    done = project.cli("run", "suite.yaml", "--history", "h.db")
    assert done.returncode == 0
    assert "warning: run not recorded in h.db:" in done.stderr


# --- gates ------------------------------------------------------------------------------------------------


def test_min_pass_rate_in_the_suite_file_sets_the_bar(project: Project) -> None:
    project.suite(min_pass_rate=0.5)  # 2 passed of 4 that ran = 50 %
    assert project.cli("run", "suite.yaml", "--no-history").returncode == 0
    project.suite(min_pass_rate=0.51)
    assert project.cli("run", "suite.yaml", "--no-history").returncode == 1


def test_the_command_line_bar_wins_over_the_suite_file(project: Project) -> None:
    project.suite(min_pass_rate=0.9)
    assert project.cli("run", "suite.yaml", "--no-history", "--min-pass-rate", "0.5").returncode == 0
    project.suite(min_pass_rate=0.1)
    assert project.cli("run", "suite.yaml", "--no-history", "--min-pass-rate", "0.6").returncode == 1


def test_strict_counts_skipped_cases_as_failures(project: Project) -> None:
    project.suite(min_pass_rate=0.5)  # 2 of 4 that ran = 50 %; strict: 2 of 5 = 40 %
    assert project.cli("run", "suite.yaml", "--no-history").returncode == 0
    done = project.cli("run", "suite.yaml", "--no-history", "--strict", "--markdown", "r.md")
    assert done.returncode == 1
    assert "pass rate 40.0% (strict)" in done.stdout
    assert "| 40.0% (strict) | 50% **not met** |" in (project.root / "r.md").read_text(encoding="utf-8")


def test_the_recorded_bar_and_strictness_appear_in_the_reports(project: Project) -> None:
    project.suite(min_pass_rate=0.25)
    done = project.cli("run", "suite.yaml", "--no-history", "--json", "r.json", "--junit", "r.xml")
    assert done.returncode == 0
    meta = json.loads((project.root / "r.json").read_text(encoding="utf-8"))["metadata"]
    assert (meta["min_pass_rate"], meta["strict"]) == (0.25, False)
    properties = {p.get("name"): p.get("value") for p in ET.parse(project.root / "r.xml").getroot().iter("property")}
    assert properties["min_pass_rate"] == "0.25"
