"""``agent-eval compare BASE HEAD`` on runs from the real CLI: what changed, and exit 1 on a regression."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.data.reports.project import STANDARD_ANSWERS, STANDARD_CASES, Project

#: Against the standard run: greets regresses, adds is fixed, grades scores higher,
#: crashes is gone and a new case appears.
CHANGED_ANSWERS = {**STANDARD_ANSWERS, "Say hello": "good day", "What is 2 + 2?": "4", "Grade me": "score=0.9"}
CHANGED_CASES = [
    *[case for case in STANDARD_CASES if case["name"] != "crashes"],
    {"name": "new case", "input": "Say hello", "evaluators": [{"says": "day"}]},
]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def run(project: Project, json_path: str, *, changed: bool = False) -> None:
    project.answers(CHANGED_ANSWERS if changed else STANDARD_ANSWERS)
    project.suite(CHANGED_CASES if changed else STANDARD_CASES)
    project.cli("run", "suite.yaml", "--json", json_path)


def test_a_regression_against_the_previous_run_is_shown_and_exits_1(project: Project) -> None:
    run(project, "base.json")
    run(project, "head.json", changed=True)
    done = project.cli("compare", "latest~1", "latest")
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    base_id = json.loads((project.root / "base.json").read_text(encoding="utf-8"))["metadata"]["run_id"]
    assert lines[0] == f"BASE latest~1 = {base_id} (demo, 5 cases, 2 passed)"
    assert lines[2] == "pass rate 50.0% → 75.0% (+25.0 points)"
    text = done.stdout
    assert "Newly failing (1)\n  greets  passed → failed  score 1.00 → 0.00 (-1.00)  missing 'hello'\n" in text
    assert "Newly passing (1)\n  adds  failed → passed  score 0.00 → 1.00 (+1.00)\n" in text
    assert "Score changes (1)\n  grades  passed → passed  score 0.75 → 0.90 (+0.15)\n" in text
    assert "Added (1)\n  new case  passed  score 1.00\n" in text
    assert "Removed (1)\n  crashes  was error\n" in text
    assert lines[-1] == "REGRESSED: 1 regressed · 1 newly passing · 1 score change · 1 added · 1 removed"


def test_json_report_files_can_be_compared_and_mixed_with_run_ids(project: Project) -> None:
    run(project, "base.json")
    run(project, "head.json", changed=True)
    assert project.cli("compare", "base.json", "head.json").returncode == 1
    assert project.cli("compare", "base.json", "latest").returncode == 1
    done = project.cli("compare", "head.json", "base.json")  # the other way round: adds regresses
    assert done.returncode == 1
    assert "Newly failing (1)\n  adds  passed → failed" in done.stdout


def test_no_regression_exits_0_even_with_other_changes(project: Project) -> None:
    project.answers(STANDARD_ANSWERS)
    project.suite()
    project.cli("run", "suite.yaml")
    project.answers({**STANDARD_ANSWERS, "What is 2 + 2?": "4", "Grade me": "score=0.6"})
    project.cli("run", "suite.yaml")
    done = project.cli("compare", "latest~1", "latest")
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[-1] == "No regression: 1 newly passing · 1 score change"


def test_a_run_compared_with_itself_is_unchanged(project: Project) -> None:
    run(project, "base.json")
    done = project.cli("compare", "latest", "base.json")
    assert done.returncode == 0
    assert done.stdout.splitlines()[-1] == "No case changed."


def test_compare_json_gives_every_group_for_tools(project: Project) -> None:
    run(project, "base.json")
    run(project, "head.json", changed=True)
    done = project.cli("compare", "base.json", "head.json", "--json")
    assert done.returncode == 1
    data = json.loads(done.stdout)
    assert data["regressed"] is True
    assert [change["name"] for change in data["regressions"]] == ["greets"]
    assert [change["name"] for change in data["fixed"]] == ["adds"]
    assert [(c["name"], round(c["score_delta"], 6)) for c in data["score_changes"]] == [("grades", 0.15)]
    assert [change["name"] for change in data["added"]] == ["new case"]
    assert [change["name"] for change in data["removed"]] == ["crashes"]
    assert (data["base"]["pass_rate"], data["head"]["pass_rate"]) == (0.5, 0.75)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nope", "latest"), "error: no run 'nope' in .agent-eval/runs.db; `agent-eval runs` lists the recorded runs"),
        (("missing.json", "latest"), "error: missing.json: no such file; give a JSON report written by `run --json`"),
        (("latest~5", "latest"), "error: 'latest~5' needs 6 recorded runs; .agent-eval/runs.db holds 1"),
    ],
)
def test_an_unknown_run_or_missing_file_is_one_line_and_exit_2(
    project: Project, args: tuple[str, str], message: str
) -> None:
    run(project, "base.json")
    done = project.cli("compare", *args)
    assert done.returncode == 2
    assert done.stderr.strip().startswith(message)
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_file_that_is_not_a_report_is_one_line_and_exit_2(project: Project) -> None:
    run(project, "base.json")
    (project.root / "other.json").write_text('{"hello": 1}')
    (project.root / "broken.json").write_text("{not json")
    expected = {
        "other.json": "expected an object with a 'cases' list",
        "broken.json": "invalid JSON at line 1, column 2: Expecting property name enclosed in double quotes",
    }
    for name, problem in expected.items():
        done = project.cli("compare", name, "latest")
        assert done.returncode == 2
        assert done.stderr == (
            f"error: {name}: not an agent-eval report: {problem}; write reports with `agent-eval run --json`\n"
        )


def test_compare_reads_another_history_file(project: Project) -> None:
    project.suite()
    project.cli("run", "suite.yaml", "--history", "h.db")
    project.cli("run", "suite.yaml", "--history", "h.db")
    assert project.cli("compare", "latest~1", "latest", "--history", "h.db").returncode == 0
    assert project.cli("compare", "latest~1", "latest").returncode == 2
