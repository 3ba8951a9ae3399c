"""The README's authoring sections hold as written: their suites load, their Python runs, their output is real."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import yaml
from helpers import run_cli

from agent_eval import SuiteError, load_suite

README = Path(__file__).resolve().parents[2] / "README.md"


def section(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n{title}\n")
    end = re.compile(r"\n##+ ").search(text, start + len(title) + 2)
    return text[start : end.start() if end else len(text)]


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def schema_validator(tmp_path: Path) -> jsonschema.Draft202012Validator:
    result = run_cli("schema", cwd=tmp_path)
    return jsonschema.Draft202012Validator(json.loads(result.stdout))


def test_the_suite_file_examples_load_and_are_valid_against_the_schema(tmp_path: Path) -> None:
    validator = schema_validator(tmp_path)
    examples = blocks(section("## Suite files"), "yaml") + blocks(
        section("### Combinators, weights and thresholds"), "yaml"
    )
    assert len(examples) == 2
    for index, example in enumerate(examples):
        assert list(validator.iter_errors(yaml.safe_load(example))) == []
        path = tmp_path / f"suite{index}.yaml"
        path.write_text(example, encoding="utf-8")
        assert load_suite(path).cases


def test_the_combinators_python_example_runs() -> None:
    (code,) = blocks(section("### Combinators, weights and thresholds"), "python")
    exec(compile(code, "README.md", "exec"), {})


def test_the_csv_example_loads_and_its_problems_read_as_shown(tmp_path: Path) -> None:
    text = section("### CSV datasets")
    (csv,) = blocks(text, "csv")
    (shown,) = blocks(text, "text")
    (tmp_path / "data.csv").write_text(csv, encoding="utf-8")
    suite = tmp_path / "suite.yaml"
    suite.write_text("evaluators: [{contains: [x]}]\n\ncases: data.csv\n", encoding="utf-8")
    greets, adds = load_suite(suite).cases
    assert (greets.expected, adds.expected, dict(adds.metadata)) == (None, "4", {"topic": "maths"})

    problems = []
    for content in ("name,question\n", "name,input\nb,x\nadds,x\nc,x\nd,x\ne,x\nadds,y\n"):
        (tmp_path / "data.csv").write_text(content, encoding="utf-8")
        try:
            load_suite(suite)
        except SuiteError as error:
            problems += [f"error: {problem}".replace(f"{tmp_path}/", "") for problem in error.problems]
    assert problems == shown.splitlines()


def test_init_prints_what_the_readme_shows(tmp_path: Path) -> None:
    (console,) = blocks(section("## Starting a suite, and checking it in an editor"), "console")
    shown = console.splitlines()
    made = run_cli("init", cwd=tmp_path)
    assert made.stdout.splitlines() == shown[1:3]
    ran = run_cli("run", "eval_suite.yaml", "--no-history", cwd=tmp_path)
    assert ran.stdout.splitlines()[-1].rsplit(" · ", 1)[0] == shown[-1].rsplit(" · ", 1)[0]


def test_the_editor_example_is_flagged_on_the_misspelt_key(tmp_path: Path) -> None:
    (example,) = blocks(section("## Starting a suite, and checking it in an editor"), "yaml")
    assert example.startswith("# yaml-language-server: $schema=./agent-eval.schema.json\n")
    messages = [error.message for error in schema_validator(tmp_path).iter_errors(yaml.safe_load(example))]
    assert messages == ["Additional properties are not allowed ('evalutors' was unexpected)"]
