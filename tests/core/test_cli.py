"""The real ``agent-eval`` command: listing, running, exit codes and one-line errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers import BIN, run_cli, write_plugin

from agent_eval import __version__

FAKE_PLUGIN = (Path(__file__).parent / "fake_plugin.py").read_text(encoding="utf-8")
ISOLATED = {"AGENT_EVAL_DISABLE_PLUGINS": "contains,exact,json,judge,trajectory"}

AGENTS = """
import asyncio

ANSWERS = {
    "warranty": "Our warranty is 2 years, extendable to 4.",
    "hello": "hello there",
}

async def agent(question, ctx):
    return ANSWERS.get(question, "I do not know")

async def slow(question):
    await asyncio.sleep(float(question))
    return "done"

not_callable = 42
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder with an agent module and a plugin installed as a fake distribution."""
    (tmp_path / "agents_mod.py").write_text(AGENTS, encoding="utf-8")
    write_plugin(
        tmp_path / "site",
        FAKE_PLUGIN,
        distribution="fake-evals",
        version="3.1.4",
        entry_point="fake",
        module="fake_evals",
    )
    return tmp_path


def cli(project: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=project, env={"PYTHONPATH": str(project / "site"), **ISOLATED, **env})


def suite(project: Path, text: str, name: str = "suite.yaml") -> str:
    (project / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return name


PASSING = """
name: demo
agent: agents_mod:agent
cases:
  - name: warranty
    input: warranty
    evaluators:
      - has: [2 years, extendable]
  - name: greets
    input: hello
    evaluators: [has: hello]
"""

HALF = """
agent: agents_mod:agent
cases:
  - {name: good, input: hello, evaluators: [has: hello]}
  - {name: bad, input: other, evaluators: [has: hello]}
