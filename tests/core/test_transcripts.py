"""AgentRun from chat transcripts: OpenAI chat completions and Anthropic messages, in the providers' shapes."""

from __future__ import annotations

import json
from typing import Any

import anthropic.types
import openai
import pytest
from openai.types.chat import ChatCompletion

from agent_eval import AgentRun, ToolCall, Usage
from agent_eval.testing import ChatServer
from agent_eval.testing.server import tool_calls_reply


def openai_call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def assistant_calls(*calls: dict[str, Any], content: Any = None) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "tool_calls": list(calls)}


def tool(call_id: str, content: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


USER = {"role": "user", "content": "How long is the kettle's warranty?"}


def completion_of(message: dict[str, Any], usage: dict[str, int] | None = None) -> ChatCompletion:
    return ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1700000000,
            "model": "gpt-4o-mini",
            "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
            "usage": usage or {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25},
        }
    )


# -- OpenAI --------------------------------------------------------------------------------------


def test_a_tool_call_its_result_and_the_answer() -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        USER,
        assistant_calls(openai_call("call_a", "get_warranty", {"product": "kettle"})),
        tool("call_a", '{"years": 2}'),
        {"role": "assistant", "content": "Two years."},
    ]
    run = AgentRun.from_openai_messages(messages)
    assert run.output == "Two years."
    assert run.tool_calls == (ToolCall("get_warranty", {"product": "kettle"}, result='{"years": 2}', id="call_a"),)
    assert run.usage is None
    assert run.messages == tuple(messages)
    assert run.messages[2] is not messages[2]  # kept as a copy: changing the list later changes nothing


def test_parallel_calls_keep_their_order_whatever_order_the_results_come_in() -> None:
    run = AgentRun.from_openai_messages(
        [
            USER,
            assistant_calls(
                openai_call("c1", "search", {"q": "kettle"}),
                openai_call("c2", "search", {"q": "toaster"}),
                openai_call("c3", "get_warranty", {"product": "kettle"}),
            ),
            tool("c3", "2 years"),
            tool("c1", "found kettle"),
            tool("c2", "found toaster"),
            {"role": "assistant", "content": "Done."},
        ]
    )
    assert [(c.id, c.name, c.arguments, c.result) for c in run.tool_calls] == [
        ("c1", "search", {"q": "kettle"}, "found kettle"),
        ("c2", "search", {"q": "toaster"}, "found toaster"),
        ("c3", "get_warranty", {"product": "kettle"}, "2 years"),
    ]


def test_calls_across_several_steps_are_in_the_order_made() -> None:
    run = AgentRun.from_openai_messages(
        [
            USER,
            assistant_calls(openai_call("a", "search", {"q": "kettle"})),
            tool("a", "kettle-1"),
            assistant_calls(openai_call("b", "get_warranty", {"id": "kettle-1"}), content="Found it, checking."),
            tool("b", "2 years"),
            {"role": "assistant", "content": "2 years."},
        ]
    )
    assert [c.name for c in run.tool_calls] == ["search", "get_warranty"]
    assert run.output == "2 years."


def test_arguments_that_are_not_a_json_object_are_kept_as_text_and_marked() -> None:
    run = AgentRun.from_openai_messages(
        [
            assistant_calls(
                openai_call("a", "f", '{"product": kettle'),
                openai_call("b", "f", "[1, 2]"),
                openai_call("c", "f", ""),
                openai_call("d", "f", "{}"),
            ),
            {"role": "assistant", "content": "ok"},
        ]
    )
    broken, listed, empty, braces = run.tool_calls
    assert (broken.arguments, broken.arguments_valid) == ('{"product": kettle', False)
    assert (listed.arguments, listed.arguments_valid) == ("[1, 2]", False)
    assert (empty.arguments, empty.arguments_valid) == ({}, True)  # some servers send "" for no arguments
    assert braces.arguments == {}


