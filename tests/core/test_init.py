"""``agent-eval init [DIR]``: a starter suite that ``agent-eval run`` passes as written, never overwriting a file."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from helpers import run_cli

FILES = ("eval_suite.yaml", "my_agent.py", "agent-eval.schema.json", ".github/workflows/agent-eval.yml")


def test_init_then_run_passes(tmp_path: Path) -> None:
    made = run_cli("init", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert all((tmp_path / name).is_file() for name in FILES)
    assert "next: agent-eval run eval_suite.yaml" in made.stdout
    ran = run_cli("run", "eval_suite.yaml", cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "3 passed, 0 failed, 0 errors, 0 skipped" in ran.stdout


def test_init_then_run_passes_as_commands_in_a_shell(tmp_path: Path) -> None:
    assert run_cli("init", cwd=tmp_path, process=True).returncode == 0
    ran = run_cli("run", "eval_suite.yaml", "--no-history", cwd=tmp_path, process=True)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "3 passed" in ran.stdout


def test_init_writes_into_the_folder_given_and_the_suite_runs_from_anywhere(tmp_path: Path) -> None:
    made = run_cli("init", "evals/new", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert all((tmp_path / "evals" / "new" / name).is_file() for name in FILES)
    ran = run_cli("run", "evals/new/eval_suite.yaml", "--no-history", cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_the_suite_uses_the_combinators_weights_and_a_threshold(tmp_path: Path) -> None:
    run_cli("init", cwd=tmp_path)
    report = tmp_path / "report.json"
    ran = run_cli("run", "eval_suite.yaml", "--json", str(report), "--no-history", cwd=tmp_path)
    assert ran.returncode == 0
    cases = json.loads(report.read_text(encoding="utf-8"))["cases"]
    names = {evaluation["name"] for case in cases for evaluation in case["evaluations"]}
    assert {"not", "any", "contains", "exact_match"} <= names
    assert cases[2]["reason"] == "score 1.00 reaches the threshold 0.75"


@pytest.mark.parametrize(
    ("disabled", "note"),
    [
        ("exact", "the suite checks without agent-eval-exact; pip install agent-eval-exact"),
        ("contains", "the suite checks without agent-eval-contains; pip install agent-eval-contains"),
        ("contains,exact", "no evaluator is installed, so the cases are skipped"),
    ],
)
def test_the_suite_passes_whichever_light_plugins_are_installed(tmp_path: Path, disabled: str, note: str) -> None:
    env = {"AGENT_EVAL_DISABLE_PLUGINS": disabled}
    made = run_cli("init", cwd=tmp_path, env=env)
    assert made.returncode == 0
    assert f"note: {note}" in made.stderr
    ran = run_cli("run", "eval_suite.yaml", "--no-history", cwd=tmp_path, env=env)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    suite = yaml.safe_load((tmp_path / "eval_suite.yaml").read_text(encoding="utf-8"))
    entries = [*suite.get("evaluators", []), *(e for case in suite["cases"] for e in case.get("evaluators", []))]
    gone = {"contains": {"contains", "matches"}, "exact": {"exact_match"}}
    assert not evaluator_names(entries) & set().union(*(gone[name] for name in disabled.split(",")))
    schema = json.loads((tmp_path / "agent-eval.schema.json").read_text(encoding="utf-8"))
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(suite)) == []


def evaluator_names(entries: list[object]) -> set[str]:
    """Every evaluator an entry list names, inside combinators too."""
    names: set[str] = set()
    for entry in entries:
        if isinstance(entry, str):
            names.add(entry)
            continue
        assert isinstance(entry, dict)
        for key, value in entry.items():
            if key in ("all", "any", "not"):
                names |= evaluator_names(value if isinstance(value, list) else [value])
            elif key != "weight":
                names.add(key)
    return names


def test_the_suite_points_editors_at_its_schema_which_catches_a_typo(tmp_path: Path) -> None:
    run_cli("init", cwd=tmp_path)
    text = (tmp_path / "eval_suite.yaml").read_text(encoding="utf-8")
    assert text.splitlines()[0] == "# yaml-language-server: $schema=./agent-eval.schema.json"
    assert "agent-eval schema > agent-eval.schema.json" in text
    schema = json.loads((tmp_path / "agent-eval.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    assert list(validator.iter_errors(yaml.safe_load(text))) == []
    typo = yaml.safe_load(text.replace("    input: Say hello", "    inptu: Say hello"))
    messages = [error.message for error in validator.iter_errors(typo)]
    assert "Additional properties are not allowed ('inptu' was unexpected)" in messages


def test_the_workflow_installs_what_the_suite_uses_and_runs_it(tmp_path: Path) -> None:
    run_cli("init", cwd=tmp_path)
    workflow = yaml.safe_load((tmp_path / ".github/workflows/agent-eval.yml").read_text(encoding="utf-8"))
    steps = [step.get("run", "") for step in workflow["jobs"]["evaluate"]["steps"]]
    assert "pip install agent-eval-core agent-eval-contains agent-eval-exact" in steps
    assert any(step.startswith("agent-eval run eval_suite.yaml") for step in steps)


@pytest.mark.parametrize("existing", FILES)
def test_init_refuses_to_overwrite_any_file_and_writes_nothing(tmp_path: Path, existing: str) -> None:
    target = tmp_path / existing
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("mine\n", encoding="utf-8")
    before = sorted(str(path.relative_to(tmp_path)) for path in tmp_path.rglob("*"))
    refused = run_cli("init", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr == (
        f"error: {existing} already exists; nothing was written (move it away, or give another DIR)\n"
    )
    assert target.read_text(encoding="utf-8") == "mine\n"
    assert sorted(str(path.relative_to(tmp_path)) for path in tmp_path.rglob("*")) == before


def test_init_refuses_a_dir_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("", encoding="utf-8")
    refused = run_cli("init", "taken", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr == "error: taken is a file, not a folder; give a folder: agent-eval init DIR\n"


def test_init_refuses_when_a_file_stands_where_a_folder_must_be(tmp_path: Path) -> None:
    (tmp_path / ".github").write_text("", encoding="utf-8")
    refused = run_cli("init", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr == "error: .github is a file, not a folder; nothing was written\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == [".github"]


def test_pytest_collects_the_starter_suite_one_test_per_case(tmp_path: Path) -> None:
    import subprocess
    import sys

    run_cli("init", cwd=tmp_path)
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "3 passed" in ran.stdout