"""


def test_version_prints_the_package_version() -> None:
    result = run_cli("--version")
    assert (result.returncode, result.stdout.strip()) == (0, f"agent-eval {__version__}")


def test_list_evaluators_with_none_installed_says_how_to_add_them() -> None:
    result = run_cli("list-evaluators", env={"AGENT_EVAL_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert result.returncode == 0
    assert "No evaluators are installed" in result.stdout
    assert "pip install agent-eval-contains" in result.stdout


def test_list_evaluators_shows_name_package_version_and_description(project: Path) -> None:
    result = cli(project, "list-evaluators")
    assert result.returncode == 0, result.stderr
    row = next(line for line in result.stdout.splitlines() if line.split()[0] == "has")
    for text in ("fake-evals", "3.1.4", "Passes when every word occurs in the output."):
        assert text in row


def test_list_evaluators_json_has_the_contract_keys_and_parameters(project: Path) -> None:
    result = cli(project, "list-evaluators", "--json")
    listed = {item["name"]: item for item in json.loads(result.stdout)}
    assert sorted(listed) == ["has", "pattern_found", "same"]
    has = listed["has"]
    assert {key: has[key] for key in ("package", "version", "description")} == {
        "package": "fake-evals",
        "version": "3.1.4",
        "description": "Passes when every word occurs in the output.",
    }
    assert [p["name"] for p in has["parameters"]] == ["words", "strict"]
    assert has["parameters"][1]["default"] is True


def test_broken_plugin_is_reported_on_stderr_and_the_others_are_listed(project: Path) -> None:
    write_plugin(
        project / "site",
        "raise RuntimeError('kaput')\n",
        distribution="kaput-evals",
        version="0.0.1",
        entry_point="kaput",
        module="kaput_mod",
    )
    result = cli(project, "list-evaluators", "--json")
    assert result.returncode == 0
    assert [item["name"] for item in json.loads(result.stdout) if not item["broken"]] == [
        "has",
        "pattern_found",
        "same",
    ]
    assert result.stderr.strip() == "warning: plugin 'kaput' from kaput-evals 0.0.1 failed to load: RuntimeError: kaput"


def test_the_installed_command_exits_0_1_and_2_as_the_shell_sees_it(project: Path) -> None:
    # The other tests call the entry point in this process; this one runs the real console script.
    env = {"PYTHONPATH": str(project / "site"), **ISOLATED}
    passing = run_cli("run", suite(project, PASSING), "--no-history", cwd=project, env=env, process=True)
    assert passing.returncode == 0, passing.stderr
    half = run_cli("run", suite(project, HALF, "half.yaml"), "--no-history", cwd=project, env=env, process=True)
    assert half.returncode == 1
    typo = PASSING.replace("- has: [2 years, extendable]", "- hass: [2 years, extendable]")
    broken = run_cli("run", suite(project, typo, "typo.yaml"), "--no-history", cwd=project, env=env, process=True)
    assert broken.returncode == 2
    assert broken.stderr.startswith("error: ") and "Traceback" not in broken.stderr


def test_run_prints_the_table_and_exits_0_when_all_pass(project: Path) -> None:
    result = cli(project, "run", suite(project, PASSING), "--no-history")
    assert result.returncode == 0, result.stderr
    assert "warranty" in result.stdout and "PASS" in result.stdout
    assert "2 passed, 0 failed, 0 errors, 0 skipped · pass rate 100.0%" in result.stdout


def test_run_exits_1_below_the_bar_and_0_when_the_bar_is_lowered(project: Path) -> None:
    name = suite(project, HALF)
    assert cli(project, "run", name, "--no-history").returncode == 1
    assert cli(project, "run", name, "--no-history", "--min-pass-rate", "0.5").returncode == 0


def test_suite_min_pass_rate_applies_and_the_option_wins(project: Path) -> None:
    name = suite(project, "min_pass_rate: 0.5\n" + textwrap.dedent(HALF).lstrip())
    assert cli(project, "run", name, "--no-history").returncode == 0
    assert cli(project, "run", name, "--no-history", "--min-pass-rate", "0.9").returncode == 1


def test_strict_counts_skipped_cases_as_failed(project: Path) -> None:
    name = suite(
        project,
        "agent: agents_mod:agent\ncases:\n"
        "  - {name: a, input: hello, evaluators: [has: hello]}\n"
        "  - {name: b, input: hello}\n",
    )
    assert cli(project, "run", name, "--no-history").returncode == 0
    strict = cli(project, "run", name, "--no-history", "--strict")
    assert strict.returncode == 1
    assert "pass rate 50.0% (strict)" in strict.stdout


def test_run_where_nothing_ran_exits_1(project: Path) -> None:
    # every case skipped (none has an evaluator): nothing ran, pass rate 0.0
    name = suite(project, "agent: agents_mod:agent\ncases:\n  - {name: a, input: hello}\n  - {name: b, input: x}\n")
    result = cli(project, "run", name, "--no-history")
    assert result.returncode == 1
    assert "pass rate 0.0%" in result.stdout


def test_suite_without_cases_is_a_suite_error(project: Path) -> None:
    result = cli(project, "run", suite(project, "agent: agents_mod:agent\ncases: []\n"), "--no-history")
    assert result.returncode == 2
    assert result.stderr == "error: suite.yaml:2:8: suite has no cases; add at least one\n"


def test_quiet_prints_only_the_summary(project: Path) -> None:
    result = cli(project, "run", suite(project, PASSING), "--no-history", "--quiet")
    assert result.stdout.strip().splitlines() == [next(line for line in result.stdout.splitlines() if "passed" in line)]
    assert "warranty" not in result.stdout


def test_suite_with_a_typo_gets_one_line_pointing_at_the_line(project: Path) -> None:
    name = suite(project, PASSING.replace("- has: [2 years, extendable]", "- hass: [2 years, extendable]"))
    result = cli(project, "run", name, "--no-history")
    assert result.returncode == 2
    assert result.stderr == (
        f"error: {name}:7:9: case 'warranty': Unknown evaluator 'hass'. Did you mean 'has'? "
        "Installed: has, pattern_found, same.\n"
    )
    assert "Traceback" not in result.stdout + result.stderr


def test_suite_naming_an_evaluator_of_a_broken_plugin_exits_2_naming_the_plugin(project: Path) -> None:
    write_plugin(
        project / "site",
        "raise ImportError('missing dependency foo')\n",
        distribution="agent-eval-contains",
        version="0.1.0",
        entry_point="contains",
        module="contains_broken",
    )
    name = suite(project, "agent: agents_mod:agent\ncases:\n  - {name: a, input: x, evaluators: [contains: x]}\n")
    result = cli(project, "run", name, "--no-history", AGENT_EVAL_DISABLE_PLUGINS="exact,json,judge")
    assert result.returncode == 2
    assert (
        "'contains' is unavailable: plugin 'contains' from agent-eval-contains 0.1.0 failed to load: "
        "ImportError: missing dependency foo" in result.stderr
    )
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        ("agents_mod", "agent 'agents_mod' (from --agent) must be MODULE:ATTRIBUTE, e.g. my_agents:support"),
        ("nowhere_mod:agent", "agent 'nowhere_mod:agent' (from --agent): no module named 'nowhere_mod'"),
        (
            "agents_mod:agnet",
            "agent 'agents_mod:agnet' (from --agent): module 'agents_mod' has no attribute 'agnet'. "
            "Did you mean 'agent'?",
        ),
        ("agents_mod:not_callable", "agent 'agents_mod:not_callable' (from --agent) is a int, not a callable"),
    ],
)
def test_bad_agent_reference_is_one_line_and_exit_2(project: Path, reference: str, message: str) -> None:
    result = cli(project, "run", suite(project, PASSING), "--agent", reference, "--no-history")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_agent_module_that_fails_to_import_is_one_line(project: Path) -> None:
    (project / "broken_agent.py").write_text("def agent(q:\n", encoding="utf-8")
    result = cli(project, "run", suite(project, PASSING), "--agent", "broken_agent:agent", "--no-history")
    assert result.returncode == 2
    assert "importing 'broken_agent' failed: SyntaxError" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_suite_without_any_agent_says_how_to_give_one(project: Path) -> None:
    result = cli(project, "run", suite(project, "cases: [{name: a, input: hello}]\n"), "--no-history")
    assert result.returncode == 2
    assert "no agent to run; pass --agent MODULE:ATTR or set `agent:` in the suite" in result.stderr


def test_agent_option_wins_over_the_suite(project: Path) -> None:
    (project / "other_agents.py").write_text("def agent(q):\n    return 'hello from the other one'\n", encoding="utf-8")
    result = cli(project, "run", suite(project, HALF), "--agent", "other_agents:agent", "--no-history")
    assert result.returncode == 0


def test_json_report_holds_the_contract_fields_and_run_metadata(project: Path) -> None:
    result = cli(project, "run", suite(project, HALF), "--no-history", "--json", "out/report.json")
    assert result.returncode == 1
    report = json.loads((project / "out" / "report.json").read_text())
    for key in ("passed", "failed", "errored", "skipped", "total", "pass_rate", "total_ms", "cases"):
        assert key in report
    assert (report["passed"], report["failed"], report["pass_rate"]) == (1, 1, 0.5)
    assert report["metadata"]["agent"] == "agents_mod:agent"
    assert report["metadata"]["plugins"] == {"fake-evals": "3.1.4"}
    assert report["metadata"]["agent_eval_version"] == __version__
    assert [case["name"] for case in report["cases"]] == ["good", "bad"]


def test_jsonl_gets_one_line_per_case_then_a_summary(project: Path) -> None:
    cli(project, "run", suite(project, HALF), "--no-history", "--jsonl", "cases.jsonl")
    lines = [json.loads(line) for line in (project / "cases.jsonl").read_text().splitlines()]
    assert [line["type"] for line in lines] == ["case", "case", "summary"]
    assert {line["name"] for line in lines[:2]} == {"good", "bad"}
    assert lines[2]["pass_rate"] == 0.5


SLOW = """
agent: agents_mod:slow
cases:
""" + "".join(f"  - {{name: c{i}, input: '{0.05 if i < 3 else 30}', evaluators: [has: done]}}\n" for i in range(8))


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_run_exits_130_and_keeps_the_finished_cases(project: Path, signum: int) -> None:
    name = suite(project, SLOW)
    process = subprocess.Popen(
        [str(BIN / "agent-eval"), "run", name, "--no-history", "--json", "report.json", "--jsonl", "cases.jsonl"],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(project / "site"), **ISOLATED, "NO_COLOR": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    journal = project / "cases.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if journal.exists() and len(journal.read_text().splitlines()) >= 3:
            break
        time.sleep(0.05)
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    report = json.loads((project / "report.json").read_text())
    assert report["interrupted"] is True
    assert [case["name"] for case in report["cases"]] == ["c0", "c1", "c2"]
    assert (report["total"], report["planned"]) == (3, 8)
    assert "INTERRUPTED: 3/8 cases finished" in stdout
    assert "Traceback" not in stderr


def test_interrupted_run_keeps_the_cases_a_sync_agent_answered_before_the_call_it_is_stuck_in(
    project: Path,
) -> None:
    # Quick calls are made in batches by one thread: the cases answered before the call that hangs
    # finished, and are kept, as they are when each call is handed over alone.
    (project / "stuck.py").write_text(
        "import pathlib, threading\n"
        "def agent(q):\n"
        "    if q == '4':\n"
        "        pathlib.Path('stuck').touch()\n"
        "        threading.Event().wait()\n"
        "    return 'done'\n",
        encoding="utf-8",
    )
    cases = "".join(f"  - {{name: c{i}, input: '{i}', evaluators: [has: done]}}\n" for i in range(8))
    name = suite(project, "agent: stuck:agent\nconcurrency: 1\ncases:\n" + cases)
    process = subprocess.Popen(
        [str(BIN / "agent-eval"), "run", name, "--no-history", "--json", "report.json"],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(project / "site"), **ISOLATED, "NO_COLOR": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (project / "stuck").exists():
        time.sleep(0.02)
    time.sleep(0.2)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    report = json.loads((project / "report.json").read_text())
    assert [case["name"] for case in report["cases"]] == ["c0", "c1", "c2", "c3"]


def test_second_interrupt_exits_at_once(project: Path) -> None:
    (project / "stubborn.py").write_text(
        "import pathlib, time\n"
        "def agent(q):\n    pathlib.Path('started').touch()\n    time.sleep(60)\n    return 'x'\n",
        encoding="utf-8",
    )
    name = suite(project, "agent: stubborn:agent\ncases:\n  - {name: a, input: x, evaluators: [has: x]}\n")
    process = subprocess.Popen(
        [str(BIN / "agent-eval"), "run", name, "--no-history"],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(project / "site"), **ISOLATED},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (project / "started").exists():  # the agent is being called
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    time.sleep(0.3)
    process.send_signal(signal.SIGINT)
    start = time.monotonic()
    process.communicate(timeout=30)
    assert process.returncode == 130
    assert time.monotonic() - start < 10


@pytest.mark.slow
def test_third_party_plugin_installed_with_pip_is_listed_and_works_in_a_suite(tmp_path: Path) -> None:
    package = tmp_path / "acme"
    (package / "src" / "acme_evals").mkdir(parents=True)
    (package / "src" / "acme_evals" / "__init__.py").write_text("")
    (package / "src" / "acme_evals" / "plugin.py").write_text(
        textwrap.dedent(
            '''
            from agent_eval import Verdict, hookimpl

            def word_count_at_most(limit: int):
                """Passes when the output has at most `limit` words."""
                def check(output):
                    words = len(str(output).split())
                    return Verdict(words <= limit, reason=f"{words} words (limit {limit})")
                return check

            @hookimpl
            def register_evaluators(register):
                register(word_count_at_most)
            '''
        )
    )
    (package / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [build-system]
            requires = ["hatchling"]
            build-backend = "hatchling.build"

            [project]
            name = "acme-evals"
            version = "0.4.2"

            [project.entry-points.agent_eval]
            acme = "acme_evals.plugin"

            [tool.hatch.build.targets.wheel]
            packages = ["src/acme_evals"]
            """
        )
    )
    target = tmp_path / "installed"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(target),
            str(package),
        ],
        check=True,
        capture_output=True,
    )
    env = {"PYTHONPATH": str(target), **ISOLATED}
    listed = json.loads(run_cli("list-evaluators", "--json", env=env).stdout)
    assert [(i["name"], i["package"], i["version"]) for i in listed] == [("word_count_at_most", "acme-evals", "0.4.2")]
    (tmp_path / "agents_mod.py").write_text(AGENTS)
    (tmp_path / "s.yaml").write_text(
        "agent: agents_mod:agent\ncases:\n"
        "  - {name: short, input: hello, evaluators: [word_count_at_most: 3]}\n"
        "  - {name: long, input: warranty, evaluators: [word_count_at_most: {limit: 3}]}\n"
    )
    result = run_cli("run", "s.yaml", "--no-history", "--json", "r.json", cwd=tmp_path, env=env)
    report = json.loads((tmp_path / "r.json").read_text())
    assert [(c["name"], c["status"], c["reason"]) for c in report["cases"]] == [
        ("short", "passed", "2 words (limit 3)"),
        ("long", "failed", "8 words (limit 3)"),
    ]
    assert result.returncode == 1