@pytest.mark.parametrize(
    ("content", "result", "error"),
    [
        ("Error: product 'kettel' not found", None, "Error: product 'kettel' not found"),
        ('{"error": "not found"}', None, "not found"),
        ('{"error": {"code": 404, "message": "not found"}}', None, '{"code": 404, "message": "not found"}'),
        ('{"error": null, "years": 2}', '{"error": null, "years": 2}', None),
        ("error: lower case is an answer", "error: lower case is an answer", None),
        ("The Error: is not at the start", "The Error: is not at the start", None),
        ('{"years": 2}', '{"years": 2}', None),
        ("{not json", "{not json", None),
        ([{"type": "text", "text": "Error: "}, {"type": "text", "text": "down"}], None, "Error: down"),
        ([{"type": "text", "text": "2 "}, {"type": "text", "text": "years"}], "2 years", None),
    ],
)
def test_a_tool_message_is_an_error_when_it_starts_with_error_or_is_an_object_with_an_error(
    content: Any, result: Any, error: str | None
) -> None:
    run = AgentRun.from_openai_messages([assistant_calls(openai_call("a", "f", {})), tool("a", content)])
    (call,) = run.tool_calls
    assert (call.result, call.error) == (result, error)


def test_a_call_without_a_result_is_kept_with_none() -> None:
    run = AgentRun.from_openai_messages([USER, assistant_calls(openai_call("a", "search", {"q": "x"}))])
    (call,) = run.tool_calls
    assert (call.name, call.result, call.error) == ("search", None, None)
    assert run.output == ""  # the transcript has no answer


@pytest.mark.parametrize(
    ("messages", "output"),
    [
        ([{"role": "assistant", "content": [{"type": "text", "text": "Two "}, {"type": "text", "text": "years."}]}],
         "Two years."),
        ([{"role": "assistant", "content": "first"}, USER, {"role": "assistant", "content": "second"}], "second"),
        ([{"role": "assistant", "content": "Let me check."}, assistant_calls(openai_call("a", "f", {})),
          tool("a", "x")], "Let me check."),
        ([{"role": "assistant", "content": None, "refusal": "I can't help with that."}], "I can't help with that."),
        ([{"role": "assistant", "content": [{"type": "refusal", "refusal": "No."}]}], "No."),
        ([{"role": "assistant", "content": "answer"}, {"role": "assistant", "content": ""}], "answer"),
        ([USER], ""),
        ([], ""),
    ],
)  # fmt: skip
def test_the_output_is_the_last_assistant_text(messages: list[Any], output: str) -> None:
    assert AgentRun.from_openai_messages(messages).output == output


