"""What the measurements ran on, and waiting for the shared machine to quieten down first."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from pathlib import Path

from setup_envs import PINS, PROJECT_PYTHON, ROOT, VENVS, python_of

#: Distributions whose versions go into the report, per interpreter.
PROJECT_PACKAGES = (
    "agent-eval",
    "agent-eval-contains",
    "agent-eval-exact",
    "agent-eval-json",
    "agent-eval-judge",
    "httpx",
    "aiohttp",
    "httpcore",
)
PEER_PACKAGES = {"pydantic-evals": ("pydantic-evals", "pydantic", "pydantic-ai-slim"), "inspect-ai": ("inspect-ai",)}

_VERSIONS = """
import json, sys
from importlib import metadata
found = {}
for name in sys.argv[1:]:
    try:
        found[name] = metadata.version(name)
    except metadata.PackageNotFoundError:
        pass
print(json.dumps(found))
"""


def load() -> tuple[float, float, float]:
    """The 1, 5 and 15 minute load averages."""
    one, five, fifteen = Path("/proc/loadavg").read_text().split()[:3]
    return float(one), float(five), float(fifteen)


def wait_for_quiet(max_minutes: float, threshold: float) -> str:
    """Wait (up to ``max_minutes``) until the 1-minute load is below ``threshold``; say how it went."""
    deadline = time.monotonic() + max_minutes * 60
    waited = False
    while True:
        now = load()[0]
        if now < threshold:
            return f"load {now:.2f} at start" + (" (after waiting for the machine to quieten)" if waited else "")
        if time.monotonic() >= deadline:
            return f"load {now:.2f} at start: still busy after waiting {max_minutes:g} min; ratios still hold"
        if not waited:
            print(f"bench: load {now:.2f} >= {threshold:g}; waiting up to {max_minutes:g} min for a quieter machine")
        waited = True
        time.sleep(30)


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo."""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def memory_gib() -> float:
    """Total memory in GiB."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) / 1024 / 1024
    return 0.0


def versions(python: Path, names: tuple[str, ...]) -> dict[str, str]:
    """Installed versions of ``names`` in the environment of ``python``."""
    if not python.exists():
        return {}
    result = subprocess.run([str(python), "-c", _VERSIONS, *names], capture_output=True, text=True, check=False)
    return json.loads(result.stdout) if result.returncode == 0 else {}


def python_version(python: Path) -> str:
    """``python --version`` of ``python``."""
    result = subprocess.run([str(python), "--version"], capture_output=True, text=True, check=False)
    return (result.stdout or result.stderr).strip()


def git_revision() -> str:
    """The checkout's commit, marked when core/ or plugins/ have uncommitted changes."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "core", "plugins"], capture_output=True, text=True, cwd=ROOT
    )
    revision = head.stdout.strip() or "unknown"
    return revision + (" (core or plugins modified)" if dirty.stdout.strip() else "")


#: What scenario C means by "all plugins installed".
EXPECTED_EVALUATORS = ("contains", "matches", "exact_match", "valid_json", "llm_judge")


def evaluators() -> list[str]:
    """The evaluators `agent-eval list-evaluators --json` lists."""
    command = [str(PROJECT_PYTHON.parent / "agent-eval"), "list-evaluators", "--json"]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    try:
        return sorted(str(item["name"]) for item in json.loads(result.stdout))
    except (ValueError, TypeError, KeyError):
        return []


def missing_evaluators() -> list[str]:
    """The expected evaluators that are not installed."""
    installed = set(evaluators())
    return [name for name in EXPECTED_EVALUATORS if name not in installed]


def describe() -> list[tuple[str, str]]:
    """(what, value) lines describing the machine and the software measured."""
    lines = [
        ("CPU", f"{cpu_model()}, {os.cpu_count()} logical CPUs (nproc {len(os.sched_getaffinity(0))})"),
        ("Memory", f"{memory_gib():.1f} GiB"),
        ("OS", platform.platform()),
        ("Python", python_version(PROJECT_PYTHON)),
        ("agent-eval checkout", git_revision()),
    ]
    project = versions(PROJECT_PYTHON, PROJECT_PACKAGES)
    lines.append(("agent-eval side", ", ".join(f"{name} {version}" for name, version in project.items())))
    lines.append(("Evaluators installed", ", ".join(evaluators()) or "none"))
    for peer, names in PEER_PACKAGES.items():
        found = versions(python_of(peer), names)
        pinned = ", ".join(PINS[peer])
        shown = ", ".join(f"{name} {version}" for name, version in found.items()) or "not installed"
        lines.append((peer, f"{shown} (venv {VENVS.name}/{peer}, pinned {pinned})"))
    return lines
