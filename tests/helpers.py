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
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    process: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run ``agent-eval ARGS`` and capture its exit code and output.

    In this process by default, through the same entry point the console script calls (fast); with
    ``process=True``, the installed command in a new process (for what only a process shows: its exit
    status as the shell sees it, start-up imports, signals).
    """
    if not process:
        return _run_in_process(list(args), cwd, env or {})
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


def _run_in_process(args: list[str], cwd: Path | None, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``entry(args)`` with the environment, folder, import path and output of a fresh command run."""
    from click.testing import CliRunner

    from agent_eval import _plugins
    from agent_eval.cli import entry

    folder = Path(cwd) if cwd is not None else Path.cwd()
    extra_paths = [entry_ for entry_ in env.get("PYTHONPATH", "").split(os.pathsep) if entry_]
    variables = {"NO_COLOR": "1", "COLUMNS": "200", "GITHUB_STEP_SUMMARY": None, **env}
    variables.pop("PYTHONPATH", None)
    saved_path, saved_modules, saved_cwd = list(sys.path), set(sys.modules), os.getcwd()
    code = 0
    runner = CliRunner()
    with runner.isolation(env=variables) as (stdout, stderr, _):
        os.chdir(folder)
        sys.path[:0] = extra_paths
        _plugins.set_registry(None)
        try:
            entry(args)
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        finally:
            sys.stdout.flush()  # print() does not flush: what it wrote is still in the wrapper's buffer
            sys.stderr.flush()
            os.chdir(saved_cwd)
            sys.path[:] = saved_path
            _plugins.set_registry(None)
            roots = [str(folder.resolve()), *(str(Path(p).resolve()) for p in extra_paths)]
            for name in set(sys.modules) - saved_modules:
                origin = getattr(sys.modules[name], "__file__", None) or ""
                if any(origin.startswith(root) for root in roots):
                    del sys.modules[name]  # a module of this run's folder: the next run imports its own
        out = stdout.getvalue().decode("utf-8", errors="replace")
        err = stderr.getvalue().decode("utf-8", errors="replace")
    return subprocess.CompletedProcess(["agent-eval", *args], code, out, err)
