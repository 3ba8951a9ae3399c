"""``agent-eval calibrate LABELS [SUITE]``: how well the suite's judges agree with a person's labels.

Only click is imported with this module (``register_commands`` imports it to list the command); the
suite machinery, the judging and the statistics load when the command runs.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from agent_eval import SuiteFile
    from agent_eval_judge.calibration import Grading, Matched
    from agent_eval_judge.labels import LabelsFile

EXIT_BELOW = 1


@click.command()
@click.argument("labels_path", metavar="LABELS", type=click.Path(dir_okay=False))
@click.argument("suite_path", metavar="[SUITE]", type=click.Path(dir_okay=False), required=False)
@click.option(
    "--model",
    "models",
    multiple=True,
    metavar="MODEL",
    help="Grade with this judge model instead of the suite's; repeat it to compare judges with each other.",
)
@click.option(
    "--min-kappa",
    type=click.FloatRange(-1, 1),
    metavar="K",
    help="Exit 1 when Cohen's kappa is below K, undefined, or some labels could not be graded.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--concurrency", type=click.IntRange(min=1), default=16, show_default=True, help="Labels graded at once.")
def calibrate(
    labels_path: str,
    suite_path: str | None,
    models: tuple[str, ...],
    min_kappa: float | None,
    as_json: bool,
    concurrency: int,
) -> None:
    """Say how well SUITE's LLM judges agree with a person's labels.

    Grades each output LABELS holds with its case's llm_judge evaluations, calling no agent, and prints
    the agreement, Cohen's kappa with its 95% interval, the confusion matrix and the false-pass and
    false-fail rates, per criterion and per judge model.

    LABELS is JSON Lines (as `agent-eval review` writes it) or CSV, with name, output and label (pass or
    fail) per line, optionally score and note. SUITE defaults to the suite file LABELS names.
    """
    sys.exit(run(labels_path, suite_path, models, min_kappa, as_json=as_json, concurrency=concurrency))


def run(
    labels_path: str,
    suite_path: str | None,
    models: tuple[str, ...],
    min_kappa: float | None,
    *,
    as_json: bool = False,
    concurrency: int = 16,
) -> int:
    """What the command does; its exit code."""
    from agent_eval_judge.calibration import grade, match
    from agent_eval_judge.usage import fail

    labels = _labels(labels_path)
    suite = _suite(labels, suite_path)
    matched, problems = match(labels, suite)
    if problems:
        fail(problems)
    if not matched.pairs:
        fail(f"no case labelled in {labels.path} has an llm_judge evaluation in {suite.path}: nothing to calibrate")
    gradings = grade(_configurations(matched, models), concurrency=concurrency)
    _unconfigured(gradings)
    result = summary(labels, suite, matched, gradings, min_kappa)
    if as_json:
        from agent_eval_judge.display import dumps

        click.echo(dumps(result, indent=2))
    else:
        from agent_eval_judge.calibration_text import print_summary

        print_summary(result)
    for figures in result["models"]:
        if not figures["n"]:
            who = "the judge" if figures["model"] is None else f"model {figures['model']!r}"
            count = result["labelled_with_judge"]
            fail(f"{who} graded none of the {count} labelled outputs (see the errors above): nothing to calibrate")
    for line in result["below_min_kappa"]:
        click.echo(f"below the bar: {line}", err=True)
    return EXIT_BELOW if result["below_min_kappa"] else 0


def _labels(path: str) -> LabelsFile:
    from agent_eval import FileReadError
    from agent_eval_judge.labels import LabelsError, read_labels
    from agent_eval_judge.usage import fail

    try:
        return read_labels(path)
    except FileReadError as error:
        fail(str(error))
    except LabelsError as error:
        fail(error.problems)


def _suite(labels: LabelsFile, given: str | None) -> SuiteFile:
    """SUITE as given, else the suite file the labels name (relative to the current folder, as runs record it)."""
    import os

    from agent_eval import AgentEvalError, SuiteError, load_suite
    from agent_eval_judge.usage import fail

    path = given or labels.suite_file
    if path is None:
        fail(f"{labels.path} does not say which suite it labels; give SUITE")
    if given is None and not os.path.exists(path):  # noqa: PTH110 - a path as the labels file wrote it
        fail(f"{labels.path} names the suite file {path!r}, which is not here; give SUITE")
    try:
        return load_suite(path)
    except SuiteError as error:
        fail(error.problems)
    except AgentEvalError as error:
        fail(str(error))


def _configurations(matched: Matched, models: tuple[str, ...]) -> list[tuple[str | None, Matched]]:
    """The suite's judges as they are, or rebuilt once per ``--model`` (a repeated model counts once)."""
    from agent_eval_judge.calibration import with_model
    from agent_eval_judge.usage import fail

    if not models:
        return [(None, matched)]
    configurations: list[tuple[str | None, Matched]] = []
    for model in dict.fromkeys(name.strip() for name in models):
        if not model:
            fail("--model '' names no model; give a model name such as 'llama3.1:8b'")
        rebuilt, problems = with_model(matched, model)
        if problems:
            fail(problems)
        configurations.append((model, rebuilt))
    return configurations


def _unconfigured(gradings: list[Grading]) -> None:
    """Exit 2 when a judge skipped every label: it is not configured, so there is nothing to calibrate."""
    from agent_eval_judge.usage import fail

    for grading in gradings:
        if all(item.status == "skipped" for item in grading.graded):
            reason = next((item.problem for item in grading.graded if item.problem), "every evaluation was skipped")
            fail(f"every judge evaluation was skipped, so nothing was graded: {reason}; nothing to calibrate")


def summary(
    labels: LabelsFile, suite: SuiteFile, matched: Matched, gradings: list[Grading], min_kappa: float | None
) -> dict[str, Any]:
    """Everything ``--json`` prints: the first judge configuration's figures at the top, then each one's."""
    from agent_eval_judge.figures import between_judges, judge_figures

    per_model = [judge_figures(grading) for grading in gradings]
    pairwise, alpha = between_judges(gradings)
    return {
        "labels": labels.path,
        "suite_file": str(suite.path),
        "run": labels.run,
        "labelled": len(labels.labels),
        "labelled_with_judge": len(matched.pairs),
        "without_judge": [label.name for label in matched.without_judge],
        **per_model[0],
        "models": per_model,
        "pairwise": pairwise,
        "alpha": alpha,
        "min_kappa": min_kappa,
        "below_min_kappa": [] if min_kappa is None else _below(per_model, min_kappa),
    }


def _below(per_model: list[dict[str, Any]], bar: float) -> list[str]:
    """Why each judge configuration misses the bar, if it does."""
    found = []
    for figures in per_model:
        who = f"model {figures['model']!r}: " if figures["model"] is not None else ""
        unjudged = len(figures["errors"]) + len(figures["skipped"])
        if figures["kappa"] is None:
            found.append(f"{who}Cohen's kappa is undefined, so it cannot be shown to reach --min-kappa {bar:g}")
        elif figures["kappa"] < bar:
            found.append(f"{who}Cohen's kappa {figures['kappa']:.3f} is below --min-kappa {bar:g}")
        if unjudged:
            found.append(f"{who}{unjudged} of the labels could not be graded, so kappa does not cover them all")
    return found
