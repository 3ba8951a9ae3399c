"""An httpx transport that speaks HTTP/1.1 itself over asyncio streams, keeping connections alive per origin.

httpx's own transport (httpcore) spends about a millisecond of CPU per request
under concurrency: its pool examines every connection (a socket poll each) for
every request, and its locks, events and cancel scopes go through anyio and
sniffio. The judge sends small JSON POSTs and reads small answers, so this
transport does only that work: it writes the request in one piece, reads the
status line and headers in one read, then the body by its framing
(Content-Length, chunked, or until the server closes), and returns the
connection to the pool. httpx stays the API: requests and responses are
httpx objects, and failures are httpx's exceptions, mapped the way its own
transport maps them.

Limits: at most ``max_connections`` connections per origin (a request
beyond that waits for one, up to the pool timeout); an idle connection is
reused for ``keepalive_expiry`` seconds. The read timeout bounds the whole
response, not each read. Proxies are not spoken here: the caller uses httpx's
own transport when the environment configures one.
"""

from __future__ import annotations

import asyncio
import select
import ssl
import time
from collections.abc import Callable
from typing import Any

import httpx

_HEAD_END = b"\r\n\r\n"
#: The longest status line plus headers accepted (asyncio's stream limit).
MAX_HEAD = 64 * 1024
#: Idle connections older than this are checked for a close from the server before reuse.
_CHECK_AFTER = 1.0
_HEX = b"0123456789abcdefABCDEF"


