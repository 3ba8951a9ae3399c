"""The floor: the same work as a plain asyncio loop with a semaphore and no framework."""

from __future__ import annotations

import asyncio

from _common import ANSWER, KEYWORD, inputs, keyword_work, measure, options, report


def main() -> None:
    """Run one scenario and print its measurements."""
    args = options(__doc__ or "")
    if args.scenario == "keywords":
        keywords, text = keyword_work()

        def run() -> int:
            async def agent(question: str) -> str:
                return text

            def check(output: str) -> bool:
                folded = output.lower()
                return all(keyword.lower() in folded for keyword in keywords)

            return asyncio.run(evaluate(["question 0"], agent, check, 1))

        report("floor", args, measure(run, 1), keywords=len(keywords), output_chars=len(text))
        return
    sleep = args.sleep

    async def agent(question: str) -> str:
        if sleep:
            await asyncio.sleep(sleep)
        return ANSWER

    def check(output: str) -> bool:
        return KEYWORD in output.lower()

    figures = measure(lambda: asyncio.run(evaluate(inputs(args.cases), agent, check, args.concurrency)), args.cases)
    report("floor", args, figures)


async def evaluate(questions: list[str], agent, check, concurrency: int) -> int:  # type: ignore[no-untyped-def]
    """Run the agent on every question, at most ``concurrency`` at once; count the passes."""
    semaphore = asyncio.Semaphore(concurrency)

    async def one(question: str) -> bool:
        async with semaphore:
            return check(await agent(question))

    results = await asyncio.gather(*(one(question) for question in questions))
    return sum(results)


if __name__ == "__main__":
    main()
