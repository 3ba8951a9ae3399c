"""``agent-eval schema``: a JSON Schema of suite files that editors can check suites against."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import fake_plugin
import jsonschema
import pytest
import yaml
from helpers import run_cli

from agent_eval._cases import CASE_KEYS
from agent_eval._plugins import get_registry, registry_of
from agent_eval._schema import suite_schema
from agent_eval._suite import SUITE_KEYS, load_suite

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    """The schema for every evaluator installed here (the repository's plugins), as the command prints it."""
    result = run_cli("schema")
    assert result.returncode == 0, result.stderr
    schema = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def errors(validator: jsonschema.Draft202012Validator, text: str) -> list[str]:
    return [error.message for error in validator.iter_errors(yaml.safe_load(text))]


def best(validator: jsonschema.Draft202012Validator, text: str) -> jsonschema.ValidationError:
    found = jsonschema.exceptions.best_match(validator.iter_errors(yaml.safe_load(text)))
    assert found is not None, "the suite was valid"
    return found


def test_the_schema_is_draft_2020_12_and_names_every_key_the_loader_reads(
    validator: jsonschema.Draft202012Validator,
) -> None:
    schema: dict[str, Any] = validator.schema  # type: ignore[assignment]
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert tuple(schema["properties"]) == SUITE_KEYS
    assert tuple(schema["$defs"]["case"]["properties"]) == CASE_KEYS
    assert schema["additionalProperties"] is False
    assert schema["$defs"]["case"]["additionalProperties"] is False


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.name)
def test_every_example_suite_is_valid(validator: jsonschema.Draft202012Validator, path: Path) -> None:
    assert errors(validator, path.read_text(encoding="utf-8")) == []


def test_a_misspelt_key_is_flagged_by_name(validator: jsonschema.Draft202012Validator) -> None:
    suite = "cases:\n  - name: a\n    input: b\n    evalutors: [exact_match]\n"
    found = best(validator, suite)
    assert found.message == "Additional properties are not allowed ('evalutors' was unexpected)"
    assert found.json_path == "$.cases[0]"
    assert "min_pas_rate" in best(validator, "min_pas_rate: 0.5\ncases: data.jsonl\n").message


def test_an_unknown_evaluator_or_argument_is_flagged(validator: jsonschema.Draft202012Validator) -> None:
    argument = best(validator, "cases:\n  - {name: a, input: b, evaluators: [{contains: {keyword: [x]}}]}\n")
    assert (argument.json_path, argument.message) == (
        "$.cases[0].evaluators[0].contains",
        "Additional properties are not allowed ('keyword' was unexpected)",
    )
    name = best(validator, "cases:\n  - {name: a, input: b, evaluators: [{contain: [x]}]}\n")
    assert "'contain' was unexpected" in name.message
    assert errors(validator, "cases:\n  - {name: a, input: b, evaluators: [{contains: {match_all: yes}}]}\n")


@pytest.mark.parametrize(
    "suite",
    [
        "cases: data.csv\nevaluators: [{contains: [hello]}]\nthreshold: 0.8\n",
        "cases: data.JSONL\n",
        "- {name: a, input: b}\n",  # a list of cases is a suite too
        """
        cases:
          - name: a
            input: b
            expected: "4"
            threshold: 0.5
            evaluator: {not: {contains: [call now]}}
            evaluators:
              - exact_match
              - exact_match: "4"
              - contains: "4"
              - {contains: {keywords: ["4"], match_all: false}, weight: 2}
              - all: [{contains: [a]}, {matches: "\\\\d", weight: 3}]
              - any: [exact_match, {not: [contains: [x]]}]
              - valid_json: {schema: {type: object}}
              - valid_json
              - llm_judge: Is polite.
        """,
    ],
)
def test_combinators_weights_thresholds_and_cases_files_are_valid(
    validator: jsonschema.Draft202012Validator, suite: str
) -> None:
    import textwrap

    assert errors(validator, textwrap.dedent(suite)) == []


