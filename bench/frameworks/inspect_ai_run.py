"""inspect-ai: a Task whose solver answers at once, the built-in includes() scorer, sample logs and display off."""

from __future__ import annotations

import asyncio
import logging
import tempfile

from _common import ANSWER, KEYWORD, inputs, keyword_work, measure, options, report
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, accuracy, includes, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver


@solver
def fixed_answer(answer: str, sleep: float = 0.0) -> Solver:
    """The agent: answer ``answer`` (after ``sleep`` seconds) without calling a model."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if sleep:
            await asyncio.sleep(sleep)
        state.output = ModelOutput.from_content(model="bench", content=answer)
        return state

    return solve


@scorer(metrics=[accuracy()])
def includes_all(keywords: list[str]) -> Scorer:
    """Every keyword occurs in the answer, ignoring case (includes() accepts one target of several)."""

    async def score(state: TaskState, target: Target) -> Score:
        folded = state.output.completion.lower()
        found = all(keyword.lower() in folded for keyword in keywords)
        return Score(value=CORRECT if found else INCORRECT)

    return score


def passes(logs: list[EvalLog]) -> int:
    """Samples scored correct, read from the run's accuracy (sample logs are off)."""
    (log,) = logs
    if log.status != "success" or log.results is None:
        raise SystemExit(f"inspect-ai run ended with status {log.status}: {log.error}")
    accuracy_ = log.results.scores[0].metrics["accuracy"].value
    return round(accuracy_ * log.results.completed_samples)


def run_task(task: Task, concurrency: int, work: str) -> int:
    """Evaluate ``task`` with logging, display and sample logs turned down as far as they go."""
    with tempfile.TemporaryDirectory(dir=work) as log_dir:
        logs = eval(
            task,
            model="mockllm/model",
            display="none",
            log_level="error",
            log_dir=log_dir,
            log_samples=False,
            log_realtime=False,
            score_display=False,
            max_samples=concurrency,
            max_tasks=1,
        )
    return passes(logs)


def main() -> None:
    """Run one scenario and print its measurements."""
    args = options(__doc__ or "")
    logging.getLogger().setLevel(logging.ERROR)
    if args.scenario == "keywords":
        keywords, text = keyword_work()

        def run_keywords() -> int:
            task = Task(
                dataset=[Sample(input="question 0", id=0)], solver=fixed_answer(text), scorer=includes_all(keywords)
            )
            return run_task(task, 1, args.work)

        report("inspect-ai", args, measure(run_keywords, 1), keywords=len(keywords), output_chars=len(text))
        return

    def run() -> int:
        samples = [
            Sample(input=question, target=KEYWORD.upper(), id=index)
            for index, question in enumerate(inputs(args.cases))
        ]
        task = Task(dataset=samples, solver=fixed_answer(ANSWER, args.sleep), scorer=includes())
        return run_task(task, args.concurrency, args.work)

    report("inspect-ai", args, measure(run, args.cases))


if __name__ == "__main__":
    main()
