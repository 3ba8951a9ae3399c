"""Tool calls recorded without a framework: record_tool_call and @tool fill the running case's trajectory."""

from __future__ import annotations

import asyncio
import random
import threading
import time

import pytest

import agent_eval
from agent_eval import AgentRun, Case, EvalSuite, ToolCall, Usage, record_tool_call, tool


def calls_of(report: agent_eval.EvalReport) -> dict[str, list[tuple[str, object]]]:
    return {
        r.name: [(c.name, dict(c.arguments) if not isinstance(c.arguments, str) else c.arguments) for c in r.tool_calls]
        for r in report.cases
    }


@tool
def lookup(product: str, *, region: str = "eu") -> str:
    time.sleep(random.random() / 1000)  # let threads interleave
    return f"{product}: 2 years"


@tool
async def search(q: str, limit: int = 3) -> list[str]:
    await asyncio.sleep(random.random() / 1000)
    return [q] * limit


@tool(name="fail_hard")
def explode(reason: str) -> None:
    raise RuntimeError(reason)


def sync_agent(question: str) -> str:
    lookup(question)
    record_tool_call("note", {"q": question}, result="ok")
    lookup(question, region="us")
    return f"answer {question}"


async def async_agent(question: str) -> str:
    await search(question)
    await asyncio.gather(search(question + "-a", limit=1), search(question + "-b", limit=2))
    return f"answer {question}"


@pytest.mark.parametrize("agent", [sync_agent, async_agent], ids=["sync", "async"])
def test_fifty_concurrent_cases_each_get_only_their_own_calls(agent: object) -> None:
    questions = [f"q{index}" for index in range(200)]
    report = EvalSuite(agent, [Case(q, q, evaluators=[lambda output: True]) for q in questions]).run(  # type: ignore[arg-type]
        print=False, concurrency=50
    )
    recorded = calls_of(report)
    for q in questions:
        if agent is sync_agent:
            assert recorded[q] == [
                ("lookup", {"product": q}),
                ("note", {"q": q}),
                ("lookup", {"product": q, "region": "us"}),
            ]
        else:
            assert recorded[q] == [
                ("search", {"q": q}),
                ("search", {"q": q + "-a", "limit": 1}),
                ("search", {"q": q + "-b", "limit": 2}),
            ]
    assert all(result.status == "passed" for result in report.cases)


def test_results_of_recorded_calls_are_kept_and_an_exception_is_recorded_and_raised_again() -> None:
    def agent(question: str) -> str:
        lookup("kettle")
        try:
            explode("no such tool")
        except RuntimeError:
            pass
        return "done"

    (result,) = EvalSuite(agent, [Case("a", "x", evaluators=[lambda output: True])]).run(print=False).cases
    first, second = result.tool_calls
    assert (first.name, first.result, first.error) == ("lookup", "kettle: 2 years", None)
    assert (second.name, second.arguments, second.error) == (
        "fail_hard",
        {"reason": "no such tool"},
        "RuntimeError: no such tool",
    )


def test_an_agent_that_raises_keeps_the_calls_it_made_before() -> None:
    def agent(question: str) -> str:
        lookup("kettle")
        raise ValueError("gave up")

    (result,) = EvalSuite(agent, [Case("a", "x", evaluators=[lambda output: True])]).run(print=False).cases
    assert result.status == "error" and result.error == "ValueError: gave up"
    assert [call.name for call in result.tool_calls] == ["lookup"]


def test_recording_outside_a_run_does_nothing_and_tools_still_work() -> None:
    record_tool_call("orphan", {"a": 1})
    assert lookup("kettle") == "kettle: 2 years"
    assert asyncio.run(search("x", limit=2)) == ["x", "x"]


def test_an_agent_run_reaches_the_evaluators_and_the_result() -> None:
    seen = []

    def grade(output: object, ctx: agent_eval.EvaluatorContext) -> bool:
        seen.append((output, ctx.run.output, [c.name for c in ctx.tool_calls], ctx.usage, ctx.cost_usd))
        return True

    def agent(question: str) -> AgentRun:
        return AgentRun("final", tool_calls=[ToolCall("search", {"q": question})], usage=Usage(10, 5), cost_usd=0.25)

    (result,) = EvalSuite(agent, [Case("a", "kettle", evaluators=[grade])]).run(print=False).cases
    assert seen == [("final", "final", ["search"], Usage(10, 5), 0.25)]
    assert (result.output, result.usage, result.cost_usd) == ("final", Usage(10, 5), 0.25)
    loaded = agent_eval.EvalReport.from_json(agent_eval.EvalReport([result]).to_json())
    assert loaded.cases[0] == result


def test_a_bare_answer_has_a_run_with_no_tool_calls() -> None:
    seen = []

    def grade(output: object, ctx: agent_eval.EvaluatorContext) -> bool:
        seen.append((ctx.run, ctx.tool_calls, ctx.usage, ctx.cost_usd))
        return True

    EvalSuite(lambda q: "plain", [Case("a", "x", evaluators=[grade])]).run(print=False)
    assert seen == [(AgentRun("plain"), (), None, None)]


def test_a_thread_started_with_the_context_records_into_the_case() -> None:
    import contextvars

    def agent(question: str) -> str:
        worker = threading.Thread(target=contextvars.copy_context().run, args=(lookup, "from a thread"))
        worker.start()
        worker.join()
        return "done"

    (result,) = EvalSuite(agent, [Case("a", "x", evaluators=[lambda output: True])]).run(print=False).cases
    assert [call.arguments for call in result.tool_calls] == [{"product": "from a thread"}]


def test_a_method_is_recorded_without_self_and_args_past_the_named_ones_by_position() -> None:
    class Shop:
        @tool
        def price(self, product: str, currency: str = "EUR") -> int:
            return 3

    @tool
    def total(*items: int, tax: float = 0.0) -> float:
        return sum(items) * (1 + tax)

    def agent(question: str) -> str:
        Shop().price("kettle")
        Shop().price(product="toaster", currency="USD")
        total(1, 2, tax=0.5)
        return "ok"

    (result,) = EvalSuite(agent, [Case("a", "x", evaluators=[lambda output: True])]).run(print=False).cases
    assert [(c.name, c.arguments, c.result) for c in result.tool_calls] == [
        ("price", {"product": "kettle"}, 3),
        ("price", {"product": "toaster", "currency": "USD"}, 3),
        ("total", {"items": (1, 2), "tax": 0.5}, 4.5),
    ]
