"""The Chat Completions provider against the loopback server: exact request bodies and stream parsing."""

import copy
import functools
import json

import pytest

from ankit.errors import ProviderError, StreamError
from ankit.providers import make_provider
from ankit.providers.openai import OpenAIProvider
from ankit.records import (Message, OpaqueData, Request, StreamEnd, TextDelta, ToolCall, ToolCallDone, ToolResult, Usage,
                           UsageReport)
from conftest import READ, TEST_KEY, fixture_parts, openai_sse, reply_of, stream_round, text_of

run = functools.partial(stream_round, kind="openai")


def test_make_provider_picks_the_openai_format(provider_server):
    assert isinstance(make_provider(provider_server.settings("openai")), OpenAIProvider)


def test_plain_text_stream(provider_server):
    provider_server.push("openai_text.sse")
    events, error = run(provider_server)
    assert error is None
    assert events == [TextDelta("Hello"), TextDelta("! How"), TextDelta(" can I help?"),
                      UsageReport(Usage(19, 0, 0, 8, True)), StreamEnd("end_turn")]


def test_the_request_body_for_a_whole_tool_round(provider_server):
    provider_server.push("openai_text.sse")
    history = [
        Message("user", "look at a and b"),
        Message("assistant", "", tool_calls=[ToolCall("c1", "read_file", '{"path": "a"}'),
                                             ToolCall("c2", "read_file", '{"path": "b"}')]),
        Message("tool", results=[ToolResult("c1", "read_file", "AAA"), ToolResult("c2", "read_file", "nope", True)]),
    ]
    run(provider_server, Request("You are ankit.", history, [READ], note="held back: git", max_tokens=1000),
        preset="local")
    request = provider_server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {TEST_KEY}"
    assert request.json == {
        "model": "test-model",
        "messages": [
            {"role": "system", "content": "You are ankit."},
            {"role": "user", "content": "look at a and b"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a"}'}},
                {"id": "c2", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "b"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "AAA"},
            {"role": "tool", "tool_call_id": "c2", "content": "nope"},
            {"role": "user", "content": "held back: git"},
        ],
        "tools": [{"type": "function", "function": {"name": "read_file", "description": "Read a file.",
                                                    "parameters": READ.parameters}}],
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 1000,
    }
    assert b'"content":""' in request.body.replace(b" ", b"")  # never null next to tool_calls


def test_no_tools_no_key_and_empty_turns_leave_fields_out(provider_server):
    provider_server.push("openai_text.sse")
    history = [Message("user", "hi"), Message("assistant", ""), Message("user", "again")]
    run(provider_server, Request("", history, []), preset="local", api_key="")
    request = provider_server.requests[0]
    assert "authorization" not in request.headers
    assert "tools" not in request.json and "prompt_cache_key" not in request.json
    assert request.json["messages"] == [{"role": "user", "content": "hi"}, {"role": "user", "content": "again"}]


def test_openai_preset_sends_the_session_cache_key(provider_server):
    provider_server.push("openai_text.sse")
    provider_server.push("openai_text.sse")
    run(provider_server, preset="openai", session_id="sess-42")
    run(provider_server, preset="openai", session_id="")
    first, second = provider_server.requests[0].json, provider_server.requests[1].json
    assert first["prompt_cache_key"] == "sess-42" and "prompt_cache_key" not in second
    assert first["max_completion_tokens"] == 4096 and "max_tokens" not in first


@pytest.mark.parametrize("preset, native", [("local", True), ("ollama", True), ("openrouter", True),
                                            ("github", True), ("openai", False)])
def test_other_servers_never_get_openai_only_fields(provider_server, preset, native):
    provider_server.push("openai_text.sse")
    run(provider_server, preset=preset, session_id="sess-42", native=native)  # native False: OPENAI_BASE_URL elsewhere
    body = provider_server.requests[0].json
    assert "prompt_cache_key" not in body and "max_completion_tokens" not in body and body["max_tokens"] == 4096


def test_the_tools_array_is_byte_identical_across_rounds(provider_server):
    provider_server.push("openai_text.sse")
    provider_server.push("openai_text.sse")
    request = Request("sys", [Message("user", "hi")], [READ])
    run(provider_server, request)
    request.messages.append(Message("assistant", "Hello"))
    run(provider_server, request)
    tools = [r.body[r.body.index(b'"tools"'):r.body.index(b'"stream"')] for r in provider_server.requests]
    assert tools[0] == tools[1]


def test_each_round_starts_with_the_bytes_of_the_round_before_and_a_resend_is_identical(provider_server):
    rounds = [[Message("user", "read a and b")],
              [Message("assistant", "Reading.", [ToolCall("c1", "read_file", '{"path": "a"}')]),
               Message("tool", results=[ToolResult("c1", "read_file", "AAA")])],
              [Message("assistant", "", [ToolCall("c2", "read_file", '{"path": "b"}')]),
               Message("tool", results=[ToolResult("c2", "read_file", "BBB", True)])]]
    history: list[Message] = []
    for number, added in enumerate(rounds + [[]]):  # the last round goes twice, from fresh copies
        provider_server.push("openai_text.sse")
        history += added
        note = f"note {min(number, 2)}"
        run(provider_server, Request("sys", copy.deepcopy(history), [copy.deepcopy(READ)], note=note), preset="local")
    bodies = [r.body for r in provider_server.requests]
    for number in range(2):
        before = bodies[number]
        assert bodies[number + 1].startswith(before[:before.index(b', {"role": "user", "content": "note %d"}' % number)])
    assert bodies[2] == bodies[3]


def test_two_parallel_tool_calls_with_split_arguments(provider_server):
    provider_server.push("openai_tool_calls.sse")
    events, error = run(provider_server)
    assert error is None
    assert events == [
        ToolCallDone(ToolCall("call_DdmO9pD3xa9XTPNJ32zg2hcA", "read_file", '{"path": "README.md"}')),
        ToolCallDone(ToolCall("call_ABTPD7cTgvnB0LXhVdIhv8kn", "list_directory", '{"path": "src"}')),
        UsageReport(Usage(212, 0, 0, 41, True)),
        StreamEnd("tool_use"),
    ]


def deltas_without_index(*tool_call_deltas: list) -> bytes:
    """A stream whose tool-call deltas carry no index, as some OpenAI-compatible servers send them."""
    def chunk(delta, reason=None):
        body = {"id": "chatcmpl-x", "choices": [{"index": 0, "delta": delta, "finish_reason": reason}]}
        return f"data: {json.dumps(body)}\n\n".encode()

    parts = [chunk({"role": "assistant", "content": ""})]
    parts += [chunk({"tool_calls": delta}) for delta in tool_call_deltas]
    return b"".join([*parts, chunk({}, "tool_calls"), b"data: [DONE]\n\n"])


def test_two_parallel_calls_without_index_stay_two_calls(provider_server):
    provider_server.push(fixture_parts(deltas_without_index(
        [{"id": "call_a", "type": "function", "function": {"name": "read_file", "arguments": ""}}],
        [{"function": {"arguments": '{"path": "a.txt"}'}}],
        [{"id": "call_b", "type": "function", "function": {"name": "read_file", "arguments": '{"path"'}}],
        [{"function": {"arguments": ': "b.txt"}'}}],
        [{"id": "call_c", "function": {"name": "get_time", "arguments": "{}"}},
         {"id": "call_d", "function": {"name": "list_directory", "arguments": "{}"}}])))
    events, error = run(provider_server)
    assert error is None
    assert [e.call for e in events if isinstance(e, ToolCallDone)] == [
        ToolCall("call_a", "read_file", '{"path": "a.txt"}'), ToolCall("call_b", "read_file", '{"path": "b.txt"}'),
        ToolCall("call_c", "get_time", "{}"), ToolCall("call_d", "list_directory", "{}")]


def test_a_first_delta_without_id_or_index_gets_an_id_and_does_not_crash(provider_server):
    provider_server.push(fixture_parts(deltas_without_index(
        [{"function": {"name": "read_file", "arguments": '{"path": '}}],
        [{"function": {"arguments": '"notes.txt"}'}}])))
    events, error = run(provider_server)
    assert error is None
    call = events[0].call
    assert (call.name, call.arguments) == ("read_file", '{"path": "notes.txt"}')
    assert call.id.startswith("call_") and len(call.id) > len("call_")


def test_cached_tokens_are_read_from_the_usage_chunk(provider_server):
    provider_server.push("openai_usage_cached.sse")
    events, _ = run(provider_server)
    assert events[-2] == UsageReport(Usage(input_tokens=2006, cached_tokens=1920, output_tokens=300, reported=True))


@pytest.mark.parametrize("fixture, usage", [
    ("openai_usage_choices_null.sse", Usage(40, 0, 0, 3, True)),
    ("openai_usage_empty_delta.sse", Usage(41, 32, 0, 4, True)),
])
def test_usage_chunk_variants(provider_server, fixture, usage):
    provider_server.push(fixture)
    events, error = run(provider_server)
    assert error is None and events == [TextDelta("Hi."), UsageReport(usage), StreamEnd("end_turn")]


def test_a_repeated_id_and_name_are_set_not_concatenated(provider_server):
    provider_server.push("openai_repeated_name.sse")
    events, _ = run(provider_server)
    assert events[0] == ToolCallDone(ToolCall("call_7f3a", "read_file", '{"path": "setup.cfg"}'))
    assert events[1] == UsageReport(Usage(150, 0, 0, 20, True))


def test_a_stream_without_usage_is_fine(provider_server):
    provider_server.push("openai_no_usage.sse")
    events, error = run(provider_server)
    assert error is None
    assert events == [TextDelta("Local"), TextDelta(" answer."), StreamEnd("end_turn")]


def test_raw_newlines_inside_string_arguments_are_kept(provider_server):
    provider_server.push("openai_raw_newline_args.sse")
    events, _ = run(provider_server)
    call = events[0].call
    assert call.name == "write_file" and "\n" in call.arguments
    assert json.loads(call.arguments, strict=False) == {"path": "notes.txt", "content": "line one\nline two\n"}


def test_a_stream_that_ends_without_done_or_finish_is_an_error_after_the_partial_text(provider_server):
    provider_server.push("openai_no_done_cut.sse", chunked=False)
    events, error = run(provider_server)
    assert text_of(events) == "The first half of an answer"
    assert isinstance(error, StreamError) and "ended the reply before it finished" in str(error)
    assert not any(isinstance(e, StreamEnd) for e in events)


def test_a_connection_cut_midway_keeps_the_partial_text(provider_server):
    provider_server.push(fixture_parts("openai_text.sse")[:3] + ["cut"])
    events, error = run(provider_server)
    assert text_of(events) == "Hello! How" and isinstance(error, StreamError)


def test_a_finish_reason_without_done_is_accepted(provider_server):
    provider_server.push(openai_sse(text="ok", done=False))
    events, error = run(provider_server)
    assert error is None and text_of(events) == "ok" and events[-1] == StreamEnd("end_turn")


def test_an_error_payload_in_the_stream(provider_server):
    provider_server.push("openai_error_event.sse")
    events, error = run(provider_server)
    assert text_of(events) == "Partial"
    assert isinstance(error, ProviderError) and error.retryable
    assert str(error) == ("openai reported an error mid-reply: The server had an error while processing your "
                          "request. Sorry about that! (server_error)")


def test_a_stalled_stream_keeps_the_partial_text(provider_server):
    provider_server.push(fixture_parts("openai_text.sse")[:2] + ["stall"])
    events, error = run(provider_server, idle_timeout=1.0)  # the events before the stall get 1 s, a loaded machine's margin
    assert text_of(events) == "Hello"
    assert isinstance(error, StreamError) and "sent nothing for 1 s" in str(error)


def test_a_429_before_the_stream_is_retried_transparently(provider_server):
    provider_server.push("openai_429.http")
    provider_server.push("openai_text.sse")
    events, error = run(provider_server)
    assert error is None and text_of(events) == "Hello! How can I help?"
    assert provider_server.requests[0].body == provider_server.requests[1].body


def test_a_server_that_ignores_stream_true(provider_server):
    whole = {"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "finish_reason": "tool_calls",
             "message": {"role": "assistant", "content": "Let me look.", "tool_calls": [
                 {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"x\"}"}}]}}],
             "usage": {"prompt_tokens": 5, "completion_tokens": 6, "total_tokens": 11}}
    provider_server.push(whole)
    events, error = run(provider_server)
    assert error is None
    assert events == [TextDelta("Let me look."), ToolCallDone(ToolCall("call_1", "read_file", '{"path":"x"}')),
                      UsageReport(Usage(5, 0, 0, 6, True)), StreamEnd("tool_use")]


