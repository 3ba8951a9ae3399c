"""The JSON report (``--json``) and the per-case JSON Lines stream (``--jsonl``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_eval._codec import jsonable
from agent_eval._model import EvalReport, EvalResult
from agent_eval._report.files import LineWriter, write_atomic


def write(report: EvalReport, path: str | Path) -> None:
    """Write the whole report as JSON, atomically."""
    write_atomic(path, report.to_json() + "\n")


def read(path: str | Path) -> EvalReport:
    """Load a report written by :func:`write`."""
    return EvalReport.from_json(Path(path).read_text(encoding="utf-8"))


class CaseStream:
    """``--jsonl``: one line per case as it finishes, then one summary line."""

    def __init__(self, path: str | Path, run: dict[str, Any]) -> None:
        self._writer = LineWriter(path)
        self._run = jsonable(run)

    def case(self, index: int, result: EvalResult) -> None:
        """Append a finished case."""
        self._writer.write({"type": "case", "run": self._run, "index": index, **result.to_dict()})

    def finish(self, report: EvalReport) -> None:
        """Append the run's summary line and close the file."""
        summary = report.to_dict()
        del summary["cases"]
        self._writer.write({"type": "summary", "run": self._run, **summary})
        self._writer.close()
