"""Hostile suite and cases files: each is refused with one line naming the file and the place.

None of them may crash the loader with another exception, read without end or block: what is
not a regular file is refused, what is read is capped, values nest at most MAX_DEPTH deep and
integers stay within a float's range.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import fake_plugin
import pytest

from agent_eval import EvalSuite, SuiteError
from agent_eval import _sources as sources
from agent_eval._plugins import registry_of
from agent_eval._suite import SuiteFile, load_suite

REGISTRY = registry_of(fake_plugin)
MAX_DEPTH = 100  # as the README says: lists and mappings nest at most 100 deep
POSIX = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes and /dev need a POSIX system")
TOO_DEEP = f"lists and mappings nest more than {MAX_DEPTH} deep here (at most {MAX_DEPTH}); flatten the data"
TOO_LARGE = "is too large (at most about 1.8e308); quote it to keep it as text"


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


def problems_in_time(path: Path, seconds: float = 10) -> list[str]:
    """``problems(path)`` in a thread: a load that blocks fails the test instead of hanging it."""
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            load(path)
        except SuiteError as error:
            outcome["problems"] = error.problems
        except BaseException as error:
            outcome["error"] = error
        else:
            outcome["problems"] = []

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        for fifo in path.parent.iterdir():  # a writer lets a reader blocked in open() go on
            if fifo.is_fifo():
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(seconds)
        pytest.fail(f"loading {path.name} blocked for {seconds} s")
    assert "error" not in outcome, outcome.get("error")
    return outcome["problems"]  # type: ignore[return-value]


# --- what is not a regular file ------------------------------------------------------------------------


@POSIX
def test_a_named_pipe_as_the_suite_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "suite.yaml"
    os.mkfifo(fifo)
    assert problems_in_time(fifo) == [f"{fifo}: is a named pipe (FIFO), not a regular file"]


@POSIX
def test_a_named_pipe_as_the_cases_file_is_refused_naming_the_suite_line(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "cases.jsonl")
    suite = write(tmp_path, "suite.yaml", "name: s\ncases: cases.jsonl\n")
    target = (tmp_path / "cases.jsonl").resolve()
    assert problems_in_time(suite) == [f"{target}: is a named pipe (FIFO), not a regular file (from {suite}:2:8)"]


@POSIX
def test_a_folder_as_the_suite_is_refused(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").mkdir()
    assert problems(tmp_path / "suite.yaml") == [f"{tmp_path / 'suite.yaml'}: is a directory, not a file"]


DEVICES = """
import json, resource, sys
from pathlib import Path
import fake_plugin
from agent_eval import SuiteError
from agent_eval._plugins import registry_of
from agent_eval._suite import load_suite

resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # a reader without a cap fails, not the machine
found = {}
for name in sys.argv[1:]:
    try:
        load_suite(Path(name), registry=registry_of(fake_plugin))
        found[name] = []
    except SuiteError as error:
        found[name] = error.problems
