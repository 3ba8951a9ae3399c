"""agent-eval: EvalSuite with the ``contains`` evaluator, no console output."""

from __future__ import annotations

import asyncio

from _common import ANSWER, KEYWORD, inputs, keyword_work, measure, options, report

from agent_eval import Case, EvalSuite
from agent_eval.evaluators import contains


def main() -> None:
    """Run one scenario and print its measurements."""
    args = options(__doc__ or "")
    if args.scenario == "keywords":
        keywords, text = keyword_work()

        async def big_agent(question: str) -> str:
            return text

        def run_keywords() -> int:
            # Building the evaluator (once per suite) is part of the cost.
            check = contains(keywords)
            report_ = EvalSuite(big_agent, [Case("big", "question 0", evaluators=[check])]).run(print=False)
            return report_.passed

        report("agent-eval", args, measure(run_keywords, 1), keywords=len(keywords), output_chars=len(text))
        return
    sleep = args.sleep

    async def agent(question: str) -> str:
        if sleep:
            await asyncio.sleep(sleep)
        return ANSWER

    def run() -> int:
        check = contains([KEYWORD.upper()])
        cases = [
            Case(f"case {index}", question, evaluators=[check]) for index, question in enumerate(inputs(args.cases))
        ]
        return EvalSuite(agent, cases).run(print=False, concurrency=args.concurrency).passed

    report("agent-eval", args, measure(run, args.cases))


if __name__ == "__main__":
    main()
