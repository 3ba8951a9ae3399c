"""agent-eval-pytest installs from wheels into a fresh virtualenv with only the core and contains, and works there."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.plugins.test_install_alone import fresh_venv, install, pip, plugin_env

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
DISTRIBUTIONS = {"core": "agent-eval-core", "contains": "agent-eval-contains", "pytest": "agent-eval-pytest"}

SUITE = """\
agent: agents:agent
cases:
  - name: greets user
    input: Say hello
    evaluators:
      - contains: {keywords: [hello, hi], match_all: false}
  - name: adds
    input: What is 2 + 2?
    evaluators:
      - contains: "4"
"""

AGENT = """\
def agent(question):
    return {"Say hello": "Hi there!", "What is 2 + 2?": "5"}[question]
"""


@pytest.fixture(scope="module")
def venv_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtualenv with the wheels of the core, contains and the pytest plugin, and their dependencies only."""
    house = tmp_path_factory.mktemp("wheels")
    sources = [str(ROOT / ("core" if name == "core" else f"plugins/{name}")) for name in DISTRIBUTIONS]
    pip(sys.executable, "wheel", "--no-deps", "--no-build-isolation", "--quiet", "-w", str(house), *sources)
    ours = [next(house.glob(d.replace("-", "_") + "-*.whl")) for d in DISTRIBUTIONS.values()]
    pip(sys.executable, "wheel", "--quiet", "--find-links", str(house), "-w", str(house), *map(str, ours))
    python = fresh_venv(tmp_path_factory.mktemp("venv") / "venv")
    install(python, *ours)
    return python


def run_pytest(python: Path, folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**plugin_env(), "COLUMNS": "100"}
    for name in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTHONPATH"):
        env.pop(name, None)
    return subprocess.run(
        [str(python), "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "eval_demo.yaml").write_text(SUITE, encoding="utf-8")
    (tmp_path / "agents.py").write_text(AGENT, encoding="utf-8")
    return tmp_path


def test_only_the_three_distributions_of_this_repository_are_installed(venv_python: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv_python), "list", "--format", "freeze"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    ours = sorted(line.split("==")[0] for line in done.stdout.splitlines() if line.lower().startswith("agent"))
    assert ours == sorted(DISTRIBUTIONS.values())


def test_pytest_shows_one_line_per_case_and_a_failure_shows_the_reason(venv_python: Path, folder: Path) -> None:
    done = run_pytest(venv_python, folder, "-v")
    lines = done.stdout.splitlines()
    assert done.returncode == 1, done.stdout + done.stderr
    assert [line.split()[:2] for line in lines if line.startswith("eval_demo.yaml::")] == [
        ["eval_demo.yaml::greets", "user"],
        ["eval_demo.yaml::adds", "FAILED"],
    ]
    assert any(line.startswith("eval_demo.yaml::greets user PASSED") for line in lines)
    assert "failed · score 0.00 · missing: '4'" in lines
    assert "  FAIL  contains  score 0.00  missing: '4'" in lines
    assert "Traceback" not in done.stdout
    assert "agent-eval-pytest-0.2.0" in done.stdout  # pytest lists the plugin


def test_dash_k_selects_cases(venv_python: Path, folder: Path) -> None:
    done = run_pytest(venv_python, folder, "-v", "-k", "greets")
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line for line in done.stdout.splitlines() if line.startswith("eval_demo.yaml::")] == [
        next(line for line in done.stdout.splitlines() if line.startswith("eval_demo.yaml::greets user PASSED"))
    ]
    assert "1 passed, 1 deselected" in done.stdout
