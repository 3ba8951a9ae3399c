"""Suite files: YAML, JSON and JSONL, validated before any agent call, every error with file:line:col."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import fake_plugin
import pytest

from agent_eval import SuiteError
from agent_eval._calling import Call
from agent_eval._plugins import registry_of
from agent_eval._suite import SuiteFile, load_suite

REGISTRY = registry_of(fake_plugin)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def load(path: Path) -> SuiteFile:
    return load_suite(path, registry=REGISTRY)


def problems(path: Path) -> list[str]:
    with pytest.raises(SuiteError) as caught:
        load(path)
    return caught.value.problems


GOOD = """
name: warranty
agent: examples.warranty:agent
min_pass_rate: 0.5
cases:
  - name: greets user
    input: Say hello
    evaluators:
      - has: {words: [hello, hi]}
  - name: adds
    input: What is 2 + 2?
    expected: "4"
    evaluators:
      - same: {}
      - has: "4"
"""


def test_yaml_suite_loads_cases_and_builds_their_evaluators(tmp_path: Path) -> None:
    suite = load(write(tmp_path, "suite.yaml", GOOD))
    assert (suite.name, suite.agent, suite.min_pass_rate) == ("warranty", "examples.warranty:agent", 0.5)
    greets, adds = suite.cases
    assert (greets.name, greets.input) == ("greets user", "Say hello")
    assert greets.evaluators[0].words == ("hello", "hi")
    assert adds.expected == "4"
    assert [Call.of(e).name for e in adds.evaluators] == ["same", "has"]
    assert adds.evaluators[1].words == ("4",)  # a bare value is the first argument, a string one keyword
    assert greets.location == f"{tmp_path / 'suite.yaml'}:5"


def test_json_suite_loads_the_same_as_yaml(tmp_path: Path) -> None:
    import yaml

    data = yaml.safe_load(textwrap.dedent(GOOD))
    suite = load(write(tmp_path, "suite.json", json.dumps(data, indent=2)))
    assert [case.name for case in suite.cases] == ["greets user", "adds"]


def test_jsonl_file_is_one_case_per_line(tmp_path: Path) -> None:
    lines = [json.dumps({"name": f"c{i}", "input": f"q{i}", "evaluators": [{"has": "q"}]}) for i in range(3)]
    suite = load(write(tmp_path, "cases.jsonl", "\n".join(lines) + "\n\n"))
    assert [case.input for case in suite.cases] == ["q0", "q1", "q2"]
    assert suite.name == "cases"


def test_cases_may_come_from_a_jsonl_file_beside_the_suite(tmp_path: Path) -> None:
    write(tmp_path, "data.jsonl", '{"name": "a", "input": "hi"}\n{"name": "b", "input": "yo"}\n')
    suite = load(write(tmp_path, "suite.yaml", "evaluators:\n  - has: hi\ncases: data.jsonl\n"))
    assert [case.name for case in suite.cases] == ["a", "b"]
    assert all(len(case.evaluators) == 1 for case in suite.cases)  # suite-wide evaluators apply to each


def test_yaml_keeps_yes_and_no_as_strings_and_decimal_numbers_decimal(tmp_path: Path) -> None:
    suite = load(
        write(
            tmp_path,
            "s.yaml",
            "cases:\n  - {name: a, input: no, expected: 010}\n  - {name: b, input: on, expected: 1e3}\n",
        )
    )
    assert [(c.input, c.expected) for c in suite.cases] == [("no", 10), ("on", 1000.0)]


def test_yaml_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "cases:\n  - name: a\n    input: [unclosed\n")
    (problem,) = problems(path)
    assert problem.startswith(f"{path}:")
    assert "invalid YAML" in problem


def test_yaml_python_tags_are_refused_and_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = write(tmp_path, "s.yaml", f'cases: !!python/object/apply:os.system ["touch {marker}"]\n')
    (problem,) = problems(path)
    assert f"{path}:1:8" in problem
    assert not marker.exists()


def test_duplicate_yaml_key_is_an_error_not_last_wins(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "cases:\n  - name: a\n    input: x\n    input: y\n")
    (problem,) = problems(path)
    assert problem == f"{path}:4:5: duplicate key 'input' (first at line 3); each key may appear once"


def test_yaml_aliases_are_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "x: &a [1]\ncases:\n  - {name: a, input: *a}\n")
    (problem,) = problems(path)
    assert f"{path}:3:" in problem and "aliases" in problem


def test_unknown_evaluator_suggests_the_close_name_and_lists_installed(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "cases:\n  - name: a\n    input: x\n    evaluators:\n      - hass: [x]\n")
    (problem,) = problems(path)
    assert problem == (
        f"{path}:5:9: case 'a': Unknown evaluator 'hass'. Did you mean 'has'? Installed: has, pattern_found, same."
    )


def test_unknown_known_evaluator_names_the_distribution_to_install(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "cases:\n  - name: a\n    input: x\n    evaluators: [llm_judge: be nice]\n")
    (problem,) = problems(path)
    assert "pip install agent-eval-judge" in problem


def test_unknown_argument_is_named_with_a_suggestion(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "cases:\n  - name: a\n    input: x\n    evaluators:\n      - has: {word: x}\n")
    (problem,) = problems(path)
    assert (
        problem == f"{path}:5:9: case 'a': has: unknown argument 'word'. Did you mean 'words'? It takes: words, strict"
    )


def test_missing_required_argument_is_named(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "cases:\n  - name: a\n    input: x\n    evaluators: [has]\n")
    (problem,) = problems(path)
    assert "has: missing a required argument: 'words'" in problem


def test_factory_rejecting_its_options_is_a_load_time_error(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "cases:\n  - name: a\n    input: x\n    evaluators:\n      - pattern_found: '('\n")
    (problem,) = problems(path)
    assert problem.startswith(f"{path}:5:9: case 'a': pattern_found: invalid regular expression '('")


def test_evaluator_that_cannot_grade_the_case_is_a_load_time_error(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "cases:\n  - name: a\n    input: x\n    evaluators: [same]\n")
    (problem,) = problems(path)
    assert problem == f"{path}:2:5: case 'a': same: no expected answer; give `expected:` in the case or an argument"


def test_every_problem_of_a_file_is_reported_together(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "s.yaml",
        """
        nme: typo
        cases:
          - name: a
            input: x
            expectd: y
          - name: a
            input: z
          - input: w
            evaluators: [nope]
          - name: c
        """,
    )
    found = problems(path)
    assert found == [
        f"{path}:1:1: unknown key 'nme'. Did you mean 'name'? A suite has: name, description, agent, "
        "min_pass_rate, concurrency, timeout, repeat, case_pass_rate, executor, threshold, evaluators, cases",
        f"{path}:5:5: case 'a': unknown key 'expectd'. Did you mean 'expected'? A case has: name, input, "
        "expected, evaluator, evaluators, metadata, threshold",
        f"{path}:6:11: duplicate case name 'a' (first at {path}:3:11); names must be unique",
        f"{path}:9:18: case #3: Unknown evaluator 'nope'. Installed: has, pattern_found, same.",
        f"{path}:10:5: case 'c': missing 'input'",
    ]


def test_wrong_types_are_named_with_what_was_expected(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "s.yaml",
        "name: [x]\nmin_pass_rate: 2\nconcurrency: 0\ncases:\n  - name: true\n    input: x\n    metadata: [1]\n",
    )
    found = problems(path)
    assert f"{path}:1:7: 'name' must be a str, got a list" in found
    assert f"{path}:2:16: 'min_pass_rate' must be a number from 0 to 1, got 2" in found
    assert f"{path}:3:14: 'concurrency' must be a whole number of at least 1, got 0" in found
    assert f"{path}:5:11: case #1: 'name' must be a non-empty string, got a boolean (true)" in found
    assert f"{path}:7:15: case #1: 'metadata' must be a mapping, got a list" in found


def test_json_errors_point_at_the_line_and_column(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "s.json",
        '{\n  "cases": [\n    {"name": "a", "input": "x",\n     "evaluators": [{"hass": 1}]}\n  ]\n}\n',
    )
    (problem,) = problems(path)
    assert problem.startswith(f"{path}:4:21: case 'a': Unknown evaluator 'hass'.")


def test_json_syntax_error_and_duplicate_key_point_at_their_place(tmp_path: Path) -> None:
    broken = write(tmp_path, "a.json", '{"cases": [\n  {"name": "a",, "input": 1}]}')
    assert problems(broken) == [f"{broken}:2:16: invalid JSON: Expecting property name enclosed in double quotes"]
    duplicate = write(tmp_path, "b.json", '{"cases": [\n  {"name": "a", "name": "b", "input": 1}]}')
    assert problems(duplicate) == [f"{duplicate}:2:17: duplicate key 'name'; each key may appear once"]


def test_jsonl_errors_point_at_their_line(tmp_path: Path) -> None:
    path = write(
        tmp_path, "c.jsonl", '{"name": "a", "input": 1}\n{"name": "b", "input": 2, "evaluators": ["nope"]}\n{oops}\n'
    )
    assert problems(path) == [f"{path}:3:2: invalid JSON: Expecting property name enclosed in double quotes"]
    path.write_text('{"name": "a", "input": 1}\n{"name": "b", "input": 2, "evaluators": ["nope"]}\n')
    (problem,) = problems(path)
    assert problem.startswith(f"{path}:2:42: case 'b': Unknown evaluator 'nope'.")


@pytest.mark.parametrize(
    ("name", "content", "fragment"),
    [
        ("s.txt", "", "unknown suite file type '.txt'"),
        ("missing.yaml", None, "does not exist"),
        ("s.yaml", "- 1\n- 2\n", "a case is a mapping"),
        ("s.yaml", "just text\n", "a suite file holds a mapping with 'cases'"),
        ("s.yaml", "name: x\n", "missing 'cases'"),
    ],
)
def test_file_level_mistakes_get_one_clear_line(tmp_path: Path, name: str, content: str | None, fragment: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_text(content, encoding="utf-8")
    found = problems(path)
    assert found and all(line.startswith(str(path)) for line in found)
    assert fragment in found[0]


def test_identical_evaluator_entries_share_one_instance(tmp_path: Path) -> None:
    lines = [json.dumps({"name": f"c{i}", "input": "x", "evaluators": [{"has": ["x"]}]}) for i in range(50)]
    suite = load(write(tmp_path, "c.jsonl", "\n".join(lines)))
    assert len({id(case.evaluators[0]) for case in suite.cases}) == 1


def test_registered_name_is_given_to_evaluators_without_one(tmp_path: Path) -> None:
    suite = load(write(tmp_path, "s.yaml", "cases:\n  - {name: a, input: x, evaluators: [pattern_found: x]}\n"))
    assert suite.cases[0].evaluators[0].name == "pattern_found"


@pytest.mark.parametrize(
    ("name", "body"),
    [("s.yaml", "cases:\n  - {name: a, input: x}\n"), ("s.json", '{"cases": [{"name": "a", "input": "x"}]}')],
)
def test_a_byte_order_mark_is_not_content(tmp_path: Path, name: str, body: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"\xef\xbb\xbf" + body.encode())
    assert [case.name for case in load(path).cases] == ["a"]


def test_cases_know_their_line_in_yaml_and_jsonl(tmp_path: Path) -> None:
    yaml_suite = load(write(tmp_path, "s.yaml", "cases:\n  - {name: a, input: x}\n  - {name: b, input: y}\n"))
    assert [case.location for case in yaml_suite.cases] == [f"{tmp_path / 's.yaml'}:2", f"{tmp_path / 's.yaml'}:3"]
    lines = load(write(tmp_path, "c.jsonl", '{"name": "a", "input": 1}\n\n{"name": "b", "input": 2}\n'))
    assert [case.location for case in lines.cases] == [f"{tmp_path / 'c.jsonl'}:1", f"{tmp_path / 'c.jsonl'}:3"]


def test_cases_loaded_from_a_file_are_checked_once_not_again_by_the_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_eval import EvalSuite

    calls: list[str] = []
    original = fake_plugin._Same.check_case

    def counting(self: fake_plugin._Same, case: object) -> None:
        calls.append(getattr(case, "name", "?"))
        original(self, case)  # type: ignore[arg-type]

    monkeypatch.setattr(fake_plugin._Same, "check_case", counting)
    path = write(
        tmp_path,
        "suite.yaml",
        """
        cases:
          - {name: a, input: x, expected: x, evaluators: [same]}
          - {name: b, input: y, expected: y, evaluators: [same]}
        """,
    )
    suite = load(path)
    assert calls == ["a", "b"]
    report = EvalSuite(lambda value: value, suite.cases).run(print=False)
    assert calls == ["a", "b"]  # not checked a second time
    assert report.passed == 2
    EvalSuite(lambda value: value, list(suite.cases)).run(print=False)
    assert calls == ["a", "b", "a", "b"]  # plain cases given in Python are checked
