"""The distribution: what it depends on, its entry point, and what importing its plugin costs."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[3] / "plugins" / "trajectory"
LIGHT = ["agent_eval_trajectory", "agent_eval_trajectory.factories", "agent_eval_trajectory.options"]


def loaded_after(code: str) -> list[str]:
    """The modules of this plugin (and attrs) that a fresh interpreter holds after running ``code``."""
    ours = "sorted(m for m in sys.modules if m.startswith(('agent_eval_', 'attr')))"
    report = f"import sys, json; print(json.dumps({ours}))"
    done = subprocess.run([sys.executable, "-c", f"{code}\n{report}"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    names: list[str] = json.loads(done.stdout)
    return names


def test_the_distribution_depends_on_the_core_and_attrs_only() -> None:
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == "agent-eval-trajectory"
    assert project["dependencies"] == ["agent-eval-core>=0.2", "attrs>=23.1"]  # attrs: the core's own, small
    assert "optional-dependencies" not in project
    assert project["entry-points"]["agent_eval"] == {"trajectory": "agent_eval_trajectory.plugin"}


def test_importing_the_plugin_loads_only_the_factories_and_their_checks() -> None:
    assert loaded_after("import agent_eval_trajectory.plugin") == [*LIGHT, "agent_eval_trajectory.plugin"]


def test_the_pairing_code_loads_on_the_first_evaluation_not_when_the_evaluator_is_built() -> None:
    build = "from agent_eval_trajectory import trajectory_match; match = trajectory_match([{'name': 'a'}])"
    built = loaded_after(build)
    assert "agent_eval_trajectory.trajectory" in built
    assert "agent_eval_trajectory.matching" not in built
    evaluate = "from types import SimpleNamespace; match(None, SimpleNamespace(tool_calls=()))"
    assert "agent_eval_trajectory.matching" in loaded_after(f"{build}\n{evaluate}")


@pytest.mark.slow
def test_the_wheel_requires_the_core_and_attrs_only(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), PROJECT],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = tmp_path.glob("agent_eval_trajectory-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = archive.read(name).decode("utf-8")
        assert "agent_eval_trajectory/py.typed" in archive.namelist()
    requires = [line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert requires == ["agent-eval-core>=0.2", "attrs>=23.1"]
