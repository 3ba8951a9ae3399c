"""Labels files as ``calibrate`` reads them: JSON Lines and CSV, and every problem one line with file:line."""

from __future__ import annotations

from pathlib import Path

import pytest
from calibrate_helpers import calibrate, judge_by, judged_case, says_pass, write_labels, write_suite

from agent_eval.testing import ChatServer
from agent_eval_judge.labels import LabelsError, read_labels


@pytest.fixture
def by_output(judge_at: ChatServer) -> ChatServer:
    judge_at.responder = judge_by(says_pass)
    return judge_at


def test_labels_problems_are_one_line_each_naming_file_and_line(tmp_path: Path) -> None:
    write_suite(tmp_path, [judged_case("greets"), judged_case("adds")])
    write_labels(
        tmp_path,
        [
            {"name": "greets", "output": "hi", "label": "pass"},
            {"name": "greet", "output": "hi", "label": "pass"},  # no such case
            {"name": "adds", "output": "4", "label": "maybe"},
            {"name": "greets", "output": "hello", "label": "fail"},  # twice
            {"name": "adds", "label": "pass"},
        ],
        header={"suite_file": "suite.json"},
    )
    done = calibrate(tmp_path, "labels.jsonl")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "error: 4 problems:",
        "error: labels.jsonl:4: label 'maybe' is neither pass nor fail; write pass, fail, true or false",
        "error: labels.jsonl:5: case 'greets' is labelled twice (first at line 2); keep one",
        "error: labels.jsonl:6: missing 'output'; a label has name, output, label",
        "error: labels.jsonl:6: case 'adds' is labelled twice (first at line 4); keep one",
    ]
    # once the file itself is sound, the names are checked against the suite
    write_labels(tmp_path, [{"name": "greet", "output": "hi", "label": "pass"}], header={"suite_file": "suite.json"})
    unknown = calibrate(tmp_path, "labels.jsonl")
    assert unknown.returncode == 2
    assert unknown.stderr == "error: labels.jsonl:2: no case 'greet' in suite.json. Did you mean 'greets'?\n"


def test_a_labels_line_that_is_not_an_object_is_named(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text('{"name": "a", "output": "x", "label": true}\n\n[1, 2]\n{"name": \n', encoding="utf-8")
    with pytest.raises(LabelsError) as raised:
        read_labels(str(path))
    assert [problem.split(": ", 1)[0] for problem in raised.value.problems] == [f"{path}:3", f"{path}:4"]
    assert "expected an object with name, output and label, got list" in raised.value.problems[0]
    assert "not JSON" in raised.value.problems[1]


def test_labels_may_be_pass_fail_true_false_in_any_case_or_json_booleans(tmp_path: Path) -> None:
    rows = [
        {"name": "a", "output": "x", "label": "PASS"},
        {"name": "b", "output": "x", "label": " Fail "},
        {"name": "c", "output": "x", "label": True},
        {"name": "d", "output": "x", "label": "false"},
        {"name": 5, "output": None, "label": "True", "score": 0.5, "note": "close call"},
    ]
    labels = read_labels(str(write_labels(tmp_path, rows)))
    assert [(label.name, label.passed) for label in labels.labels] == [
        ("a", True),
        ("b", False),
        ("c", True),
        ("d", False),
        ("5", True),
    ]
    last = labels.labels[-1]
    assert (last.output, last.score, last.note, last.line) == (None, 0.5, "close call", 5)
    assert labels.suite_file is None and labels.run is None


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("label", 1, "label 1 is neither pass nor fail"),
        ("label", "", "label '' is neither pass nor fail"),
        ("score", 1.5, "score 1.5 is not a number from 0 to 1"),
        ("score", True, "score True is not a number from 0 to 1"),
        ("note", 3, "'note' must be text, got 3"),
        ("name", "  ", "'name' must be a case's name, got '  '"),
        ("tool_calls", "lookup", "'tool_calls' must be a list of tool calls, got str"),
    ],
)
def test_a_bad_field_is_a_problem_at_its_line(tmp_path: Path, field: str, value: object, problem: str) -> None:
    row = {"name": "a", "output": "x", "label": "pass", field: value}
    path = write_labels(tmp_path, [{"name": "ok", "output": "x", "label": "pass"}, row])
    with pytest.raises(LabelsError) as raised:
        read_labels(str(path))
    [found] = raised.value.problems
    assert found.startswith(f"{path}:2: {problem}")


def test_the_header_names_the_suite_and_run_and_suite_defaults_to_it(tmp_path: Path, by_output: ChatServer) -> None:
    write_suite(tmp_path, [judged_case("a")], name="mine.json")
    header = {"format": "agent-eval/labels", "version": 1, "suite_file": "mine.json", "run": "20260101-000000-abc"}
    path = write_labels(tmp_path, [{"name": "a", "output": "judge-pass", "label": "pass"}], header=header)
    labels = read_labels(str(path))
    assert (labels.suite_file, labels.run) == ("mine.json", "20260101-000000-abc")
    assert labels.labels[0].line == 2
    data = calibrate(tmp_path, "labels.jsonl", "--json").data
    assert (data["suite_file"], data["run"], data["n"]) == ("mine.json", "20260101-000000-abc", 1)


