"""A hostile judge endpoint: an endless body, a megabyte of answer, JSON that says two things.

Each test scripts a raw server on 127.0.0.1, byte by byte, to send what no honest server would.
"""

from __future__ import annotations

import asyncio
import json
import time
import tracemalloc
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from judge_helpers import answer_agent, verdict_text

from agent_eval import EvalReport, EvalSuite
from agent_eval_judge import llm_judge
from agent_eval_judge.answer import Unreadable, parse_answer
from agent_eval_judge.config import Endpoint, Settings
from agent_eval_judge.errors import JudgeConfigError, JudgeProtocolError
from agent_eval_judge.transport import Requester

MESSAGES = [{"role": "user", "content": "Is it polite?"}]
Respond = Callable[[asyncio.StreamWriter], Awaitable[None]]


class Hostile:
    """Answers every request with ``respond``; counts the requests."""

    def __init__(self, respond: Respond) -> None:
        self.respond = respond
        self.requests = 0
        self.url = ""

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = [line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")]
                await reader.readexactly(int(length[0].split(b":")[1]) if length else 0)
                self.requests += 1
                await self.respond(writer)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@asynccontextmanager
async def hostile(respond: Respond) -> AsyncIterator[Hostile]:
    server = Hostile(respond)
    listening = await asyncio.start_server(server.serve, "127.0.0.1", 0)
    server.url = f"http://127.0.0.1:{listening.sockets[0].getsockname()[1]}/v1"
    try:
        yield server
    finally:
        listening.close()


def json_answer(body: bytes) -> Respond:
    async def respond(writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body))
        writer.write(body)
        await writer.drain()

    return respond


