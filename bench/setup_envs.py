"""The peers' virtualenvs under bench/.venvs, each with its pinned version, made once and reused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
VENVS = BENCH / ".venvs"
WORK = BENCH / ".work"
#: The project's own environment (made by `make`): agent-eval and its plugins, installed editable.
PROJECT_PYTHON = ROOT / ".venv" / "bin" / "python"

#: Peer name -> the requirements its venv holds. Bump a pin here to measure a newer release.
PINS: dict[str, tuple[str, ...]] = {
    "pydantic-evals": ("pydantic-evals==2.62.0",),
    "inspect-ai": ("inspect-ai==0.3.285",),
    # Only for profiling a missed target; never imported by a measured run.
    "profile": ("py-spy==0.4.3",),
}


def python_of(name: str) -> Path:
    """The interpreter of the venv ``name``."""
    return VENVS / name / "bin" / "python"


def ensure(name: str) -> Path:
    """Create (or bring up to date) the venv ``name`` with its pins; return its interpreter."""
    venv = VENVS / name
    stamp = venv / ".bench-pins"
    wanted = "\n".join(PINS[name]) + "\n"
    if stamp.exists() and stamp.read_text() == wanted and python_of(name).exists():
        return python_of(name)
    WORK.mkdir(parents=True, exist_ok=True)
    log = WORK / f"install-{name}.log"
    print(f"bench: installing {' '.join(PINS[name])} into {venv.relative_to(ROOT)} (log: {log.relative_to(ROOT)})")
    # The same base interpreter as the project's venv, so that every framework runs on one Python.
    base = getattr(sys, "_base_executable", sys.executable)
    with log.open("w") as out:
        _run([base, "-m", "venv", "--clear", str(venv)], out)
        pip = [str(python_of(name)), "-m", "pip", "--disable-pip-version-check"]
        _run([*pip, "install", "--quiet", *PINS[name]], out)
    stamp.write_text(wanted)
    return python_of(name)


def _run(command: list[str], out: object) -> None:
    result = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "PIP_NO_INPUT": "1"})  # type: ignore[arg-type]
    if result.returncode != 0:
        raise SystemExit(f"bench: `{' '.join(command)}` failed (exit {result.returncode}); see bench/.work/")


def check_project() -> None:
    """Stop with a hint when the project's venv is missing (``make bench`` creates it); byte-compile it."""
    if not PROJECT_PYTHON.exists():
        raise SystemExit("bench: .venv is missing; run `make bench` (it installs the project first)")
    byte_compile_project()


def byte_compile_project() -> None:
    """Byte-compile the project's packages, as pip does when it installs a package from a wheel.

    The editable install imports them from their source folders, where Python writes no bytecode when
    PYTHONDONTWRITEBYTECODE is set (it is, on the bench machine): every start would then compile every
    module again, 0.08 s of each `agent-eval run`, which no installed agent-eval pays.
    """
    folders = [ROOT / "core" / "src", *sorted((ROOT / "plugins").glob("*/src"))]
    command = [str(PROJECT_PYTHON), "-m", "compileall", "-q", *(str(folder) for folder in folders)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
