"""Each evaluator distribution installs alone on top of the core, from wheels, in a fresh virtualenv."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PROJECTS = {
    "core": "agent-eval-core",
    "contains": "agent-eval-contains",
    "exact": "agent-eval-exact",
    "json": "agent-eval-json",
    "judge": "agent-eval-judge",
    "trajectory": "agent-eval-trajectory",
}


def plugin_env() -> dict[str, str]:
    """The caller's environment, but with the installed plugins loading whatever it says."""
    return {**os.environ, "AGENT_EVAL_DISABLE_PLUGIN_AUTOLOAD": "", "AGENT_EVAL_DISABLE_PLUGINS": ""}


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Wheels of the distributions and of their dependencies, so that each virtualenv installs offline."""
    # Built once, with the development environment's hatchling; dependencies are fetched once.
    out = tmp_path_factory.mktemp("wheels")
    sources = [str(ROOT / "core"), *(str(ROOT / "plugins" / name) for name in PROJECTS if name != "core")]
    pip(sys.executable, "wheel", "--no-deps", "--no-build-isolation", "--quiet", "-w", str(out), *sources)
    pip(sys.executable, "wheel", "--quiet", "--find-links", str(out), "-w", str(out), *wheels_in(out).values())
    return out


@pytest.fixture(scope="module")
def wheels(wheelhouse: Path) -> dict[str, Path]:
    """The wheel of each distribution of this repository, by directory name."""
    return {name: Path(wheel) for name, wheel in wheels_in(wheelhouse).items()}


def wheels_in(directory: Path) -> dict[str, str]:
    found = {}
    for name, distribution in PROJECTS.items():
        (wheel,) = directory.glob(distribution.replace("-", "_") + "-*.whl")
        found[name] = str(wheel)
    return found


def pip(python: str, *args: str) -> None:
    done = subprocess.run(
        [python, "-m", "pip", "--disable-pip-version-check", *args], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr


def fresh_venv(path: Path) -> Path:
    """A new virtualenv without pip; packages are installed into it by the outer pip (``pip --python``)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=120)
    return path / "bin" / "python"


def install(python: Path, *wheels: Path) -> None:
    house = str(wheels[0].parent)
    pip(
        sys.executable,
        "--python",
        str(python),
        "install",
        "--quiet",
        "--no-index",
        "--find-links",
        house,
        *map(str, wheels),
    )