def completion_body(content: str) -> bytes:
    message = {"role": "assistant", "content": content}
    return json.dumps({"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}).encode()


def settings(**changes: Any) -> Settings:
    base = {"timeout": 10.0, "max_retries": 0, "backoff_base": 0.01, "backoff_max": 0.02}
    return Settings(**{**base, **changes}, cache_dir="")


async def ask(server: Hostile, **changes: Any) -> Any:
    requester = Requester(settings(**changes))
    try:
        return await requester.complete(Endpoint(server.url, "judge-model"), MESSAGES)
    finally:
        await requester.aclose()


# -- the body's size ---------------------------------------------------------------------------------


def test_an_endless_chunked_body_is_cut_off_at_the_limit_quickly_and_in_bounded_memory() -> None:
    limit = 256 * 1024
    chunk = b"x" * 65536

    sent = [0]

    async def endless(writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        while sent[0] < 2**30:  # a gigabyte, were nothing to stop it
            writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            sent[0] += len(chunk)
            await writer.drain()

    async def scenario() -> tuple[JudgeProtocolError, float, int, int]:
        async with hostile(endless) as server:
            tracemalloc.start()
            start = time.perf_counter()
            try:
                with pytest.raises(JudgeProtocolError) as raised:
                    await ask(server, max_body=limit)
                elapsed = time.perf_counter() - start
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
            return raised.value, elapsed, peak, server.requests

    error, elapsed, peak, requests = asyncio.run(scenario())
    assert error.category == "judge_too_large"
    assert f"more than the {limit}-byte limit (AGENT_EVAL_JUDGE_MAX_BODY)" in str(error)
    assert elapsed < 5
    # What the kernel's socket buffers took before the client hung up, not the gigabyte on offer.
    assert sent[0] < limit + 32 * 2**20
    assert peak < 4 * limit + 4 * 2**20
    assert requests == 1, "an answer over the limit is not asked for again"


def test_an_announced_length_over_the_limit_is_refused_before_reading() -> None:
    async def announce(writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 999999999\r\n\r\n")
        writer.write(b"{")
        await writer.drain()
        await asyncio.sleep(5)

    async def scenario() -> float:
        async with hostile(announce) as server:
            start = time.perf_counter()
            with pytest.raises(JudgeProtocolError, match="announces 999999999 bytes, more than the 4194304-byte"):
                await ask(server)
            return time.perf_counter() - start

    assert asyncio.run(scenario()) < 2


def test_an_answer_within_the_limit_is_read_whole() -> None:
    body = completion_body(verdict_text(True, 1.0, "y" * 5000))

    async def scenario() -> str | None:
        async with hostile(json_answer(body)) as server:
            completion = await ask(server, max_body=len(body))
            return completion.content  # type: ignore[no-any-return]

    assert json.loads(asyncio.run(scenario()) or "")["reason"] == "y" * 5000


def test_the_limit_is_four_mebibytes_unless_the_environment_says_otherwise() -> None:
    assert Settings.from_env({}).max_body == 4 * 1024 * 1024
    assert Settings.from_env({"AGENT_EVAL_JUDGE_MAX_BODY": "65536"}).max_body == 65536
    with pytest.raises(JudgeConfigError, match="AGENT_EVAL_JUDGE_MAX_BODY='10' is out of range"):
        Settings.from_env({"AGENT_EVAL_JUDGE_MAX_BODY": "10"})


# -- a megabyte of answer ------------------------------------------------------------------------


def test_a_megabyte_answer_does_not_stall_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_EVAL_JUDGE_REPAIR", "0")
    body = completion_body('{"a":"' * 100000)
    assert len(body) > 900_000

    async def main() -> tuple[EvalReport, float]:
        loop = asyncio.get_running_loop()
        gaps = [0.0]

        async def heartbeat() -> None:
            last = loop.time()
            while True:
                await asyncio.sleep(0.01)
                now = loop.time()
                gaps.append(now - last - 0.01)
                last = now

        async with hostile(json_answer(body)) as server:
            monkeypatch.setenv("AGENT_EVAL_JUDGE_BASE_URL", server.url)
            monkeypatch.setenv("AGENT_EVAL_JUDGE_MODEL", "judge-model")
            cases = [{"name": "big", "input": "q", "evaluator": llm_judge("polite")}]
            beating = asyncio.create_task(heartbeat())
            try:
                report = await EvalSuite(answer_agent(), cases).arun(print=False)
            finally:
                beating.cancel()
        return report, max(gaps)

    report, longest = asyncio.run(main())
    (result,) = report.cases
    assert result.status == "error"
    assert "not a JSON object alone" in (result.evaluations[0].error or "")
    assert longest < 0.1, f"the event loop was held for {longest:.3f} s"


@pytest.mark.parametrize(
    "text",
    [
        "{" * 200_000,
        '{"a":1,' * 30_000,
        "<think>" * 30_000,
        '{"a":"' * 40_000,
        "{}" * 100_000,
        '{"a":' * 100_000,
    ],
    ids=["braces", "open pairs", "unclosed think tags", "open strings", "many objects", "deep nesting"],
)
def test_reading_an_unreadable_answer_takes_time_in_proportion_to_its_length(text: str) -> None:
    start = time.perf_counter()
    with pytest.raises(Unreadable):
        parse_answer(text)
    # Each of these took seconds to minutes when every brace or tag started a new scan.
    assert time.perf_counter() - start < 2


def test_a_long_think_block_before_the_verdict_is_still_dropped() -> None:
    text = "<think>" + "hmm {" * 10_000 + "</think>" + verdict_text(True, 0.9, "ok")
    assert parse_answer(text).score == 0.9


# -- JSON that says two things -------------------------------------------------------------------


def test_a_body_with_two_choices_is_an_error_not_the_last_one() -> None:
    passing = json.dumps([{"message": {"role": "assistant", "content": verdict_text(True)}, "finish_reason": "stop"}])
    failing = json.dumps([{"message": {"role": "assistant", "content": verdict_text(False)}, "finish_reason": "stop"}])
    body = ('{"choices": ' + failing + ', "choices": ' + passing + "}").encode()

    async def scenario() -> None:
        async with hostile(json_answer(body)) as server:
            with pytest.raises(JudgeProtocolError, match="gives 'choices' more than once"):
                await ask(server)

    asyncio.run(scenario())


def test_a_repeated_key_anywhere_in_the_body_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    content = json.dumps(verdict_text(True))
    body = ('{"choices": [{"message": {"content": ' + content + ', "content": "{}"}}]}').encode()

    def serve_and_run() -> EvalReport:
        async def main() -> EvalReport:
            async with hostile(json_answer(body)) as server:
                monkeypatch.setenv("AGENT_EVAL_JUDGE_BASE_URL", server.url)
                monkeypatch.setenv("AGENT_EVAL_JUDGE_MODEL", "judge-model")
                cases = [{"name": "c", "input": "q", "evaluator": llm_judge("polite")}]
                return await EvalSuite(answer_agent(), cases).arun(print=False)

        return asyncio.run(main())

    (result,) = serve_and_run().cases
    assert result.status == "error"
    assert "gives 'content' more than once" in (result.evaluations[0].error or "")
    assert result.evaluations[0].metadata["category"] == "judge_protocol"