def test_usage_may_be_a_usage_an_openai_mapping_or_object_or_a_list_of_them() -> None:
    def usage_of(usage: Any) -> Usage | None:
        return AgentRun.from_openai_messages([], usage=usage).usage

    completion = completion_of({"role": "assistant", "content": "x"})
    assert usage_of(Usage(3, 4)) == Usage(3, 4)
    assert usage_of({"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}) == Usage(10, 2)
    assert usage_of(completion.usage) == Usage(20, 5)
    assert usage_of([completion.usage, {"prompt_tokens": 1, "completion_tokens": 1}, Usage(1, 1)]) == Usage(22, 7)
    assert usage_of(None) is None
    with pytest.raises(ValueError, match="usage must have prompt_tokens and completion_tokens"):
        usage_of({"total": 3})
    with pytest.raises(ValueError, match="usage prompt_tokens must be a whole number of tokens, got -1"):
        usage_of({"prompt_tokens": -1, "completion_tokens": 0})


def test_the_openai_sdks_own_objects_are_read_and_kept_as_plain_dicts() -> None:
    first = completion_of(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [openai_call("call_1", "get_warranty", {"product": "kettle"})],
        }
    )
    second = completion_of({"role": "assistant", "content": "The kettle has 2 years."})
    messages: list[Any] = [
        USER,
        first.choices[0].message,  # the SDK's object, as an agent appends it
        tool("call_1", "2 years"),
        second.choices[0].message.model_dump(),
    ]
    run = AgentRun.from_openai_messages(messages, usage=[first.usage, second.usage])
    assert run.tool_calls == (ToolCall("get_warranty", {"product": "kettle"}, result="2 years", id="call_1"),)
    assert run.output == "The kettle has 2 years."
    assert run.usage == Usage(40, 10)
    assert all(type(message) is dict for message in run.messages)
    assert run.messages[1]["tool_calls"][0]["function"]["name"] == "get_warranty"


def test_a_real_openai_client_loop_against_chat_server() -> None:
    with ChatServer() as server:
        server.queue(
            tool_calls_reply([("search", {"q": "kettle"}), ("get_warranty", {"product": "kettle"})]),
            "The kettle has 2 years, extendable to 4.",
        )
        client = openai.OpenAI(base_url=server.url, api_key="test", max_retries=0)
        messages: list[Any] = [USER]
        usages = []
        while True:
            completion = client.chat.completions.create(model="test-model", messages=messages)
            usages.append(completion.usage)
            message = completion.choices[0].message
            messages.append(message)
            if not message.tool_calls:
                break
            for call in message.tool_calls:
                messages.append(tool(call.id, f"{call.function.name} ok"))
    run = AgentRun.from_openai_messages(messages, usage=usages)
    assert [(c.name, c.arguments, c.result) for c in run.tool_calls] == [
        ("search", {"q": "kettle"}, "search ok"),
        ("get_warranty", {"product": "kettle"}, "get_warranty ok"),
    ]
    assert run.output == "The kettle has 2 years, extendable to 4."
    assert run.usage == Usage(22, 14)


def test_a_custom_tool_call_keeps_its_free_text_input() -> None:
    call = {"id": "c", "type": "custom", "custom": {"name": "sql", "input": "SELECT 1"}}
    (made,) = AgentRun.from_openai_messages([assistant_calls(call), tool("c", "1")]).tool_calls
    assert (made.name, made.arguments, made.result) == ("sql", "SELECT 1", "1")


@pytest.mark.parametrize(
    ("messages", "problem"),
    [
        ("hello", "messages must be a list of messages, got str"),
        ({"role": "user"}, "messages must be a list of messages, got dict"),
        ([USER, "hi"], "message 1 must be a mapping with a 'role', got str"),
        ([USER, {"content": "hi"}], "message 1 has no 'role'"),
        ([USER, tool("nope", "x")], "message 1 answers tool call 'nope', which no earlier message made"),
        ([assistant_calls(openai_call("a", "f", {})), tool("a", "x"), tool("a", "y")],
         "message 2 answers tool call 'a' again (message 1 did)"),
        ([assistant_calls(openai_call("a", "f", {})), {"role": "tool", "content": "x"}],
         "message 1 is a tool result with no 'tool_call_id': it must name the call it answers"),
        ([{"role": "assistant", "tool_calls": {"id": "a"}}], "message 0: 'tool_calls' must be a list, got dict"),
        ([assistant_calls({"id": "a", "type": "function", "function": {"arguments": "{}"}})],
         "message 0: tool call 0 has no function name"),
        ([assistant_calls(openai_call("a", "f", {}), "x")], "message 0: tool call 1 must be a mapping, got str"),
        ([assistant_calls({"id": "a", "function": {"name": "f", "arguments": 3}})],
         "message 0: tool call 0 has arguments of type int, expected JSON text or a mapping"),
    ],
)  # fmt: skip
def test_a_malformed_transcript_is_a_value_error_naming_the_message(messages: Any, problem: str) -> None:
    with pytest.raises(ValueError) as raised:
        AgentRun.from_openai_messages(messages)
    assert str(raised.value).startswith(problem)


# -- Anthropic -----------------------------------------------------------------------------------


def tool_use(use_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": use_id, "name": name, "input": arguments}


def tool_result(use_id: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": use_id, "content": content, **extra}


def test_anthropic_tool_use_its_result_and_the_answer() -> None:
    messages = [
        {"role": "user", "content": "How long is the kettle's warranty?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me check."},
                tool_use("toolu_1", "get_warranty", {"product": "kettle"}),
            ],
        },
        {"role": "user", "content": [tool_result("toolu_1", "2 years")]},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Two years, "}, {"type": "text", "text": "extendable."}],
        },
    ]
    run = AgentRun.from_anthropic_messages(messages, usage={"input_tokens": 30, "output_tokens": 8})
    assert run.tool_calls == (ToolCall("get_warranty", {"product": "kettle"}, result="2 years", id="toolu_1"),)
    assert run.output == "Two years, extendable."
    assert run.usage == Usage(30, 8)
    assert run.messages == tuple(messages)


def test_anthropic_parallel_calls_an_error_and_results_as_text_blocks() -> None:
    run = AgentRun.from_anthropic_messages(
        [
            {"role": "user", "content": "Compare"},
            {
                "role": "assistant",
                "content": [tool_use("a", "search", {"q": "kettle"}), tool_use("b", "search", {"q": "pan"})],
            },
            {
                "role": "user",
                "content": [
                    tool_result("b", [{"type": "text", "text": "no such product"}], is_error=True),
                    tool_result("a", [{"type": "text", "text": "kettle "}, {"type": "text", "text": "found"}]),
                ],
            },
            {"role": "assistant", "content": "Only the kettle exists."},
        ]
    )
    found, missing = run.tool_calls
    assert (found.arguments, found.result, found.error) == ({"q": "kettle"}, "kettle found", None)
    assert (missing.arguments, missing.result, missing.error) == ({"q": "pan"}, None, "no such product")
    assert run.output == "Only the kettle exists."


