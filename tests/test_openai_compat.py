"""Other OpenAI-compatible servers' own ways (llama.cpp, Ollama, vLLM, LM Studio, OpenRouter) through the Chat
Completions provider and the loopback server: their error shapes, refusals and stream quirks, in their words."""

import functools
import json

import pytest

from ankit.errors import ProviderError, StreamError
from ankit.providers import make_provider
from ankit.records import Message, Notice, Request, StreamEnd, TextDelta, ToolCall, ToolCallDone, ToolResult
from conftest import READ, fixture_parts, openai_sse, stream_round, text_of

run = functools.partial(stream_round, kind="openai", preset="local")
TOOL_REQUEST = Request("sys", [Message("user", "read a")], [READ])


def chunk(delta: dict, finish=None, **extra) -> bytes:
    body = {"id": "chatcmpl-q", "object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


# --- errors inside the stream ---

def test_llamacpp_error_line_mid_stream_keeps_the_text_and_says_the_fix(provider_server):
    # llama.cpp's server writes a failure after the headers as an `error:` field, then [DONE]
    error = {"code": 400, "message": "request (4476 tokens) exceeds the available context size (4096 tokens), "
                                     "try increasing it", "type": "exceed_context_size_error",
             "n_prompt_tokens": 4476, "n_ctx": 4096}
    provider_server.push([chunk({"content": "Part"}), b"error: " + json.dumps(error).encode() + b"\n\n",
                          b"data: [DONE]\n\n"])
    events, failure = run(provider_server)
    assert text_of(events) == "Part" and isinstance(failure, StreamError) and not failure.retryable
    assert str(failure).startswith("local: the request (4476 tokens) does not fit the model's context window (4096 "
                                   "tokens): start anew, or set context_window = 4096 to drop the oldest messages")
    assert "\n" not in str(failure)


def test_an_error_line_that_is_not_an_overflow_is_reported_as_it_is(provider_server):
    provider_server.push(b'error: {"code":500,"message":"slot unavailable","type":"server_error"}\n\n'
                         b"data: [DONE]\n\n")
    events, failure = run(provider_server)
    assert str(failure) == "local reported an error mid-reply: slot unavailable (server_error)" and failure.retryable


def test_vllm_error_object_mid_stream_is_an_error_not_an_empty_answer(provider_server):
    vllm = {"object": "error", "message": "The decoder prompt is longer than the maximum model length",
            "type": "BadRequestError", "param": None, "code": 400}
    provider_server.push([chunk({"content": "x"}), b"data: " + json.dumps(vllm).encode() + b"\n\n",
                          b"data: [DONE]\n\n"])
    events, failure = run(provider_server)
    assert isinstance(failure, StreamError) and "maximum model length" in str(failure)
    assert not any(isinstance(e, StreamEnd) for e in events)


# --- error bodies before the stream ---

@pytest.mark.parametrize("status, body, expected", [
    (400, {"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it",
                     "type": "exceed_context_size_error", "n_prompt_tokens": 2100, "n_ctx": 2048}},
     "400 from local: the request does not fit the model's context window: start anew, or set context_window to "
     "the server's context size to drop the oldest messages"),
    (400, {"error": {"message": "This model's maximum context length is 2048 tokens. However, you requested 2301 "
                                "tokens (2301 in the messages, None in the completion). Please reduce the length of "
                                "the messages or completion.", "type": "invalid_request_error",
                     "code": "context_length_exceeded"}},
     "400 from local: the request (2301 tokens) does not fit the model's context window (2048 tokens): start "
     "anew, or set context_window = 2048 to drop the oldest messages"),
    (404, {"error": {"message": "model \"qwen9\" not found, try pulling it first", "type": "api_error"}},
     "404 from local: check the model name (test-model) and the base URL"),
    (400, {"error": "Model unloaded."}, "400 from local: Model unloaded."),
    (422, {"detail": [{"type": "missing", "loc": ["body", "messages", 0, "content"], "msg": "Field required"}]},
     "422 from local: body.messages.0.content: Field required"),
])
def test_error_bodies_in_each_servers_shape_are_one_line(provider_server, status, body, expected):
    provider_server.push(body, status=status)
    provider_server.push(body, status=status)  # a vLLM-style overflow is asked once more without max_tokens
    events, failure = run(provider_server)
    assert str(failure).startswith(expected) and "\n" not in str(failure)
    assert len(provider_server.requests) == (2 if "in the completion" in json.dumps(body) else 1)


# --- refusals: left out and sent again, remembered, said once ---

NO_TOOLS = [
    (400, {"error": {"message": "registry.ollama.ai/library/gemma3:1b does not support tools", "type": "api_error",
                     "param": None, "code": None}}),
    (500, {"error": {"code": 500, "message": "tools param requires --jinja flag", "type": "server_error"}}),
    (400, {"object": "error", "message": "\"auto\" tool choice requires --enable-auto-tool-choice and "
           "--tool-call-parser to be set", "type": "BadRequestError", "param": None, "code": 400}),
    (404, {"error": {"message": "No endpoints found that support tool use.", "code": 404}}),
]


