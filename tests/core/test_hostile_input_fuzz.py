"""Generated hostile suite files against ``load_suite`` and ``agent-eval run``.

Whatever a file holds (random YAML, JSON or JSON Lines text, deep nesting, odd scalars, control
characters, huge numbers, bytes that are not UTF-8), loading it gives a suite or a SuiteError, and
the command exits 0, 1 or 2 with ``error:`` lines: never another exception, a hang or exit 3.

The examples are the same on every run (``derandomize``), so CI stays reproducible; to look for new
ones, run ``HYPOTHESIS_PROFILE=explore pytest tests/core/test_hostile_input_fuzz.py``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import tempfile
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import fake_plugin
import pytest
from helpers import run_cli, write_plugin
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_eval import SuiteError
from agent_eval._plugins import registry_of
from agent_eval._suite import SuiteFile, load_suite

REGISTRY = registry_of(fake_plugin)
FAKE_PLUGIN = (Path(__file__).parent / "fake_plugin.py").read_text(encoding="utf-8")
ISOLATED = {"AGENT_EVAL_DISABLE_PLUGINS": "contains,exact,json,judge,trajectory"}
#: Seconds one example may take before it counts as a hang.
LIMIT = 10

settings.register_profile(
    "ci",
    max_examples=120,
    deadline=timedelta(seconds=5),
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
settings.register_profile("explore", parent=settings.get_profile("ci"), max_examples=3000, derandomize=False)
PROFILE = settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# --- what hostile files are made of --------------------------------------------------------------------

ODD_SCALARS = [
    "~",
    "null",
    "true",
    "FALSE",
    "yes",
    "no",
    "on",
    ".nan",
    "-.inf",
    ".Inf",
    "1e999",
    "-0",
    "0o17",
    "0x1F",
    "010",
    "1_000",
    "0b101",
    "12:30",
    "2024-01-01",
    "!!binary aGk=",
    "!!python/object:os.system",
    "&a [1]",
    "*a",
    "? x",
    "|",
    ">-",
    "'",
    '"',
    "\\",
    "#",
    "%YAML 1.1",
    "---",
    "...",
    "<<: {}",
    "@x",
    "`x`",
]
HUGE_NUMBERS = ["1" + "0" * 5000, "-" + "9" * 400, "0x" + "f" * 300, "0o" + "7" * 400, "1" + "0" * 308, "1e400"]
CONTROL = ["\x00", "\x07", "\x1b", "\x7f", "\x85", "\u2028", "\u2029", "\ufeff", "\ud800", "\r", "\t", "\x0c", "\v"]
KEYS = [
    "name",
    "input",
    "expected",
    "evaluator",
    "evaluators",
    "metadata",
    "cases",
    "agent",
    "repeat",
    "case_pass_rate",
    "executor",
    "timeout",
    "min_pass_rate",
    "concurrency",
    "description",
    "has",
    "same",
    "pattern_found",
    "words",
    "regex",
]
FRAGMENTS = [*ODD_SCALARS, *HUGE_NUMBERS, *CONTROL, *(f"{key}: " for key in KEYS), "- ", "  ", "\n", "{", "}",
             "[", "]", ",", ":", "cases:\n  - ", "    input: ", "[" * 2000, "{a: " * 300, "é", "😀",
             '"\\ud800"', "\\udfff", '"\\U0000d800"', '"\\ud83d\\ude00"', '"\\u001b[2J"']  # fmt: skip

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([10**308, -(10**308), 2**1100, -(2**1100), 10**5000]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(CONTROL + ODD_SCALARS),
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)
# a large repeat is a long run, not a hostile one: only its type and range are fuzzed
small_or_odd = st.one_of(
    st.integers(-3, 3), st.none(), st.booleans(), st.floats(), st.text(max_size=5), st.lists(scalars)
)
evaluator_entries = st.one_of(
    st.sampled_from(["has", "same", "pattern_found", "nope"]),
    st.dictionaries(st.sampled_from(["has", "same", "pattern_found", "nope"]), json_values, min_size=1, max_size=2),
    json_values,
)
cases = st.fixed_dictionaries(
    {"name": st.one_of(st.text(max_size=8), json_values), "input": json_values},
    optional={"expected": json_values, "evaluators": st.lists(evaluator_entries, max_size=3), "metadata": json_values,
              "bogus": json_values},
)  # fmt: skip
suites = st.fixed_dictionaries(
    {"cases": st.one_of(st.lists(cases, max_size=4), json_values)},
    optional={"name": json_values, "timeout": json_values, "min_pass_rate": json_values, "concurrency": json_values,
              "evaluators": st.lists(evaluator_entries, max_size=2), "agent": json_values, "repeat": small_or_odd,
              "case_pass_rate": json_values, "executor": st.one_of(st.just("local"), json_values)},
)  # fmt: skip


@st.composite
def deep(draw: st.DrawFn) -> str:
    """A JSON suite whose case input nests between a little and very deep."""
    depth = draw(st.sampled_from([50, 97, 98, 99, 100, 101, 500, 5000, 100_000]))
    opening, closing = draw(st.sampled_from([("[", "]"), ('{"a": ', "}")]))
    return '{"cases": [{"name": "a", "input": ' + opening * depth + "1" + closing * depth + "}]}"


def _dump(value: Any, kind: str, ascii: bool) -> str:
    # ascii: JSON writes what is not ASCII as escapes, so a lone surrogate becomes "\ud800"
    if kind == "jsonl":
        items = value.get("cases") if isinstance(value, dict) else value
        items = items if isinstance(items, list) else [items]
        return "\n".join(json.dumps(item, ensure_ascii=ascii) for item in items) + "\n"
    if kind == "json":
        return json.dumps(value, ensure_ascii=ascii)
    import yaml

    return yaml.safe_dump(value, allow_unicode=True)


@st.composite
def hostile_files(draw: st.DrawFn) -> tuple[str, bytes]:
    """(suffix, content) of a suite file that may be anything."""
    kind = draw(st.sampled_from(["yaml", "json", "jsonl"]))
    how = draw(st.sampled_from(["structured", "fragments", "spliced", "deep", "bytes"]))
    if how == "deep":
        return ".json", draw(deep()).encode()
    if how == "bytes":
        return f".{kind}", draw(st.binary(max_size=200))
    if how == "fragments":
        text = "".join(draw(st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=4), max_size=30)))
    else:
        try:
            text = _dump(draw(suites), kind, draw(st.booleans()))
        except (ValueError, OverflowError, RecursionError):  # what json/yaml themselves cannot write
            text = "cases: []"
        if how == "spliced":
            at = draw(st.integers(0, len(text)))
            text = text[:at] + draw(st.sampled_from(FRAGMENTS)) + text[at:]
    return f".{kind}", text.encode("utf-8", errors="surrogatepass")


# --- the checks ----------------------------------------------------------------------------------------


@contextlib.contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """Fail an example that runs longer than ``seconds`` (a hang) instead of waiting for it."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def hang(signum: int, frame: Any) -> None:
        raise TimeoutError(f"an example ran for more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def check_problems(error: SuiteError) -> None:
    assert error.problems, "a SuiteError with no problem"
    for problem in error.problems:
        assert isinstance(problem, str) and problem.strip()
        assert "\n" not in problem, f"a problem on more than one line: {problem!r}"
        assert "Traceback" not in problem


@PROFILE
@given(hostile_files())
def test_load_suite_gives_a_suite_or_a_suite_error(file: tuple[str, bytes]) -> None:
    suffix, content = file
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"suite{suffix}"
        path.write_bytes(content)
        with time_limit(LIMIT):
            try:
                suite = load_suite(path, registry=REGISTRY)
            except SuiteError as error:
                check_problems(error)
                return
        assert isinstance(suite, SuiteFile) and suite.cases


AGENTS = "def agent(question):\n    return question\n"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz")
    (root / "agents_mod.py").write_text(AGENTS, encoding="utf-8")
    write_plugin(root / "site", FAKE_PLUGIN, distribution="fake-evals", entry_point="fake", module="fake_evals")
    return root


@settings(PROFILE, max_examples=PROFILE.max_examples // 2)
@given(file=hostile_files())
def test_run_exits_0_1_or_2_with_error_lines(project: Path, file: tuple[str, bytes]) -> None:
    suffix, content = file
    path = project / f"suite{suffix}"
    path.write_bytes(content)
    env = {"PYTHONPATH": str(project / "site"), **ISOLATED}
    with time_limit(LIMIT):
        done = run_cli("run", path.name, "--agent", "agents_mod:agent", "--no-history", "--quiet", cwd=project, env=env)
    assert done.returncode in (0, 1, 2), (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    if done.returncode == 2:
        lines = done.stderr.strip().splitlines()
        assert lines and all(line.startswith(("error: ", "warning: ")) for line in lines), done.stderr[-2000:]
