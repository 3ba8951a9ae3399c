"""What a worker needs to rebuild a run: paths, the agent reference and the settings, as plain data.

Nothing of the driver's objects is sent (no agent, no evaluator, no case): a worker loads the suite file
with its own installed plugins and imports the agent itself, so nothing needs to pickle.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from agent_eval import RunPlan


@attrs.frozen(kw_only=True)
class Job:
    """A run as a worker rebuilds it."""

    #: The suite file: absolute, or relative to the worker's working directory (a shipped ``working_dir``).
    suite_path: str
    agent_reference: str
    #: Folders put first on the worker's import path (the driver's current directory, the suite's folder).
    import_paths: tuple[str, ...]
    #: The driver's current directory, where the worker runs the cases when it has that folder (as ``local``
    #: does: relative paths the agent opens, and the places errors are reported at, read the same);
    #: None with a shipped ``working_dir``, where Ray starts the worker.
    cwd: str | None = None
    name: str | None = None
    session_id: str = "eval"
    env: Mapping[str, str] = attrs.Factory(dict)
    timeout: float | None = None
    repeat: int = 1
    case_pass_rate: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        """Plain data for the Ray task's arguments."""
        return attrs.asdict(self, value_serializer=lambda _, __, value: _plain(value))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Job:
        """The job :meth:`to_dict` wrote."""
        return cls(**{**data, "import_paths": tuple(data["import_paths"])})


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


def job_of(plan: RunPlan, working_dir: str | None) -> Job:
    """The job of ``plan``; with ``working_dir`` its paths are relative to that folder, as workers see it."""
    if plan.suite_path is None or plan.agent_reference is None:
        raise ValueError(
            "the ray executor rebuilds the run from its suite file and agent reference in every worker; "
            "run a suite file (agent-eval run SUITE --executor ray)"
        )
    suite = Path(plan.suite_path).absolute()
    cwd: str | None = str(Path.cwd())
    paths = [str(cwd), str(suite.parent)]
    if working_dir is not None:
        suite = _inside(suite, Path(working_dir))
        cwd, paths = None, [".", str(suite.parent)]
    settings = plan.settings
    return Job(
        suite_path=str(suite),
        agent_reference=plan.agent_reference,
        import_paths=tuple(dict.fromkeys(paths)),
        cwd=cwd,
        name=plan.name,
        session_id=plan.ctx.session_id,
        env=dict(plan.ctx.env),
        timeout=settings.timeout,
        repeat=settings.repeat,
        case_pass_rate=settings.case_pass_rate,
    )


def _inside(path: Path, folder: Path) -> Path:
    relative = Path(os.path.relpath(path, folder))
    if relative.parts[:1] == (os.pardir,):
        raise ValueError(
            f"the suite file {str(path)!r} must be inside working_dir {str(folder)!r}: workers get that folder"
        )
    return relative
