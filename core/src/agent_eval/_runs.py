"""Finding a recorded run: a report file (``--json`` or ``--jsonl``) or a run in the history."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_eval._errors import AgentEvalError

if TYPE_CHECKING:
    from pathlib import Path

    from agent_eval._model import EvalReport

#: Where the run history is when no other path is given.
DEFAULT_HISTORY = ".agent-eval/runs.db"


class RunNotFound(AgentEvalError):
    """The run named cannot be read: no such file or run, or what is there is not a report."""


def load_run(ref: str, *, history: str | Path | None = None, lines: bool = True, outcomes: bool = False) -> EvalReport:
    """The run ``ref`` names: a ``--json`` report file, a ``--jsonl`` stream (with ``lines``; a run cut off
    halfway holds the cases that finished), or in the history (``history``, default
    ``.agent-eval/runs.db``) a run id, a unique prefix of one, ``latest`` or ``latest~K``.

    With ``outcomes``, a JSON report file is read only as far as ``compare`` needs. RunNotFound (one
    sentence saying what to give) when it cannot be read.
    """
    import os.path
    from pathlib import Path

    candidate = Path(ref)
    suffix = candidate.suffix.lower()
    named_file = suffix in (".json", ".jsonl", ".ndjson") or "/" in ref or os.sep in ref
    # Whatever stands at a path that names a file is read (a FIFO is refused, not taken for a run id);
    # a folder that happens to be called like a run (latest, 2026) is not.
    if os.path.lexists(ref) and (named_file or not candidate.is_dir()):
        from agent_eval._errors import FileReadError
        from agent_eval._report.json import read, read_lines, read_outcomes

        reader = read_lines if lines and suffix in (".jsonl", ".ndjson") else read_outcomes if outcomes else read
        try:
            return reader(candidate)
        except FileReadError as error:
            raise RunNotFound(f"{error}; give a JSON report written by `run --json`, or a run id") from None
        except ValueError as error:
            raise RunNotFound(f"{ref}: {error}; write reports with `agent-eval run --json`") from None
    if named_file:
        raise RunNotFound(f"{ref}: no such file; give a JSON report written by `run --json`, or a run id")
    from agent_eval._history import History, HistoryError

    try:
        return History(history or DEFAULT_HISTORY).load(ref).report
    except HistoryError as error:
        raise RunNotFound(str(error)) from None
