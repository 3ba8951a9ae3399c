"""``agent-eval power RUN``: the cases (and repeats) a paired comparison needs, planned from a run's variance."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from helpers import run_cli

from agent_eval import EvalReport, EvalResult, stats
from agent_eval._model import Attempt

ROOT = Path(__file__).resolve().parents[2]


def repeated(name: str, outcomes: str) -> EvalResult:
    """A case whose attempts passed where ``outcomes`` has a 1: ``repeated("a", "1101")``."""
    attempts = [Attempt(i, "passed" if o == "1" else "failed") for i, o in enumerate(outcomes)]
    return EvalResult(name, "in", status="passed" if "0" not in outcomes else "failed", attempts=attempts)


#: 40 cases of 4 attempts: some always pass, some never, some now and then.
PATTERNS = ["1111", "1111", "1110", "1100", "1000", "0000", "1101", "1111", "0110", "1111"] * 4


def repeated_run(tmp_path: Path) -> tuple[str, list[list[float]]]:
    cases = [repeated(f"c{i}", pattern) for i, pattern in enumerate(PATTERNS)]
    path = tmp_path / "run.json"
    path.write_text(EvalReport(cases, name="demo", metadata={"run_id": "r1"}).to_json(), encoding="utf-8")
    return str(path), [[float(o) for o in pattern] for pattern in PATTERNS]


def single_run(tmp_path: Path, passed: int = 160, total: int = 200) -> str:
    cases = [EvalResult(f"c{i}", "in", status="passed" if i < passed else "failed") for i in range(total)]
    path = tmp_path / "single.json"
    path.write_text(EvalReport(cases).to_json(), encoding="utf-8")
    return str(path)


def power(tmp_path: Path, *args: str) -> Any:
    done = run_cli("power", *args, "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_plan_is_the_stats_module_s_on_the_run_s_variance(tmp_path: Path) -> None:
    path, outcomes = repeated_run(tmp_path)
    variance = stats.case_variance(outcomes)
    assert variance is not None and variance.within > 0
    options: dict[str, Any] = {"alpha": 0.1, "power": 0.9, "correlation": 0.3}
    plan = power(tmp_path, path, "--effect", "0.1", "--alpha", "0.1", "--power", "0.9", "--correlation", "0.3")
    assert plan["variance"] == {"between": pytest.approx(variance.between), "within": pytest.approx(variance.within)}
    assert plan["run"] == {
        "run_id": "r1",
        "suite": "demo",
        "cases": 40,
        "repeat": 4,
        "pass_rate": 0.4,
        "pass_at_1": pytest.approx(sum(map(sum, outcomes)) / 160),
    }
    assert (plan["repeat"], plan["cases"], plan["effect"]) == (4, 40, 0.1)
    assert plan["cases_needed"] == stats.cases_needed(variance, 0.1, repeats=4, **options)
    assert plan["repeats_needed"] == stats.repeats_needed(variance, 0.1, cases=40, **options)
    assert plan["detectable_effect"] == pytest.approx(stats.detectable_effect(variance, 40, repeats=4, **options))
    assert plan["by_repeat"] == [
        {"repeat": k, "cases_needed": stats.cases_needed(variance, 0.1, repeats=k, **options)}
        for k in (1, 2, 3, 4, 5, 10)
    ]
    assert [row["cases_needed"] for row in plan["by_repeat"]] == sorted(
        (row["cases_needed"] for row in plan["by_repeat"]), reverse=True
    )


def test_cases_gives_the_smallest_change_that_many_cases_detect(tmp_path: Path) -> None:
    path, outcomes = repeated_run(tmp_path)
    variance = stats.case_variance(outcomes)
    assert variance is not None
    plan = power(tmp_path, path, "--cases", "500", "--repeat", "2")
    assert "effect" not in plan and "cases_needed" not in plan
    assert (plan["cases"], plan["repeat"]) == (500, 2)
    assert plan["detectable_effect"] == pytest.approx(stats.detectable_effect(variance, 500, repeats=2))
    done = run_cli("power", path, "--cases", "500", "--repeat", "2", cwd=tmp_path)
    points = f"{plan['detectable_effect'] * 100:.1f}"
    assert done.stdout.splitlines()[-1] == (
        f"With 500 cases and 2 repeats you can detect a change of {points} points at alpha 0.05, power 0.8"
        " (correlation 0)."
    )


def test_the_text_gives_the_cases_for_each_number_of_repeats(tmp_path: Path) -> None:
    repeated_run(tmp_path)
    plan = power(tmp_path, "run.json", "--effect", "0.2")
    done = run_cli("power", "run.json", "--effect", "0.2", cwd=tmp_path)
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0] == "RUN run.json = r1 (demo, 40 cases that ran, 4 attempts each, pass@1 67.5%)"
    assert lines[1].startswith("Variance of one attempt's outcome: ")
    assert lines[2] == "To detect a change of 20.0 points at alpha 0.05, power 0.8 (correlation 0):"
    assert lines[3] == f"  {plan['cases_needed']} cases with 4 repeats each"
    by = {row["repeat"]: row["cases_needed"] for row in plan["by_repeat"]}
    assert lines[4] == f"  or {by[1]} run once · {by[2]} with 2 repeats each · {by[3]} with 3 repeats each · " + (
        f"{by[5]} with 5 repeats each · {by[10]} with 10 repeats each"
    )
    assert lines[5] == f"  or 40 cases with {plan['repeats_needed']} repeats each"


def test_a_run_without_repeats_counts_all_its_variance_between_cases(tmp_path: Path) -> None:
    plan = power(tmp_path, single_run(tmp_path), "--effect", "0.1", "--repeat", "5")
    # n/(n - 1) · p(1 - p)
    assert plan["variance"] == {"between": pytest.approx(200 / 199 * 0.16), "within": 0.0}
    assert plan["run"]["repeat"] == 1
    assert len({row["cases_needed"] for row in plan["by_repeat"]}) == 1  # repeats bring nothing
    done = run_cli("power", single_run(tmp_path), "--effect", "0.1", cwd=tmp_path)
    assert "RUN ran each case once, so its variance cannot be split into between and within cases" in done.stdout
    assert "  253 cases run once\n  200 cases are not enough: more cases are needed\n" in done.stdout
    assert done.stdout.splitlines()[-1].startswith(
        "With 200 cases, each run once, you can detect a change of 11.2 points"
    )


def test_a_run_from_the_history_is_planned_from_too(tmp_path: Path) -> None:
    (tmp_path / "agents.py").write_text(
        "import itertools\ncount = itertools.count()\n"
        "def agent(question):\n    return 'yes' if next(count) % 3 else 'no'\n",
        encoding="utf-8",
    )
    cases = "".join(f"  - {{name: c{i}, input: q, evaluators: [{{matches: '^yes$'}}]}}\n" for i in range(5))
    (tmp_path / "suite.yaml").write_text(f"agent: agents:agent\nrepeat: 3\ncases:\n{cases}", encoding="utf-8")
    env = {"AGENT_EVAL_DISABLE_PLUGINS": "exact,json,judge,trajectory"}
    assert run_cli("run", "suite.yaml", cwd=tmp_path, env=env).returncode in (0, 1)
    done = run_cli("power", "latest", "--cases", "100", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert re.match(r"RUN latest = \S+ \(suite, 5 cases that ran, 3 attempts each, pass@1 ", done.stdout)
    assert run_cli("power", "latest~1", "--cases", "100", cwd=tmp_path).stderr.startswith(
        "error: 'latest~1' needs 2 recorded runs"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--effect", "0"),
            "--effect must be a change in pass rate above 0 and at most 1 (0.05 for 5 points), got '0'",
        ),
        (
            ("--effect", "1.5"),
            "--effect must be a change in pass rate above 0 and at most 1 (0.05 for 5 points), got '1.5'",
        ),
        (
            ("--effect", "-0.1"),
            "--effect must be a change in pass rate above 0 and at most 1 (0.05 for 5 points), got '-0.1'",
        ),
        (
            ("--effect", "nan"),
            "--effect must be a change in pass rate above 0 and at most 1 (0.05 for 5 points), got 'nan'",
        ),
        (
            ("--effect", "five"),
            "--effect must be a change in pass rate above 0 and at most 1 (0.05 for 5 points), got 'five'",
        ),
        (("--cases", "1"), "--cases must be a whole number of at least 2, got '1'"),
        (("--cases", "2.5"), "--cases must be a whole number of at least 2, got '2.5'"),
        (("--effect", "0.1", "--repeat", "0"), "--repeat must be a whole number of at least 1, got '0'"),
        (("--effect", "0.1", "--alpha", "1"), "--alpha must be strictly between 0 and 1, got '1'"),
        (("--effect", "0.1", "--power", "0"), "--power must be strictly between 0 and 1, got '0'"),
        (("--effect", "0.1", "--correlation", "-2"), "--correlation must be between -1 and 1, got '-2'"),
        ((), "give --effect D (the change in pass rate to detect) or --cases N (to find the smallest change N detect)"),
    ],
)
def test_a_bad_option_is_one_line_and_exit_2(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    done = run_cli("power", single_run(tmp_path), *args, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == f"error: {message}\n"


def test_a_run_too_small_or_with_no_variance_is_one_line_and_exit_2(tmp_path: Path) -> None:
    one = tmp_path / "one.json"
    one.write_text(
        EvalReport([EvalResult("a", "in", status="passed"), EvalResult("b", "in", status="skipped")]).to_json()
    )
    done = run_cli("power", str(one), "--effect", "0.1", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (
        2,
        f"error: {one}: 1 of its cases ran; a variance needs at least 2 (plan from a larger run)\n",
    )
    done = run_cli("power", single_run(tmp_path, passed=10, total=10), "--effect", "0.1", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.endswith(": every attempt passed, so its outcomes have no variance to plan from\n")
    done = run_cli("power", "missing.json", "--effect", "0.1", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("error: missing.json: no such file")


# --- the README's worked example ---------------------------------------------------------------------


def readme_example() -> tuple[str, str, str]:
    """The README's example run (Python), the command it shows, and the output it shows for it."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("### Planning a comparison") :]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    shown = re.search(r"```text\n\$ (agent-eval power [^\n]*)\n(.*?)```", section, re.S)
    assert code and shown
    return code.group(1), shown.group(1), shown.group(2)


def test_the_readme_s_worked_example_is_what_its_run_gives(tmp_path: Path) -> None:
    code, command, output = readme_example()
    saved = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})  # the README's own code
    finally:
        os.chdir(saved)
    done = run_cli(*command.split()[1:], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == output
    # and the figure it quotes is the stats module's, from the run's variance
    report = EvalReport.from_json((tmp_path / "flaky.json").read_text(encoding="utf-8"))
    variance = stats.case_variance([[float(o) for o in case.outcomes()] for case in report.cases])
    assert variance is not None
    effect = stats.detectable_effect(variance, 200, repeats=5)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"with 200 cases and 5 repeats you can detect a drop of {effect * 100:.1f} points" in readme