def test_a_suite_file_field_on_the_rows_names_the_suite_too(tmp_path: Path, by_output: ChatServer) -> None:
    write_suite(tmp_path, [judged_case("a"), judged_case("b")])
    rows = [
        {"name": "a", "output": "judge-pass", "label": "pass", "suite_file": "suite.json"},
        {"name": "b", "output": "judge-fail", "label": "fail", "suite_file": "suite.json"},
    ]
    write_labels(tmp_path, rows)
    assert calibrate(tmp_path, "labels.jsonl", "--json").data["agreement"] == 1.0
    rows[1]["suite_file"] = "other.json"
    write_labels(tmp_path, rows)
    done = calibrate(tmp_path, "labels.jsonl")
    assert done.returncode == 2
    assert "labels.jsonl:2: suite_file 'other.json' differs from 'suite.json' (line 1); one file, one suite" in (
        done.stderr
    )


def test_without_a_suite_named_anywhere_suite_is_required(tmp_path: Path) -> None:
    write_labels(tmp_path, [{"name": "a", "output": "x", "label": "pass"}])
    done = calibrate(tmp_path, "labels.jsonl")
    assert (done.returncode, done.stderr) == (2, "error: labels.jsonl does not say which suite it labels; give SUITE\n")
    write_labels(tmp_path, [{"name": "a", "output": "x", "label": "pass"}], header={"suite_file": "gone.yaml"})
    gone = calibrate(tmp_path, "labels.jsonl")
    assert gone.returncode == 2
    assert "labels.jsonl names the suite file 'gone.yaml', which is not here; give SUITE" in gone.stderr


def test_a_suite_with_problems_is_reported_as_a_suite_error(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text("cases:\n  - name: a\n    evaluators: [{nope: 1}]\n", encoding="utf-8")
    write_labels(tmp_path, [{"name": "a", "output": "x", "label": "pass"}])
    done = calibrate(tmp_path, "labels.jsonl", "suite.yaml")
    assert done.returncode == 2
    assert "suite.yaml:" in done.stderr and "nope" in done.stderr


def test_a_missing_or_empty_labels_file_is_one_line(tmp_path: Path) -> None:
    write_suite(tmp_path, [judged_case("a")])
    missing = calibrate(tmp_path, "nothing.jsonl", "suite.json")
    assert missing.returncode == 2 and missing.stderr.startswith("error: nothing.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n", encoding="utf-8")
    empty = calibrate(tmp_path, "empty.jsonl", "suite.json")
    assert empty.returncode == 2
    assert empty.stderr == "error: empty.jsonl: holds no labels; give one line per labelled output\n"


def test_csv_labels_take_the_header_row_and_name_the_line_a_row_starts_on(
    tmp_path: Path, by_output: ChatServer
) -> None:
    write_suite(tmp_path, [judged_case(name) for name in ("a", "b", "c")])
    (tmp_path / "labels.csv").write_text(
        "Name,Output,Label,Score,Note,Reviewer\n"
        'a,"judge-pass, over\ntwo lines",true,0.9,,kim\n'
        "\n"
        "b,judge-fail,FALSE,,too short,kim\n"
        "c,judge-pass,fail,,,kim\n",
        encoding="utf-8",
    )
    data = calibrate(tmp_path, "labels.csv", "suite.json", "--json").data
    assert data["confusion"] == {"true_pass": 1, "false_fail": 0, "false_pass": 1, "true_fail": 1}
    assert [(item["name"], item["line"]) for item in data["disagreements"]] == [("c", 6)]
    assert data["scored"] == 1 and data["score_mae"] == pytest.approx(0.1)
    (tmp_path / "bad.csv").write_text('name,output,label\na,"x\ny",pass\nb,y,perhaps\n', encoding="utf-8")
    done = calibrate(tmp_path, "bad.csv", "suite.json")
    assert done.returncode == 2
    assert done.stderr == (
        "error: bad.csv:4: label 'perhaps' is neither pass nor fail; write pass, fail, true or false\n"
    )


def test_a_csv_without_the_needed_columns_says_which(tmp_path: Path) -> None:
    (tmp_path / "labels.csv").write_text("case,answer,label\na,x,pass\n", encoding="utf-8")
    with pytest.raises(LabelsError) as raised:
        read_labels(str(tmp_path / "labels.csv"))
    [problem] = raised.value.problems
    assert problem.endswith(
        "labels.csv:1: no 'name', 'output' column; a labels CSV has a header row: name,output,label[,score,note]"
    )


def test_tool_calls_in_labels_reach_the_judge_as_the_runs_trajectory(tmp_path: Path) -> None:
    calls = [{"name": "lookup", "arguments": {"q": "kettle"}, "result": "30 days"}]
    path = write_labels(tmp_path, [{"name": "a", "output": "x", "label": "pass", "tool_calls": calls}])
    [label] = read_labels(str(path)).labels
    assert [(call.name, dict(call.arguments), call.result) for call in label.tool_calls] == [
        ("lookup", {"q": "kettle"}, "30 days")
    ]


def test_names_with_controls_are_shown_escaped_in_problems(tmp_path: Path) -> None:
    write_suite(tmp_path, [judged_case("a")])
    write_labels(tmp_path, [{"name": "a\u202eb\nc", "output": "x", "label": "pass"}])
    done = calibrate(tmp_path, "labels.jsonl", "suite.json")
    assert done.returncode == 2
    assert "no case 'a\\u202eb\\nc' in suite.json" in done.stderr
    assert "\u202e" not in done.stderr
