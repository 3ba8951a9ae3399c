"""Hostile input through the command: every bad input is one ``error:`` line and exit 2, never 3 or a hang."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest
from helpers import run_cli, write_plugin

from agent_eval import EvalReport, EvalResult, Evaluation

FAKE_PLUGIN = (Path(__file__).parent / "fake_plugin.py").read_text(encoding="utf-8")
ISOLATED = {"AGENT_EVAL_DISABLE_PLUGINS": "contains,exact,json,judge,trajectory"}
AGENTS = """
CALLS = []

def agent(question, ctx):
    CALLS.append(question)
    return "hello " + str(question)

def three(a, b, c):
    return a

def none():
    return "hello"

def keyword_only(question, *, model):
    return question
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "agents_mod.py").write_text(AGENTS, encoding="utf-8")
    write_plugin(tmp_path / "site", FAKE_PLUGIN, distribution="fake-evals", entry_point="fake", module="fake_evals")
    return tmp_path


def cli(project: Path, *args: str, process: bool = False) -> subprocess.CompletedProcess[str]:
    paths = [str(project / "site")]
    if process:  # the new process imports agent-eval from where this one does
        paths += [entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry]
    env = {"PYTHONPATH": os.pathsep.join(paths), **ISOLATED}
    return run_cli(*args, cwd=project, env=env, process=process, timeout=30)


def suite(project: Path, text: str, name: str = "suite.yaml") -> str:
    path = project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return name


ONE_CASE = """
agent: agents_mod:agent
cases:
  - {name: greets, input: you, evaluators: [has: hello]}
"""