@pytest.mark.parametrize("reply", [
    b'data: {"choices": [{"index": 0, "delta": {"content": "Hi"}}]}\n\n'
    b'data: {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": "read_file"}]}}]}\n\n',
    b'data: {"choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": "stop"}],'
    b' "usage": {"prompt_tokens": "many"}}\n\ndata: [DONE]\n\n',
    {"choices": ["Hi"]},
])
def test_a_reply_of_an_odd_shape_is_one_line(provider_server, reply):
    provider_server.push(reply)
    events, error = run(provider_server)
    assert isinstance(error, StreamError) and not error.retryable
    assert str(error).startswith("openai sent a reply ankit cannot read (") and "\n" not in str(error)
    assert str(error).endswith("); check --base-url")
    assert not any(isinstance(e, StreamEnd) for e in events)


def test_generated_streams_from_the_harness_round_trip(provider_server):
    provider_server.push_openai(text="Hi there", tool_calls=[("c9", "list_directory", '{"path": "."}')],
                                usage={"prompt_tokens": 9, "completion_tokens": 2})
    events, error = run(provider_server)
    assert error is None
    assert events == [TextDelta("Hi t"), TextDelta("here"),
                      ToolCallDone(ToolCall("c9", "list_directory", '{"path": "."}')),
                      UsageReport(Usage(9, 0, 0, 2, True)), StreamEnd("tool_use")]