@pytest.mark.parametrize(
    "suite",
    [
        "cases: data.txt\n",
        "cases: []\n",
        "threshold: 1.5\ncases: data.csv\n",
        "cases:\n  - {name: a, input: b, evaluators: [{contains: [a], weight: 0}]}\n",
        "cases:\n  - {name: a, input: b, evaluators: [{all: []}]}\n",
        "cases:\n  - {name: a, input: b, evaluators: [{not: [exact_match, exact_match]}]}\n",
        "cases:\n  - {name: a, input: b, evaluators: [{weight: 2}]}\n",
        "cases:\n  - {name: a, input: b, evaluators: [{contains: [a], matches: b}]}\n",
        "cases:\n  - {name: a, input: b, evaluators: [contains]}\n",  # contains needs its keywords
        "cases:\n  - {name: a, input: b, evaluators: [{matches: null}]}\n",
        "cases:\n  - {name: a, input: b, evaluators: [all]}\n",
        "cases:\n  - {name: a}\n",  # no input
    ],
)
def test_what_the_loader_refuses_the_schema_flags(validator: jsonschema.Draft202012Validator, suite: str) -> None:
    assert errors(validator, suite)


def test_arguments_follow_the_factory_signature() -> None:
    schema = suite_schema(registry_of(fake_plugin))
    validator = jsonschema.Draft202012Validator(schema)
    entry = schema["$defs"]["entry"]
    assert entry["then"] == {"enum": ["same"]}  # bare names: the evaluators with no required argument
    assert set(entry["else"]["properties"]) == {"has", "same", "pattern_found", "all", "any", "not", "weight"}

    def valid(evaluator: Any) -> bool:
        return validator.is_valid({"cases": [{"input": "x", "evaluators": [evaluator]}]})

    assert valid({"has": {"words": ["a"], "strict": False}})
    assert valid({"has": "a"})  # the first argument alone
    assert not valid({"has": {"strict": False}})  # words is required
    assert not valid({"has": None})
    assert valid({"same": None}) and valid({"same": {}}) and valid("same")


def test_a_factory_taking_any_keyword_accepts_any_argument() -> None:
    def anything(**options: Any) -> Any:
        """Takes whatever it is given."""
        return lambda output: True

    class Plugin:
        @staticmethod
        def register_evaluators(register: Any) -> None:
            register(anything)

    from agent_eval import hookimpl

    Plugin.register_evaluators = hookimpl(Plugin.register_evaluators)  # type: ignore[method-assign]
    validator = jsonschema.Draft202012Validator(suite_schema(registry_of(Plugin)))
    assert validator.is_valid({"cases": [{"input": "x", "evaluators": [{"anything": {"colour": "red"}}]}]})


def test_the_schema_agrees_with_the_loader_on_a_suite_it_accepts(tmp_path: Path) -> None:
    text = "cases:\n  - {name: a, input: b, threshold: 0.5, evaluators: [{has: [a], weight: 2}, {not: same}]}\n"
    path = tmp_path / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    registry = registry_of(fake_plugin)
    with pytest.raises(Exception, match="no expected answer"):  # the loader also runs check_case
        load_suite(path, registry=registry)
    validator = jsonschema.Draft202012Validator(suite_schema(registry))
    assert validator.is_valid(yaml.safe_load(text))


def test_the_command_warns_about_a_broken_plugin_and_still_prints_the_schema(tmp_path: Path) -> None:
    from helpers import write_plugin

    site = write_plugin(tmp_path / "site", "raise RuntimeError('boom')\n", entry_point="broken")
    result = run_cli("schema", env={"PYTHONPATH": str(site)}, cwd=tmp_path)
    assert result.returncode == 0
    assert "plugin 'broken'" in result.stderr and "boom" in result.stderr
    assert "contains" in json.loads(result.stdout)["$defs"]["entry"]["else"]["properties"]


def test_installed_evaluators_are_all_in_the_schema() -> None:
    schema = suite_schema(get_registry())
    assert set(get_registry().names()) <= set(schema["$defs"]["entry"]["else"]["properties"])