print(json.dumps(found))
"""


@POSIX
@pytest.mark.skipif(not Path("/dev/zero").exists() or sys.platform == "darwin", reason="needs /dev/zero and rlimits")
def test_devices_behind_symlinks_are_refused_not_read_until_memory_runs_out(tmp_path: Path) -> None:
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    (tmp_path / "random.jsonl").symlink_to("/dev/urandom")
    write(tmp_path, "suite.yaml", "cases: random.jsonl\n")
    names = ["zero.yaml", "suite.yaml"]
    done = subprocess.run(
        [sys.executable, "-c", DEVICES, *names],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(fake_plugin.__file__).parent), *sys.path])},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout)
    assert found["zero.yaml"] == ["zero.yaml: is a character device, not a regular file"]
    random = (tmp_path / "random.jsonl").absolute()
    assert found["suite.yaml"] == [f"{random}: is a character device, not a regular file (from suite.yaml:1:8)"]


@pytest.mark.skipif(not Path("/proc/self/maps").is_file(), reason="needs a file whose size stat does not tell")
def test_the_cap_counts_what_is_read_not_what_stat_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # /proc files say they hold 0 bytes; the reader must stop at the cap anyway
    (tmp_path / "maps.jsonl").symlink_to("/proc/self/maps")
    monkeypatch.setattr(sources, "MAX_BYTES", 100)
    (problem,) = problems(tmp_path / "maps.jsonl")
    assert problem == f"{tmp_path / 'maps.jsonl'}: is too large: more than 100 bytes; split it up"
    from agent_eval import FileReadError, read_text_file

    with pytest.raises(FileReadError, match="is too large: more than 100 bytes"):
        read_text_file("/proc/self/maps", limit=100)


def test_a_file_over_the_cap_is_refused_by_its_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, "s.jsonl", '{"name": "a", "input": "' + "x" * 200 + '"}\n')
    monkeypatch.setattr(sources, "MAX_BYTES", 100)
    size = path.stat().st_size
    assert problems(path) == [f"{path}: is too large: {size:,} bytes, more than 100; split it up"]


def test_not_utf8_text_is_refused_with_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_bytes("name: é\ncases:\n  - {name: caf\xe9, input: x}\n".encode("latin-1"))
    problem = "is not UTF-8 text: byte 0xe9 cannot be decoded; save the file as UTF-8"
    assert problems(path) == [f"{path}:1:7: {problem}"]
    path.write_bytes(b"\xef\xbb\xbfname: x\ncases:\n  - {name: caf\xc3\xa9 \xff, input: x}\n")
    assert problems(path) == [f"{path}:3:17: {problem.replace('0xe9', '0xff')}"]


# --- nesting, numbers and characters -------------------------------------------------------------------


def test_yaml_nested_100000_deep_is_refused_where_it_gets_too_deep(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "cases: " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert problems(path) == [f"{path}:1:{8 + MAX_DEPTH - 1}: {TOO_DEEP}"]
    path = write(tmp_path, "b.yaml", "cases:\n  - name: a\n    input: " + "{a: " * 100_000 + "1" + "}" * 100_000 + "\n")
    assert problems(path) == [f"{path}:3:{12 + 4 * (MAX_DEPTH - 3)}: {TOO_DEEP}"]


def test_json_and_jsonl_nested_100000_deep_are_refused_where_they_get_too_deep(tmp_path: Path) -> None:
    path = write(tmp_path, "s.json", '{"cases": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert problems(path) == [f"{path}:1:{11 + MAX_DEPTH - 1}: {TOO_DEEP}"]
    line = '{"name": "a", "input": ' + "[" * 100_000 + "]" * 100_000 + "}"
    path = write(tmp_path, "c.jsonl", '{"name": "ok", "input": 1}\n' + line + "\n")
    assert problems(path) == [f"{path}:2:{24 + MAX_DEPTH - 1}: {TOO_DEEP}"]


def test_nesting_up_to_the_limit_loads(tmp_path: Path) -> None:
    value = "[" * (MAX_DEPTH - 3) + "]" * (MAX_DEPTH - 3)  # within the root mapping, 'cases' and the case
    (case,) = load(write(tmp_path, "s.json", '{"cases": [{"name": "a", "input": ' + value + "}]}")).cases
    assert isinstance(case.input, list)
    (case,) = load(write(tmp_path, "s.yaml", "cases:\n  - {name: a, input: " + value + "}\n")).cases
    assert isinstance(case.input, list)
    deeper = "[" + value + "]"
    assert problems(write(tmp_path, "s.json", '{"cases": [{"name": "a", "input": ' + deeper + "}]}"))
    assert problems(write(tmp_path, "s.yaml", "cases:\n  - {name: a, input: " + deeper + "}\n"))


HUGE = "1" + "0" * 5000
HEX = "0x" + "f" * 300
OCTAL = "0o" + "7" * 400


@pytest.mark.parametrize(
    ("text", "line", "column", "shown"),
    [
        (f"timeout: {HUGE}\ncases: [{{name: a, input: x}}]\n", 1, 10, "10000000000000000000… (5001 characters)"),
        (f"min_pass_rate: {HEX}\ncases: [{{name: a, input: x}}]\n", 1, 16, "0xffffffffffffffffff… (302 characters)"),
        (f"cases:\n  - name: {HEX}\n    input: x\n", 2, 11, "0xffffffffffffffffff… (302 characters)"),
        (f"cases:\n  - name: a\n    input: {HUGE}\n", 3, 12, "10000000000000000000… (5001 characters)"),
        (f"cases:\n  - name: a\n    input: -{HUGE}\n", 3, 12, "-1000000000000000000… (5002 characters)"),
        (f"cases:\n  - name: a\n    input: x\n    evaluators: [has: [{HUGE}]]\n", 4, 24, "10000000000000000000…"),
        (
            f"cases:\n  - name: a\n    input: x\n    evaluators: [pattern_found: {OCTAL}]\n",
            4,
            33,
            "0o777777777777777777…",
        ),
    ],
)
def test_yaml_integers_beyond_a_float_are_refused_where_they_stand(
    tmp_path: Path, text: str, line: int, column: int, shown: str
) -> None:
    path = write(tmp_path, "s.yaml", text)
    (problem,) = problems(path)
    assert problem.startswith(f"{path}:{line}:{column}: the integer {shown}")
    assert problem.endswith(TOO_LARGE)


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ('{"timeout": ' + HUGE + ', "cases": [{"name": "a", "input": "x"}]}', 1, 13),
        ('{"cases": [\n  {"name": "a", "input": "' + HUGE + '", "evaluators": [{"has": [' + HUGE + "]}]}\n]}", 2, 5055),
        ('{"cases": [{"name": "a", "input": -' + "9" * 400 + "}]}", 1, 35),
    ],
)
def test_json_integers_beyond_a_float_are_refused_where_they_stand(
    tmp_path: Path, text: str, line: int, column: int
) -> None:
    path = write(tmp_path, "s.json", text)
    (problem,) = problems(path)
    assert problem.startswith(f"{path}:{line}:{column}: the integer ")
    assert problem.endswith(TOO_LARGE)


def test_integers_up_to_the_largest_float_load_and_beyond_are_refused(tmp_path: Path) -> None:
    big = int(sys.float_info.max)
    suite = load(write(tmp_path, "s.yaml", f"cases:\n  - {{name: a, input: {big}}}\n  - {{name: b, input: {-big}}}\n"))
    assert [case.input for case in suite.cases] == [big, -big]
    (problem,) = problems(write(tmp_path, "s.json", f'{{"cases": [{{"name": "a", "input": {big + 1}}}]}}'))
    assert problem.endswith(TOO_LARGE)


@pytest.mark.parametrize(("char", "code"), [("\x00", "0000"), ("\x07", "0007"), ("\x1b", "001B")])
def test_control_characters_in_yaml_are_refused_where_they_stand(tmp_path: Path, char: str, code: str) -> None:
    path = write(tmp_path, "s.yaml", f"cases:\n  - name: a{char}b\n    input: x\n")
    (problem,) = problems(path)
    assert problem.startswith(f"{path}:2:12: invalid YAML: the character U+{code} is not allowed in YAML text; ")


def test_a_nul_byte_in_the_cases_path_is_refused_naming_the_suite_line(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", 'cases: "data\\0.jsonl"\n')
    (problem,) = problems(path)
    assert problem.endswith(f": has a NUL byte in its name, which no file name can hold; remove it (from {path}:1:8)")
    assert "\x00" not in problem


# --- JSON Lines ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_jsonl_strings_may_hold_unicode_line_separators(tmp_path: Path, separator: str) -> None:
    lines = [json.dumps({"name": f"c{i}", "input": f"a{separator}b"}, ensure_ascii=False) for i in range(3)]
    suite = load(write(tmp_path, "c.jsonl", "\n".join(lines) + "\n"))
    assert [case.input for case in suite.cases] == [f"a{separator}b"] * 3
    assert [case.location for case in suite.cases] == [f"{tmp_path / 'c.jsonl'}:{n}" for n in (1, 2, 3)]


def test_jsonl_line_numbers_count_newlines_only_and_crlf_files_load(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    first = json.dumps({"name": "a", "input": "x\u2028y\x85z"}, ensure_ascii=False)
    path.write_bytes(f'{first}\r\n\r\n{{"name": "b", "input": 2}}\r\n{{oops}}\r\n'.encode())
    assert problems(path) == [f"{path}:4:2: invalid JSON: Expecting property name enclosed in double quotes"]
    path.write_bytes(f'{first}\r\n\r\n{{"name": "b", "input": 2}}\r\n'.encode())
    assert [case.location for case in load(path).cases] == [f"{path}:1", f"{path}:3"]


# --- metadata, empty suites, problems in a referenced cases file ---------------------------------------


@pytest.mark.parametrize(
    ("value", "shown"),
    [("0", "a number (0)"), ("false", "a boolean (false)"), ('""', "a string ('')"), ("[]", "a list")],
)
def test_metadata_that_is_not_a_mapping_is_refused_even_when_falsy(tmp_path: Path, value: str, shown: str) -> None:
    path = write(tmp_path, "s.yaml", f"cases:\n  - name: a\n    input: x\n    metadata: {value}\n")
    assert problems(path) == [f"{path}:4:15: case 'a': 'metadata' must be a mapping, got {shown}"]
    (case,) = load(write(tmp_path, "s.yaml", "cases:\n  - name: a\n    input: x\n    metadata:\n")).cases
    assert case.metadata == {}  # null: none given


@pytest.mark.parametrize("value", [0, False, "", []])
def test_metadata_of_python_cases_must_be_a_mapping_too(value: object) -> None:
    with pytest.raises(SuiteError, match="case 'a': 'metadata' must be a mapping, got"):
        EvalSuite(lambda question: question, [{"name": "a", "input": "x", "metadata": value}])


def test_a_suite_without_cases_is_a_suite_error(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "name: s\ncases: []\n")
    assert problems(path) == [f"{path}:2:8: suite has no cases; add at least one"]
    path = write(tmp_path, "c.jsonl", "\n\n")
    assert problems(path) == [f"{path}: suite has no cases; add at least one"]
    write(tmp_path, "empty.jsonl", "")
    path = write(tmp_path, "t.yaml", "name: s\ncases: empty.jsonl\n")
    assert problems(path) == [f"{path}:2:8: suite has no cases; add at least one"]


@pytest.mark.parametrize("value", ["", " ~", ' ""'])
def test_cases_with_nothing_after_it_is_empty_not_missing(tmp_path: Path, value: str) -> None:
    path = write(tmp_path, "s.yaml", f"name: s\ncases:{value}\n")
    (problem,) = problems(path)
    assert problem.startswith(f"{path}:2:")
    assert ": 'cases' is empty; give a list of cases, or the path of a .jsonl/.json/.yaml file" in problem
    assert "missing" not in problem


def test_problems_in_a_referenced_cases_file_name_the_suite_line_that_points_at_it(tmp_path: Path) -> None:
    write(tmp_path, "data.jsonl", '{"name": "a", "input": 1}\n{"name": "b", "evaluators": ["nope"]}\n{oops}\n')
    suite = write(tmp_path, "suite.yaml", "name: s\nevaluators: [has: x]\ncases: data.jsonl\n")
    data = (tmp_path / "data.jsonl").resolve()
    assert problems(suite) == [
        f"{data}:3:2: invalid JSON: Expecting property name enclosed in double quotes (from {suite}:3:8)"
    ]
    write(
        tmp_path,
        "data.jsonl",
        '{"name": "a", "input": 1}\n{"name": "b", "evaluators": ["nope"]}\n{"name": "a", "input": 1}\n',
    )
    found = problems(suite)
    assert [problem.split(": ", 1)[0] for problem in found] == [f"{data}:2:1", f"{data}:2:30", f"{data}:3:10"]
    assert all(problem.endswith(f" (from {suite}:3:8)") for problem in found)
    write(tmp_path, "data.json", '{"not": "a list"}')
    suite = write(tmp_path, "suite.yaml", "name: s\ncases: data.json\n")
    (problem,) = problems(suite)
    assert problem.endswith(f"a cases file holds a list of cases, got a mapping (from {suite}:2:8)")
    suite = write(tmp_path, "suite.yaml", "name: s\ncases: missing.jsonl\n")
    assert problems(suite) == [f"{(tmp_path / 'missing.jsonl').resolve()}: does not exist (from {suite}:2:8)"]


def test_a_valid_json_suite_loads_without_working_out_positions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # positions cost a scan of the whole file: only a problem needs them (a big file would load in quadratic time)
    def refuse(text: str) -> dict[object, object]:
        raise AssertionError("positions worked out for a valid file")

    monkeypatch.setattr(sources, "json_positions", refuse)
    cases = [{"name": f"c{i}", "input": i, "evaluators": [{"has": "x"}]} for i in range(50)]
    assert len(load(write(tmp_path, "s.json", json.dumps({"cases": cases}))).cases) == 50


def test_a_lone_surrogate_escape_is_refused_where_it_stands(tmp_path: Path) -> None:
    # no output can print or write half of a UTF-16 pair: it would end the run with an encoding error
    message = "a string holds half of a UTF-16 surrogate pair (an escape such as \\ud800), which is not text; remove it"
    path = write(tmp_path, "s.json", '{"cases": [{"name": "a", "input": "x"}, {"name": "b\\ud800", "input": "x"}]}')
    assert problems(path) == [f"{path}:1:50: {message}"]
    path = write(tmp_path, "c.jsonl", '{"name": "a", "input": "ok"}\n{"name": "b", "input": {"\\udfff": 1}}\n')
    assert problems(path) == [f"{path}:2:25: {message}"]
    path = write(tmp_path, "s.yaml", 'cases:\n  - name: a\n    input: "x\\U0000d800"\n')
    assert problems(path) == [f"{path}:3:12: {message}"]
    pair = load(write(tmp_path, "p.json", '{"cases": [{"name": "\\ud83d\\ude00", "input": "\\\\ud800"}]}'))
    assert [(case.name, case.input) for case in pair.cases] == [("😀", "\\ud800")]