class Http11Transport(httpx.AsyncBaseTransport):
    """HTTP/1.1 over asyncio streams, with at most ``max_connections`` kept-alive connections per origin."""

    def __init__(
        self,
        *,
        max_connections: int,
        ssl_context: Callable[[], ssl.SSLContext],
        keepalive_expiry: float = 5.0,
    ) -> None:
        self._limit = max_connections
        self._ssl_context = ssl_context
        self._expiry = keepalive_expiry
        self._pools: dict[tuple[str, str, int], _Pool] = {}
        self._closed = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` on a pooled connection and return the complete response."""
        if self._closed:
            raise RuntimeError("the transport is closed")
        url = request.url
        scheme = url.scheme
        if scheme not in ("http", "https"):
            raise httpx.UnsupportedProtocol(f"unsupported URL scheme {scheme!r}", request=request)
        port = url.port or (443 if scheme == "https" else 80)
        # The ASCII form (IDNA-encoded, IPv6 without brackets) is what the socket and TLS need.
        origin = (scheme, url.raw_host.decode("ascii"), port)
        pool = self._pools.get(origin)
        if pool is None:
            pool = self._pools[origin] = _Pool(self._limit)
        timeouts: dict[str, float | None] = request.extensions.get("timeout", {})
        await pool.acquire(timeouts.get("pool"), request)
        try:
            connection = pool.take(self._expiry) or await self._connect(origin, timeouts.get("connect"), request)
            try:
                response, reusable = await connection.exchange(request, timeouts)
            except BaseException:
                connection.close()
                raise
            if reusable and not self._closed:
                pool.give(connection)
            else:
                connection.close()
        finally:
            pool.release()
        return response

    async def _connect(
        self, origin: tuple[str, str, int], timeout: float | None, request: httpx.Request
    ) -> _Connection:
        scheme, host, port = origin
        context = self._ssl_context() if scheme == "https" else None
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(
                    host, port, ssl=context, server_hostname=host if context else None, limit=MAX_HEAD
                )
        except TimeoutError:
            raise httpx.ConnectTimeout(
                f"no connection to {host}:{port} within {timeout:g} s", request=request
            ) from None
        except OSError as error:  # refused, unreachable, unknown host, TLS failure
            raise httpx.ConnectError(str(error) or type(error).__name__, request=request) from None
        return _Connection(reader, writer)

    async def aclose(self) -> None:
        """Close the idle connections; those in use are closed when their response is read."""
        self._closed = True
        pools, self._pools = self._pools, {}
        for pool in pools.values():
            pool.close()


class _Pool:
    """One origin's idle connections (most recent last) and its limit on connections in use."""

    def __init__(self, limit: int) -> None:
        self.slots = asyncio.Semaphore(limit)
        self.idle: list[_Connection] = []

    async def acquire(self, timeout: float | None, request: httpx.Request) -> None:
        if not self.slots.locked():
            await self.slots.acquire()
            return
        try:
            async with asyncio.timeout(timeout):
                await self.slots.acquire()
        except TimeoutError:
            raise httpx.PoolTimeout(f"no free connection within {timeout:g} s", request=request) from None

    def release(self) -> None:
        self.slots.release()

    def take(self, expiry: float) -> _Connection | None:
        """The most recently used idle connection still fit for a request, or None."""
        now = time.monotonic()
        while self.idle:
            connection = self.idle.pop()
            if connection.fit(now, expiry):
                return connection
            connection.close()
        return None

    def give(self, connection: _Connection) -> None:
        connection.idle_since = time.monotonic()
        self.idle.append(connection)

    def close(self) -> None:
        idle, self.idle = self.idle, []
        for connection in idle:
            connection.close()


class _Connection:
    """One kept-alive connection: writes a request, reads its response."""

    __slots__ = ("idle_since", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.idle_since = 0.0

    def fit(self, now: float, expiry: float) -> bool:
        """Whether an idle connection may carry another request: not expired, not closed by the server."""
        idle = now - self.idle_since
        if idle > expiry or self.reader.at_eof() or self.writer.transport.is_closing():
            return False
        # A close the event loop has not processed yet shows as a readable socket; only worth a poll
        # for a connection that has been idle a while (servers close idle connections after seconds).
        return idle < _CHECK_AFTER or not _readable(self.writer)

    def close(self) -> None:
        self.writer.close()

    async def exchange(self, request: httpx.Request, timeouts: dict[str, float | None]) -> tuple[httpx.Response, bool]:
        """Send ``request``, read the whole response; True with it when the connection may be reused."""
        body = await request.aread()
        data = _head(request) + (_chunk(body) if _is_chunked(request.headers) else body)
        timeout = timeouts.get("write")
        try:
            self.writer.write(data)
            # What the socket did not take at once waits in the transport's buffer: wait for it to drain.
            if self.writer.transport.get_write_buffer_size():
                async with asyncio.timeout(timeout):
                    await self.writer.drain()
        except TimeoutError:
            raise httpx.WriteTimeout(f"could not send the request within {timeout:g} s", request=request) from None
        except OSError as error:
            raise httpx.WriteError(str(error) or type(error).__name__, request=request) from None
        timeout = timeouts.get("read")
        try:
            async with asyncio.timeout(timeout):
                return await _read_response(self.reader, request)
        except TimeoutError:
            raise httpx.ReadTimeout(f"no complete answer within {timeout:g} s", request=request) from None
        except asyncio.IncompleteReadError:
            raise httpx.RemoteProtocolError(
                "the server closed the connection before a complete response", request=request
            ) from None
        except asyncio.LimitOverrunError:
            raise httpx.RemoteProtocolError(
                f"the response's status line and headers exceed {MAX_HEAD} bytes", request=request
            ) from None
        except OSError as error:
            raise httpx.ReadError(str(error) or type(error).__name__, request=request) from None


def _readable(writer: asyncio.StreamWriter) -> bool:
    sock = writer.get_extra_info("socket")
    if sock is None:
        return True
    try:
        if hasattr(select, "poll"):
            poller = select.poll()
            poller.register(sock.fileno(), select.POLLIN)
            return bool(poller.poll(0))
        return bool(select.select([sock.fileno()], [], [], 0)[0])
    except (OSError, ValueError):
        return True


def _head(request: httpx.Request) -> bytes:
    parts = [request.method.encode("ascii"), b" ", request.url.raw_path, b" HTTP/1.1\r\n"]
    for name, value in request.headers.raw:
        if b"\n" in value or b"\r" in value or b"\n" in name or b"\r" in name:
            # A line break in a value (a key pasted with its newline) would start a header of its own.
            raise httpx.LocalProtocolError(f"header {name.decode('latin-1')!r} contains a line break", request=request)
        parts += (name, b": ", value, b"\r\n")
    parts.append(b"\r\n")
    return b"".join(parts)


def _is_chunked(headers: httpx.Headers) -> bool:
    coding: str = headers.get("transfer-encoding", "")
    return coding.lower().endswith("chunked")


def _chunk(body: bytes) -> bytes:
    if not body:
        return b"0\r\n\r\n"
    return b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)


class _Framing:
    """What the response head says about its body and about the connection."""

    __slots__ = ("chunked", "close", "length", "until_close")

    def __init__(
        self, version: bytes, headers: list[tuple[bytes, bytes]], bodyless: bool, request: httpx.Request
    ) -> None:
        self.length: int | None = None
        self.chunked = False
        self.until_close = False
        self.close = version == b"HTTP/1.0"
        for name, value in headers:
            lowered = name.lower()
            if lowered == b"content-length":
                self._set_length(value, request)
            elif lowered == b"transfer-encoding":
                codings = [coding.strip() for coding in value.lower().split(b",")]
                self.chunked = codings[-1] == b"chunked"
                self.until_close = not self.chunked
            elif lowered == b"connection":
                tokens = {token.strip() for token in value.lower().split(b",")}
                if b"close" in tokens:
                    self.close = True
                elif b"keep-alive" in tokens:
                    self.close = False
        if bodyless:
            # A HEAD answer, 1xx, 204 and 304 end with their headers, whatever these announce (RFC 9112, 6.3).
            self.length, self.chunked, self.until_close = 0, False, False
        elif self.chunked or self.until_close:
            # Transfer-Encoding overrides Content-Length.
            self.length = None
        elif self.length is None:
            self.until_close = True
        if self.until_close:
            self.close = True

    def _set_length(self, value: bytes, request: httpx.Request) -> None:
        text = value.strip()
        if not text.isdigit() or (self.length is not None and int(text) != self.length):
            raise httpx.RemoteProtocolError(f"bad Content-Length {value[:40]!r}", request=request)
        self.length = int(text)


async def _read_response(reader: asyncio.StreamReader, request: httpx.Request) -> tuple[httpx.Response, bool]:
    while True:
        lines = (await reader.readuntil(_HEAD_END))[: -len(_HEAD_END)].split(b"\r\n")
        version, status, reason = _status_line(lines[0], request)
        # 1xx answers (100 Continue, 103 Early Hints) come before the real one; 101 would switch protocols.
        if not 100 <= status < 200 or status == 101:
            break
    if status == 101:
        raise httpx.RemoteProtocolError("the server switched protocols (101) unasked", request=request)
    headers = _header_fields(lines[1:], request)
    framing = _Framing(version, headers, request.method == "HEAD" or status in (204, 304), request)
    if framing.chunked:
        body = await _read_chunked(reader, request)
    elif framing.length is not None:
        body = await reader.readexactly(framing.length) if framing.length else b""
    else:
        body = await reader.read()
    reusable = not framing.close
    extensions: dict[str, Any] = {"http_version": version, "reason_phrase": reason}
    return httpx.Response(status, headers=headers, stream=httpx.ByteStream(body), extensions=extensions), reusable


def _status_line(line: bytes, request: httpx.Request) -> tuple[bytes, int, bytes]:
    version, _, rest = line.partition(b" ")
    code, _, reason = rest.partition(b" ")
    if version not in (b"HTTP/1.1", b"HTTP/1.0") or len(code) != 3 or not code.isdigit():
        raise httpx.RemoteProtocolError(f"not an HTTP/1.1 status line: {line[:80]!r}", request=request)
    return version, int(code), reason.strip()


def _header_fields(lines: list[bytes], request: httpx.Request) -> list[tuple[bytes, bytes]]:
    fields: list[tuple[bytes, bytes]] = []
    for line in lines:
        if line[:1] in (b" ", b"\t") and fields:
            # Obsolete line folding: the line continues the previous field's value.
            name, value = fields[-1]
            fields[-1] = (name, value + b" " + line.strip())
            continue
        name, colon, value = line.partition(b":")
        if not colon or not name or name != name.strip():
            raise httpx.RemoteProtocolError(f"malformed header line {line[:80]!r}", request=request)
        fields.append((name, value.strip()))
    return fields


async def _read_chunked(reader: asyncio.StreamReader, request: httpx.Request) -> bytes:
    parts: list[bytes] = []
    while True:
        size_line = (await reader.readuntil(b"\r\n"))[:-2]
        size = size_line.split(b";", 1)[0].strip()
        if not size or size.strip(_HEX):
            raise httpx.RemoteProtocolError(f"bad chunk size {size_line[:40]!r}", request=request)
        length = int(size, 16)
        if length == 0:
            break
        parts.append(await reader.readexactly(length))
        if await reader.readexactly(2) != b"\r\n":
            raise httpx.RemoteProtocolError("a chunk does not end with CRLF", request=request)
    # Trailer fields, if any, up to the empty line.
    while await reader.readuntil(b"\r\n") != b"\r\n":
        pass
    return b"".join(parts)