@pytest.mark.parametrize("status, body", NO_TOOLS[:3])
def test_a_model_that_takes_no_tools_gets_the_request_without_them_once_told(provider_server, status, body):
    provider_server.push(body, status=status)
    provider_server.push_openai(text="Hi.")
    provider_server.push_openai(text="Again.")
    provider = make_provider(provider_server.settings("openai", preset="local", model="gemma3:1b"))
    first = list(provider.stream(TOOL_REQUEST))
    second = list(provider.stream(TOOL_REQUEST))
    notices = [e.text for e in first if isinstance(e, Notice)]
    assert notices == [f"local takes no tools with the model gemma3:1b ({status}): going on without tools (no files, "
                       "no commands); /model picks another model"]
    assert text_of(first) == "Hi." and text_of(second) == "Again." and not any(isinstance(e, Notice) for e in second)
    bodies = [r.json for r in provider_server.requests]
    assert len(bodies) == 3 and "tools" in bodies[0] and "tools" not in bodies[1] and "tools" not in bodies[2]
    assert bodies[1]["messages"] == bodies[0]["messages"]


def test_another_model_gets_tools_again(provider_server):
    provider_server.push(*NO_TOOLS[0][::-1])
    provider_server.push_openai(text="Hi.")
    provider_server.push_openai(text="Tools back.")
    provider = make_provider(provider_server.settings("openai", preset="local"))
    list(provider.stream(TOOL_REQUEST))
    provider.use_model("qwen3")
    list(provider.stream(TOOL_REQUEST))
    assert "tools" in provider_server.requests[2].json and provider_server.requests[2].json["model"] == "qwen3"


def test_openrouter_with_no_tool_endpoint_is_not_sent_again(provider_server):
    provider_server.push(*NO_TOOLS[3][::-1])
    events, failure = run(provider_server, TOOL_REQUEST)
    assert "404 from local" in str(failure) and len(provider_server.requests) == 1


@pytest.mark.parametrize("status, body, field", [
    (422, {"detail": [{"type": "extra_forbidden", "loc": ["body", "stream_options"],
                       "msg": "Extra inputs are not permitted"}]}, "stream_options"),
    (400, {"error": {"message": "Unrecognized request argument supplied: stream_options"}}, "stream_options"),
    (400, {"object": "error", "message": "'max_tokens' or 'max_completion_tokens' is too large: 4096. This model's "
           "maximum context length is 2048 tokens and your request has 310 input tokens (4096 > 2048 - 310).",
           "type": "BadRequestError", "param": None, "code": 400}, "max_tokens"),
    (400, {"object": "error", "message": "This model's maximum context length is 2048 tokens. However, you requested "
           "4406 tokens (310 in the messages, 4096 in the completion). Please reduce the length of the messages or "
           "completion.", "type": "BadRequestError", "param": None, "code": 400}, "max_tokens"),
])
def test_a_refused_optional_field_is_left_out_from_then_on(provider_server, status, body, field):
    provider_server.push(body, status=status)
    provider_server.push_openai(text="Fine.")
    provider_server.push_openai(text="Still fine.")
    provider = make_provider(provider_server.settings("openai", preset="local"))
    first, second = list(provider.stream(TOOL_REQUEST)), list(provider.stream(TOOL_REQUEST))
    assert [e.text for e in first if isinstance(e, Notice)] == [
        f"local refused {field} ({status}): it is left out of requests from now on"]
    assert text_of(second) == "Still fine."
    bodies = [r.json for r in provider_server.requests]
    assert field in bodies[0] and field not in bodies[1] and field not in bodies[2] and "tools" in bodies[2]


def test_a_prompt_too_long_even_without_max_tokens_ends_in_the_overflow_line(provider_server):
    overflow = {"object": "error", "message": "This model's maximum context length is 2048 tokens. However, you "
                "requested 6000 tokens (6000 in the messages, 0 in the completion).", "type": "BadRequestError",
                "code": 400}
    provider_server.push(overflow, status=400)
    provider_server.push(overflow, status=400)
    events, failure = run(provider_server, TOOL_REQUEST)
    assert str(failure).startswith("400 from local: the request (6000 tokens) does not fit the model's context "
                                   "window (2048 tokens)")
    assert len(provider_server.requests) == 2 and "max_tokens" not in provider_server.requests[1].json


@pytest.mark.parametrize("status, body", [
    (400, {"error": {"message": "Invalid schema for function 'read_file': 'required' is not of type 'array'.",
                     "type": "invalid_request_error", "param": "tools[0].function.parameters"}}),
    (400, {"error": {"message": "messages: tool_call_id is missing", "type": "invalid_request_error"}}),
    (401, {"error": {"message": "Invalid API key", "type": "invalid_request_error"}}),
])
def test_other_refusals_are_not_taken_for_a_missing_feature(provider_server, status, body):
    provider_server.push(body, status=status)
    events, failure = run(provider_server, TOOL_REQUEST)
    assert isinstance(failure, ProviderError) and len(provider_server.requests) == 1
    assert not any(isinstance(e, Notice) for e in events)


