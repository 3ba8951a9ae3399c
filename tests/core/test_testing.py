"""The testing helpers: a scripted agent and a scripted model driving an agent loop with no network."""

from __future__ import annotations

from typing import Any

import pytest

from agent_eval import EvalSuite
from agent_eval.testing import ModelTurn, ScriptedAgent, ScriptedModel, ToolCall
from examples.agent_loop import get_warranty, run_agent_loop


def has_two_years(output: str) -> bool:
    return "2 years" in output


def test_scripted_agent_answers_from_a_table_and_records_calls() -> None:
    agent = ScriptedAgent({"warranty?": "2 years", "refund?": "30 days"})
    report = EvalSuite(agent, [{"name": "w", "input": "warranty?", "evaluator": has_two_years}]).run(print=False)
    assert report.passed == 1
    assert [call.input for call in agent.calls] == ["warranty?"]


def test_scripted_agent_answers_a_sequence_and_can_raise() -> None:
    agent = ScriptedAgent(["2 years", ValueError("model overloaded")])
    report = EvalSuite(agent, [{"name": f"c{i}", "input": i, "evaluator": has_two_years} for i in range(2)]).run(
        print=False
    )
    assert [r.status for r in report.cases] == ["passed", "error"]
    assert report.cases[1].error == "ValueError: model overloaded"


def test_scripted_agent_without_an_answer_says_which_input() -> None:
    agent = ScriptedAgent({"a": "x"})
    report = EvalSuite(agent, [{"name": "b", "input": "b", "evaluator": has_two_years}]).run(print=False)
    assert report.cases[0].error == "LookupError: ScriptedAgent has no answer for input 'b'"


def test_agent_loop_runs_the_tool_once_then_stops_on_text() -> None:
    runs: list[dict[str, Any]] = []

    def warranty_tool(**arguments: Any) -> str:
        runs.append(arguments)
        return get_warranty(**arguments)

    model = ScriptedModel.tool_then_text(
        "get_warranty", {"product": "kettle"}, "The kettle has 2 years, extendable to 4."
    )
    run = run_agent_loop("How long is the kettle's warranty?", model, {"get_warranty": warranty_tool})

    assert runs == [{"product": "kettle"}]  # the tool ran exactly once, with the model's arguments
    assert run.output == "The kettle has 2 years, extendable to 4."
    assert len(model.requests) == 2  # the loop ended on the text step
    tool_message = model.requests[1][-1]
    assert (tool_message["role"], tool_message["content"]) == ("tool", '"2 years, extendable to 4"')
    (call,) = run.tool_calls  # read back from the conversation by the OpenAI adapter
    assert (call.name, call.arguments, call.result) == (
        "get_warranty",
        {"product": "kettle"},
        '"2 years, extendable to 4"',
    )
    assert call.id == model.requests[1][1]["tool_calls"][0]["id"] == tool_message["tool_call_id"]


def test_agent_loop_tells_the_model_a_tool_failed_and_the_run_records_the_error() -> None:
    model = ScriptedModel(
        [ModelTurn(tool_calls=[ToolCall("get_warranty", {"sku": "k-1"})]), "Sorry, I could not look it up."]
    )
    run = run_agent_loop("Kettle?", model, {"get_warranty": get_warranty})
    (call,) = run.tool_calls
    assert call.error is not None and call.error.startswith("Error: TypeError: ")
    assert call.result is None
    assert run.output == "Sorry, I could not look it up."


def test_agent_loop_is_graded_on_its_tool_calls() -> None:
    from agent_eval_trajectory import tool_called, trajectory_match

    def agent(question: str) -> Any:
        model = ScriptedModel.tool_then_text("get_warranty", {"product": "kettle"}, "2 years, extendable to 4.")
        return run_agent_loop(question, model, {"get_warranty": get_warranty})

    evaluators = [tool_called("get_warranty", args={"product": "kettle"}), trajectory_match(["search", "get_warranty"])]
    report = EvalSuite(agent, [{"name": "kettle", "input": "Kettle?", "evaluators": evaluators}]).run(print=False)
    (result,) = report.cases
    assert [e.passed for e in result.evaluations] == [True, False]
    assert result.reason.startswith("trajectory_match: missing call 1 of 2: search")
    assert [c.name for c in result.tool_calls] == ["get_warranty"]


def test_agent_loop_that_never_finishes_is_caught() -> None:
    looping = ScriptedModel([ModelTurn(tool_calls=(ToolCall("get_warranty", {"product": "x"}),))] * 3)
    with pytest.raises(RuntimeError, match="did not answer within 3 steps"):
        run_agent_loop("?", looping, {"get_warranty": get_warranty}, max_steps=3)


def test_scripted_model_called_too_often_says_so() -> None:
    model = ScriptedModel(["only once"])
    model([{"role": "user", "content": "hi"}])
    with pytest.raises(LookupError, match="has 1 turns but was called 2 times"):
        model([])


def test_the_testing_tool_call_is_the_one_record_of_a_call() -> None:
    import agent_eval

    assert ToolCall is agent_eval.ToolCall


def test_a_model_turn_gives_calls_without_an_id_the_next_call_id() -> None:
    turn = ModelTurn(tool_calls=[ToolCall("a"), ToolCall("b", {"x": 1}, id="mine"), ToolCall("c")])
    first, given, third = turn.tool_calls
    assert given.id == "mine"
    assert first.id is not None and third.id is not None
    assert first.id.startswith("call_") and third.id.startswith("call_") and first.id != third.id
    assert (first.name, first.arguments) == ("a", {})
    again = ScriptedModel.tool_then_text("a", {}, "done")([])
    assert again.tool_calls[0].id not in (first.id, third.id)
