"""Helpers for the tests of ``calibrate`` and ``review``: suites, labels files, and a judge that reads its prompt."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from helpers import run_cli
from judge_helpers import verdict_reply

from agent_eval.testing.server import RecordedRequest, Reply

_OUTPUT = re.compile(r"<<<AGENT_OUTPUT_(\w+)>>>\n(.*)\n<<<END_AGENT_OUTPUT_\1>>>", re.S)
_CRITERION = re.compile(r"\nCriterion:\n(.*)\n\nReply with the JSON object only\.\Z", re.S)


def graded_output(request: RecordedRequest) -> str:
    """The answer a judge request asks about: the text between its per-call AGENT_OUTPUT markers."""
    found = _OUTPUT.search(request.message("user"))
    assert found is not None, request.message("user")
    return found.group(2)


def criterion(request: RecordedRequest) -> str:
    """The criterion a judge request asks about."""
    found = _CRITERION.search(request.message("user"))
    assert found is not None
    return found.group(1)


def judge_by(rule: Callable[[str, str], bool | Reply]) -> Callable[[RecordedRequest], Reply]:
    """A responder whose verdict is ``rule(graded output, requested model)``: a bool, or a Reply as it is."""

    def respond(request: RecordedRequest) -> Reply:
        verdict = rule(graded_output(request), str(request.json["model"]))
        if isinstance(verdict, Reply):
            return verdict
        return verdict_reply(verdict, reason="judged " + ("pass" if verdict else "fail"))

    return respond


def says_pass(output: str, _model: str = "") -> bool:
    """The verdict the tests' outputs ask for: each carries ``judge-pass`` or ``judge-fail``."""
    return "judge-pass" in output


def write_suite(folder: Path, cases: Iterable[Mapping[str, Any]], name: str = "suite.json") -> Path:
    """A suite file (JSON, which is YAML too) holding ``cases``."""
    path = folder / name
    path.write_text(json.dumps({"name": "calibration", "cases": list(cases)}), encoding="utf-8")
    return path


def judged_case(name: str, criteria: str = "The answer is correct", **extra: Any) -> dict[str, Any]:
    """A case graded by one llm_judge."""
    return {"name": name, "input": f"question of {name}", "evaluators": [{"llm_judge": criteria}], **extra}


def write_labels(
    folder: Path,
    rows: Iterable[Mapping[str, Any]],
    *,
    header: Mapping[str, Any] | None = None,
    name: str = "labels.jsonl",
) -> Path:
    """A JSON Lines labels file: the header (when given), then one row per line."""
    lines = [json.dumps(header)] if header is not None else []
    lines += [json.dumps(row) for row in rows]
    path = folder / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def calibrate(folder: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    """``agent-eval calibrate ARGS`` in ``folder``; with ``--json`` in ARGS and a readable answer, its data too."""
    done = run_cli("calibrate", *args, cwd=folder, env=env)
    if "--json" in args and done.stdout.strip():
        done.data = json.loads(done.stdout)
    return done


def kappa_by_hand(tp: int, fn: int, fp: int, tn: int) -> float:
    """Cohen's kappa of a 2x2 table (rows the person's pass and fail, columns the judge's), from its definition."""
    n = tp + fn + fp + tn
    observed = (tp + tn) / n
    person_pass, judge_pass = (tp + fn) / n, (tp + fp) / n
    chance = person_pass * judge_pass + (1 - person_pass) * (1 - judge_pass)
    return (observed - chance) / (1 - chance)


def write_report(
    folder: Path,
    results: Iterable[Any],
    *,
    run_id: str | None = "20260102-030405-abcdef",
    suite_file: str | None = "suite.json",
    name: str = "run.json",
) -> Path:
    """A JSON report, as ``agent-eval run --json`` writes one, holding ``results`` (EvalResults)."""
    from agent_eval import EvalReport

    metadata = {key: value for key, value in (("run_id", run_id), ("suite_file", suite_file)) if value is not None}
    report = EvalReport(list(results), name="calibration", metadata=metadata)
    path = folder / name
    path.write_text(report.to_json(), encoding="utf-8")
    return path


def review(folder: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    """``agent-eval review ARGS`` in ``folder``."""
    return run_cli("review", *args, cwd=folder, env=env)
