"""Helpers for tests: fake installed plugins, and running the real ``agent-eval`` command."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

BIN = Path(sys.executable).parent


def write_plugin(
    root: Path,
    source: str,
    *,
    distribution: str = "acme-evals",
    version: str = "1.2.3",
    entry_point: str = "acme",
    module: str = "acme_evals_plugin",
) -> Path:
    """Fake an installed distribution in ``root``: a module plus a ``.dist-info`` naming it as a plugin."""
    root.mkdir(parents=True, exist_ok=True)
    (root / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    info = root / f"{distribution.replace('-', '_')}-{version}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n", encoding="utf-8"
    )
    entry_points = info / "entry_points.txt"
    previous = entry_points.read_text(encoding="utf-8") if entry_points.exists() else "[agent_eval]\n"
    entry_points.write_text(previous + f"{entry_point} = {module}\n", encoding="utf-8")
    return root


def run_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``agent-eval`` command and capture its output."""
    full_env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", **(env or {})}
    full_env.pop("GITHUB_STEP_SUMMARY", None)
    return subprocess.run(
        [str(BIN / "agent-eval"), *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
