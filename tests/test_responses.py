"""The Responses provider against the loopback server: exact request bodies, streams, tool search, fallbacks."""

import functools
import json

import pytest

from ankit.errors import ProviderError, StreamError
from ankit.providers import make_provider
from ankit.providers.responses import ResponsesProvider
from ankit.records import (Message, Notice, OpaqueData, Request, StreamEnd, ToolCall, ToolCallDone, ToolResult,
                           ToolSpec, Usage, UsageReport)
from conftest import READ, TEST_KEY, fixture_bytes, fixture_parts, reply_of, stream_round, text_of

run = functools.partial(stream_round, kind="responses", model="gpt-5.5")
FINDER = ToolSpec("find_tools", "Find and load tools. Groups: git, web.", {"type": "object", "properties": {
    "query": {"type": "string"}}, "required": ["query"]}, "core")
GIT_LOG = ToolSpec("git_log", "Show commits.", {"type": "object", "properties": {"limit": {"type": "integer"}}}, "git")
WEB = ToolSpec("web_fetch", "Fetch a page.", {"type": "object", "properties": {"url": {"type": "string"}}}, "web")


def function(spec, **extra):
    return {"type": "function", "name": spec.name, "description": spec.description, "parameters": spec.parameters,
            "strict": False, **extra}


def test_make_provider_picks_the_responses_format(provider_server):
    assert isinstance(make_provider(provider_server.settings("responses")), ResponsesProvider)


def test_the_request_body_for_a_whole_tool_round(provider_server):
    provider_server.push("responses_text.sse")
    history = [
        Message("user", "look at a"),
        Message("assistant", "Looking.", tool_calls=[ToolCall("call_1", "read_file", '{"path": "a"}')]),
        Message("tool", results=[ToolResult("call_1", "read_file", "AAA"), ]),
        Message("user", "and now?"),
    ]
    run(provider_server, Request("You are ankit.", history, [READ], note="held back: git", max_tokens=1000),
        preset="openai", session_id="20261130-101500-ab12")
    request = provider_server.requests[0]
    assert request.path == "/v1/responses" and request.headers["authorization"] == f"Bearer {TEST_KEY}"
    assert request.json == {
        "model": "gpt-5.5",
        "instructions": "You are ankit.",
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "look at a"}]},
            {"type": "message", "role": "assistant", "content": "Looking."},
            {"type": "function_call", "call_id": "call_1", "name": "read_file", "arguments": '{"path": "a"}'},
            {"type": "function_call_output", "call_id": "call_1", "output": "AAA"},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "and now?"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "held back: git"}]},
        ],
        "tools": [function(READ)],
        "stream": True,
        "store": False,
        "include": ["reasoning.encrypted_content"],
        "max_output_tokens": 1000,
        "prompt_cache_key": "20261130-101500-ab12",
    }


def test_openai_only_fields_stay_off_other_servers_and_non_reasoning_models(provider_server):
    provider_server.push("responses_text.sse")
    run(provider_server, model="gpt-4.1-mini", session_id="s1")
    body = provider_server.requests[0].json
    assert "prompt_cache_key" not in body and "include" not in body


def test_text_and_usage_with_the_cached_share(provider_server):
    provider_server.push("responses_text.sse")
    events, error = run(provider_server)
    assert error is None and text_of(events) == "Hello! How can I help?"
    assert [e for e in events if isinstance(e, UsageReport)] == [UsageReport(Usage(2214, 2048, 0, 9, True))]
    assert events[-1] == StreamEnd("end_turn") and not any(isinstance(e, OpaqueData) for e in events)


def test_reasoning_items_go_back_byte_exact_before_text_and_the_call(provider_server):
    provider_server.push("responses_reasoning_call.sse")
    events, _ = run(provider_server)
    assert [e.call for e in events if isinstance(e, ToolCallDone)] == [
        ToolCall("call_Xk3vQ9mZ1rT7pL2w", "read_file", '{"path":"README.md"}')]
    reply = reply_of(events)
    sent = [json.loads(p.split(b"data: ", 1)[1]) for p in fixture_parts("responses_reasoning_call.sse")]
    reasoning = [e["item"] for e in sent if e["type"] == "response.output_item.done"][0]
    provider_server.push("responses_text.sse")
    history = [Message("user", "read it"), reply, Message("tool", results=[ToolResult("call_Xk3vQ9mZ1rT7pL2w",
                                                                                     "read_file", "# ankit")])]
    run(provider_server, Request("sys", history, [READ]))
    assert provider_server.requests[1].json["input"][1:] == [
        reasoning,
        {"type": "message", "role": "assistant", "content": "Reading it."},
        {"type": "function_call", "call_id": "call_Xk3vQ9mZ1rT7pL2w", "name": "read_file",
         "arguments": '{"path":"README.md"}'},
        {"type": "function_call_output", "call_id": "call_Xk3vQ9mZ1rT7pL2w", "output": "# ankit"},
    ]


