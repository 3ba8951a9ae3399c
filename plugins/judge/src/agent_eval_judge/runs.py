"""The run a judge command names: a report file (``--json`` or ``--jsonl``) or a run in the history."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_eval_judge.usage import fail

if TYPE_CHECKING:
    from agent_eval import EvalReport


def load_report(ref: str, *, history: str | None = None) -> EvalReport:
    """The run ``ref`` names (see ``agent_eval.load_run``); a one-line error (exit 2) when there is none."""
    from agent_eval import RunNotFound, load_run

    try:
        return load_run(ref, history=history)
    except RunNotFound as error:
        fail(str(error))
