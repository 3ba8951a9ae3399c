"""ChatServer: a scriptable chat-completions server on 127.0.0.1, over real sockets."""

from __future__ import annotations

import concurrent.futures
import json
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import httpx
import openai
import pytest

from agent_eval import ToolCall
from agent_eval.testing import ChatServer, ModelTurn
from agent_eval.testing.server import (
    DROP,
    TRUNCATE,
    RecordedRequest,
    Reply,
    completion,
    completion_reply,
    embeddings_reply,
    error_reply,
    hashed_embedding,
    tool_calls_reply,
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
    missing = httpx.post(server.url + "/audio/speech", json={})
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
    # Each reply waits until all fifty requests are being answered at once: served one after another,
    # the first would wait alone until the barrier gives up, and every request would fail.
    everyone = threading.Barrier(50, timeout=20)

    def respond(_: object) -> object:
        everyone.wait()
        return completion_reply("ok")

    server.responder = respond

    def call(_: int) -> int:
        with httpx.Client() as client:
            return client.post(server.url + "/chat/completions", json=CHAT, timeout=30).status_code

    with concurrent.futures.ThreadPoolExecutor(50) as pool:
        statuses = list(pool.map(call, range(50)))
    assert statuses == [200] * 50
    assert not everyone.broken
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


# -- tool calls ----------------------------------------------------------------------------------


def test_tool_calls_reply_asks_for_parallel_calls_with_json_arguments(server: ChatServer) -> None:
    server.queue(tool_calls_reply([("get_warranty", {"product": "kettle"}), ToolCall("search", {"q": "x"}, id="s1")]))
    data = post(server).json()
    (choice,) = data["choices"]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] is None
    first, second = choice["message"]["tool_calls"]
    assert first["id"].startswith("call_")
    assert first["type"] == "function"
    assert first["function"] == {"name": "get_warranty", "arguments": '{"product": "kettle"}'}
    assert second == {"id": "s1", "type": "function", "function": {"name": "search", "arguments": '{"q": "x"}'}}
    assert data["usage"] == {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


def test_tool_call_ids_differ_between_replies() -> None:
    ids = [completion(tool_calls=[("f", {})])["choices"][0]["message"]["tool_calls"][0]["id"] for _ in range(3)]
    assert len(set(ids)) == 3


def test_arguments_given_as_text_are_sent_as_they_are_to_script_broken_json() -> None:
    body = completion(tool_calls=[("f", '{"product": kettle')], usage={"prompt_tokens": 1, "completion_tokens": 2})
    assert body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] == '{"product": kettle'
    assert body["usage"] == {"prompt_tokens": 1, "completion_tokens": 2}


def test_text_replies_have_no_tool_calls_key_and_stop() -> None:
    body = completion_reply("hi").body
    assert "tool_calls" not in body["choices"][0]["message"]
    assert body["choices"][0]["finish_reason"] == "stop"


def test_a_model_turn_is_a_reply_with_its_text_and_calls(server: ChatServer) -> None:
    server.queue(ModelTurn(text="Checking.", tool_calls=[ToolCall("f", {"a": 1}, id="t1")]), ModelTurn(text="Done."))
    first, second = post(server).json(), post(server).json()
    assert first["choices"][0]["message"]["content"] == "Checking."
    assert first["choices"][0]["message"]["tool_calls"][0]["id"] == "t1"
    assert second["choices"][0]["finish_reason"] == "stop"


def test_an_openai_sdk_agent_runs_its_loop_against_the_script(server: ChatServer) -> None:
    server.queue(tool_calls_reply([("get_warranty", {"product": "kettle"})]), "The kettle has 2 years.")
    client = openai.OpenAI(base_url=server.url, api_key="test", max_retries=0)
    messages: list[Any] = [{"role": "user", "content": "Kettle warranty?"}]
    first = client.chat.completions.create(model="test-model", messages=messages)
    assert first.choices[0].finish_reason == "tool_calls"
    (call,) = first.choices[0].message.tool_calls
    assert (call.function.name, json.loads(call.function.arguments)) == ("get_warranty", {"product": "kettle"})
    messages += [first.choices[0].message, {"role": "tool", "tool_call_id": call.id, "content": "2 years"}]
    second = client.chat.completions.create(model="test-model", messages=messages)
    assert second.choices[0].message.content == "The kettle has 2 years."
    sent = server.chat_requests[1].messages
    assert sent[1]["tool_calls"][0]["id"] == call.id
    assert sent[2] == {"role": "tool", "tool_call_id": call.id, "content": "2 years"}


# -- embeddings ----------------------------------------------------------------------------------


def test_embeddings_default_to_a_fixed_unit_vector_per_text(server: ChatServer) -> None:
    body = {"model": "emb", "input": ["kettle", "toaster", "kettle"]}
    data = httpx.post(server.url + "/embeddings", json=body).json()
    assert (data["object"], data["model"]) == ("list", "emb")
    vectors = [item["embedding"] for item in data["data"]]
    assert [item["index"] for item in data["data"]] == [0, 1, 2]
    assert vectors[0] == vectors[2] == hashed_embedding("kettle")
    assert vectors[0] != vectors[1]
    assert abs(sum(v * v for v in vectors[0]) - 1) < 1e-9
    assert data["usage"]["prompt_tokens"] > 0
    assert [r.json["input"] for r in server.embedding_requests] == [body["input"]]


def test_embeddings_come_from_a_table_and_a_missing_text_is_named() -> None:
    with ChatServer(embedder={"kettle": [1.0, 0.0], "pot": [0.6, 0.8]}) as server:
        data = httpx.post(server.url + "/embeddings", json={"model": "m", "input": "pot"}).json()
        assert data["data"][0]["embedding"] == [0.6, 0.8]
        missing = httpx.post(server.url + "/embeddings", json={"model": "m", "input": "pan"})
        assert missing.status_code == 500
        assert missing.json()["error"]["message"] == "embedder raised LookupError: no scripted embedding for 'pan'"


def test_the_openai_sdk_reads_the_scripted_vectors_it_asked_for_in_base64() -> None:
    with ChatServer(embedder=lambda text: [float(len(text)), 0.5, -0.25]) as server:
        client = openai.OpenAI(base_url=server.url, api_key="test", max_retries=0)
        result = client.embeddings.create(model="text-embedding-3-small", input=["ab", "abcd"])
        assert [item.embedding for item in result.data] == [[2.0, 0.5, -0.25], [4.0, 0.5, -0.25]]
        assert server.embedding_requests[0].json["encoding_format"] == "base64"  # the SDK's default


def test_queued_embedding_replies_come_first_and_may_be_errors(server: ChatServer) -> None:
    server.queue_embeddings(error_reply(429, "slow down", headers={"Retry-After": "1"}), embeddings_reply([[1, 2]]))
    assert server.pending == 2
    url = server.url + "/embeddings"
    assert httpx.post(url, json={"input": "a"}).status_code == 429
    assert httpx.post(url, json={"input": "a"}).json()["data"][0]["embedding"] == [1.0, 2.0]
    assert httpx.post(url, json={"input": "a"}).json()["data"][0]["embedding"] == hashed_embedding("a")
    assert server.chat_requests == []


def test_embeddings_without_input_are_a_400(server: ChatServer) -> None:
    response = httpx.post(server.url + "/embeddings", json={"model": "m"})
    assert response.status_code == 400
    assert "'input' must be" in response.json()["error"]["message"]
