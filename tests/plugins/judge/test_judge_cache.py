"""The verdict cache: an unchanged suite asks the judge nothing the second time; errors are never stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from judge_helpers import only, run_cases, verdict_reply

from agent_eval.testing import ChatServer
from agent_eval.testing.server import error_reply
from agent_eval_judge import llm_judge
from agent_eval_judge.answer import JudgeAnswer
from agent_eval_judge.cache import VerdictCache, cache_key

pytestmark = pytest.mark.usefixtures("judge_at")


def entries(cache: Path) -> list[Path]:
    return sorted(cache.rglob("*.json"))


def test_second_run_of_an_unchanged_suite_makes_no_request(judge_at: ChatServer, judge_environment: Path) -> None:
    judge_at.queue(verdict_reply(True, 0.9, "polite"), verdict_reply(False, 0.1, "rude"))
    first = run_cases([llm_judge("polite"), llm_judge("kind")])
    assert len(judge_at.requests) == 2
    second = run_cases([llm_judge("polite"), llm_judge("kind")])
    assert len(judge_at.requests) == 2
    assert [(r.status, r.score, r.reason) for r in second.cases] == [(r.status, r.score, r.reason) for r in first.cases]
    for result in second.cases:
        metadata = result.evaluations[0].metadata
        assert metadata["cached"] is True
        assert metadata["usage"] == {"requests": 0, "cache_hits": 1}
        assert metadata["output_mode"] == "json_schema"
    assert second.usage == {"requests": 0, "cache_hits": 2}
    assert len(entries(judge_environment)) == 2


def test_changed_criteria_answer_or_model_miss_the_cache(judge_at: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    judge_at.responder = lambda _: verdict_reply(True)
    run_cases([llm_judge("polite")])
    run_cases([llm_judge("polite and brief")])
    run_cases([llm_judge("polite")], answer="a different answer")
    run_cases([llm_judge("polite", model="other-model")])
    assert len(judge_at.requests) == 4
    run_cases([llm_judge("polite")])
    assert len(judge_at.requests) == 4


def test_output_mode_step_down_does_not_defeat_the_cache(judge_at: ChatServer) -> None:
    def schema_refusing(request: object) -> object:
        body = request.json or {}  # type: ignore[attr-defined]
        if (body.get("response_format") or {}).get("type") == "json_schema":
            return error_reply(400, "This model does not support response format json_schema")
        return verdict_reply(True)

    judge_at.responder = schema_refusing  # type: ignore[assignment]
    run_cases([llm_judge("polite")])
    assert len(judge_at.requests) == 2
    result = only(run_cases([llm_judge("polite")]))
    assert len(judge_at.requests) == 2
    assert result.evaluations[0].metadata["output_mode"] == "json_object"


def test_errors_are_never_cached(
    judge_at: ChatServer, monkeypatch: pytest.MonkeyPatch, judge_environment: Path
) -> None:
    monkeypatch.setenv("AGENT_EVAL_JUDGE_MAX_RETRIES", "1")
    judge_at.responder = lambda _: error_reply(500, "down")
    assert only(run_cases([llm_judge("polite")])).status == "error"
    judge_at.queue(verdict_reply(False, 0.0, "not polite"))
    assert only(run_cases([llm_judge("polite")])).status == "failed"
    assert len(judge_at.requests) == 3
    assert len(entries(judge_environment)) == 1


def test_unreadable_answers_are_never_cached(judge_at: ChatServer, judge_environment: Path) -> None:
    judge_at.queue("PASS, looks good", verdict_reply(True))
    assert only(run_cases([llm_judge("polite")])).status == "error"
    assert only(run_cases([llm_judge("polite")])).status == "passed"
    assert len(judge_at.requests) == 2


def test_corrupt_entry_is_a_miss_and_is_replaced(judge_at: ChatServer, judge_environment: Path) -> None:
    judge_at.responder = lambda _: verdict_reply(True, 0.6)
    run_cases([llm_judge("polite")])
    (entry,) = entries(judge_environment)
    entry.write_text('{"format": 1, "answer": {"pass": tr', encoding="utf-8")
    assert only(run_cases([llm_judge("polite")])).score == 0.6
    assert len(judge_at.requests) == 2
    assert json.loads(entry.read_text(encoding="utf-8"))["answer"]["pass"] is True


def test_entry_with_a_wrong_shape_is_a_miss(judge_at: ChatServer, judge_environment: Path) -> None:
    judge_at.responder = lambda _: verdict_reply(True, 0.6)
    run_cases([llm_judge("polite")])
    (entry,) = entries(judge_environment)
    data = json.loads(entry.read_text(encoding="utf-8"))
    data["answer"]["pass"] = "yes"
    entry.write_text(json.dumps(data), encoding="utf-8")
    assert only(run_cases([llm_judge("polite")])).status == "passed"
    assert len(judge_at.requests) == 2


def test_cache_can_be_turned_off_for_a_run(
    judge_at: ChatServer, monkeypatch: pytest.MonkeyPatch, judge_environment: Path
) -> None:
    judge_at.responder = lambda _: verdict_reply(True)
    monkeypatch.setenv("AGENT_EVAL_JUDGE_CACHE", "0")
    run_cases([llm_judge("polite")])
    run_cases([llm_judge("polite")])
    assert len(judge_at.requests) == 2
    assert entries(judge_environment) == []


def test_cache_can_be_turned_off_per_evaluator(judge_at: ChatServer, judge_environment: Path) -> None:
    judge_at.responder = lambda _: verdict_reply(True)
    run_cases([llm_judge("polite", cache=False)])
    run_cases([llm_judge("polite", cache=False)])
    assert len(judge_at.requests) == 2
    assert entries(judge_environment) == []


def test_unwritable_cache_folder_only_costs_the_cache(
    judge_at: ChatServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("AGENT_EVAL_CACHE_DIR", str(blocker))
    judge_at.queue(verdict_reply(True))
    assert only(run_cases([llm_judge("polite")])).status == "passed"


def test_default_location_follows_xdg_cache_home(
    judge_at: ChatServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("AGENT_EVAL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    judge_at.queue(verdict_reply(True))
    run_cases([llm_judge("polite")])
    assert len(entries(tmp_path / "xdg" / "agent-eval" / "judge")) == 1


def test_key_never_reaches_the_cache(
    judge_at: ChatServer, monkeypatch: pytest.MonkeyPatch, judge_environment: Path
) -> None:
    monkeypatch.setenv("AGENT_EVAL_JUDGE_API_KEY", "sk-test-SECRET-0123456789")
    judge_at.queue(verdict_reply(True))
    run_cases([llm_judge("polite")])
    (entry,) = entries(judge_environment)
    assert "SECRET" not in entry.read_text(encoding="utf-8")
    # The key does not change the cache key either: a new key still hits.
    monkeypatch.setenv("AGENT_EVAL_JUDGE_API_KEY", "sk-test-OTHER-9876543210")
    run_cases([llm_judge("polite")])
    assert len(judge_at.requests) == 1


def test_cache_key_is_canonical() -> None:
    assert cache_key({"a": 1, "b": [1, 2]}) == cache_key({"b": [1, 2], "a": 1})
    assert cache_key({"a": 1}) != cache_key({"a": 2})


def test_store_and_load_round_trip(tmp_path: Path) -> None:
    store = VerdictCache(tmp_path)
    key = cache_key({"x": 1})
    assert store.get(key) is None
    store.put(key, JudgeAnswer(True, 0.5, "half"), {"output_mode": "json_object"})
    assert store.get(key) == (JudgeAnswer(True, 0.5, "half"), {"output_mode": "json_object"})
    assert list(tmp_path.rglob("*.tmp")) == []
