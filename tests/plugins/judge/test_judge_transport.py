"""The judge's HTTP side against servers on 127.0.0.1: proxies, kept-alive connections, broken answers, TLS.

Most tests script a raw server byte by byte, to produce what a well-behaved test server never sends.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import ssl
import subprocess
import sys
import textwrap
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from judge_helpers import only, run_cases, verdict_reply, verdict_text

from agent_eval.testing import ChatServer
from agent_eval_judge import llm_judge
from agent_eval_judge.config import Endpoint, Settings
from agent_eval_judge.errors import JudgeUnavailable
from agent_eval_judge.redact import Secret
from agent_eval_judge.transport import Completion, Requester

KEY = "sk-test-SECRET-0123456789"
MESSAGES = [{"role": "user", "content": "Is it polite?"}]

#: A scripted action: bytes to send, CLOSE to hang up, or a pause in seconds before the next action.
CLOSE = object()
Action = bytes | object | float


def completion_body(reason: str = "ok") -> bytes:
    message = {"role": "assistant", "content": verdict_text(True, 1.0, reason)}
    return json.dumps({"choices": [{"message": message, "finish_reason": "stop"}]}).encode()


def ok(reason: str = "ok", *extra: bytes) -> bytes:
    """A complete 200 answer carrying a verdict whose reason is ``reason``, framed by Content-Length."""
    body = completion_body(reason)
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
    return head + b"".join(extra) + b"\r\n" + body


class RawServer:
    """Answers each request with the next scripted actions; counts connections and records requests."""

    def __init__(self, script: list[list[Action]]) -> None:
        self.script = script
        self.requests: list[tuple[int, bytes]] = []
        self.connections = 0
        self.url = ""
        self._server: asyncio.Server | None = None

    async def start(self, context: ssl.SSLContext | None = None) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=context)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"{'https' if context else 'http'}://{'localhost' if context else '127.0.0.1'}:{port}/v1"

    async def stop(self) -> None:
        assert self._server is not None
        self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        number = self.connections
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lengths = [line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")]
                length = int(lengths[0].split(b":")[1]) if lengths else 0
                await reader.readexactly(length)
                self.requests.append((number, head))
                for action in self.script.pop(0) if self.script else [CLOSE]:
                    if action is CLOSE:
                        writer.close()
                        return
                    if isinstance(action, float):
                        await asyncio.sleep(action)
                    else:
                        assert isinstance(action, bytes)
                        writer.write(action)
                        await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()


def settings(**changes: Any) -> Settings:
    base = {"timeout": 2.0, "max_retries": 1, "concurrency": 4, "backoff_base": 0.01, "backoff_max": 0.02}
    return Settings(**{**base, **changes}, cache_dir="")


@asynccontextmanager
async def requesting(
    script: list[list[Action]], **changes: Any
) -> AsyncIterator[tuple[RawServer, Requester, Endpoint]]:
    """A raw server playing ``script`` and a requester for an endpoint on it (with a key)."""
    server = RawServer(script)
    await server.start()
    requester = Requester(settings(**changes))
    try:
        yield server, requester, Endpoint(server.url, "judge-model", Secret(KEY))
    finally:
        await requester.aclose()
        await server.stop()


def run(scenario: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(scenario())  # type: ignore[arg-type]


def reason_of(completion: Completion) -> str:
    assert completion.content is not None
    return str(json.loads(completion.content)["reason"])


# -- proxies ---------------------------------------------------------------------------------------


def test_a_proxy_configured_in_the_environment_carries_the_requests(
    judge_at: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge_at.responder = lambda _: verdict_reply(True)
    with ChatServer() as proxy:
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.port}")
        run_cases([llm_judge("polite", cache=False)])
        assert judge_at.requests == []
        (request,) = proxy.requests
        # A proxy is sent the absolute URL of the real endpoint (which this test server does not forward).
        assert request.path == f"{judge_at.url}/chat/completions"
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        assert run_cases([llm_judge("polite", cache=False)]).cases[0].status == "passed"
        assert len(judge_at.requests) == 1
        assert len(proxy.requests) == 1


def test_a_proxy_for_https_only_leaves_an_http_endpoint_direct(
    judge_at: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge_at.responder = lambda _: verdict_reply(True)
    with ChatServer() as proxy:
        monkeypatch.setenv("https_proxy", f"http://127.0.0.1:{proxy.port}")
        assert run_cases([llm_judge("polite", cache=False)]).cases[0].status == "passed"
        assert proxy.requests == []
        assert len(judge_at.requests) == 1


def test_an_https_endpoint_is_tunnelled_through_the_proxy_and_a_refusal_names_no_credentials(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with ChatServer() as proxy:  # it answers CONNECT with 501: it is no tunnelling proxy
        monkeypatch.setenv("AGENT_EVAL_JUDGE_BASE_URL", "https://127.0.0.1:9/v1")
        monkeypatch.setenv("AGENT_EVAL_JUDGE_MODEL", "judge-model")
        monkeypatch.setenv("AGENT_EVAL_JUDGE_MAX_RETRIES", "0")
        monkeypatch.setenv("HTTPS_PROXY", f"http://proxy-user:pr0xy-pa55word@127.0.0.1:{proxy.port}")
        result = only(run_cases([llm_judge("polite", cache=False)]))
    assert result.status == "error"
    assert "the proxy refused the connection (HTTP 501" in result.error
    assert "pr0xy-pa55word" not in repr(result.to_dict())


# -- connections -----------------------------------------------------------------------------------


def test_concurrent_judges_keep_at_most_the_judge_concurrency_of_connections(
    judge_at: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_EVAL_JUDGE_CONCURRENCY", "3")
    judge_at.responder = lambda _: verdict_reply(True, delay=0.05)
    report = run_cases([llm_judge(f"c{i}") for i in range(12)], concurrency=12)
    assert report.passed == 12
    assert len(judge_at.requests) == 12
    assert len({request.client for request in judge_at.requests}) == 3


def test_chunked_and_close_delimited_answers_are_read_whole() -> None:
    body = completion_body("chunked")
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    chunked += b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:10], body[10:])) + b"0\r\n\r\n"
    until_close = b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + completion_body("until close")

    async def scenario() -> None:
        async with requesting([[chunked], [until_close, CLOSE], [ok("next")]]) as (server, requester, endpoint):
            assert reason_of(await requester.complete(endpoint, MESSAGES)) == "chunked"
            assert reason_of(await requester.complete(endpoint, MESSAGES)) == "until close"
            assert reason_of(await requester.complete(endpoint, MESSAGES)) == "next"
            # The chunked answer left its connection reusable; the one read until close did not.
            assert [number for number, _ in server.requests] == [1, 1, 2]

    run(scenario)


def test_a_connection_the_server_closed_while_idle_costs_no_retry() -> None:
    async def scenario() -> None:
        async with requesting([[ok("first"), CLOSE], [ok("second")]]) as (server, requester, endpoint):
            first = await requester.complete(endpoint, MESSAGES)
            await asyncio.sleep(0.05)
            second = await requester.complete(endpoint, MESSAGES)
            assert (reason_of(first), reason_of(second)) == ("first", "second")
            assert (first.requests, second.requests) == (1, 1)
            assert server.connections == 2

    run(scenario)


def test_a_kept_alive_connection_dropped_mid_body_is_retried_on_a_new_one() -> None:
    cut = ok("lost")[:-20]

    async def scenario() -> None:
        async with requesting([[ok("first")], [cut, CLOSE], [ok("again")]]) as (server, requester, endpoint):
            assert reason_of(await requester.complete(endpoint, MESSAGES)) == "first"
            retried = await requester.complete(endpoint, MESSAGES)
            assert (reason_of(retried), retried.requests) == ("again", 2)
            assert [number for number, _ in server.requests] == [1, 1, 2]

    run(scenario)


def test_a_timed_out_answer_never_reaches_the_next_request() -> None:
    async def scenario() -> None:
        script: list[list[Action]] = [[0.5, ok("late")], [ok("fresh")]]
        async with requesting(script, timeout=0.2, max_retries=0) as (server, requester, endpoint):
            with pytest.raises(JudgeUnavailable, match=r"no answer within 0\.2 s"):
                await requester.complete(endpoint, MESSAGES)
            assert reason_of(await requester.complete(endpoint, MESSAGES)) == "fresh"
            assert server.connections == 2

    run(scenario)


def test_a_cancelled_request_does_not_leave_its_connection_for_the_next() -> None:
    async def scenario() -> None:
        async with requesting([[0.3, ok("stale")], [ok("fresh")]]) as (_server, requester, endpoint):
            pending = asyncio.ensure_future(requester.complete(endpoint, MESSAGES))
            await asyncio.sleep(0.05)
            pending.cancel()
            with pytest.raises(asyncio.CancelledError):
                await pending
            assert reason_of(await requester.complete(endpoint, MESSAGES)) == "fresh"

    run(scenario)


def test_the_key_is_sent_once_and_appears_in_no_error_nor_anything_chained_to_it() -> None:
    """aiohttp's exceptions carry the request's headers in their reprs: none may travel with the judge's error."""

    async def scenario() -> JudgeUnavailable:
        async with requesting([[ok("lost")[:-20], CLOSE], [CLOSE]]) as (server, requester, endpoint):
            with pytest.raises(JudgeUnavailable) as raised:
                await requester.complete(endpoint, MESSAGES)
            heads = [head for _, head in server.requests]
            assert len(heads) == 2 and all(head.count(KEY.encode()) == 1 for head in heads)
            return raised.value

    error = run(scenario)
    assert "connection broke" in str(error)
    chain: list[BaseException] = []
    link: BaseException | None = error
    while link is not None:
        chain.append(link)
        link = link.__cause__ or link.__context__
    assert [type(link).__module__.split(".")[0] for link in chain] == ["agent_eval_judge"]
    shown = "".join(traceback.format_exception(error)) + repr(error) + repr(vars(error))
    assert KEY not in shown and "SECRET-0123456789" not in shown


