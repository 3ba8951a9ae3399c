"""valid_json through EvalSuite, suite files (schemas beside them) and the agent-eval command."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import run_cli

from agent_eval import EvalSuite, SuiteError
from agent_eval._plugins import registry_of
from agent_eval._suite import load_suite
from agent_eval_json import plugin, valid_json

#: Whatever the caller's environment says, the installed plugins load.
PLUGINS_ON = {"AGENT_EVAL_DISABLE_PLUGIN_AUTOLOAD": "", "AGENT_EVAL_DISABLE_PLUGINS": ""}

ANSWERS = {
    "List 3 colors as JSON": '["red", "green", "blue"]',
    "Describe the order": '{"items": ["tea", 5], "count": 2}',
    "Chat": "Sure! Here are three colors: red, green, blue.",
}

SCHEMA = {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "string"}}}}


def agent(question: str) -> str:
    return ANSWERS[question]


def test_seed_002_custom_json_check_passes_with_its_reason_unchanged() -> None:
    cases = [
        {"name": "returns json", "input": "List 3 colors as JSON", "evaluator": valid_json()},
        {"name": "chats instead", "input": "Chat", "evaluator": valid_json()},
    ]
    report = EvalSuite(agent, cases).run(print=False)
    returns_json, chats = report.cases
    assert (returns_json.status, returns_json.reason) == ("passed", "valid JSON")
    assert chats.status == "failed"
    assert chats.reason is not None
    assert chats.reason.startswith("invalid JSON: Expecting value at line 1 column 1")


def test_schema_failure_names_the_path_in_the_report() -> None:
    cases = [{"name": "order", "input": "Describe the order", "evaluator": valid_json(SCHEMA)}]
    report = EvalSuite(agent, cases).run(print=False)
    assert report.cases[0].reason == "$.items[1]: 5 is not of type 'string'"
    assert report.cases[0].evaluations[0].metadata["errors"] == [
        {"path": "$.items[1]", "message": "5 is not of type 'string'"}
    ]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def test_a_schema_path_is_read_relative_to_the_suite_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "evals" / "schemas" / "order.json", json.dumps(SCHEMA))
    suite_path = write(
        tmp_path / "evals" / "suite.yaml",
        """
        cases:
          - name: order
            input: Describe the order
            evaluators: [valid_json: schemas/order.json]
          - name: colors
            input: List 3 colors as JSON
            evaluators:
              - valid_json: {schema: {type: array, items: {type: string}}}
        """,
    )
    monkeypatch.chdir(tmp_path)  # not the suite's directory
    suite = load_suite(suite_path, registry=registry_of(plugin))
    report = EvalSuite(agent, suite.cases).run(print=False)
    assert [(case.status, case.reason) for case in report.cases] == [
        ("failed", "$.items[1]: 5 is not of type 'string'"),
        ("passed", "valid JSON, matches the schema"),
    ]


def test_an_invalid_schema_is_a_suite_error_naming_file_and_line(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        """
        cases:
          - name: order
            input: Describe the order
            evaluators:
              - valid_json: {schema: {type: list}}
        """,
    )
    with pytest.raises(SuiteError) as caught:
        load_suite(path, registry=registry_of(plugin))
    (problem,) = caught.value.problems
    assert problem.startswith(f"{path}:5:9: case 'order': valid_json: invalid JSON Schema at $.type: 'list' is not")


def test_a_missing_schema_file_is_a_suite_error_naming_it(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        """
        cases:
          - name: order
            input: Describe the order
            evaluators: [valid_json: missing.json]
        """,
    )
    with pytest.raises(SuiteError) as caught:
        load_suite(path, registry=registry_of(plugin))
    assert caught.value.problems == [
        f"{path}:4:18: case 'order': valid_json: schema file '{tmp_path.resolve() / 'missing.json'}' does not exist"
    ]


def test_registry_lists_valid_json_with_its_defaults() -> None:
    registry = registry_of(plugin)
    assert registry.names() == ["valid_json"]
    listed = registry.get("valid_json").to_dict()
    assert listed["description"] == "Passes when the output is valid JSON and, given a JSON Schema, matches it."
    assert {p["name"]: p.get("default") for p in listed["parameters"]} == {"schema": None, "allow_fence": False}


@pytest.mark.slow
def test_cli_exits_2_on_an_invalid_schema_before_running(tmp_path: Path) -> None:
    write(tmp_path / "schema.json", '{"type": "object", "required": "items"}')
    write(
        tmp_path / "suite.yaml",
        """
        cases:
          - name: order
            input: Describe the order
            evaluators:
              - valid_json: schema.json
        """,
    )
    (tmp_path / "agents.py").write_text("def agent(question):\n    raise SystemExit('must not run')\n")
    done = run_cli("run", "suite.yaml", "--agent", "agents:agent", "--no-history", cwd=tmp_path, env=PLUGINS_ON)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "suite.yaml:5:9: case 'order': valid_json: invalid JSON Schema in " in lines[0]
    assert "schema.json' at $.required: 'items' is not of type 'array'" in lines[0]
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_jsonschema_is_imported_only_when_a_schema_is_used() -> None:
    script = textwrap.dedent(
        """
        import sys
        import agent_eval_json.plugin
        from agent_eval_json import valid_json

        evaluator = valid_json()
        assert evaluator('{"a": 1}').passed
        assert not evaluator("{").passed
        without = "jsonschema" in sys.modules
        valid_json({"type": "object"})
        print(without, "jsonschema" in sys.modules)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["False", "True"]
