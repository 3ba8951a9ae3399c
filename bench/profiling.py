"""Profiles of agent-eval where a target is missed: py-spy samples grouped by package, and import times."""

from __future__ import annotations

import collections
import re
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

from scenarios import Job, clean_env
from setup_envs import PROJECT_PYTHON, ROOT, VENVS, WORK

PY_SPY = VENVS / "profile" / "bin" / "py-spy"
#: Only samples inside the measured call count: imports and set-up are left out.
MEASURED = "measure (_common.py"
_FRAME = re.compile(r"^(?P<function>.*) \((?P<path>[^()]*?)(?::\d+)?\)$")


def sample(job: Job, env: dict[str, str] | None = None, rate: int = 1000) -> str:
    """Run ``job`` under py-spy; return the collapsed stacks ("frame;frame;... count" lines)."""
    WORK.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=WORK, suffix=".txt", delete=False) as handle:
        output = Path(handle.name)
    try:
        command = [str(PY_SPY), "record", "--rate", str(rate), "--format", "raw", "--output", str(output), "--"]
        subprocess.run(
            [*command, *job.command], capture_output=True, text=True, cwd=ROOT, env=env or clean_env(), check=True
        )
        return output.read_text()
    finally:
        output.unlink(missing_ok=True)


def _stacks(raw: str, within: str | None = MEASURED) -> Iterable[tuple[list[str], int]]:
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        frames = stack.split(";")
        if within is None or any(within in frame for frame in frames):
            yield frames, int(count)


def package_of(frame: str) -> str:
    """The top-level package (or module) a py-spy frame's code belongs to."""
    match = _FRAME.match(frame)
    path = match.group("path") if match else frame
    if path.startswith("<attrs generated"):
        return "attrs-generated methods"
    if path.startswith("<frozen "):
        return path.removeprefix("<frozen ").rstrip(">").split(".")[0]
    first = path.split("/")[0]
    return first.removesuffix(".py")


def _function(frame: str) -> str:
    match = _FRAME.match(frame)
    return f"{match.group('function')} ({match.group('path')})" if match else frame


def summarize(raw: str, top: int = 12, within: str | None = MEASURED) -> list[str]:
    """Lines: self time by package, agent-eval's functions by inclusive time, functions by self time."""
    by_package: collections.Counter[str] = collections.Counter()
    by_function: collections.Counter[str] = collections.Counter()
    ours: collections.Counter[str] = collections.Counter()
    total = 0
    for frames, count in _stacks(raw, within):
        total += count
        by_package[package_of(frames[-1])] += count
        by_function[_function(frames[-1])] += count
        for function in {_function(frame) for frame in frames if package_of(frame).startswith("agent_eval")}:
            ours[function] += count
    if not total:
        return ["(no samples inside the measured run)"]
    where = "in the measured run" if within else "in all"
    lines = [f"{total:,} samples {where}; self time by package:"]
    lines += [f"  {count / total:6.1%}  {name}" for name, count in by_package.most_common(8)]
    lines.append("agent-eval's functions, inclusive time (the run's own frames included):")
    lines += [f"  {count / total:6.1%}  {name}" for name, count in ours.most_common(top)]
    lines.append("functions with the most self time:")
    lines += [f"  {count / total:6.1%}  {name}" for name, count in by_function.most_common(top)]
    return lines


def sample_startup(command: list[str], runs: int = 10) -> str:
    """Collapsed stacks of ``runs`` starts of ``command``, sampled at 2 kHz and added together."""
    job = Job("C", "agent-eval", "start-up", tuple(command), 1, "wall")
    return "\n".join(sample(job, rate=2000) for _ in range(runs))


def import_times(command: list[str], runs: int = 5, top: int = 12) -> list[str]:
    """``-X importtime`` of ``command`` (the best of ``runs``): the imports that cost the most, cumulative."""
    best: dict[str, tuple[int, int]] = {}
    for _ in range(runs):
        result = subprocess.run(
            [str(PROJECT_PYTHON), "-X", "importtime", *command],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=clean_env(),
        )
        for line in result.stderr.splitlines():
            parts = line.removeprefix("import time:").split("|")
            if len(parts) != 3 or not parts[0].strip().isdigit():
                continue
            own, cumulative, name = int(parts[0]), int(parts[1]), parts[2].rstrip()[1:]
            previous = best.get(name)
            if previous is None or cumulative < previous[1]:
                best[name] = (own, cumulative)
    total = sum(cumulative for name, (_, cumulative) in best.items() if not name.startswith(" "))
    lines = [f"top-level imports: {total / 1000:.1f} ms in all (best of {runs}); the costliest, cumulative/self:"]
    ranked = sorted(best.items(), key=lambda item: -item[1][1])[:top]
    lines += [
        f"  {cumulative / 1000:6.1f} ms  {own / 1000:5.1f} ms  {name.strip()}" for name, (own, cumulative) in ranked
    ]
    return lines


def available() -> bool:
    """True when py-spy is installed in bench/.venvs/profile."""
    return PY_SPY.exists()
