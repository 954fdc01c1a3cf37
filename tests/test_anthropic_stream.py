"""Reading Messages replies against the loopback server: streamed events and whole answers as neutral events."""

import functools

import pytest

from ankit.errors import ProviderError, StreamError
from ankit.records import (Message, OpaqueData, Request, StreamEnd, TextDelta, ToolCall, ToolCallDone, ToolSpec, Usage,
                           UsageReport)
from conftest import fixture_parts, stream_round, text_of

run = functools.partial(stream_round, kind="anthropic")
WEATHER = ToolSpec("get_weather", "Get current weather for a location",
                   {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]})
DOCUMENTED_THINKING = {  # the documented example's block, as the stream in the fixture assembles it
    "type": "thinking",
    "thinking": "The user wants to know the current weather in Paris. I have access to a function `get_weather`...",
    "signature": "BDaL4VrbR2Oj0hO4XpJxT28J5TILnCrrUXoKiiNBZW9P+nr8XSj1zuZzAl4egiCCpQNvfyUuFFJP5CncdYZEQPPmLxYsNrcs....",
}


def test_plain_text_stream(provider_server):
    provider_server.push("anthropic_text.sse")
    events, error = run(provider_server)
    assert error is None
    assert events == [TextDelta("Hello"), TextDelta("! How can I help?"), UsageReport(Usage(25, 0, 0, 15, True)),
                      StreamEnd("end_turn")]


def test_tool_use_blocks_become_calls(provider_server):
    provider_server.push("anthropic_tool_use.sse")
    events, error = run(provider_server)
    assert error is None
    assert events == [
        TextDelta("Okay, let me look at the README"), TextDelta(" and the folder:"),
        ToolCallDone(ToolCall("toolu_01T1x1fJ34qAmk2tNTrN7Up6", "read_file", '{"path": "README.md"}')),
        ToolCallDone(ToolCall("toolu_01VbqYtYHbX2E7Z7Nh4Ht3Q9", "list_directory", "{}")),
        UsageReport(Usage(472, 0, 0, 89, True)),
        StreamEnd("tool_use"),
    ]


def test_cache_read_and_write_usage_is_replaced_not_added(provider_server):
    provider_server.push("anthropic_usage_cached.sse")
    events, _ = run(provider_server)
    assert events[-2] == UsageReport(Usage(input_tokens=12 + 3000 + 1500, cached_tokens=3000,
                                           cache_write_tokens=1500, output_tokens=42, reported=True))


def test_an_error_event_keeps_the_partial_text(provider_server):
    provider_server.push("anthropic_error_event.sse")
    events, error = run(provider_server)
    assert text_of(events) == "Partial"
    assert isinstance(error, ProviderError) and error.retryable and error.status == 529
    assert str(error) == "anthropic is overloaded (Overloaded); try again in a moment"


def test_ping_thinking_comments_and_unknown_events_are_ignored(provider_server):
    provider_server.push("anthropic_ping_unknown.sse")
    events, error = run(provider_server)
    assert error is None
    thinking = {"type": "thinking", "thinking": "Let me think.",
                "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}
    assert events == [TextDelta("Still here."), OpaqueData("anthropic", [thinking, {"type": "text", "chars": 11}]),
                      UsageReport(Usage(9, 0, 0, 7, True)), StreamEnd("end_turn")]


@pytest.mark.parametrize("how", ["cut", "reset"])
def test_a_stream_cut_midway(provider_server, how):
    provider_server.push(fixture_parts("anthropic_text.sse")[:4] + [how])
    events, error = run(provider_server)
    assert text_of(events) == "Hello"
    assert isinstance(error, StreamError) and "ended the reply before it finished" in str(error)


def test_a_stalled_stream(provider_server):
    provider_server.push(fixture_parts("anthropic_text.sse")[:4] + ["stall"])
    events, error = run(provider_server, idle_timeout=1.0)  # the events before the stall get 1 s, a loaded machine's margin
    assert text_of(events) == "Hello"
    assert isinstance(error, StreamError) and str(error).startswith("anthropic sent nothing for 1 s")


def test_a_server_that_ignores_stream_true(provider_server):
    provider_server.push({"id": "msg_1", "type": "message", "role": "assistant", "stop_reason": "tool_use",
                          "content": [{"type": "text", "text": "Sure."},
                                      {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "x"}}],
                          "usage": {"input_tokens": 3, "cache_read_input_tokens": 4, "output_tokens": 5}})
    events, error = run(provider_server)
    assert error is None
    assert events == [TextDelta("Sure."), ToolCallDone(ToolCall("toolu_1", "read_file", '{"path": "x"}')),
                      UsageReport(Usage(7, 4, 0, 5, True)), StreamEnd("tool_use")]