# --- reasoning: never shown; DeepSeek's reasoning_content goes back with the tool calls it led to ---

DEEPSEEK_REASONING = "The user wants the version. I should read pyproject.toml first; the version is under [project]."


def test_reasoning_content_is_not_reply_text_and_is_kept_for_the_tool_calls(provider_server):
    provider_server.push("openai_reasoning_content.sse")
    events, error = run(provider_server)
    assert error is None and text_of(events) == ""
    assert events == [
        ToolCallDone(ToolCall("call_00_Xq7mB2vN9kR4tL8pW3sZ", "read_file", '{"path": "pyproject.toml"}')),
        OpaqueData("openai", [{"reasoning_content": DEEPSEEK_REASONING}]),
        UsageReport(Usage(1204, 1152, 0, 61, True)), StreamEnd("tool_use")]


def test_reasoning_content_goes_back_only_on_assistant_turns_with_tool_calls(provider_server):
    provider_server.push("openai_reasoning_content.sse")
    provider_server.push("openai_text.sse")
    provider = make_provider(provider_server.settings("openai", preset="local"))
    reply = reply_of(provider.stream(Request("sys", [Message("user", "which version?")], [READ])))
    answer = Message("assistant", "Version 1.2.", opaque={"openai": [{"reasoning_content": "not wanted back"}]})
    history = [Message("user", "which version?"), reply,
               Message("tool", results=[ToolResult("call_00_Xq7mB2vN9kR4tL8pW3sZ", "read_file", "version = 1.2")]),
               answer, Message("user", "thanks")]
    list(provider.stream(Request("sys", history, [READ])))
    messages = provider_server.requests[1].json["messages"]
    assert messages[2] == {"role": "assistant", "content": "", "reasoning_content": DEEPSEEK_REASONING, "tool_calls": [
        {"id": "call_00_Xq7mB2vN9kR4tL8pW3sZ", "type": "function",
         "function": {"name": "read_file", "arguments": '{"path": "pyproject.toml"}'}}]}
    assert messages[4] == {"role": "assistant", "content": "Version 1.2."}