def test_a_stream_cut_midway_keeps_the_partial_text_and_is_retryable(provider_server):
    provider_server.push(fixture_parts("responses_text.sse")[:5] + ["cut"])
    events, error = run(provider_server)
    assert text_of(events) == "Hello!"
    assert isinstance(error, StreamError) and error.retryable and "no response.completed" in str(error)


def test_a_failed_response_is_one_retryable_line(provider_server):
    provider_server.push("responses_failed.sse")
    events, error = run(provider_server)
    assert text_of(events) == "Hel" and isinstance(error, StreamError) and error.retryable
    assert str(error) == ("responses reported an error mid-reply: The server had an error while processing your "
                          "request. Sorry about that! (server_error)")


# --- client tool search: find_tools is the search, the catalog is deferred ---

def searching_history(activated):
    return [Message("user", "what changed?"),
            Message("assistant", tool_calls=[ToolCall("call_search", "find_tools", '{"query": "git history"}')],
                    opaque={"responses": [{"type": "tool_search_call", "call_id": "call_search"}]}),
            Message("tool", results=[ToolResult("call_search", "find_tools", "Loaded git: git_log.")],
                    activated=activated)]


def test_find_tools_is_the_client_tool_search_and_its_answer_loads_definitions(provider_server):
    provider_server.push("responses_tool_search_call.sse")
    events, _ = run(provider_server, Request("sys", [Message("user", "what changed?")], [READ, FINDER],
                                             deferred=[GIT_LOG, WEB]))
    first = provider_server.requests[0].json
    assert first["tools"] == [
        function(READ),
        {"type": "tool_search", "execution": "client", "description": FINDER.description,
         "parameters": FINDER.parameters},
        function(GIT_LOG, defer_loading=True), function(WEB, defer_loading=True)]
    assert [e.call for e in events if isinstance(e, ToolCallDone)] == [
        ToolCall("call_Sr8nW4yB6cJ0dF5h", "find_tools", '{"query": "show the recent git history"}')]
    assert reply_of(events).opaque["responses"] == [{"type": "tool_search_call", "call_id": "call_Sr8nW4yB6cJ0dF5h"}]

    provider_server.push("responses_text.sse")
    run(provider_server, Request("sys", searching_history(["git", "mcp:gone"]), [READ, FINDER, GIT_LOG],
                                 deferred=[GIT_LOG, WEB]))
    second = provider_server.requests[1].json
    assert json.dumps(second["tools"]) == json.dumps(first["tools"])  # the activation left the tools alone
    assert second["input"][1:] == [
        {"type": "tool_search_call", "execution": "client", "call_id": "call_search", "status": "completed",
         "arguments": {"query": "git history"}},
        {"type": "tool_search_output", "execution": "client", "call_id": "call_search", "status": "completed",
         "tools": [function(GIT_LOG, defer_loading=True)]},
        {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "Loaded git: git_log.\n[ankit] No longer available: mcp:gone."}]},
    ]


def test_older_models_get_the_append_path_without_trying(provider_server):
    provider_server.push("responses_text.sse")
    run(provider_server, Request("sys", searching_history(["git"]), [READ, FINDER, GIT_LOG], deferred=[GIT_LOG]),
        model="gpt-4.1-mini")
    body = provider_server.requests[0].json
    assert body["tools"] == [function(READ), function(FINDER), function(GIT_LOG)]
    assert body["input"][1:] == [
        {"type": "function_call", "call_id": "call_search", "name": "find_tools",
         "arguments": '{"query": "git history"}'},
        {"type": "function_call_output", "call_id": "call_search", "output": "Loaded git: git_log."}]


def stream_with(provider, request):
    events, error = [], None
    try:
        events = list(provider.stream(request))
    except ProviderError as exc:
        error = exc
    return events, error


