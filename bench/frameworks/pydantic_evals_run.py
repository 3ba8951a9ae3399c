"""pydantic-evals: a Dataset of Cases, the built-in Contains evaluator, no progress bar, no logfire."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from _common import ANSWER, KEYWORD, inputs, keyword_work, measure, options, report
from pydantic_evals import Case, Dataset
from pydantic_evals.evaluators import Contains, Evaluator, EvaluatorContext
from pydantic_evals.reporting import EvaluationReport


@dataclass
class ContainsAll(Evaluator[str, str, None]):
    """Every keyword occurs in the output, ignoring case (pydantic-evals has no multi-keyword check)."""

    keywords: list[str]

    def evaluate(self, ctx: EvaluatorContext[str, str, None]) -> bool:
        folded = ctx.output.lower()
        return all(keyword.lower() in folded for keyword in self.keywords)


def passes(result: EvaluationReport[str, str, None]) -> int:
    """Cases whose every assertion held (a task that raised counts as a failure)."""
    return sum(all(assertion.value for assertion in case.assertions.values()) for case in result.cases)


def main() -> None:
    """Run one scenario and print its measurements."""
    args = options(__doc__ or "")
    if args.scenario == "keywords":
        keywords, text = keyword_work()

        async def big_agent(question: str) -> str:
            return text

        def run_keywords() -> int:
            dataset = Dataset[str, str, None](
                name="bench", cases=[Case(name="big", inputs="question 0")], evaluators=[ContainsAll(keywords)]
            )
            return passes(dataset.evaluate_sync(big_agent, progress=False))

        report("pydantic-evals", args, measure(run_keywords, 1), keywords=len(keywords), output_chars=len(text))
        return
    sleep = args.sleep

    async def agent(question: str) -> str:
        if sleep:
            await asyncio.sleep(sleep)
        return ANSWER

    def run() -> int:
        cases = [Case(name=f"case {index}", inputs=question) for index, question in enumerate(inputs(args.cases))]
        dataset = Dataset[str, str, None](
            name="bench", cases=cases, evaluators=[Contains(KEYWORD.upper(), case_sensitive=False)]
        )
        return passes(dataset.evaluate_sync(agent, max_concurrency=args.concurrency, progress=False))

    report("pydantic-evals", args, measure(run, args.cases))


if __name__ == "__main__":
    main()
