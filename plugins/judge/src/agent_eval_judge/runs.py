"""The run a judge command names: for now a report file, written by ``agent-eval run --json`` or ``--jsonl``.

Runs in the history (a run id, ``latest``, ``latest~K``) are refused with the way round: the history is
agent-eval's own, and ``agent-eval show RUN --json FILE`` writes a run's report as a file.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from agent_eval_judge.usage import fail

if TYPE_CHECKING:
    from agent_eval import EvalReport

_LINES = (".jsonl", ".ndjson")


def load_report(ref: str) -> EvalReport:
    """The report in the file ``ref``; a one-line error (exit 2) when it is not one, or names a history run."""
    from agent_eval import FileReadError, read_text_file

    suffix = os.path.splitext(ref)[1].lower()  # noqa: PTH122 - a path from the command line
    if not os.path.lexists(ref):
        if suffix in (".json", *_LINES) or "/" in ref or os.sep in ref:
            fail(f"{ref}: no such file; give a report written by `agent-eval run --json` or `--jsonl`")
        fail(
            f"{ref!r} is not a file here; for a run in the history, write its report first with "
            f"`agent-eval show {ref} --json run.json`, then review run.json"
        )
    try:
        text = read_text_file(ref)
        return _from_lines(text) if suffix in _LINES else _from_json(text)
    except FileReadError as error:
        fail(f"{error}; give a report written by `agent-eval run --json` or `--jsonl`")
    except ValueError as error:
        fail(f"{ref}: {error}; give a report written by `agent-eval run --json` or `--jsonl`")


def _from_json(text: str) -> EvalReport:
    from agent_eval import EvalReport

    return EvalReport.from_json(text)


def _from_lines(text: str) -> EvalReport:
    """The cases of a ``--jsonl`` stream (finished or not): the last line of each case's name counts."""
    import json

    from agent_eval import EvalReport, EvalResult

    cases: dict[str, EvalResult] = {}
    run: dict[str, Any] = {}
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            if number == len(lines):
                break  # the last line of a run that was killed may be cut short
            raise ValueError(f"line {number} is not JSON") from None
        if not isinstance(record, dict):
            raise ValueError(f"line {number}: expected an object, got {type(record).__name__}")
        if isinstance(record.get("run"), dict):
            run = record["run"]
        if record.get("type") == "case":
            try:
                result = EvalResult.from_dict(record)
            except (TypeError, KeyError) as error:
                raise ValueError(f"line {number}: {error}") from None
            except ValueError as error:
                raise ValueError(f"line {number}: {error}") from None
            cases[result.name] = result
    if not cases and not run:
        raise ValueError("holds no case lines of an agent-eval run")
    suite = run.get("suite")
    return EvalReport(list(cases.values()), name=suite if isinstance(suite, str) else None, metadata=run)
