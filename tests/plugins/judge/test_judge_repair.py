"""A second chance for an answer the judge's reader cannot use: asked once more, then an error, never a pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from judge_helpers import only, run_cases, stored_verdicts, verdict_reply, verdict_text

from agent_eval.testing import ChatServer
from agent_eval.testing.server import completion_reply
from agent_eval_judge import llm_judge
from agent_eval_judge.asking import REPAIR_MAX_TOKENS, larger_budget
from agent_eval_judge.prompt import VERDICT_SHAPE

pytestmark = pytest.mark.usefixtures("judge_at")

CHATTY = "Sure! Here is my verdict: " + verdict_text(True, 0.9, "polite") + " Hope that helps."


def test_a_chatty_answer_is_asked_again_with_the_problem_and_the_shape_wanted(
    judge_at: ChatServer, judge_environment: Path
) -> None:
    judge_at.queue(completion_reply(CHATTY), verdict_reply(True, 0.9, "polite"))
    result = only(run_cases([llm_judge("The answer is polite")]))
    assert (result.status, result.score, result.reason) == ("passed", 0.9, "polite")

    first, second = judge_at.chat_requests
    asked, again = first.messages, second.messages
    assert again[: len(asked)] == asked, "the follow-up continues the same conversation"
    assert [m["role"] for m in again[len(asked) :]] == ["assistant", "user"]
    assert again[-2]["content"] == CHATTY
    follow_up = again[-1]["content"]
    assert "text around its JSON object" in follow_up
    assert VERDICT_SHAPE in follow_up
    assert "no code fence" in follow_up
    # The judge's own text goes back as its turn, not quoted in ours.
    assert "Hope that helps" not in follow_up

    metadata = result.evaluations[0].metadata
    assert metadata["repaired"] is True
    assert metadata["first_error"].startswith("the judge's answer has text around its JSON object")
    assert metadata["usage"] == {"prompt_tokens": 22, "completion_tokens": 14, "total_tokens": 36, "requests": 2}
    # The verdict is stored under the question, so the next run asks nothing.
    assert len(stored_verdicts(judge_environment)) == 1
    again_result = only(run_cases([llm_judge("The answer is polite")]))
    assert again_result.status == "passed"
    assert len(judge_at.chat_requests) == 2
    assert "repaired" not in again_result.evaluations[0].metadata


def test_a_fenced_verdict_is_read_at_once_and_a_fence_around_bad_json_is_asked_again(judge_at: ChatServer) -> None:
    judge_at.queue(completion_reply("```json\n" + verdict_text(False, 0.2, "rude") + "\n```"))
    assert only(run_cases([llm_judge("polite")])).status == "failed"
    assert len(judge_at.chat_requests) == 1

    judge_at.queue(completion_reply("```json\n{'pass': True}\n```"), verdict_reply(False, 0.1, "curt"))
    result = only(run_cases([llm_judge("kind")]))
    assert (result.status, result.reason) == ("failed", "curt")
    assert len(judge_at.chat_requests) == 3
    assert "fenced block is not valid JSON" in judge_at.chat_requests[-1].messages[-1]["content"]


def test_a_second_unreadable_answer_is_an_error_naming_both_problems(judge_at: ChatServer) -> None:
    judge_at.queue(completion_reply(CHATTY), completion_reply("PASS, looks good"))
    report = run_cases([llm_judge("polite")])
    result = only(report)
    assert result.status == "error"
    assert len(judge_at.chat_requests) == 2
    error = result.error or ""
    assert "text around its JSON object" in error
    assert "asked once more, the judge's answer is not JSON: 'PASS, looks good'" in error
    evaluation = result.evaluations[0]
    assert evaluation.metadata["category"] == "judge_unreadable"
    # Both answers were paid for.
    assert report.usage == {"prompt_tokens": 22, "completion_tokens": 14, "total_tokens": 36, "requests": 2}


def test_an_empty_answer_is_asked_again_without_an_empty_turn(judge_at: ChatServer) -> None:
    judge_at.queue(completion_reply(""), verdict_reply(True))
    assert only(run_cases([llm_judge("polite")])).status == "passed"
    _, second = judge_at.chat_requests
    assert [m["role"] for m in second.messages] == ["system", "user", "user"]
    assert "empty" in second.messages[-1]["content"]


def test_a_cut_off_answer_is_asked_again_with_twice_the_budget(judge_at: ChatServer) -> None:
    judge_at.queue(completion_reply('{"reason": "The answer', finish_reason="length"), verdict_reply(True, 1.0, "ok"))
    result = only(run_cases([llm_judge("polite")]))
    assert (result.status, result.reason) == ("passed", "ok")
    first, second = (request.json for request in judge_at.chat_requests)
    assert (first["max_tokens"], second["max_tokens"]) == (1024, 2048)
    assert second["messages"] == first["messages"], "the same question, with a larger budget"
    metadata = result.evaluations[0].metadata
    assert metadata["repaired"] is True
    assert "cut off at 1024 tokens" in metadata["first_error"]


def test_an_answer_cut_off_twice_is_an_error_saying_what_to_raise(judge_at: ChatServer) -> None:
    cut = completion_reply('{"reason": "The answer', finish_reason="length")
    judge_at.queue(cut, cut)
    result = only(run_cases([llm_judge("polite")]))
    assert result.status == "error"
    assert result.evaluations[0].metadata["category"] == "judge_truncated"
    assert (
        "cut off at 1024 tokens (finish_reason 'length'); asked once more with 2048 tokens, "
        "the judge's answer was cut off at 2048 tokens (finish_reason 'length'); raise AGENT_EVAL_JUDGE_MAX_TOKENS"
    ) in (result.error or "")


@pytest.mark.parametrize(("budget", "larger"), [(16, 32), (1024, 2048), (6000, 8192), (8192, None), (20000, None)])
def test_the_larger_budget_doubles_up_to_a_cap(budget: int, larger: int | None) -> None:
    assert REPAIR_MAX_TOKENS == 8192
    assert larger_budget(budget) == larger


def test_a_budget_at_the_cap_is_not_asked_again(judge_at: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_EVAL_JUDGE_MAX_TOKENS", "8192")
    judge_at.queue(completion_reply("{", finish_reason="length"), verdict_reply(True))
    assert only(run_cases([llm_judge("polite")])).status == "error"
    assert len(judge_at.chat_requests) == 1


def test_a_refusal_is_not_asked_again(judge_at: ChatServer) -> None:
    judge_at.queue(completion_reply(None, refusal="I can't help with that"), verdict_reply(True))
    result = only(run_cases([llm_judge("polite")]))
    assert result.status == "error"
    assert result.evaluations[0].metadata["category"] == "judge_refused"
    assert len(judge_at.chat_requests) == 1


@pytest.mark.parametrize(
    "first", [completion_reply(CHATTY), completion_reply("{", finish_reason="length")], ids=["chatty", "cut off"]
)
def test_with_the_second_chance_off_an_unusable_answer_is_an_error_at_once(
    judge_at: ChatServer, monkeypatch: pytest.MonkeyPatch, first: Any
) -> None:
    monkeypatch.setenv("AGENT_EVAL_JUDGE_REPAIR", "0")
    judge_at.queue(first, verdict_reply(True))
    result = only(run_cases([llm_judge("polite")]))
    assert result.status == "error"
    assert "asked once more" not in (result.error or "")
    assert len(judge_at.chat_requests) == 1


def test_a_judge_agent_gets_the_same_second_chance() -> None:
    prompts: list[str] = []

    def judge_agent(prompt: str) -> str:
        prompts.append(prompt)
        return CHATTY if len(prompts) == 1 else verdict_text(True, 0.7, "fine")

    result = only(run_cases([llm_judge("polite", judge_agent=judge_agent)]))
    assert (result.status, result.score) == ("passed", 0.7)
    first, second = prompts
    assert second.startswith(first)
    assert "Your previous reply:\n" + CHATTY in second
    assert VERDICT_SHAPE in second
    assert result.evaluations[0].metadata["repaired"] is True


def test_each_sample_has_its_own_second_chance(judge_at: ChatServer) -> None:
    judge_at.queue(completion_reply(CHATTY), verdict_reply(True), verdict_reply(True), verdict_reply(True))
    result = only(run_cases([llm_judge("polite", samples=3)]))
    assert result.status == "passed"
    metadata = result.evaluations[0].metadata
    assert (metadata["repaired"], metadata["repaired_samples"]) == (True, 1)
    assert metadata["usage"]["requests"] == 4
