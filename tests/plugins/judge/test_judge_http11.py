"""The judge's HTTP/1.1 transport under httpx, against a raw server that answers exactly the bytes a test scripts."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_eval_judge import http11
from agent_eval_judge.http11 import Http11Transport

#: A scripted action: bytes to send, CLOSE to hang up, or a pause in seconds before the next action.
CLOSE = object()
Action = bytes | object | float


def ok(body: bytes = b'{"ok": true}', *extra: bytes) -> bytes:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
    return head + b"".join(extra) + b"\r\n" + body


class RawServer:
    """Answers each request with the next scripted actions; records (connection number, request) pairs."""

    def __init__(self, script: list[list[Action]]) -> None:
        self.script = script
        self.requests: list[tuple[int, bytes, bytes]] = []
        self.connections = 0
        self.url = ""
        self._server: asyncio.Server | None = None

    async def start(self, context: ssl.SSLContext | None = None) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=context)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"{'https' if context else 'http'}://{'localhost' if context else '127.0.0.1'}:{port}/v1/x"

    async def stop(self) -> None:
        assert self._server is not None
        self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        number = self.connections
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                body = await reader.readexactly(length)
                self.requests.append((number, head, body))
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


@asynccontextmanager
async def serving(
    script: list[list[Action]], context: ssl.SSLContext | None = None
) -> AsyncIterator[tuple[RawServer, httpx.AsyncClient]]:
    server = RawServer(script)
    await server.start(context)
    transport = Http11Transport(max_connections=4, ssl_context=ssl.create_default_context)
    async with httpx.AsyncClient(transport=transport, trust_env=False, timeout=2.0) as client:
        yield server, client
    await server.stop()


def run(scenario: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(scenario())  # type: ignore[arg-type]


def test_length_delimited_answers_reuse_the_connection() -> None:
    async def scenario() -> None:
        async with serving([[ok(b"first")], [ok(b"second")]]) as (server, client):
            first = await client.post(server.url, json={"n": 1})
            second = await client.post(server.url, json={"n": 2})
            assert (first.status_code, first.content, second.content) == (200, b"first", b"second")
            assert [number for number, _, _ in server.requests] == [1, 1]
            _, head, body = server.requests[0]
            assert head.startswith(b"POST /v1/x HTTP/1.1\r\n")
            assert b"\r\nHost: 127.0.0.1:" in head
            assert body == b'{"n":1}'

    run(scenario)


def test_chunked_answer_with_extensions_and_trailers_is_joined_and_the_connection_reused() -> None:
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5;note=x\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nX-Trailer: t\r\n\r\n"
    )

    async def scenario() -> None:
        async with serving([[chunked], [ok(b"next")]]) as (server, client):
            assert (await client.get(server.url)).content == b"hello world"
            assert (await client.get(server.url)).content == b"next"
            assert server.connections == 1

    run(scenario)


def test_answer_delimited_by_closing_is_read_to_the_end_and_the_connection_not_reused() -> None:
    async def scenario() -> None:
        script: list[list[Action]] = [[b"HTTP/1.1 200 OK\r\n\r\nuntil the end", CLOSE], [ok(b"again")]]
        async with serving(script) as (server, client):
            assert (await client.get(server.url)).content == b"until the end"
            assert (await client.get(server.url)).content == b"again"
            assert server.connections == 2

    run(scenario)


@pytest.mark.parametrize(
    ("answer", "reused"),
    [
        (ok(b"x", b"Connection: close\r\n"), False),
        (b"HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx", False),
        (b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx", True),
        (b"HTTP/1.1 204 No Content\r\n\r\n", True),
    ],
)
def test_connection_headers_and_versions_decide_reuse(answer: bytes, reused: bool) -> None:
    async def scenario() -> None:
        first: list[Action] = [answer] if reused else [answer, CLOSE]
        async with serving([first, [ok(b"next")]]) as (server, client):
            await client.get(server.url)
            assert (await client.get(server.url)).content == b"next"
            assert server.connections == (1 if reused else 2)

    run(scenario)


def test_interim_100_continue_is_skipped() -> None:
    async def scenario() -> None:
        async with serving([[b"HTTP/1.1 100 Continue\r\n\r\n", ok(b"final")]]) as (server, client):
            response = await client.get(server.url)
            assert (response.status_code, response.content) == (200, b"final")

    run(scenario)


def test_head_answer_has_no_body_even_with_a_length() -> None:
    async def scenario() -> None:
        async with serving([[b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"], [ok(b"next")]]) as (server, client):
            assert (await client.head(server.url)).content == b""
            assert (await client.get(server.url)).content == b"next"

    run(scenario)


@pytest.mark.parametrize(
    ("answer", "fragment"),
    [
        (b"HTTP/2 200 OK\r\n\r\n", "status line"),
        (b"HTTP/1.1 20 OK\r\n\r\n", "status line"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n", "Content-Length"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx", "Content-Length"),
        (b"HTTP/1.1 200 OK\r\nBad Header : x\r\nContent-Length: 0\r\n\r\n", "malformed header"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "chunk size"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", "closed the connection"),
        (b"HTTP/1.1 200 OK\r\nX: " + b"y" * (70 * 1024) + b"\r\n\r\n", "exceed"),
    ],
)
def test_malformed_answers_are_protocol_errors(answer: bytes, fragment: str) -> None:
    async def scenario() -> None:
        async with serving([[answer, CLOSE]]) as (server, client):
            with pytest.raises(httpx.RemoteProtocolError, match=fragment):
                await client.get(server.url)

    run(scenario)


def test_connection_the_server_closed_while_idle_is_not_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    # Checked at once, with or without the loop having seen the close yet.
    monkeypatch.setattr(http11, "_CHECK_AFTER", 0.0)

    async def scenario() -> None:
        async with serving([[ok(b"first"), CLOSE], [ok(b"second")]]) as (server, client):
            assert (await client.get(server.url)).content == b"first"
            await asyncio.sleep(0.05)
            assert (await client.get(server.url)).content == b"second"
            assert server.connections == 2

    run(scenario)


def test_idle_connections_expire() -> None:
    async def scenario() -> None:
        server = RawServer([[ok(b"first")], [ok(b"second")]])
        await server.start()
        transport = Http11Transport(max_connections=2, ssl_context=ssl.create_default_context, keepalive_expiry=0.05)
        async with httpx.AsyncClient(transport=transport, trust_env=False) as client:
            await client.get(server.url)
            await asyncio.sleep(0.1)
            assert (await client.get(server.url)).content == b"second"
        assert server.connections == 2
        await server.stop()

    run(scenario)


def test_a_timed_out_answer_never_reaches_the_next_request() -> None:
    async def scenario() -> None:
        async with serving([[0.5, ok(b"late")], [ok(b"fresh")]]) as (server, client):
            with pytest.raises(httpx.ReadTimeout):
                await client.get(server.url, timeout=httpx.Timeout(2.0, read=0.1))
            assert (await client.get(server.url)).content == b"fresh"
            assert server.connections == 2

    run(scenario)


def test_a_cancelled_request_does_not_leave_its_connection_for_the_next() -> None:
    async def scenario() -> None:
        async with serving([[0.3, ok(b"stale")], [ok(b"fresh")]]) as (server, client):
            pending = asyncio.ensure_future(client.get(server.url))
            await asyncio.sleep(0.05)
            pending.cancel()
            with pytest.raises(asyncio.CancelledError):
                await pending
            assert (await client.get(server.url)).content == b"fresh"

    run(scenario)


def test_connections_per_origin_are_limited_and_a_full_pool_times_out() -> None:
    async def scenario() -> None:
        server = RawServer([[0.1, ok(b"%d" % n)] for n in range(6)])
        await server.start()
        transport = Http11Transport(max_connections=2, ssl_context=ssl.create_default_context)
        async with httpx.AsyncClient(transport=transport, trust_env=False, timeout=2.0) as client:
            answers = await asyncio.gather(*(client.get(server.url) for _ in range(4)))
            assert sorted(a.content for a in answers) == [b"0", b"1", b"2", b"3"]
            assert server.connections == 2
            slow = [asyncio.ensure_future(client.get(server.url)) for _ in range(2)]
            await asyncio.sleep(0.02)
            with pytest.raises(httpx.PoolTimeout):
                await client.get(server.url, timeout=httpx.Timeout(2.0, pool=0.03))
            await asyncio.gather(*slow)
        await server.stop()

    run(scenario)


def test_a_header_value_with_a_line_break_is_refused_before_sending() -> None:
    async def scenario() -> None:
        async with serving([[ok()]]) as (server, client):
            with pytest.raises(httpx.LocalProtocolError, match="Authorization"):
                await client.get(server.url, headers={"Authorization": "Bearer abc\r\nX-Evil: 1"})
            assert server.requests == []

    run(scenario)


def test_refused_connection_is_a_connect_error() -> None:
    async def scenario() -> None:
        server = RawServer([])
        await server.start()
        url = server.url
        await server.stop()
        await asyncio.sleep(0.01)
        transport = Http11Transport(max_connections=1, ssl_context=ssl.create_default_context)
        async with httpx.AsyncClient(transport=transport, trust_env=False) as client:
            with pytest.raises(httpx.ConnectError):
                await client.get(url)

    run(scenario)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command to make a certificate")
def test_https_through_tls_with_the_callers_trust_store(tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subject = ["-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"]
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert), *subject],
        check=True,
        capture_output=True,
    )
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(cert, key)

    async def scenario() -> None:
        server = RawServer([[ok(b"secure")], [ok(b"again")]])
        await server.start(server_context)
        trusting = Http11Transport(max_connections=1, ssl_context=lambda: ssl.create_default_context(cafile=cert))
        async with httpx.AsyncClient(transport=trusting, trust_env=False) as client:
            assert (await client.get(server.url)).content == b"secure"
            assert (await client.get(server.url)).content == b"again"
        assert server.connections == 1
        default = Http11Transport(max_connections=1, ssl_context=ssl.create_default_context)
        async with httpx.AsyncClient(transport=default, trust_env=False) as client:
            with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
                await client.get(server.url)
        await server.stop()

    run(scenario)