def test_openrouter_reasoning_is_neither_shown_nor_kept(provider_server):
    provider_server.push("openai_reasoning_field.sse")
    events, error = run(provider_server, preset="openrouter")
    assert error is None
    assert events == [TextDelta("9.8 is greater."), UsageReport(Usage(21, 0, 0, 30, True)), StreamEnd("end_turn")]


def test_odd_reasoning_shapes_do_not_crash_and_a_plain_answer_keeps_no_reasoning(provider_server):
    base = {"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    chunks = [{"choices": [{"index": 0, "delta": {"reasoning_content": {"stage": "generation", "progress": 50}}}]},
              {"choices": [{"index": 0, "delta": {"content": None, "reasoning_content": "no calls, nothing kept"}}]},
              {"choices": [{"index": 0, "delta": {"reasoning": {"effort": "high"}, "reasoning_details": None}}]},
              {"choices": [{"index": 0, "delta": "not an object"}]},
              {"choices": [{"index": 0, "delta": {"content": "Done.", "reasoning_content": None, "tool_calls": None}}]},
              {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
    provider_server.push(b"".join(b"data: " + json.dumps({**base, **c}).encode() + b"\n\n" for c in chunks)
                         + b"data: [DONE]\n\n")
    events, error = run(provider_server)
    assert error is None and events == [TextDelta("Done."), StreamEnd("end_turn")]


def test_a_whole_answer_with_reasoning_content(provider_server):
    call = {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    message = {"role": "assistant", "content": None, "reasoning_content": "Look first.", "tool_calls": [call]}
    provider_server.push({"id": "c", "object": "chat.completion",
                          "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}]})
    events, error = run(provider_server)
    assert error is None and text_of(events) == ""
    assert OpaqueData("openai", [{"reasoning_content": "Look first."}]) in events


def test_an_image_goes_as_an_image_url_data_part(provider_server):
    from ankit.records import Image
    provider_server.push_openai(text="a dot")
    request = Request("sys", [Message("user", "what is this?", images=[Image("image/png", "iVBORw0K", "a.png")])], [])
    stream_round(provider_server, request)
    assert provider_server.requests[0].json["messages"][-1] == {"role": "user", "content": [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0K"}}]}