def _read_all(fd: int) -> str:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", errors="replace")


def test_progress_bar_is_drawn_on_stderr_only_when_it_is_a_terminal(project: Path) -> None:
    import pty

    name = suite(
        project,
        "agent: agents_mod:slow\ncases:\n"
        + "".join(f"  - {{name: c{i}, input: '0.1', evaluators: [has: done]}}\n" for i in range(6)),
    )
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [str(BIN / "agent-eval"), "run", name, "--no-history"],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(project / "site"), **ISOLATED},
        stdout=subprocess.PIPE,
        stderr=follower,
        text=True,
    )
    os.close(follower)
    stdout, _ = process.communicate(timeout=60)
    terminal = _read_all(leader)
    os.close(leader)
    assert process.returncode == 0
    assert "running" in terminal and "/6" in terminal  # the bar, with its m/n counter
    assert "running" not in stdout  # the table on stdout is not mixed with it
    piped = cli(project, "run", name, "--no-history")
    assert "running" not in piped.stderr


def test_list_evaluators_draws_a_table_in_a_terminal(project: Path) -> None:
    import pty

    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [str(BIN / "agent-eval"), "list-evaluators"],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(project / "site"), **ISOLATED, "COLUMNS": "150"},
        stdout=follower,
        stderr=subprocess.PIPE,
    )
    os.close(follower)
    process.wait(timeout=60)
    screen = _read_all(leader)
    os.close(leader)
    assert "Installed evaluators" in screen
    assert "┃" in screen or "│" in screen  # box drawing: a rich table, not the plain listing
    assert "fake-evals" in screen


