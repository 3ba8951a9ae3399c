"""A throwaway project for the report and history tests: an agent, a plugin, suite files and the real CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml
from helpers import BIN, run_cli, write_plugin

DATA = Path(__file__).parent

#: The answers that make STANDARD_CASES come out as: 2 passed, 1 failed, 1 error, 1 skipped.
STANDARD_ANSWERS = {
    "Say hello": "hello there",
    "What is 2 + 2?": "it is 5",
    "Grade me": "score=0.75",
    "Explain": "some explanation",
    "Crash": {"raise": "agent broke on purpose"},
}

STANDARD_CASES: list[dict[str, Any]] = [
    {"name": "greets", "input": "Say hello", "evaluators": [{"says": "hello"}]},
    {"name": "adds", "input": "What is 2 + 2?", "evaluators": [{"says": "4"}]},
    {"name": "grades", "input": "Grade me", "evaluators": [{"graded": {}}]},
    {"name": "explains", "input": "Explain", "evaluators": [{"never_judges": {}}]},
    {"name": "crashes", "input": "Crash", "evaluators": [{"says": "anything"}]},
]


class Project:
    """A folder with the agent ``answers_agent:agent`` and the plugin ``report-evals``, run with the CLI."""

    def __init__(self, root: Path) -> None:
        self.root = root
        source = (DATA / "evals_plugin.py").read_text(encoding="utf-8")
        write_plugin(root, source, distribution="report-evals", version="0.3.1", entry_point="rx", module="rx_plugin")
        shutil.copy(DATA / "answers_agent.py", root / "answers_agent.py")
        self.answers(STANDARD_ANSWERS)

    def answers(self, answers: dict[str, Any]) -> None:
        """Set what the agent answers, by input."""
        (self.root / "answers.json").write_text(json.dumps(answers), encoding="utf-8")

    def suite(
        self, cases: list[dict[str, Any]] | None = None, *, name: str = "demo", file: str = "suite.yaml", **top: Any
    ) -> Path:
        """Write a suite file (the standard cases by default) and return its path."""
        data = {"name": name, "agent": "answers_agent:agent", **top, "cases": cases or STANDARD_CASES}
        path = self.root / file
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        return path

    def env(self, **extra: str) -> dict[str, str]:
        """The environment that makes the agent and the plugin importable."""
        return {"PYTHONPATH": str(self.root), **extra}

    def cli(self, *args: str, timeout: float = 60, process: bool = False) -> subprocess.CompletedProcess[str]:
        """Run ``agent-eval ARGS`` in the project folder (in a new process with ``process=True``)."""
        return run_cli(*args, cwd=self.root, env=self.env(), timeout=timeout, process=process)

    def popen(self, *args: str, **env: str) -> subprocess.Popen[str]:
        """Start ``agent-eval ARGS`` in the project folder without waiting (for signals and GitHub variables)."""
        full_env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", **self.env(**env)}
        return subprocess.Popen(
            [str(BIN / "agent-eval"), *args],
            cwd=self.root,
            env=full_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
