"""``similar``: cosine similarity of embeddings from an OpenAI-compatible ``/embeddings`` endpoint on 127.0.0.1."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import math
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import run_cli
from judge_helpers import only

from agent_eval import EvalReport, EvalSuite, SuiteError, load_suite, registry_of
from agent_eval.testing import ChatServer
from agent_eval.testing.server import Reply, embeddings_reply, error_reply
from agent_eval_judge import plugin
from agent_eval_judge.options import SimilarOptions
from agent_eval_judge.similar import Similar, similar
from agent_eval_judge.similarity import cosine_similarity, shown_cosine

KEY = "sk-test-SECRET-0123456789"
REFERENCE = "The warranty lasts two years."
PARAPHRASE = "You are covered for 24 months."
UNRELATED = "Paris is the capital of France."
OPPOSITE = "Warranty? There is none."

VECTORS = {
    REFERENCE: [1.0, 0.0, 0.0, 0.0],
    PARAPHRASE: [0.9, 0.3, 0.1, 0.0],  # cosine 0.9 / sqrt(0.91) = 0.94346
    UNRELATED: [0.1, 0.0, 0.2, 0.97],  # cosine 0.1 / sqrt(0.9909) = 0.10046
    OPPOSITE: [-1.0, 0.2, 0.0, 0.0],  # cosine -1 / sqrt(1.04) = -0.98058
}


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


@pytest.fixture
def embedder(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    """An embeddings endpoint with scripted vectors, configured as the embeddings endpoint."""
    with ChatServer(embedder=VECTORS) as server:
        monkeypatch.setenv("AGENT_EVAL_EMBEDDINGS_BASE_URL", server.url)
        yield server


def run(
    answers: Sequence[str], evaluator: Any = None, *, concurrency: int = 1, expected: Any = REFERENCE
) -> EvalReport:
    """One case per answer (named a0, a1, ...), whose agent gives that answer, graded by ``evaluator``."""
    by_input = {f"question {i}": answer for i, answer in enumerate(answers)}
    cases = [
        {"name": f"a{i}", "input": question, "expected": expected, "evaluator": evaluator or similar()}
        for i, question in enumerate(by_input)
    ]
    return EvalSuite(lambda question: by_input[question], cases).run(print=False, concurrency=concurrency)


def texts_sent(server: ChatServer) -> list[list[str]]:
    return [request.json["input"] for request in server.embedding_requests]


# -- grading ----------------------------------------------------------------------------------------


def test_a_paraphrase_passes_and_an_unrelated_answer_fails(embedder: ChatServer) -> None:
    report = run([PARAPHRASE, UNRELATED])
    paraphrase, unrelated = report.cases
    assert paraphrase.status == "passed"
    assert paraphrase.score == pytest.approx(cosine(VECTORS[REFERENCE], VECTORS[PARAPHRASE]), abs=1e-6)
    assert paraphrase.reason == "cosine similarity 0.943 to the reference, at or above the threshold 0.8"
    assert unrelated.status == "failed"
    assert unrelated.score == pytest.approx(cosine(VECTORS[REFERENCE], VECTORS[UNRELATED]), abs=1e-6)
    assert unrelated.score == pytest.approx(0.10046, abs=1e-5)
    assert unrelated.reason == "cosine similarity 0.100 to the reference, below the threshold 0.8"
    metadata = paraphrase.evaluations[0].metadata
    assert (metadata["model"], metadata["threshold"], metadata["cached"]) == ("text-embedding-3-small", 0.8, False)
    assert metadata["cosine"] == pytest.approx(0.943, abs=1e-3)
    assert embedder.embedding_requests[0].json["model"] == "text-embedding-3-small"
    assert not embedder.chat_requests


def test_the_score_is_the_cosine_clamped_at_zero(embedder: ChatServer) -> None:
    result = only(run([OPPOSITE], similar(threshold=0)))
    assert result.score == 0.0
    assert result.status == "passed", "a threshold of 0 passes anything"
    assert result.evaluations[0].metadata["cosine"] == pytest.approx(-0.98058, abs=1e-5)
    assert result.reason == "cosine similarity -0.981 to the reference (score 0), at or above the threshold 0"


@pytest.mark.parametrize(
    ("cosine_value", "threshold", "passed", "shown"),
    [
        (0.94346, 0.8, True, "0.943"),
        (0.79996, 0.8, False, "0.79996"),  # 0.800 (or 0.8000) would read as a pass
        (0.8, 0.8, True, "0.800"),
        (0.80004, 0.8, True, "0.800"),
        (0.7999999996, 0.8, False, "0.7999999996"),
        (-0.5, 0.0, True, "-0.500"),  # the score is 0, which a threshold of 0 passes
    ],
)
def test_the_reason_shows_the_cosine_to_three_places_unless_that_would_contradict_the_verdict(
    cosine_value: float, threshold: float, passed: bool, shown: str
) -> None:
    assert shown_cosine(cosine_value, threshold, passed=passed) == shown


def test_the_cosine_agrees_with_numpy_on_random_vectors() -> None:
    generator = np.random.default_rng(15)
    for dimensions in (1, 2, 3, 16, 384, 1536, 3072):
        for _ in range(20):
            first, second = generator.normal(size=dimensions), generator.normal(size=dimensions)
            expected = float(first @ second / (np.linalg.norm(first) * np.linalg.norm(second)))
            got = cosine_similarity(first.tolist(), second.tolist(), where="test")
            assert got == pytest.approx(expected, abs=1e-12)
    same = generator.normal(size=64).tolist()
    assert cosine_similarity(same, same, where="test") == pytest.approx(1.0, abs=1e-15)
    assert cosine_similarity(same, [-x for x in same], where="test") == pytest.approx(-1.0, abs=1e-15)
    assert cosine_similarity([1.0, 0.0], [0.0, 3.0], where="test") == 0.0


def test_scores_from_the_endpoint_agree_with_numpy_on_its_vectors_as_32_bit_floats(embedder: ChatServer) -> None:
    generator = np.random.default_rng(2024)
    answers = [f"answer {i}" for i in range(12)]
    table = {text: generator.normal(size=256).tolist() for text in [REFERENCE, *answers]}
    embedder.embedder = table.__getitem__
    report = run(answers, similar(threshold=0), concurrency=4)
    reference = np.asarray(table[REFERENCE], dtype=np.float32).astype(np.float64)
    for answer, case in zip(answers, report.cases, strict=True):
        vector = np.asarray(table[answer], dtype=np.float32).astype(np.float64)
        expected = float(reference @ vector / (np.linalg.norm(reference) * np.linalg.norm(vector)))
        assert case.evaluations[0].metadata["cosine"] == pytest.approx(expected, abs=1e-6)
        assert case.score == pytest.approx(max(0.0, expected), abs=1e-12)


def test_the_threshold_decides(embedder: ChatServer) -> None:
    assert only(run([PARAPHRASE], similar(threshold=0.95))).status == "failed"
    assert only(run([PARAPHRASE], similar(threshold=0.9))).status == "passed"


def test_a_given_reference_wins_over_the_cases_expected(embedder: ChatServer) -> None:
    result = only(run([PARAPHRASE], similar(UNRELATED), expected=REFERENCE))
    assert result.status == "failed"
    assert [REFERENCE] not in texts_sent(embedder) and UNRELATED in texts_sent(embedder)[0]


def test_an_empty_answer_fails_without_a_request(embedder: ChatServer) -> None:
    result = only(run(["  "]))
    assert (result.status, result.score) == ("failed", 0.0)
    assert "empty answer" in (result.reason or "")
    assert embedder.requests == []


def test_a_case_with_nothing_to_compare_with_is_a_suite_error_naming_what_to_give() -> None:
    with pytest.raises(SuiteError) as raised:
        EvalSuite(lambda q: "x", [{"name": "lonely", "input": "q", "evaluator": similar()}])
    message = str(raised.value)
    assert "case 'lonely'" in message
    assert "similar: needs a reference to compare with" in message
    assert "give the case an 'expected'" in message


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"threshold": 1.5}, "threshold must be a number from 0 to 1"),
        ({"threshold": True}, "threshold must be a number from 0 to 1"),
        ({"threshold": "high"}, "threshold must be a number from 0 to 1"),
        ({"reference": "  "}, "reference must be the text to compare with"),
        ({"reference": 3}, "reference must be the text to compare with"),
    ],
)
def test_bad_options_are_refused_when_the_evaluator_is_made(options: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        similar(**options)


def test_the_evaluator_holds_its_checked_options() -> None:
    made = similar("  two years ", threshold=1)
    assert made.options == SimilarOptions("  two years ", threshold=1.0)
    assert repr(made) == "similar('two years', threshold=1)"
    assert repr(similar()) == "similar(threshold=0.8)"
    assert isinstance(made, Similar) and made.name == "similar"


# -- batching ---------------------------------------------------------------------------------------


def test_concurrent_evaluations_share_requests_and_the_reference_is_asked_once(
    embedder: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_EVAL_EMBEDDINGS_BATCH_WINDOW", "0.5")
    answers = [f"answer number {i}" for i in range(8)]
    embedder.embedder = lambda text: VECTORS.get(text, [0.5, 0.5, 0.5, 0.5])
    report = run(answers, concurrency=8)
    assert report.passed + report.failed == 8
    sent = texts_sent(embedder)
    assert len(sent) < 8, "one request per evaluation is what batching avoids"
    assert all(isinstance(batch, list) for batch in sent)
    flat = [text for batch in sent for text in batch]
    assert sorted(flat) == sorted([REFERENCE, *answers]), "each distinct text once, the reference too"
    # A batch's cost is charged once: the report's request count is the server's.
    assert report.usage["requests"] == len(sent)


def test_a_batch_holds_at_most_the_batch_size(embedder: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_EVAL_EMBEDDINGS_BATCH_WINDOW", "0.5")
    monkeypatch.setenv("AGENT_EVAL_EMBEDDINGS_BATCH_SIZE", "3")
    embedder.embedder = lambda text: [1.0, float(len(text)), 0.0, 0.0]
    report = run([f"answer {i}" for i in range(8)], concurrency=8)
    assert report.errored == 0
    sent = texts_sent(embedder)
    assert all(len(batch) <= 3 for batch in sent)
    assert sum(len(batch) for batch in sent) == 9
    assert len(sent) >= 3


def test_a_batch_the_endpoint_refuses_is_asked_text_by_text_so_one_bad_text_fails_alone(
    embedder: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_EVAL_EMBEDDINGS_BATCH_WINDOW", "0.5")
    monkeypatch.setenv("AGENT_EVAL_JUDGE_MAX_RETRIES", "0")
    embedder.queue_embeddings(error_reply(400, "This model's maximum context length is 8192 tokens"))

    def vectors(text: str) -> list[float]:
        if text == "far too long":
            raise ValueError("too long")
        return VECTORS[text]

    embedder.embedder = vectors
    report = run([PARAPHRASE, "far too long", UNRELATED], concurrency=3)
    assert [case.status for case in report.cases] == ["passed", "error", "failed"]
    assert len(texts_sent(embedder)[0]) == 4
    assert all(len(batch) == 1 for batch in texts_sent(embedder)[1:])


# -- the cache --------------------------------------------------------------------------------------


def test_a_second_run_asks_nothing(embedder: ChatServer, judge_environment: Path) -> None:
    first = run([PARAPHRASE, UNRELATED], concurrency=2)
    requests = len(embedder.embedding_requests)
    assert requests >= 1
    second = run([PARAPHRASE, UNRELATED], concurrency=2)
    assert len(embedder.embedding_requests) == requests
    assert [case.score for case in second.cases] == [case.score for case in first.cases]
    for case in second.cases:
        metadata = case.evaluations[0].metadata
        assert metadata["cached"] is True
        assert metadata["usage"] == {"requests": 0, "cache_hits": 2}
    stored = [path for path in (judge_environment / "embeddings").rglob("*") if path.is_file()]
    assert len(stored) == 3
    assert not (judge_environment / "judge").exists(), "vectors are records of their own, beside verdicts"


def test_the_cache_switch_turns_the_stored_vectors_off(
    embedder: ChatServer, judge_environment: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_EVAL_JUDGE_CACHE", "0")
    run([PARAPHRASE])
    run([PARAPHRASE])
    assert len(embedder.embedding_requests) == 2
    assert not (judge_environment / "embeddings").exists()


def test_a_damaged_stored_vector_is_a_miss(embedder: ChatServer, judge_environment: Path) -> None:
    run([PARAPHRASE])
    for path in (judge_environment / "embeddings").rglob("*"):
        if path.is_file():
            path.write_bytes(b"{not json")
    assert only(run([PARAPHRASE])).status == "passed"
    assert len(embedder.embedding_requests) == 2


def test_vectors_sent_as_base64_are_read(embedder: ChatServer) -> None:
    embedder.queue_embeddings(embeddings_reply([VECTORS[REFERENCE], VECTORS[PARAPHRASE]], encoding_format="base64"))
    result = only(run([PARAPHRASE]))
    assert result.score == pytest.approx(0.943, abs=1e-3)


# -- configuration and failures ------------------------------------------------------------------


def test_unconfigured_it_is_skipped_naming_the_variables() -> None:
    result = only(run([PARAPHRASE]))
    assert result.status == "skipped"
    for name in ("AGENT_EVAL_EMBEDDINGS_BASE_URL", "AGENT_EVAL_EMBEDDINGS_API_KEY", "AGENT_EVAL_JUDGE_BASE_URL"):
        assert name in (result.reason or "")


def test_the_judges_endpoint_and_key_serve_when_no_embeddings_endpoint_is_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with ChatServer(embedder=VECTORS) as server:
        monkeypatch.setenv("AGENT_EVAL_JUDGE_BASE_URL", server.url)
        monkeypatch.setenv("AGENT_EVAL_JUDGE_API_KEY", KEY)
        monkeypatch.setenv("AGENT_EVAL_EMBEDDINGS_MODEL", "nomic-embed-text")
        assert only(run([PARAPHRASE])).status == "passed"
        (request,) = server.embedding_requests
        assert request.headers["authorization"] == f"Bearer {KEY}"
        assert request.json["model"] == "nomic-embed-text"


def test_the_judges_key_never_goes_to_another_embeddings_endpoint(
    embedder: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ChatServer() as judge:
        monkeypatch.setenv("AGENT_EVAL_JUDGE_BASE_URL", judge.url)
        monkeypatch.setenv("AGENT_EVAL_JUDGE_API_KEY", KEY)
        assert only(run([PARAPHRASE])).status == "passed"
    assert "authorization" not in embedder.embedding_requests[0].headers
    monkeypatch.setenv("AGENT_EVAL_EMBEDDINGS_API_KEY", "sk-embeddings-0123456789abcdef")
    only(run([UNRELATED]))
    assert embedder.embedding_requests[1].headers["authorization"] == "Bearer sk-embeddings-0123456789abcdef"


def test_an_endpoint_error_is_an_evaluation_error(embedder: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_EVAL_JUDGE_MAX_RETRIES", "1")
    embedder.queue_embeddings(error_reply(500, "down"), error_reply(503, "still down"))
    result = only(run([PARAPHRASE]))
    assert result.status == "error"
    assert "embeddings endpoint 127.0.0.1" in (result.error or "")
    assert "still down (gave up after 2 attempts)" in (result.error or "")
    assert len(embedder.embedding_requests) == 2


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"data": []}, "expected 'data' with 2 items, got 0 items"),
        ({"object": "list"}, "expected 'data' with 2 items, got no 'data' list"),
        ({"data": {"0": [1.0]}}, "expected 'data' with 2 items, got no 'data' list"),
        ({"data": [{"embedding": [1.0]}] * 3}, "expected 'data' with 2 items, got 3 items"),
        ({"data": [{"embedding": [1.0]}]}, "expected 'data' with 2 items, got 1 item ("),
        ({"data": [{"index": 0, "embedding": [1.0]}, {"index": 2, "embedding": [1.0]}]}, "no usable 'index'"),
        ({"data": [{"index": "0", "embedding": [1.0]}, {"embedding": [1.0]}]}, "no usable 'index'"),
        ({"data": [{"index": True, "embedding": [1.0]}, {"embedding": [1.0]}]}, "no usable 'index'"),
        ({"data": [[1.0], [1.0]]}, "no usable 'index'"),
        ({"data": [{"embedding": [True, False]}, {"embedding": [1.0, 0.0]}]}, "not a list of numbers"),
        ({"data": [{"embedding": None}, {"embedding": [1.0]}]}, "not a list of numbers"),
        ({"data": [{"embedding": [1.0, [2.0]]}, {"embedding": [1.0, 2.0]}]}, "not a list of numbers"),
        ({"data": [{"embedding": []}, {"embedding": []}]}, "item 0's embedding is empty"),
        ({"data": [{"embedding": [1e300, 1.0]}, {"embedding": [1.0, 0.0]}]}, "beyond 32-bit floats"),
        ({"data": [{"embedding": [1, 0]}, {"embedding": [1, 0, 0]}]}, "the vectors differ in length"),
        ({"data": [{"embedding": "not base64!"}, {"embedding": [1.0]}]}, "not base64 of 32-bit floats"),
        ({"data": [{"index": 0, "embedding": [1]}, {"index": 0, "embedding": [1]}]}, "no usable 'index'"),
        ({"data": [{"embedding": [0.0, 0.0]}, {"embedding": [1.0, 0.0]}]}, "a vector is all zeros"),
        ({"data": [{"embedding": ["a"]}, {"embedding": [1.0]}]}, "not a list of numbers"),
    ],
)
def test_an_answer_that_is_not_embeddings_is_an_error(
    embedder: ChatServer, body: dict[str, Any], fragment: str
) -> None:
    embedder.queue_embeddings(body)
    result = only(run([PARAPHRASE]))
    assert result.status == "error"
    assert fragment in (result.error or "")


@pytest.mark.parametrize(
    "body",
    [
        b'{"data": [{"embedding": [NaN, 1.0]}, {"embedding": [1.0, 0.0]}]}',
        b'{"data": [{"embedding": [Infinity, 1.0]}, {"embedding": [1.0, 0.0]}]}',
        b'{"data": [{"embedding": [1.0, 0.0]}, {"embedding": [-Infinity, 0.0]}]}',
        b'{"data": [{"embedding": [1e999, 1.0]}, {"embedding": [1.0, 0.0]}]}',
        b'{"data": [{"embedding": [1' + b"0" * 400 + b', 1.0]}, {"embedding": [1.0, 0.0]}]}',
    ],
    ids=["nan", "infinity", "minus-infinity", "1e999", "a 401-digit integer"],
)
def test_a_number_that_is_not_finite_is_an_error_not_a_similarity(embedder: ChatServer, body: bytes) -> None:
    embedder.queue_embeddings(Reply(200, body))
    result = only(run([PARAPHRASE]))
    assert result.status == "error"
    assert "HTTP 200 but not an embeddings answer: item " in (result.error or "")
    assert "NaN, infinite or beyond 32-bit floats" in (result.error or "")
    assert "\n" not in (result.error or "")


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (b"<html>Bad gateway</html>", "not an embeddings answer: not JSON"),
        (b"\xff\xfe{}", "not an embeddings answer: not JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "not an embeddings answer: not JSON"),
        (b'{"data": [], "data": [{"embedding": [1.0]}, {"embedding": [1.0]}]}', "gives 'data' more than once"),
        (b'[{"embedding": [1.0]}, {"embedding": [1.0]}]', "expected 'data' with 2 items, got no 'data' list"),
    ],
    ids=["html", "not utf-8", "nested too deeply", "data twice", "a bare list"],
)
def test_a_body_that_is_not_json_or_says_two_things_is_a_one_line_error(
    embedder: ChatServer, body: bytes, fragment: str
) -> None:
    embedder.queue_embeddings(Reply(200, body))
    result = only(run([PARAPHRASE]))
    assert result.status == "error"
    assert fragment in (result.error or "")
    assert "\n" not in (result.error or "") and len(result.error or "") < 1000


def test_a_body_over_the_limit_is_an_error_and_not_asked_again(
    embedder: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_EVAL_JUDGE_MAX_BODY", "65536")
    huge = {"data": [{"embedding": [0.5] * 100_000}, {"embedding": [0.5] * 100_000}]}
    embedder.queue_embeddings(huge)
    start = time.perf_counter()
    result = only(run([PARAPHRASE]))
    assert time.perf_counter() - start < 10
    assert result.status == "error"
    assert "more than the 65536-byte limit (AGENT_EVAL_JUDGE_MAX_BODY)" in (result.error or "")
    assert len(embedder.embedding_requests) == 1


def test_an_endpoint_that_does_not_answer_in_time_is_an_error_not_a_hang(
    embedder: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_EVAL_JUDGE_TIMEOUT", "0.3")
    monkeypatch.setenv("AGENT_EVAL_JUDGE_MAX_RETRIES", "0")
    embedder.queue_embeddings(embeddings_reply([[1.0], [1.0]], delay=5))
    start = time.perf_counter()
    result = only(run([PARAPHRASE]))
    assert time.perf_counter() - start < 4
    assert result.status == "error"
    assert "embeddings endpoint 127.0.0.1" in (result.error or "")


@pytest.mark.parametrize("key", [KEY, "plainword4711xyzzy"], ids=["sk-key", "a key in no known shape"])
def test_the_key_is_in_no_error_log_or_cache_file(
    embedder: ChatServer,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    judge_environment: Path,
    key: str,
) -> None:
    monkeypatch.setenv("AGENT_EVAL_EMBEDDINGS_API_KEY", key)
    monkeypatch.setenv("AGENT_EVAL_JUDGE_MAX_RETRIES", "1")
    embedder.queue_embeddings(
        error_reply(503, f"overloaded; you sent Bearer {key}", headers={"Retry-After": "0.01"}),
    )
    caplog.set_level(logging.DEBUG)
    assert only(run([PARAPHRASE])).status == "passed"
    embedder.queue_embeddings(error_reply(401, f"Invalid API key provided: {key}", code="invalid_api_key"))
    failed = only(run([UNRELATED]))
    assert failed.status == "error"
    assert embedder.embedding_requests[0].headers["authorization"] == f"Bearer {key}"
    shown = json.dumps(failed.to_dict()) + caplog.text
    shown += "".join(path.read_text() for path in judge_environment.rglob("*") if path.is_file())
    assert "[REDACTED]" in failed.error  # type: ignore[operator]
    assert "AGENT_EVAL_EMBEDDINGS_API_KEY" in failed.error  # type: ignore[operator]
    assert key not in shown and key[5:15] not in shown


# -- the plugin ------------------------------------------------------------------------------------


def test_suite_files_take_a_bare_reference_or_options(embedder: ChatServer, tmp_path: Path) -> None:
    suite_file = tmp_path / "suite.yaml"
    suite_file.write_text(
        textwrap.dedent(
            f"""\
            cases:
              - name: bare
                input: How long is the warranty?
                evaluators:
                  - similar: "{REFERENCE}"
              - name: options
                input: How long is the warranty?
                expected: "{REFERENCE}"
                evaluators:
                  - similar: {{threshold: 0.95}}
            """
        ),
        encoding="utf-8",
    )
    suite = load_suite(suite_file, registry=registry_of(plugin))
    report = EvalSuite(lambda question: PARAPHRASE, suite.cases).run(print=False)
    assert [case.status for case in report.cases] == ["passed", "failed"]


def test_the_installed_plugin_lists_similar_with_its_parameters_and_stays_light() -> None:
    agent_eval = Path(sys.executable).parent / "agent-eval"
    out = subprocess.run([str(agent_eval), "list-evaluators", "--json"], capture_output=True, text=True, check=True)
    entry = {entry["name"]: entry for entry in json.loads(out.stdout)}["similar"]
    assert entry["package"] == "agent-eval-judge"
    assert entry["description"].startswith("Passes when the answer's embedding is close to the reference's")
    assert [parameter["name"] for parameter in entry["parameters"]] == ["reference", "threshold"]
    code = (
        "import sys, agent_eval_judge.plugin\n"
        "agent_eval_judge.plugin.similar('x', threshold=0.5)\n"
        "heavy = ('aiohttp', 'asyncio', 'agent_eval_judge.similarity', 'agent_eval_judge.embeddings')\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"


def test_agent_eval_run_grades_a_suite_file_with_similar_and_a_second_run_asks_nothing(
    embedder: ChatServer, tmp_path: Path, judge_environment: Path
) -> None:
    (tmp_path / "warranty_agent.py").write_text(
        f"def agent(question):\n    return {PARAPHRASE!r} if 'warranty' in question else {UNRELATED!r}\n",
        encoding="utf-8",
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        textwrap.dedent(
            f"""\
            name: similar
            agent: warranty_agent:agent
            cases:
              - name: paraphrase
                input: How long is the warranty?
                expected: "{REFERENCE}"
                evaluators: [{{similar: {{}}}}]
              - name: unrelated
                input: Something else
                evaluators: [{{similar: {{reference: "{REFERENCE}", threshold: 0.5}}}}]
            """
        ),
        encoding="utf-8",
    )
    env = {"AGENT_EVAL_EMBEDDINGS_BASE_URL": embedder.url, "AGENT_EVAL_EMBEDDINGS_API_KEY": KEY}
    for run_number in (1, 2):
        report_path = tmp_path / f"report{run_number}.json"
        done = run_cli("run", str(suite), "--json", str(report_path), "--no-history", cwd=tmp_path, env=env)
        assert done.returncode == 1, done.stdout + done.stderr
        assert KEY not in done.stdout + done.stderr and "Traceback" not in done.stdout + done.stderr
        cases = {case["name"]: case for case in json.loads(report_path.read_text(encoding="utf-8"))["cases"]}
        assert cases["paraphrase"]["status"] == "passed"
        assert cases["unrelated"]["status"] == "failed"
        assert cases["unrelated"]["reason"] == "cosine similarity 0.100 to the reference, below the threshold 0.5"
        evaluation = cases["paraphrase"]["evaluations"][0]
        assert evaluation["name"] == "similar"
        assert evaluation["metadata"]["cached"] is (run_number == 2)
    assert sum(len(batch) for batch in texts_sent(embedder)) == 3, "the second run is answered from the cache"


def test_a_bug_in_asking_for_vectors_is_each_waiting_cases_error_and_nothing_else(
    embedder: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_eval_judge.transport import Requester

    async def broken(self: Any, endpoint: Any, texts: Any) -> Any:
        raise RuntimeError("a bug in the client")

    monkeypatch.setattr(Requester, "embed", broken)
    unhandled: list[Any] = []

    async def main() -> EvalReport:
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: unhandled.append(context))
        by_input = {"q0": PARAPHRASE, "q1": UNRELATED}
        cases = [{"name": q, "input": q, "expected": REFERENCE, "evaluator": similar()} for q in by_input]
        report = await EvalSuite(lambda question: by_input[question], cases).arun(print=False, concurrency=2)
        gc.collect()  # a task whose exception nobody retrieved says so when it goes
        await asyncio.sleep(0)
        return report

    report = asyncio.run(main())
    assert report.errored == 2
    assert all("a bug in the client" in (case.error or case.reason or "") for case in report.cases)
    assert unhandled == []