def test_anthropic_results_that_are_not_text_are_kept_and_an_error_without_text_still_is_one() -> None:
    image = [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}}]
    run = AgentRun.from_anthropic_messages(
        [
            {"role": "assistant", "content": [tool_use("a", "screenshot", {}), tool_use("b", "f", {}),
                                              tool_use("c", "g", {})]},
            {"role": "user", "content": [tool_result("a", image), tool_result("b", None, is_error=True),
                                         {"type": "tool_result", "tool_use_id": "c"}]},
        ]
    )  # fmt: skip
    shot, failed, bare = run.tool_calls
    assert shot.result == image
    assert (failed.result, failed.error) == (None, "the tool reported an error with no text")
    assert (bare.result, bare.error) == (None, None)


def test_anthropic_server_tools_are_calls_made_and_their_error_codes_are_errors() -> None:
    run = AgentRun.from_anthropic_messages(
        [
            {"role": "user", "content": "News?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
                     "input": {"query": "kettles"}},
                    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
                     "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}},
                    {"type": "text", "text": "I could not search."},
                ],
            },
        ]
    )  # fmt: skip
    (search,) = run.tool_calls
    assert (search.name, search.arguments, search.error) == ("web_search", {"query": "kettles"}, "max_uses_exceeded")
    assert run.output == "I could not search."


def test_anthropic_usage_counts_cache_reads_and_writes_as_input() -> None:
    usage = anthropic.types.Usage.model_validate(
        {"input_tokens": 10, "output_tokens": 4, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 200}
    )
    assert AgentRun.from_anthropic_messages([], usage=usage).usage == Usage(1210, 4)
    assert AgentRun.from_anthropic_messages([], usage=[usage, Usage(1, 1)]).usage == Usage(1211, 5)


def test_the_anthropic_sdks_own_objects_are_read() -> None:
    first = anthropic.types.Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [
                {"type": "text", "text": "Checking."},
                tool_use("toolu_1", "get_warranty", {"product": "kettle"}),
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 50, "output_tokens": 20},
        }
    )
    final = anthropic.types.Message.model_validate(
        {
            "id": "msg_2",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "Two years."}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 80, "output_tokens": 5},
        }
    )
    messages: list[Any] = [
        {"role": "user", "content": "Kettle warranty?"},
        {"role": "assistant", "content": first.content},  # the SDK's blocks, as an agent appends them
        {"role": "user", "content": [tool_result("toolu_1", "2 years")]},
        final,  # or the whole Message
    ]
    run = AgentRun.from_anthropic_messages(messages, usage=[first.usage, final.usage])
    assert run.tool_calls == (ToolCall("get_warranty", {"product": "kettle"}, result="2 years", id="toolu_1"),)
    assert run.output == "Two years."
    assert run.usage == Usage(130, 25)
    assert all(type(message) is dict for message in run.messages)
    assert run.messages[1]["content"][1]["type"] == "tool_use"


@pytest.mark.parametrize(
    ("messages", "problem"),
    [
        ([{"role": "user", "content": [tool_result("toolu_9", "x")]}],
         "message 0 answers tool call 'toolu_9', which no earlier message made"),
        ([{"role": "assistant", "content": ["text"]}], "message 0: content block 0 must be a mapping, got str"),
        ([{"role": "assistant", "content": [{"type": "tool_use", "id": "a", "input": {}}]}],
         "message 0: tool_use block 0 has no name"),
        ([{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}],
         "message 0 is a tool result with no 'tool_use_id'"),
        ([{"role": "assistant", "content": 3}], "message 0: 'content' must be a list, got int"),
    ],
)  # fmt: skip
def test_a_malformed_anthropic_transcript_is_a_value_error_naming_the_message(messages: Any, problem: str) -> None:
    with pytest.raises(ValueError) as raised:
        AgentRun.from_anthropic_messages(messages)
    assert str(raised.value).startswith(problem)