def test_listing_evaluators_imports_no_evaluator_code_and_nothing_heavy() -> None:
    """Start-up cost is a feature: listing must not load records, the runner, HTTP or schema code."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", str(BIN / "agent-eval"), "list-evaluators"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "AGENT_EVAL_DISABLE_PLUGINS": ""},
    )
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if "|" in line}
    assert "agent_eval_contains.factories" in imported  # the installed plugins were loaded
    heavy = {
        "agent_eval._model",  # attrs classes: ~9 ms
        "asyncio",
        "httpx",
        "aiohttp",
        "jsonschema",
        "importlib_metadata",
        "importlib.metadata",
        "email.parser",
        "rich.table",  # output is a pipe here: the plain listing
        "pathlib",
        "sqlite3",
    }
    assert imported & heavy == set()


def test_a_run_of_a_json_lines_suite_does_not_import_yaml(project: Path) -> None:
    """PyYAML takes 12 ms to import: only a YAML file needs it."""
    (project / "cases.jsonl").write_text('{"name": "a", "input": "x", "evaluators": [{"has": "x"}]}\n')
    (project / "echo.py").write_text("def agent(q):\n    return q\n", encoding="utf-8")
    suite(project, "agent: echo:agent\ncases: cases.jsonl\n")
    for name, yaml_wanted in (("cases.jsonl", False), ("suite.yaml", True)):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", str(BIN / "agent-eval"), "run", name, "--agent", "echo:agent"],
            cwd=project,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(project / "site") + os.pathsep + str(project), **ISOLATED},
            check=False,
        )
        assert done.returncode == 0, done.stderr
        imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
        assert ("yaml" in imported) is yaml_wanted, name


def test_filter_runs_only_the_cases_whose_names_match(project: Path) -> None:
    name = suite(project, PASSING)
    only = cli(project, "run", name, "--no-history", "-k", "GREET", "--json", "r.json")
    assert only.returncode == 0
    assert [c["name"] for c in json.loads((project / "r.json").read_text())["cases"]] == ["greets"]
    globbed = cli(project, "run", name, "--no-history", "--filter", "w*y", "--filter", "nothing", "--json", "r.json")
    assert globbed.returncode == 0
    assert [c["name"] for c in json.loads((project / "r.json").read_text())["cases"]] == ["warranty"]


def test_filter_that_matches_nothing_is_a_usage_error(project: Path) -> None:
    result = cli(project, "run", suite(project, PASSING), "--no-history", "-k", "nope")
    assert result.returncode == 2
    assert result.stderr.strip() == "error: suite.yaml: no case matches --filter 'nope' (2 cases in the suite)"


@pytest.mark.parametrize(("no_color", "coloured"), [(None, True), ("1", False)])
def test_colour_follows_no_color_in_a_terminal_and_is_off_in_a_pipe(
    project: Path, no_color: str | None, coloured: bool
) -> None:
    import pty

    name = suite(project, PASSING)
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env.update({"PYTHONPATH": str(project / "site"), **ISOLATED})
    if no_color:
        env["NO_COLOR"] = no_color
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [str(BIN / "agent-eval"), "run", name, "--no-history", "-q"], cwd=project, env=env, stdout=follower
    )
    os.close(follower)
    process.wait(timeout=60)
    screen = _read_all(leader)
    os.close(leader)
    assert ("\x1b[1;32m" in screen) is coloured  # the summary in bold green
    piped = cli(project, "run", name, "--no-history", "-q")  # a pipe: plain text
    assert "\x1b[" not in piped.stdout
