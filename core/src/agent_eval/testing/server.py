"""A scriptable chat-completions server on 127.0.0.1, for tests that need a real HTTP endpoint.

It speaks the OpenAI chat-completions protocol over real sockets, so any client
(httpx, the ``openai`` SDK, an agent built on either) can be pointed at it::

    from agent_eval.testing import ChatServer
    from agent_eval.testing.server import DROP, Reply, completion_reply

    with ChatServer() as server:
        server.queue(Reply(429, headers={"Retry-After": "1"}), completion_reply("hello"))
        client = openai.OpenAI(base_url=server.url, api_key="test")
        ...
        assert server.requests[-1].json["model"] == "gpt-test"

Queued replies are used first, in order; then the ``responder`` (a callable
``(request) -> reply``); without one, the server echoes the last user message.
A reply may be a :class:`Reply`, a string (the assistant's text), a
:class:`~agent_eval.testing.ModelTurn` (text and tool calls) or a mapping (sent
as a 200 JSON body). Every request is recorded in :attr:`ChatServer.requests`.

To script an agent's loop, queue a tool call and then the answer::

    server.queue(tool_calls_reply([("get_warranty", {"product": "kettle"})]), "2 years.")

``POST {url}/embeddings`` answers with vectors from the ``embedder`` (a callable
``text -> vector``, or a mapping from text to vector); without one, each text
gets a fixed vector made from its hash, so equal texts have equal vectors.
"""

from __future__ import annotations

import base64
import collections
import contextlib
import hashlib
import json
import math
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal

import attrs

from agent_eval._agent_run import ToolCall
from agent_eval.testing.scripted import ModelTurn

#: Fault: close the connection after reading the request, before any status line.
DROP: Literal["drop"] = "drop"
#: Fault: announce the full Content-Length, send only part of the body, then close.
TRUNCATE: Literal["truncate"] = "truncate"

Fault = Literal["drop", "truncate"]

_CHAT_PATH = "/v1/chat/completions"
_EMBEDDINGS_PATH = "/v1/embeddings"

__all__ = [
    "DROP",
    "TRUNCATE",
    "ChatServer",
    "RecordedRequest",
    "Reply",
    "Responder",
    "completion",
    "completion_reply",
    "echo",
    "embeddings",
    "embeddings_reply",
    "error_reply",
    "hashed_embedding",
    "tool_calls_reply",
]