def one_error(done: subprocess.CompletedProcess[str]) -> str:
    """The one ``error:`` line of a run that exited 2 (a usage error may add a `Try ... --help` hint)."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert lines and lines[0].startswith("error: "), done.stderr
    assert lines[1:] in ([], [lines[1]] if lines[1:] and lines[1].startswith("Try 'agent-eval") else [])
    assert "Traceback" not in done.stderr and "Usage:" not in done.stderr
    return lines[0]


# --- files that are not regular files ------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need a POSIX system")
def test_a_named_pipe_as_the_suite_exits_2_at_once(project: Path) -> None:
    os.mkfifo(project / "suite.yaml")
    done = cli(project, "run", "suite.yaml", "--no-history", process=True)  # a hang is a TimeoutExpired
    assert one_error(done) == "error: suite.yaml: is a named pipe (FIFO), not a regular file"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_behind_a_symlink_exits_2(project: Path) -> None:
    (project / "cases.jsonl").symlink_to("/dev/zero")
    suite(project, "agent: agents_mod:agent\ncases: cases.jsonl\n")
    line = one_error(cli(project, "run", "suite.yaml", "--no-history", process=True))
    assert line == f"error: {project / 'cases.jsonl'}: is a character device, not a regular file (from suite.yaml:2:8)"


def test_a_suite_that_is_not_utf8_names_line_and_column(project: Path) -> None:
    (project / "suite.yaml").write_bytes(b"agent: agents_mod:agent\ncases:\n  - {name: \xff, input: x}\n")
    line = one_error(cli(project, "run", "suite.yaml", "--no-history"))
    assert line == "error: suite.yaml:3:12: is not UTF-8 text: byte 0xff cannot be decoded; save the file as UTF-8"


# --- option values -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--timeout", "nan"), "error: invalid value for '--timeout': 'nan' is not a finite number"),
        (("--timeout", "inf"), "error: invalid value for '--timeout': 'inf' is not a finite number"),
        (("--min-pass-rate", "nan"), "error: invalid value for '--min-pass-rate': 'nan' is not a finite number"),
        (("--timeout", "soon"), "error: invalid value for '--timeout': 'soon' is not a valid number"),
        (("--json", ""), "error: invalid value for '--json': '' names no file; give a path"),
        (("--jsonl", ""), "error: invalid value for '--jsonl': '' names no file; give a path"),
        (("--history", ""), "error: invalid value for '--history': '' names no file; give a path"),
        (("--concurrency", "0"), "error: invalid value for '--concurrency': 0 is not in the range x>=1"),
        (("--jsn",), "error: no such option: --jsn"),
        (("--history", "h.db", "--no-history"), "error: --history and --no-history exclude each other"),
    ],
)
def test_bad_option_values_are_one_error_line_and_a_hint(project: Path, args: tuple[str, ...], message: str) -> None:
    suite(project, ONE_CASE)
    done = cli(project, "run", "suite.yaml", *args)
    assert one_error(done) == message
    assert done.stderr.strip().splitlines()[1:] == ["Try 'agent-eval run --help'."]
    assert not (project / ".agent-eval").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("run",), "error: missing argument 'SUITE'"),
        (("compare", "a"), "error: missing argument 'HEAD'"),
        (("run", "suite.yaml", "extra"), "error: unexpected argument 'extra'"),
        (("runs", "--jsn"), "error: no such option '--jsn'. Did you mean '--json'?"),
        (("nosuch",), "error: no such command 'nosuch'"),
        (("", "x"), "error: no such command ''"),
        (("run", ""), "error: invalid value for 'SUITE': '' names no file; give a path"),
    ],
)
def test_click_usage_errors_look_like_agent_evals_own(project: Path, args: tuple[str, ...], message: str) -> None:
    suite(project, ONE_CASE)
    assert one_error(cli(project, *args)) == message


# --- agents --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reference", "takes"),
    [("agents_mod:three", "(a, b, c)"), ("agents_mod:none", "()"), ("agents_mod:keyword_only", "(question, *, model)")],
)
def test_an_agent_with_the_wrong_signature_fails_once_before_the_run(project: Path, reference: str, takes: str) -> None:
    suite(project, ONE_CASE.replace("agents_mod:agent", reference))
    done = cli(project, "run", "suite.yaml", "--no-history")
    assert one_error(done) == (
        f"error: agent {reference!r} (from suite.yaml) takes {takes}; an agent takes (input, ctx) or (input)"
    )
    assert done.stdout == ""  # no table: no case ran


def test_a_suites_agent_is_found_beside_the_suite(project: Path) -> None:
    (project / "evals").mkdir()
    (project / "evals" / "beside_mod.py").write_text("def agent(question):\n    return 'hello'\n", encoding="utf-8")
    suite(project, ONE_CASE.replace("agents_mod:agent", "beside_mod:agent"), name="evals/suite.yaml")
    assert cli(project, "run", "evals/suite.yaml", "--no-history").returncode == 0
    # --agent is looked for in the current folder first, then beside the suite
    assert cli(project, "run", "evals/suite.yaml", "--no-history", "--agent", "beside_mod:agent").returncode == 0


def test_the_suites_folder_wins_for_agent_and_the_current_folder_for_the_option(project: Path) -> None:
    (project / "evals").mkdir()
    for folder, answer in ((project, "hello from here"), (project / "evals", "hello from beside")):
        (folder / "twin_mod.py").write_text(f"def agent(question):\n    return {answer!r}\n", encoding="utf-8")
    suite(project, ONE_CASE.replace("agents_mod:agent", "twin_mod:agent"), name="evals/suite.yaml")
    cli(project, "run", "evals/suite.yaml", "--history", "h.db", "--json", "a.json")
    cli(project, "run", "evals/suite.yaml", "--history", "h.db", "--json", "b.json", "--agent", "twin_mod:agent")
    outputs = [json.loads((project / name).read_text())["cases"][0]["output"] for name in ("a.json", "b.json")]
    assert outputs == ["hello from beside", "hello from here"]


def test_an_agent_module_found_nowhere_names_every_folder_looked_in(project: Path) -> None:
    suite(project, ONE_CASE.replace("agents_mod:agent", "nowhere_mod:agent"), name="evals/suite.yaml")
    line = one_error(cli(project, "run", "evals/suite.yaml", "--no-history"))
    assert line == (
        f"error: agent 'nowhere_mod:agent' (from evals/suite.yaml): no module named 'nowhere_mod' "
        f"(looked in {project / 'evals'}, {project} and the installed packages)"
    )


# --- writing beside a file -----------------------------------------------------------------------------


def test_a_history_under_a_file_says_which_part_is_a_file(project: Path) -> None:
    suite(project, ONE_CASE)
    (project / "file.txt").write_text("not a folder", encoding="utf-8")
    done = cli(project, "run", "suite.yaml", "--history", "file.txt/runs.db")
    assert done.returncode == 0
    assert done.stderr == (
        "warning: run not recorded in file.txt/runs.db: cannot create the run history file.txt/runs.db: "
        "'file.txt' is a file, not a folder\n"
    )


# --- compare -------------------------------------------------------------------------------------------


def report_dict(*names: str) -> dict[str, object]:
    evaluation = Evaluation("has", "passed", score=1.0)
    cases = [
        EvalResult(name, "in", output="out", status="passed", score=1.0, evaluations=(evaluation,)) for name in names
    ]
    return EvalReport(cases, name="s").to_dict()


def write_json(project: Path, name: str, data: object) -> str:
    (project / name).write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return name


def test_compare_names_the_file_and_the_field_of_a_malformed_report(project: Path) -> None:
    good = write_json(project, "good.json", report_dict("a", "b"))
    score = report_dict("a", "b")
    score["cases"][1]["score"] = "high"  # type: ignore[index]
    metadata = {**report_dict("a"), "metadata": 5}
    status = report_dict("a")
    # compare reads of each case what it compares (an evaluation's fields it does not: see test_compare_stats)
    status["cases"][0]["status"] = "great"  # type: ignore[index]
    expected = {
        "score.json": (score, "cases[1].score must be a number or null, got a string ('high')"),
        "metadata.json": (metadata, "metadata must be an object, got a number (5)"),
        "status.json": (status, "cases[0].status must be one of 'passed', 'failed', 'error', 'skipped'"),
        "deep.json": ('{"cases": ' + "[" * 100_000 + "]" * 100_000 + "}", "its JSON nests too deeply to read"),
        "huge.json": (
            '{"cases": [], "total_ms": 1' + "0" * 5000 + "}",
            "it holds an integer of more than 4,300 digits",
        ),
    }
    for name, (data, problem) in expected.items():
        write_json(project, name, data)
        for args in ((name, good), (good, name)):
            line = one_error(cli(project, "compare", *args))
            assert line.startswith(f"error: {name}: not an agent-eval report: {problem}")
            assert "(not an agent-eval report" not in line


def test_compare_refuses_a_report_with_a_repeated_case_name(project: Path) -> None:
    base = write_json(project, "base.json", report_dict("a", "b"))
    head = write_json(project, "head.json", report_dict("a", "b", "b", "a", "a"))
    line = one_error(cli(project, "compare", base, head))
    assert line.startswith("error: HEAD head.json holds more than one case named 'a' (3 times), 'b' (2 times); ")


def test_compare_takes_a_folder_named_like_a_run_for_the_run(project: Path) -> None:
    suite(project, ONE_CASE)
    assert cli(project, "run", "suite.yaml").returncode == 0
    assert cli(project, "run", "suite.yaml").returncode == 0
    (project / "latest").mkdir()
    assert cli(project, "compare", "latest~1", "latest").returncode == 0
    (project / "r.json").mkdir()
    line = one_error(cli(project, "compare", "r.json", "latest"))
    assert line == "error: r.json: is a directory, not a file; give a JSON report written by `run --json`, or a run id"