# --- tool-call deltas ---

def test_repeated_or_missing_ids_within_a_reply_become_distinct(provider_server):
    calls = [{"index": 0, "id": "call_0", "type": "function", "function": {"name": "read_file", "arguments": "{}"}},
             {"index": 1, "id": "call_0", "type": "function", "function": {"name": "read_file", "arguments": "{}"}},
             {"index": 2, "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]
    provider_server.push(b"".join(chunk({"tool_calls": [c]}) for c in calls) + chunk({}, "tool_calls")
                         + b"data: [DONE]\n\n")
    events, failure = run(provider_server)
    ids = [e.call.id for e in events if isinstance(e, ToolCallDone)]
    assert failure is None and ids[0] == "call_0" and len(set(ids)) == 3


def test_ollama_whole_tool_call_in_one_chunk_with_stop_as_finish(provider_server):
    # older Ollama: the call arrives whole, without index, and the finish reason says stop
    call = {"id": "call_k2x9", "type": "function", "function": {"name": "read_file", "arguments": '{"path":"a"}'}}
    provider_server.push(chunk({"role": "assistant", "content": "", "tool_calls": [call]})
                         + chunk({"role": "assistant", "content": ""}, "stop") + b"data: [DONE]\n\n")
    events, failure = run(provider_server)
    assert failure is None and [e.call.arguments for e in events if isinstance(e, ToolCallDone)] == ['{"path":"a"}']


def test_keep_alive_comments_and_blank_data_lines_are_skipped(provider_server):
    provider_server.push([b": OPENROUTER PROCESSING\n\n", b"data: \n\n", *fixture_parts(openai_sse(text="ok"))])
    events, failure = run(provider_server)
    assert failure is None and text_of(events) == "ok" and events[-1] == StreamEnd("end_turn")
    assert TextDelta("o") in events


# --- a thinking model's reasoning inline in the text (no reasoning parser on the server) ---

@pytest.mark.parametrize("pieces, shown", [
    (["<th", "ink>\nThe user", " greets me.</th", "ink>\n\n", "Hello", "!"], "Hello!"),
    (["\n<think>", "</think>", "\n\nHi"], "Hi"),
    (["<thinking is fun>"], "<thinking is fun>"),
    (["Plain ", "<think>not a block</think>"], "Plain <think>not a block</think>"),
    (["<thi"], "<thi"),
    (["<think>cut off before it closed"], ""),
])
def test_a_leading_think_block_is_not_reply_text(provider_server, pieces, shown):
    provider_server.push(b"".join(chunk({"content": p}) for p in pieces) + chunk({}, "stop") + b"data: [DONE]\n\n")
    events, failure = run(provider_server)
    assert failure is None and text_of(events) == shown and events[-1] == StreamEnd("end_turn")


def test_a_whole_answer_with_a_think_block(provider_server):
    provider_server.push({"object": "chat.completion", "choices": [{"index": 0, "finish_reason": "stop", "message": {
        "role": "assistant", "content": "<think>\nhm\n</think>\n\n4"}}]})
    events, failure = run(provider_server)
    assert failure is None and text_of(events) == "4"


def test_reasoning_content_sent_back_and_refused_is_left_out_of_the_messages(provider_server):
    provider_server.push({"detail": [{"type": "extra_forbidden", "loc": ["body", "messages", 1, "reasoning_content"],
                                      "msg": "Extra inputs are not permitted"}]}, status=422)
    provider_server.push_openai(text="Done.")
    call = Message("assistant", "", [ToolCall("c1", "read_file", "{}")], opaque={"openai": [{"reasoning_content": "r"}]})
    history = [Message("user", "read a"), call, Message("tool", results=[ToolResult("c1", "read_file", "A")])]
    events, failure = run(provider_server, Request("sys", history, [READ]))
    assert failure is None and [e.text for e in events if isinstance(e, Notice)] == [
        "local refused reasoning_content (422): it is left out of requests from now on"]
    first, second = (r.json["messages"][2] for r in provider_server.requests)
    assert first["reasoning_content"] == "r" and "reasoning_content" not in second and second["tool_calls"]


def test_calls_that_all_come_with_index_0_stay_apart(provider_server):
    parts = [{"index": 0, "id": "call_a", "type": "function", "function": {"name": "read_file", "arguments": ""}},
             {"index": 0, "function": {"arguments": '{"path": "a"}'}},
             {"index": 0, "id": "call_b", "type": "function", "function": {"name": "list_directory", "arguments": ""}},
             {"index": 0, "function": {"arguments": '{"path": "b"}'}},
             {"index": 0, "id": "call_b", "function": {"arguments": ""}}]
    provider_server.push(b"".join(chunk({"tool_calls": [p]}) for p in parts) + chunk({}, "tool_calls")
                         + b"data: [DONE]\n\n")
    events, failure = run(provider_server)
    assert failure is None and [e.call for e in events if isinstance(e, ToolCallDone)] == [
        ToolCall("call_a", "read_file", '{"path": "a"}'), ToolCall("call_b", "list_directory", '{"path": "b"}')]