def test_a_refused_tool_search_falls_back_once_and_says_so(provider_server):
    provider = make_provider(provider_server.settings("responses", model="gpt-5.5"))
    request = Request("sys", searching_history(["git"]), [READ, FINDER, GIT_LOG], deferred=[GIT_LOG])
    provider_server.push("responses_400_tool_search.http")
    provider_server.push("responses_text.sse")
    provider_server.push("responses_text.sse")
    first, _ = stream_with(provider, request)
    second, _ = stream_with(provider, request)
    refused, retried, later = provider_server.requests
    assert "tool_search" in refused.body.decode() and "tool_search" not in retried.body.decode()
    assert retried.body == later.body
    notices = [e for e in first + second if isinstance(e, Notice)]
    assert len(notices) == 1 and "refused client tool search (400)" in notices[0].text


@pytest.mark.parametrize("mode", ["native", "append"])
def test_the_deferred_setting_forces_a_path(provider_server, mode):
    provider = make_provider(provider_server.settings("responses", model="gpt-4.1-mini", deferred=mode))
    provider_server.push("responses_400_tool_search.http" if mode == "native" else "responses_text.sse")
    _, error = stream_with(provider, Request("sys", [Message("user", "hi")], [READ, FINDER], deferred=[GIT_LOG]))
    assert ("tool_search" in provider_server.requests[0].body.decode()) == (mode == "native")
    assert (error is not None and "400 from responses" in str(error)) == (mode == "native")


def test_a_reasoning_item_the_server_will_not_take_back_is_left_out_with_one_line(provider_server):
    provider_server.push("responses_reasoning_call.sse")
    reply = reply_of(run(provider_server)[0])
    provider = make_provider(provider_server.settings("responses", model="gpt-5.5"))
    history = [Message("user", "read it"), reply,
               Message("tool", results=[ToolResult("call_Xk3vQ9mZ1rT7pL2w", "read_file", "# ankit")])]
    provider_server.push("responses_400_reasoning.http")
    provider_server.push("responses_text.sse")
    events, error = stream_with(provider, Request("sys", history, [READ]))
    assert error is None and text_of(events) == "Hello! How can I help?"
    retried = provider_server.requests[-1].json
    assert [i["type"] for i in retried["input"]] == ["message", "message", "function_call", "function_call_output"]
    assert "include" not in retried
    assert [e.text for e in events if isinstance(e, Notice)] == [
        "responses would not take back earlier reasoning items (400): they are left out from now on"]


def test_the_round_after_a_tool_search_byte_for_byte(provider_server):
    history = [Message("user", "what changed?"),
               Message("assistant", "Looking for git tools.",
                       tool_calls=[ToolCall("toolu_01FindGit", "find_tools", '{"query": "git history"}')],
                       opaque={"responses": [{"type": "message", "chars": 22},
                                             {"type": "tool_search_call", "call_id": "toolu_01FindGit"}]}),
               Message("tool", results=[ToolResult("toolu_01FindGit", "find_tools", "Loaded git: git_log.")],
                       activated=["git"])]
    provider_server.push("responses_text.sse")
    run(provider_server, Request("You are ankit.", history, [READ, FINDER, GIT_LOG], deferred=[GIT_LOG, WEB]),
        preset="openai", session_id="20261130-101500-ab12")
    assert provider_server.requests[0].body + b"\n" == fixture_bytes("responses_request_tool_search.json")


def test_an_image_goes_as_an_input_image():
    from ankit.providers.responses import input_items
    from ankit.records import Image, Message
    items = input_items([Message("user", "what is this?", images=[Image("image/jpeg", "/9j/4AAQ", "a.jpg")])], None)
    assert items == [{"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "what is this?"},
        {"type": "input_image", "image_url": "data:image/jpeg;base64,/9j/4AAQ"}]}]


def test_switching_models_follows_what_each_supports_until_a_refusal(provider_server):
    provider = make_provider(provider_server.settings("responses", model="gpt-4.1-mini"))
    assert not provider.defers
    provider.use_model("gpt-5.5")
    assert provider.defers
    provider_server.push("responses_400_tool_search.http")
    provider_server.push("responses_text.sse")
    stream_with(provider, Request("sys", [Message("user", "hi")], [READ, FINDER], deferred=[GIT_LOG]))
    provider.use_model("gpt-6")
    assert not provider.defers  # refused once: the append path for the rest of the session
