"""The verdict cache: an unchanged suite asks the judge nothing the second time; errors are never stored;
torn or corrupt entries are misses, and concurrent writers lose nothing."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from judge_helpers import answer_agent, only, run_cases, stored_verdicts, verdict_reply

from agent_eval import EvalSuite
from agent_eval.testing import ChatServer
from agent_eval.testing.server import error_reply
from agent_eval_judge import cache as judge_cache
from agent_eval_judge import llm_judge
from agent_eval_judge.answer import JudgeAnswer
from agent_eval_judge.cache import MAX_SEGMENTS, KeyMaker, VerdictCache, compact

pytestmark = pytest.mark.usefixtures("judge_at")


def segments(cache: Path) -> list[Path]:
    return sorted((cache / "judge").glob("*.jsonl"))


def key(n: int) -> str:
    return KeyMaker({"test": True}).key(str(n))


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
    assert len(stored_verdicts(judge_environment)) == 2
    # One run, one segment: the second run stored nothing and so created no file.
    assert len(segments(judge_environment)) == 1


def test_a_verdict_stored_during_a_run_serves_the_same_question_later_in_that_run(judge_at: ChatServer) -> None:
    judge_at.responder = lambda _: verdict_reply(True)
    judge = llm_judge("polite")
    cases = [{"name": f"c{i}", "input": "same question", "evaluator": judge} for i in range(3)]
    report = EvalSuite(answer_agent(), cases).run(print=False, concurrency=1)
    assert report.passed == 3
    assert len(judge_at.requests) == 1
    assert [case.evaluations[0].metadata["cached"] for case in report.cases] == [False, True, True]


def test_changed_criteria_answer_or_model_miss_the_cache(judge_at: ChatServer) -> None:
    judge_at.responder = lambda _: verdict_reply(True)
    run_cases([llm_judge("polite")])
    run_cases([llm_judge("polite and brief")])
    run_cases([llm_judge("polite")], answer="a different answer")
    run_cases([llm_judge("polite", model="other-model")])
    assert len(judge_at.requests) == 4
    run_cases([llm_judge("polite")])
    assert len(judge_at.requests) == 4


def test_a_different_answer_budget_misses_the_cache(judge_at: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    judge_at.responder = lambda _: verdict_reply(True)
    run_cases([llm_judge("polite")])
    monkeypatch.setenv("AGENT_EVAL_JUDGE_MAX_TOKENS", "512")
    run_cases([llm_judge("polite")])
    assert len(judge_at.requests) == 2


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
    assert stored_verdicts(judge_environment) == {}
    judge_at.queue(verdict_reply(False, 0.0, "not polite"))
    assert only(run_cases([llm_judge("polite")])).status == "failed"
    assert len(judge_at.requests) == 3
    assert len(stored_verdicts(judge_environment)) == 1


def test_unreadable_answers_are_never_cached(judge_at: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_EVAL_JUDGE_REPAIR", "0")
    judge_at.queue("PASS, looks good", verdict_reply(True))
    assert only(run_cases([llm_judge("polite")])).status == "error"
    assert only(run_cases([llm_judge("polite")])).status == "passed"
    assert len(judge_at.requests) == 2


def test_corrupt_entry_is_a_miss_and_is_replaced(judge_at: ChatServer, judge_environment: Path) -> None:
    judge_at.responder = lambda _: verdict_reply(True, 0.6)
    run_cases([llm_judge("polite")])
    (segment,) = segments(judge_environment)
    stored_key = segment.read_bytes()[:64]
    segment.write_bytes(stored_key + b' {"answer": {"pass": tr\n')
    assert only(run_cases([llm_judge("polite")])).score == 0.6
    assert len(judge_at.requests) == 2
    # The new verdict went to a segment of its own, read after the corrupt one: the next run hits.
    assert only(run_cases([llm_judge("polite")])).score == 0.6
    assert len(judge_at.requests) == 2
    assert list(stored_verdicts(judge_environment)) == [stored_key.decode()]


def test_entry_with_a_wrong_shape_is_a_miss(judge_at: ChatServer, judge_environment: Path) -> None:
    judge_at.responder = lambda _: verdict_reply(True, 0.6)
    run_cases([llm_judge("polite")])
    (segment,) = segments(judge_environment)
    segment.write_bytes(segment.read_bytes().replace(b'"pass":true', b'"pass":"yes"'))
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
    assert not (judge_environment / "judge").exists()


def test_cache_can_be_turned_off_per_evaluator(judge_at: ChatServer, judge_environment: Path) -> None:
    judge_at.responder = lambda _: verdict_reply(True)
    run_cases([llm_judge("polite", cache=False)])
    run_cases([llm_judge("polite", cache=False)])
    assert len(judge_at.requests) == 2
    assert not (judge_environment / "judge").exists()


def test_unwritable_cache_folder_only_costs_the_cache(
    judge_at: ChatServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("AGENT_EVAL_CACHE_DIR", str(blocker))
    judge_at.responder = lambda _: verdict_reply(True)
    assert run_cases([llm_judge("polite"), llm_judge("kind")]).passed == 2


def test_default_location_follows_xdg_cache_home(
    judge_at: ChatServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("AGENT_EVAL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    judge_at.queue(verdict_reply(True))
    run_cases([llm_judge("polite")])
    assert len(stored_verdicts(tmp_path / "xdg" / "agent-eval")) == 1


def test_key_never_reaches_the_cache(
    judge_at: ChatServer, monkeypatch: pytest.MonkeyPatch, judge_environment: Path
) -> None:
    monkeypatch.setenv("AGENT_EVAL_JUDGE_API_KEY", "sk-test-SECRET-0123456789")
    judge_at.queue(verdict_reply(True))
    run_cases([llm_judge("polite")])
    (segment,) = segments(judge_environment)
    assert b"SECRET" not in segment.read_bytes()
    # The key does not change the cache key either: a new key still hits.
    monkeypatch.setenv("AGENT_EVAL_JUDGE_API_KEY", "sk-test-OTHER-9876543210")
    run_cases([llm_judge("polite")])
    assert len(judge_at.requests) == 1


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_segments_are_private_to_their_owner(judge_at: ChatServer, judge_environment: Path) -> None:
    judge_at.queue(verdict_reply(True))
    run_cases([llm_judge("polite")])
    (segment,) = segments(judge_environment)
    assert stat.S_IMODE(segment.stat().st_mode) == 0o600


def test_cache_key_is_canonical_and_its_parts_cannot_run_into_each_other() -> None:
    maker = KeyMaker({"a": 1, "b": [1, 2]})
    assert maker.key("x", "0") == KeyMaker({"b": [1, 2], "a": 1}).key("x", "0")
    assert maker.key("x", "0") != maker.key("x", "1")
    assert KeyMaker({"a": 1}).key("x") != KeyMaker({"a": 2}).key("x")
    # Where one part ends and the next begins is part of the key.
    assert maker.key("ab", "c") != maker.key("a", "bc")
    assert maker.key("a1:", "b") != maker.key("a", "1:b")
    assert len(maker.key("x")) == 64


def test_store_and_load_round_trip(tmp_path: Path) -> None:
    store = VerdictCache(str(tmp_path))
    assert store.get(key(1)) is None
    store.put(key(1), JudgeAnswer(True, 0.5, "half ✓"), {"output_mode": "json_object"})
    assert store.get(key(1)) == (JudgeAnswer(True, 0.5, "half ✓"), {"output_mode": "json_object"})
    store.close()
    assert VerdictCache(str(tmp_path)).get(key(1)) == (JudgeAnswer(True, 0.5, "half ✓"), {"output_mode": "json_object"})


def test_torn_and_garbled_lines_are_misses_and_the_rest_still_hits(tmp_path: Path) -> None:
    store = VerdictCache(str(tmp_path))
    store.get(key(0))
    for n in range(3):
        store.put(key(n), JudgeAnswer(True, 1.0, f"r{n}"), {})
    store.close()
    (segment,) = tmp_path.glob("*.jsonl")
    lines = segment.read_bytes().split(b"\n")
    # A line of garbage (invalid UTF-8, a NUL run as a crash can leave), then the last line cut off mid-write.
    garbled = b"\n".join([lines[0], b"\xff\xfe\x00\x00 not json", b"\x00" * 80, lines[1], lines[2][:90]])
    segment.write_bytes(garbled)
    fresh = VerdictCache(str(tmp_path))
    assert fresh.get(key(0)) == (JudgeAnswer(True, 1.0, "r0"), {})
    assert fresh.get(key(1)) == (JudgeAnswer(True, 1.0, "r1"), {})
    assert fresh.get(key(2)) is None
    # The next writer gets a file of its own: the torn line cannot swallow its first entry.
    fresh.put(key(2), JudgeAnswer(False, 0.0, "r2"), {})
    fresh.close()
    assert VerdictCache(str(tmp_path)).get(key(2)) == (JudgeAnswer(False, 0.0, "r2"), {})


WRITER = textwrap.dedent(
    """\
    import sys, time
    from agent_eval_judge.answer import JudgeAnswer
    from agent_eval_judge.cache import KeyMaker, VerdictCache

    folder, name, start, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    store = VerdictCache(folder)
    store.get("0" * 64)
    maker = KeyMaker({"test": True})
    print("ready", flush=True)
    sys.stdin.readline()
    for n in range(start, start + count if count else 10**9):
        store.put(maker.key(str(n)), JudgeAnswer(n % 2 == 0, 1.0 if n % 2 == 0 else 0.0, f"{name} {n}"), {})
    store.close()
    """
)


def writer(folder: Path, name: str, start: int, count: int) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(folder), name, str(start), str(count)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline() == "ready\n"
    return process


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    # Overlapping ranges: both store keys 500..999, each with its own reason.
    first, second = writer(tmp_path, "first", 0, 1000), writer(tmp_path, "second", 500, 1000)
    for process in (first, second):
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()
    for process in (first, second):
        assert process.wait(timeout=60) == 0
    stored = VerdictCache(str(tmp_path)).stored()
    assert set(stored) == {key(n) for n in range(1500)}
    for n in range(1500):
        answer, _ = stored[key(n)]
        assert answer.passed == (n % 2 == 0)
        assert answer.reason in (f"first {n}", f"second {n}")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_a_writer_killed_mid_run_leaves_a_readable_cache(tmp_path: Path) -> None:
    process = writer(tmp_path, "killed", 0, 0)
    assert process.stdin is not None
    process.stdin.write("go\n")
    process.stdin.flush()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and sum(p.stat().st_size for p in tmp_path.glob("*.jsonl")) < 200_000:
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    fresh = VerdictCache(str(tmp_path))
    stored = fresh.stored()
    assert len(stored) > 500
    # Every entry that made it is whole: the writer stored keys in order, so they are a prefix of 0, 1, 2...
    assert set(stored) == {key(n) for n in range(len(stored))}
    assert fresh.get(key(len(stored))) is None


def write_segment(folder: Path, name: str, entries: dict[str, str], age: float) -> None:
    store = VerdictCache(str(folder))
    for stored_key, reason in entries.items():
        store.put(stored_key, JudgeAnswer(True, 1.0, reason), {})
    store.close()
    (newest,) = [p for p in folder.glob("*.jsonl") if "-old-" not in p.name and "-new-" not in p.name]
    path = newest.rename(folder / (newest.name.split("-", 1)[0] + f"-{name}.jsonl"))
    moment = time.time() - age
    os.utime(path, (moment, moment))


def test_settled_segments_are_merged_keeping_every_entry_and_the_latest_of_each(tmp_path: Path) -> None:
    for n in range(MAX_SEGMENTS + 3):
        write_segment(tmp_path, f"old-{n:02d}", {key(n): f"only {n}", key(1000): f"shared {n}"}, age=7200)
    write_segment(tmp_path, "new-0", {key(2000): "recent"}, age=0)
    store = VerdictCache(str(tmp_path))
    assert store.get(key(2000)) is not None
    names = sorted(p.name for p in tmp_path.glob("*.jsonl"))
    assert len(names) == 2
    assert any(name.endswith("-new-0.jsonl") for name in names)
    stored = VerdictCache(str(tmp_path)).stored()
    assert set(stored) == {key(n) for n in range(MAX_SEGMENTS + 3)} | {key(1000), key(2000)}
    assert stored[key(1000)][0].reason == f"shared {MAX_SEGMENTS + 2}"
    assert list(tmp_path.glob(".*.tmp")) == []


def test_a_merge_by_another_process_while_a_run_loads_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(MAX_SEGMENTS + 1):
        write_segment(tmp_path, f"old-{n:02d}", {key(n): f"only {n}"}, age=7200)
    real_read = judge_cache._read_segment
    raced: list[list[str]] = []

    def racing_read(path: str, index: dict[str, bytes]) -> bool:
        if not raced:
            # Another process merges everything between this loader's listing and its reading.
            raced.append([])
            raced[0] = compact(str(tmp_path), sorted(p.name for p in tmp_path.glob("*.jsonl")))
        return real_read(path, index)

    monkeypatch.setattr(judge_cache, "_read_segment", racing_read)
    monkeypatch.setattr(judge_cache, "MAX_SEGMENTS", 10_000)
    store = VerdictCache(str(tmp_path))
    assert all(store.get(key(n)) is not None for n in range(MAX_SEGMENTS + 1))
    assert len(raced[0]) == 1
    assert len(list(tmp_path.glob("*.jsonl"))) == 1


def test_two_merges_of_the_same_segments_leave_duplicates_not_gaps(tmp_path: Path) -> None:
    for n in range(4):
        write_segment(tmp_path, f"old-{n:02d}", {key(n): f"only {n}"}, age=7200)
    names = sorted(p.name for p in tmp_path.glob("*.jsonl"))
    compact(str(tmp_path), names)
    compact(str(tmp_path), names)
    assert len(VerdictCache(str(tmp_path)).stored()) == 4