# -- TLS -------------------------------------------------------------------------------------------

TLS_CLIENT = """
import asyncio, ssl, sys
sys.path.insert(0, {tests!r})
from test_judge_transport import RawServer, ok, MESSAGES
from agent_eval_judge.config import Endpoint, Settings
from agent_eval_judge.errors import JudgeUnavailable
from agent_eval_judge.transport import Requester

async def main():
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain({cert!r}, {key!r})
    server = RawServer([[ok("secure")], [ok("again")]])
    await server.start(context)
    requester = Requester(Settings(max_retries=0, cache_dir=""))
    try:
        for _ in range(2):
            completion = await requester.complete(Endpoint(server.url, "judge-model"), MESSAGES)
        print("answered", server.connections)
    except JudgeUnavailable as error:
        print("refused", error)
    finally:
        await requester.aclose()
        await server.stop()

asyncio.run(main())
"""


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command to make a certificate")
def test_https_endpoints_are_verified_against_the_systems_trust_store(tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subject = ["-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"]
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert), *subject],
        check=True,
        capture_output=True,
    )
    script = tmp_path / "client.py"
    script.write_text(
        textwrap.dedent(TLS_CLIENT).format(tests=str(Path(__file__).parent), cert=str(cert), key=str(key)),
        encoding="utf-8",
    )

    def client(**env: str) -> str:
        import os

        environ = {name: value for name, value in os.environ.items() if not name.startswith("SSL_CERT_")}
        done = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, env={**environ, **env}, timeout=60
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    # Trusted through the standard variable: one kept-alive TLS connection serves both requests.
    assert client(SSL_CERT_FILE=str(cert)) == "answered 1"
    refused = client()
    assert refused.startswith("refused") and "cannot connect" in refused
    assert "certificate verify failed" in refused.lower()
