"""ChatServer: a scriptable chat-completions server on 127.0.0.1, over real sockets."""

from __future__ import annotations

import concurrent.futures
import json
import time
import urllib.error
import urllib.request
from typing import Any

import httpx
import pytest

from agent_eval.testing import ChatServer
from agent_eval.testing.server import (
    DROP,
    TRUNCATE,
    RecordedRequest,
    Reply,
    completion,
    completion_reply,
    error_reply,
)

CHAT = {
    "model": "gpt-test",
    "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}],
}


@pytest.fixture
def server() -> Any:
    with ChatServer() as running:
        yield running


def post(server: ChatServer, body: Any = CHAT, **options: Any) -> httpx.Response:
    return httpx.post(server.url + "/chat/completions", json=body, **options)


def test_url_is_a_loopback_base_url_with_an_ephemeral_port(server: ChatServer) -> None:
    assert server.url == f"http://127.0.0.1:{server.port}/v1"
    assert server.port > 0


def test_default_answer_echoes_the_last_user_message(server: ChatServer) -> None:
    response = post(server)
    assert response.status_code == 200
    data = response.json()
    assert data["object"] == "chat.completion"
    assert data["choices"][0]["message"] == {"role": "assistant", "content": "hi", "refusal": None}
    assert data["choices"][0]["finish_reason"] == "stop"
    assert data["usage"] == {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


def test_every_request_is_recorded_with_path_headers_and_json(server: ChatServer) -> None:
    post(server, headers={"Authorization": "Bearer k-123"})
    (request,) = server.requests
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    assert request.headers["authorization"] == "Bearer k-123"
    assert request.json == CHAT
    assert request.message("system") == "Be brief."
    assert request.message("user") == "hi"
    assert request.message("tool") == ""
    assert request.received_at <= time.monotonic()
    assert server.chat_requests == [request]


def test_queued_replies_come_first_in_order_then_the_responder(server: ChatServer) -> None:
    server.responder = lambda request: "from responder"
    server.queue("first", completion_reply("second", finish_reason="length"), {"custom": True})
    assert server.pending == 3
    contents = [post(server).json() for _ in range(4)]
    assert contents[0]["choices"][0]["message"]["content"] == "first"
    assert contents[1]["choices"][0]["finish_reason"] == "length"
    assert contents[2] == {"custom": True}
    assert contents[3]["choices"][0]["message"]["content"] == "from responder"
    assert server.pending == 0


def test_responder_sees_the_request(server: ChatServer) -> None:
    def by_model(request: RecordedRequest) -> Reply:
        return completion_reply(f"model was {request.json['model']}")

    server.responder = by_model
    assert post(server).json()["choices"][0]["message"]["content"] == "model was gpt-test"


def test_error_reply_has_the_openai_shape_and_headers(server: ChatServer) -> None:
    server.queue(
        error_reply(
            429, "Rate limit reached", type="rate_limit_error", code="rate_limit_exceeded", headers={"Retry-After": "2"}
        )
    )
    response = post(server)
    assert response.status_code == 429
    assert response.headers["retry-after"] == "2"
    assert response.json() == {
        "error": {
            "message": "Rate limit reached",
            "type": "rate_limit_error",
            "param": None,
            "code": "rate_limit_exceeded",
        }
    }


def test_completion_helper_can_leave_usage_out_and_carry_a_refusal() -> None:
    body = completion(None, usage={}, refusal="I can't", model="m")
    assert "usage" not in body
    assert body["model"] == "m"
    assert body["choices"][0]["message"] == {"role": "assistant", "content": None, "refusal": "I can't"}


def test_drop_closes_the_connection_before_any_status_line(server: ChatServer) -> None:
    server.queue(Reply(fault=DROP))
    with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
        post(server)
    assert post(server).status_code == 200


def test_truncate_sends_part_of_the_announced_body(server: ChatServer) -> None:
    server.queue(Reply(200, completion("a long enough answer to cut"), fault=TRUNCATE))
    with pytest.raises(httpx.RemoteProtocolError, match=r"complete message body"):
        post(server)


def test_truncate_is_an_incomplete_read_for_urllib_too(server: ChatServer) -> None:
    import http.client

    server.queue(Reply(200, completion("a long enough answer to cut"), fault=TRUNCATE))
    request = urllib.request.Request(
        server.url + "/chat/completions", data=json.dumps(CHAT).encode(), headers={"Content-Type": "application/json"}
    )
    with pytest.raises(http.client.IncompleteRead), urllib.request.urlopen(request, timeout=5) as response:
        response.read()


def test_delay_makes_a_client_time_out(server: ChatServer) -> None:
    server.queue(completion_reply("late", delay=1.0))
    start = time.monotonic()
    with pytest.raises(httpx.ReadTimeout):
        post(server, timeout=0.2)
    assert time.monotonic() - start < 0.9


def test_models_are_listed_and_unknown_paths_are_404(server: ChatServer) -> None:
    assert httpx.get(server.url + "/models").json()["data"][0]["id"] == "test-model"
    missing = httpx.post(server.url + "/embeddings", json={})
    assert missing.status_code == 404
    assert "no route" in missing.json()["error"]["message"]
    assert len(server.requests) == 2
    assert server.chat_requests == []


def test_a_responder_that_raises_becomes_a_500_naming_the_error(server: ChatServer) -> None:
    def broken(_: RecordedRequest) -> Reply:
        raise KeyError("oops")

    server.responder = broken
    response = post(server)
    assert response.status_code == 500
    assert "KeyError" in response.json()["error"]["message"]


def test_plain_text_and_bytes_bodies_are_sent_as_they_are(server: ChatServer) -> None:
    server.queue(Reply(502, "<html>Bad Gateway</html>"), Reply(200, b"\x00\x01"))
    first = post(server)
    assert (first.status_code, first.text) == (502, "<html>Bad Gateway</html>")
    assert post(server).content == b"\x00\x01"


def test_keep_alive_connections_are_reused(server: ChatServer) -> None:
    with httpx.Client() as client:
        for _ in range(3):
            client.post(server.url + "/chat/completions", json=CHAT)
    assert len({request.client for request in server.requests}) == 1


def test_clear_forgets_requests_and_queued_replies(server: ChatServer) -> None:
    server.queue("x")
    post(server)
    server.queue("y")
    server.clear()
    assert (server.requests, server.pending) == ([], 0)


def test_fifty_concurrent_connections_are_served_in_parallel(server: ChatServer) -> None:
    server.responder = lambda _: completion_reply("ok", delay=0.3)

    def call(_: int) -> int:
        with httpx.Client() as client:
            return client.post(server.url + "/chat/completions", json=CHAT, timeout=10).status_code

    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(50) as pool:
        statuses = list(pool.map(call, range(50)))
    elapsed = time.monotonic() - start
    assert statuses == [200] * 50
    # Served one after another this would take 15 s.
    assert elapsed < 3.0
    assert len({request.client for request in server.requests}) == 50


def test_stopping_does_not_wait_for_a_slow_reply() -> None:
    server = ChatServer().start()
    server.queue(completion_reply("never read", delay=5))
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(_post_quietly, server)
        deadline = time.monotonic() + 5
        while not server.requests and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.requests
        start = time.monotonic()
        server.stop()
        assert time.monotonic() - start < 1.0


def _post_quietly(server: ChatServer) -> None:
    try:
        post(server, timeout=0.5)
    except httpx.HTTPError:
        pass


def test_url_before_start_is_an_error_that_says_how_to_start() -> None:
    with pytest.raises(RuntimeError, match="context manager"):
        _ = ChatServer().url


def test_stop_and_start_are_idempotent() -> None:
    server = ChatServer()
    server.stop()
    assert server.start() is server.start()
    port = server.port
    server.stop()
    server.stop()
    with pytest.raises(RuntimeError):
        _ = server.port
    assert port > 0


def test_urllib_sees_http_errors_with_their_headers(server: ChatServer) -> None:
    server.queue(error_reply(429, "slow down", headers={"Retry-After": "1"}))
    request = urllib.request.Request(
        server.url + "/chat/completions", data=json.dumps(CHAT).encode(), headers={"Content-Type": "application/json"}
    )
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(request, timeout=5)
    assert raised.value.code == 429
    assert raised.value.headers["Retry-After"] == "1"


def test_answers_are_not_held_back_by_delayed_acknowledgements(server: ChatServer) -> None:
    # Headers and body are written separately; with Nagle's algorithm on, each answer waits ~40 ms.
    with httpx.Client() as client:
        client.post(server.url + "/chat/completions", json=CHAT)
        start = time.monotonic()
        for _ in range(20):
            client.post(server.url + "/chat/completions", json=CHAT)
    assert time.monotonic() - start < 0.5
