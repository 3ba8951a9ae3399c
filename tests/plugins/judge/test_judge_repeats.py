"""Repeats are independent: each attempt of a repeated case is its own question to the judge."""

from __future__ import annotations

from pathlib import Path

import pytest
from judge_helpers import answer_agent, stored_verdicts, verdict_reply

from agent_eval import EvalSuite
from agent_eval.testing import ChatServer
from agent_eval_judge import llm_judge

pytestmark = pytest.mark.usefixtures("judge_at")


def repeated(*, samples: int = 1) -> EvalSuite:
    cases = [{"name": "greets", "input": "Say hello", "evaluator": llm_judge("polite", samples=samples)}]
    return EvalSuite(answer_agent(), cases)


def test_a_case_repeated_three_times_asks_three_times_and_a_second_run_asks_nothing(
    judge_at: ChatServer, judge_environment: Path
) -> None:
    judge_at.queue(verdict_reply(True, 0.9, "one"), verdict_reply(False, 0.2, "two"), verdict_reply(True, 0.8, "three"))
    first = repeated().run(print=False, repeat=3)
    assert len(judge_at.chat_requests) == 3
    # The attempts are not copies of the first: each has the verdict the judge gave it.
    assert sorted(attempt.reason for attempt in first.cases[0].attempts) == ["one", "three", "two"]
    assert len(stored_verdicts(judge_environment)) == 3

    second = repeated().run(print=False, repeat=3)
    assert len(judge_at.chat_requests) == 3
    attempts = second.cases[0].attempts
    assert [a.reason for a in attempts] == [a.reason for a in first.cases[0].attempts]
    assert all(a.evaluations[0].metadata["cached"] for a in attempts)


def test_the_first_attempt_keeps_the_key_of_an_unrepeated_run(judge_at: ChatServer) -> None:
    judge_at.responder = lambda _: verdict_reply(True)
    repeated().run(print=False)
    assert len(judge_at.chat_requests) == 1
    # Attempt 0 of a repeated run is the unrepeated run's question: only attempts 1 and 2 are asked.
    report = repeated().run(print=False, repeat=3)
    assert len(judge_at.chat_requests) == 3
    assert [a.evaluations[0].metadata["cached"] for a in report.cases[0].attempts] == [True, False, False]


def test_samples_of_different_attempts_do_not_share_verdicts(judge_at: ChatServer, judge_environment: Path) -> None:
    judge_at.responder = lambda _: verdict_reply(True)
    repeated(samples=3).run(print=False, repeat=2)
    assert len(judge_at.chat_requests) == 6
    assert len(stored_verdicts(judge_environment)) == 6