@pytest.mark.parametrize("reply", [
    fixture_parts("anthropic_text.sse")[:3] + [b'event: content_block_delta\ndata: {"type": "content_block_delta", '
                                               b'"index": 0, "delta": ["text_delta", "Hi"]}\n\n'],
    b'data: {"type": "content_block_start", "index": [0], "content_block": {"type": "text", "text": ""}}\n\n',
    {"type": "message", "content": 5, "stop_reason": "end_turn"},
])
def test_a_reply_of_an_odd_shape_is_one_line(provider_server, reply):
    provider_server.push(reply)
    events, error = run(provider_server)
    assert isinstance(error, StreamError) and not error.retryable
    assert str(error).startswith("anthropic sent a reply ankit cannot read (") and "\n" not in str(error)
    assert not any(isinstance(e, StreamEnd) for e in events)


def test_generated_streams_from_the_harness_round_trip(provider_server):
    provider_server.push_anthropic(text="Hi", tool_calls=[("toolu_9", "list_directory", '{"path": "."}')],
                                   usage={"input_tokens": 4, "cache_read_input_tokens": 100})
    events, error = run(provider_server)
    assert error is None
    assert events == [TextDelta("Hi"), ToolCallDone(ToolCall("toolu_9", "list_directory", '{"path": "."}')),
                      UsageReport(Usage(104, 100, 0, 10, True)), StreamEnd("tool_use")]


def test_thinking_from_the_documented_example_is_kept_whole_and_never_shown(provider_server):
    provider_server.push("anthropic_thinking_tool_use.sse")
    events, error = run(provider_server, Request("sys", [Message("user", "What's the weather in Paris?")], [WEATHER]))
    assert error is None
    text = "I can help you get the current weather information for Paris. Let me check that for you"
    assert text_of(events) == text
    assert events[-4:] == [
        ToolCallDone(ToolCall("toolu_01CswdEQBMshySk6Y9DFKrfq", "get_weather", '{"location": "Paris"}')),
        OpaqueData("anthropic", [DOCUMENTED_THINKING, {"type": "text", "chars": len(text)},
                                 {"type": "tool_use", "id": "toolu_01CswdEQBMshySk6Y9DFKrfq"}]),
        UsageReport(Usage(412, 0, 0, 156, True)), StreamEnd("tool_use")]


def test_a_whole_message_with_thinking_and_redacted_thinking(provider_server):
    redacted = {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw"}
    provider_server.push({"id": "msg_2", "type": "message", "role": "assistant", "stop_reason": "tool_use",
                          "content": [DOCUMENTED_THINKING, redacted, {"type": "text", "text": "On it."},
                                      {"type": "tool_use", "id": "toolu_2", "name": "get_weather",
                                       "input": {"location": "Paris"}}],
                          "usage": {"input_tokens": 3, "output_tokens": 5}})
    events, error = run(provider_server)
    assert error is None and text_of(events) == "On it."
    assert OpaqueData("anthropic", [DOCUMENTED_THINKING, redacted, {"type": "text", "chars": 6},
                                    {"type": "tool_use", "id": "toolu_2"}]) in events
    assert isinstance(events[-1], StreamEnd) and isinstance(events[-3], OpaqueData)


def test_a_reply_without_thinking_has_no_opaque_data(provider_server):
    provider_server.push("anthropic_tool_use.sse")
    events, _ = run(provider_server)
    assert not any(isinstance(e, OpaqueData) for e in events)