@attrs.frozen
class RecordedRequest:
    """One request the server received."""

    method: str
    path: str
    #: Header names are lower-cased.
    headers: Mapping[str, str]
    body: bytes
    #: ``time.monotonic()`` when the request had been read.
    received_at: float
    #: The client's (host, port): requests on one kept-alive connection share it.
    client: tuple[str, int] = ("", 0)

    @property
    def json(self) -> Any:
        """The body parsed as JSON, or None when it is not JSON."""
        try:
            return json.loads(self.body)
        except (ValueError, UnicodeDecodeError):
            return None

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The chat messages of a chat-completions request (empty otherwise)."""
        data = self.json
        messages = data.get("messages") if isinstance(data, dict) else None
        return list(messages) if isinstance(messages, list) else []

    def message(self, role: str) -> str:
        """The text of the first message with ``role`` (``""`` when there is none)."""
        for message in self.messages:
            if isinstance(message, dict) and message.get("role") == role:
                content = message.get("content")
                return content if isinstance(content, str) else json.dumps(content)
        return ""


@attrs.frozen
class Reply:
    """What the server answers to one request: status, headers, body, a delay, or a fault."""

    status: int = 200
    #: A mapping or list is sent as JSON; a string or bytes as they are; None sends no body.
    body: Any = None
    headers: Mapping[str, str] = attrs.Factory(dict)
    #: Seconds to wait before answering (to exercise client timeouts and concurrency).
    delay: float = 0.0
    fault: Fault | None = None

    def encoded(self) -> tuple[bytes, str]:
        """The body as bytes and its content type."""
        if self.body is None:
            return b"", "application/json"
        if isinstance(self.body, bytes):
            return self.body, "application/octet-stream"
        if isinstance(self.body, str):
            return self.body.encode(), "text/plain; charset=utf-8"
        return json.dumps(self.body).encode(), "application/json"


#: What a responder may return: a Reply, the assistant's text, a model's turn, or a JSON body for a 200.
ReplyLike = Reply | str | ModelTurn | Mapping[str, Any]
Responder = Callable[[RecordedRequest], ReplyLike]
#: A scripted tool call: an ``agent_eval.ToolCall``, or ``(name, arguments)``. Arguments given as a
#: mapping are sent as JSON text; a string is sent as it is (to script arguments that are not JSON).
ToolCallLike = ToolCall | tuple[str, Mapping[str, Any] | str]
Embedder = Callable[[str], Sequence[float]]


def completion(
    content: str | None = None,
    *,
    tool_calls: Iterable[ToolCallLike] = (),
    finish_reason: str | None = None,
    model: str = "test-model",
    usage: Mapping[str, int] | None = None,
    refusal: str | None = None,
) -> dict[str, Any]:
    """An OpenAI-shaped chat-completion body whose assistant message is ``content`` and ``tool_calls``.

    A call without an id gets the next ``call_N``. ``finish_reason`` defaults to ``"tool_calls"`` when
    there are calls, else ``"stop"``. ``usage`` defaults to a small fixed count; pass ``{}`` to leave it out.
    """
    calls = ModelTurn(tool_calls=[_as_call(call) for call in tool_calls]).tool_calls
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": refusal}
    if calls:
        message["tool_calls"] = [_openai_call(call) for call in calls]
    if finish_reason is None:
        finish_reason = "tool_calls" if calls else "stop"
    body: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "finish_reason": finish_reason,
                "message": message,
            }
        ],
    }
    chosen = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18} if usage is None else dict(usage)
    if chosen:
        body["usage"] = chosen
    return body


def completion_reply(content: str | None = None, *, delay: float = 0.0, **options: Any) -> Reply:
    """A 200 reply carrying :func:`completion` (``options`` are its keyword arguments, ``tool_calls`` too)."""
    return Reply(200, completion(content, **options), delay=delay)


def tool_calls_reply(
    calls: Iterable[ToolCallLike], *, content: str | None = None, delay: float = 0.0, **options: Any
) -> Reply:
    """A 200 reply asking for ``calls`` (parallel calls when several), with finish reason ``tool_calls``.

    >>> tool_calls_reply([("get_warranty", {"product": "kettle"})]).body["choices"][0]["finish_reason"]
    'tool_calls'
    """
    return Reply(200, completion(content, tool_calls=calls, **options), delay=delay)


def _as_call(call: ToolCallLike) -> ToolCall:
    if isinstance(call, ToolCall):
        return call
    name, arguments = call
    return ToolCall(name, arguments)


def _openai_call(call: ToolCall) -> dict[str, Any]:
    arguments = call.arguments if isinstance(call.arguments, str) else json.dumps(dict(call.arguments))
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": arguments}}


def hashed_embedding(text: str, dimensions: int = 16) -> list[float]:
    """A fixed unit vector made from the hash of ``text``: equal texts get equal vectors, others differ."""
    digest = b""
    while len(digest) < dimensions:
        digest += hashlib.sha256(f"{len(digest)}:{text}".encode()).digest()
    values = [byte / 127.5 - 1.0 for byte in digest[:dimensions]]
    norm = math.sqrt(sum(value * value for value in values)) or 1.0
    return [value / norm for value in values]


def embeddings(
    vectors: Iterable[Sequence[float]],
    *,
    model: str = "test-embedding",
    encoding_format: str = "float",
    prompt_tokens: int = 5,
) -> dict[str, Any]:
    """An OpenAI-shaped embeddings body; ``encoding_format="base64"`` sends little-endian float32, as OpenAI does."""
    data = []
    for index, vector in enumerate(vectors):
        floats = [float(value) for value in vector]
        encoded: Any = floats
        if encoding_format == "base64":
            encoded = base64.b64encode(struct.pack(f"<{len(floats)}f", *floats)).decode("ascii")
        data.append({"object": "embedding", "index": index, "embedding": encoded})
    usage = {"prompt_tokens": prompt_tokens, "total_tokens": prompt_tokens}
    return {"object": "list", "data": data, "model": model, "usage": usage}


def embeddings_reply(vectors: Iterable[Sequence[float]], *, delay: float = 0.0, **options: Any) -> Reply:
    """A 200 reply carrying :func:`embeddings` (``options`` are its keyword arguments)."""
    return Reply(200, embeddings(vectors, **options), delay=delay)


def error_reply(
    status: int,
    message: str,
    *,
    type: str | None = None,
    code: str | int | None = None,
    param: str | None = None,
    headers: Mapping[str, str] | None = None,
    delay: float = 0.0,
) -> Reply:
    """An OpenAI-shaped error reply: ``{"error": {"message", "type", "param", "code"}}``."""
    body = {"error": {"message": message, "type": type, "param": param, "code": code}}
    return Reply(status, body, dict(headers or {}), delay)


def echo(request: RecordedRequest) -> ReplyLike:
    """The default responder: answer with the text of the last user message."""
    users = [m for m in request.messages if isinstance(m, dict) and m.get("role") == "user"]
    content = users[-1].get("content") if users else ""
    return completion(content if isinstance(content, str) else json.dumps(content))


class ChatServer:
    """A chat-completions server on 127.0.0.1 with an ephemeral port; use it as a context manager.

    ``url`` is the base URL to give a client (``http://127.0.0.1:PORT/v1``);
    requests go to ``{url}/chat/completions`` and ``{url}/embeddings``, and
    ``GET {url}/models`` lists ``test-model``. Thread-safe: it serves each
    connection in its own thread.
    """

    def __init__(
        self, responder: Responder | None = None, *, embedder: Embedder | Mapping[str, Sequence[float]] | None = None
    ) -> None:
        self.responder: Responder = responder or echo
        self.embedder: Embedder = _embedder(embedder)
        self._queue: collections.deque[ReplyLike] = collections.deque()
        self._embedding_queue: collections.deque[Reply | Mapping[str, Any]] = collections.deque()
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> ChatServer:
        """Start serving in a background thread (idempotent)."""
        if self._server is not None:
            return self
        server = _Server(("127.0.0.1", 0), _Handler)
        server.chat = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, name="ChatServer", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the listening socket (idempotent)."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()

    # -- addresses ---------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The port the server listens on."""
        if self._server is None:
            raise RuntimeError("ChatServer is not running; use it as a context manager or call start()")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """The base URL to give an OpenAI-compatible client: ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    # -- script ------------------------------------------------------------------------------

    def queue(self, *replies: ReplyLike) -> ChatServer:
        """Answer the next chat requests with these replies, in order, before the responder."""
        with self._lock:
            self._queue.extend(replies)
        return self

    def queue_embeddings(self, *replies: Reply | Mapping[str, Any]) -> ChatServer:
        """Answer the next embeddings requests with these replies (a mapping: a 200 JSON body), before the embedder."""
        with self._lock:
            self._embedding_queue.extend(replies)
        return self

    @property
    def pending(self) -> int:
        """How many queued replies (chat and embeddings) have not been used yet."""
        with self._lock:
            return len(self._queue) + len(self._embedding_queue)

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in arrival order (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The requests to ``/chat/completions``."""
        return [r for r in self.requests if r.path.split("?", 1)[0] == _CHAT_PATH]

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        """The requests to ``/embeddings``."""
        return [r for r in self.requests if r.path.split("?", 1)[0] == _EMBEDDINGS_PATH]

    def clear(self) -> None:
        """Forget recorded requests and queued replies."""
        with self._lock:
            self._requests.clear()
            self._queue.clear()
            self._embedding_queue.clear()

    # -- used by the handler -----------------------------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _reply_to(self, request: RecordedRequest) -> Reply:
        path = request.path.split("?", 1)[0]
        if request.method == "GET" and path == "/v1/models":
            return Reply(200, {"object": "list", "data": [{"id": "test-model", "object": "model"}]})
        if request.method == "POST" and path == _EMBEDDINGS_PATH:
            return self._embed(request)
        if request.method != "POST" or path != _CHAT_PATH:
            return error_reply(404, f"no route for {request.method} {path}", type="not_found_error")
        with self._lock:
            queued = self._queue.popleft() if self._queue else None
        try:
            chosen = queued if queued is not None else self.responder(request)
        except Exception as error:  # a broken responder is the test's bug: make it visible
            return error_reply(500, f"responder raised {type(error).__name__}: {error}", type="server_error")
        return _as_reply(chosen)

    def _embed(self, request: RecordedRequest) -> Reply:
        with self._lock:
            queued = self._embedding_queue.popleft() if self._embedding_queue else None
        if queued is not None:
            return queued if isinstance(queued, Reply) else Reply(200, dict(queued))
        body = request.json
        texts = body.get("input") if isinstance(body, dict) else None
        texts = [texts] if isinstance(texts, str) else texts
        if not isinstance(texts, list) or not texts:
            return error_reply(400, "'input' must be a string or a non-empty list", type="invalid_request_error")
        try:
            vectors = [self.embedder(text if isinstance(text, str) else json.dumps(text)) for text in texts]
        except Exception as error:  # a broken embedder is the test's bug: make it visible
            return error_reply(500, f"embedder raised {type(error).__name__}: {error}", type="server_error")
        model = body.get("model") if isinstance(body.get("model"), str) else "test-embedding"
        encoding = "base64" if body.get("encoding_format") == "base64" else "float"
        return embeddings_reply(vectors, model=model, encoding_format=encoding)


def _embedder(given: Embedder | Mapping[str, Sequence[float]] | None) -> Embedder:
    if given is None:
        return hashed_embedding
    if not isinstance(given, Mapping):
        return given
    table = dict(given)

    def scripted(text: str) -> Sequence[float]:
        try:
            return table[text]
        except KeyError:
            raise LookupError(f"no scripted embedding for {text!r}") from None

    return scripted


def _as_reply(value: ReplyLike) -> Reply:
    if isinstance(value, Reply):
        return value
    if isinstance(value, str):
        return completion_reply(value)
    if isinstance(value, ModelTurn):
        return completion_reply(value.text, tool_calls=value.tool_calls)
    if isinstance(value, Mapping):
        return Reply(200, dict(value))
    raise TypeError(f"a reply must be a Reply, a str, a ModelTurn or a mapping, got {type(value).__name__}")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # Stopping must not wait for handlers that are sleeping out a scripted delay.
    block_on_close = False
    # Many clients connect at once; the default backlog of 5 makes the kernel drop SYNs.
    request_queue_size = 256
    chat: ChatServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients that time out and hang up are expected here; stay quiet.
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body leave in separate writes; with Nagle's algorithm and the client's delayed ACK,
    # every answer would wait about 40 ms for nothing.
    disable_nagle_algorithm = True
    server: _Server

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        request = RecordedRequest(
            method=self.command,
            path=self.path,
            headers={name.lower(): value for name, value in self.headers.items()},
            body=body,
            received_at=time.monotonic(),
            client=(str(self.client_address[0]), int(self.client_address[1])),
        )
        chat = self.server.chat
        chat._record(request)
        reply = chat._reply_to(request)
        if reply.delay:
            time.sleep(reply.delay)
        with contextlib.suppress(OSError):
            self._send(reply)

    def _send(self, reply: Reply) -> None:
        if reply.fault == DROP:
            self.close_connection = True
            self._hang_up()
            return
        payload, content_type = reply.encoded()
        self.send_response(reply.status)
        names = {name.lower() for name in reply.headers}
        if "content-type" not in names:
            self.send_header("Content-Type", content_type)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if reply.fault == TRUNCATE:
            self.send_header("Content-Length", str(len(payload) + 500))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(payload[: max(1, len(payload) // 2)])
            self.wfile.flush()
            self.close_connection = True
            self._hang_up()
            return
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _hang_up(self) -> None:
        with contextlib.suppress(OSError):
            self.wfile.flush()
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