def listed(python: Path) -> list[dict[str, object]]:
    done = subprocess.run(
        [str(python.with_name("agent-eval")), "list-evaluators", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=plugin_env(),
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr  # no plugin failed to load
    entries: list[dict[str, object]] = json.loads(done.stdout)
    return entries


def names(python: Path) -> list[str]:
    return [str(entry["name"]) for entry in listed(python)]


def test_core_alone_lists_none_then_exact_lists_only_exact_match(tmp_path: Path, wheels: dict[str, Path]) -> None:
    python = fresh_venv(tmp_path / "venv")
    install(python, wheels["core"])
    assert names(python) == []
    install(python, wheels["exact"])
    (entry,) = listed(python)
    assert (entry["name"], entry["package"], entry["version"]) == ("exact_match", "agent-eval-exact", "0.2.0")
    assert entry["description"] == "Passes when the output equals `expected` (default: the case's expected answer)."
    defaults = {p["name"]: p.get("default") for p in entry["parameters"]}  # type: ignore[attr-defined]
    assert defaults == {"expected": None, "ignore_case": False, "strip": True}


def test_contains_alone_lists_contains_and_matches(tmp_path: Path, wheels: dict[str, Path]) -> None:
    python = fresh_venv(tmp_path / "venv")
    install(python, wheels["core"], wheels["contains"])
    assert names(python) == ["contains", "matches"]
    assert {str(entry["package"]) for entry in listed(python)} == {"agent-eval-contains"}


def test_json_alone_lists_valid_json_and_brings_jsonschema(tmp_path: Path, wheels: dict[str, Path]) -> None:
    python = fresh_venv(tmp_path / "venv")
    install(python, wheels["core"], wheels["json"])
    assert names(python) == ["valid_json"]
    check = "from agent_eval_json import valid_json; print(valid_json({'type': 'array'})('[1]').passed)"
    done = subprocess.run([str(python), "-c", check], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "True", done.stderr


def test_all_three_list_every_evaluator_and_run_a_suite(tmp_path: Path, wheels: dict[str, Path]) -> None:
    python = fresh_venv(tmp_path / "venv")
    install(python, wheels["core"], wheels["contains"], wheels["exact"], wheels["json"])
    assert names(python) == ["contains", "exact_match", "matches", "valid_json"]
    work = tmp_path / "work"
    work.mkdir()
    (work / "agents.py").write_text(
        "ANSWERS = {'Say hello': 'Hi!', 'What is 2 + 2?': '4', 'List 3 colors as JSON': '[\"red\", \"green\"]'}\n"
        "def agent(question):\n    return ANSWERS[question]\n",
        encoding="utf-8",
    )
    (work / "suite.yaml").write_text(
        textwrap.dedent(
            """
            cases:
              - name: greets user
                input: Say hello
                evaluators: [contains: {keywords: [hello, hi], match_all: false}]
              - name: returns correct answer
                input: What is 2 + 2?
                expected: "4"
                evaluators: [exact_match, matches: '^\\d+$']
              - name: returns json
                input: List 3 colors as JSON
                evaluators: [valid_json: {schema: {type: array, minItems: 3}}]
            """
        ),
        encoding="utf-8",
    )
    command = [str(python.with_name("agent-eval")), "run", "suite.yaml", "--agent", "agents:agent"]
    done = subprocess.run(
        [*command, "--json", "out.json", "--no-history", "--quiet"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
        env=plugin_env(),
    )
    assert done.returncode == 1, done.stderr  # the JSON case fails on purpose
    cases = json.loads((work / "out.json").read_text(encoding="utf-8"))["cases"]
    assert [(case["name"], case["status"]) for case in cases] == [
        ("greets user", "passed"),
        ("returns correct answer", "passed"),
        ("returns json", "failed"),
    ]
    assert cases[2]["reason"] == "$: ['red', 'green'] is too short"


def requirements(wheel: Path) -> list[str]:
    """The ``Requires-Dist`` lines of a wheel's METADATA."""
    import zipfile

    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        text = archive.read(name).decode("utf-8")
    return [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Requires-Dist:")]


def test_every_plugin_depends_on_agent_eval_core_and_never_on_agent_eval(wheels: dict[str, Path]) -> None:
    # `agent-eval` on PyPI is an unrelated project: depending on it would install a stranger's package.
    for name, wheel in wheels.items():
        ours = [r for r in requirements(wheel) if re.match(r"agent[-_.]eval\b", r, re.IGNORECASE)]
        if name == "core":
            assert ours == [], ours
        else:
            assert [re.split(r"[ <>=!~;\[]", r, maxsplit=1)[0] for r in ours] == ["agent-eval-core"], ours


def test_core_and_judge_install_agent_eval_core_and_nothing_named_agent_eval(
    tmp_path: Path, wheels: dict[str, Path]
) -> None:
    python = fresh_venv(tmp_path / "venv")
    install(python, wheels["core"], wheels["judge"])
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "list", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    installed = {entry["name"].lower() for entry in json.loads(done.stdout)}
    assert {"agent-eval-core", "agent-eval-judge"} <= installed
    assert "agent-eval" not in installed
    assert names(python) == ["llm_judge", "similar"]


def test_trajectory_alone_lists_its_evaluators(tmp_path: Path, wheels: dict[str, Path]) -> None:
    python = fresh_venv(tmp_path / "venv")
    install(python, wheels["core"], wheels["trajectory"])
    assert names(python) == [
        "max_cost",
        "max_latency",
        "max_steps",
        "max_tokens",
        "tool_called",
        "tool_not_called",
        "trajectory_match",
    ]
