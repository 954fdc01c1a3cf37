"""The Messages provider against the loopback server: exact request bodies, cache breakpoints, thinking sent back."""

import copy
import functools
import json

from ankit.providers import make_provider
from ankit.providers.anthropic import AnthropicProvider
from ankit.records import Message, Request, ToolCall, ToolResult, ToolSpec
from conftest import READ, TEST_KEY, fixture_bytes, reply_of, stream_round, text_of
from tests.test_anthropic_stream import DOCUMENTED_THINKING, WEATHER

CACHE = {"type": "ephemeral"}
run = functools.partial(stream_round, kind="anthropic")


def breakpoints(body: dict) -> int:
    blocks = list(body.get("system", [])) + [b for m in body["messages"] for b in m["content"]]
    return sum("cache_control" in b for b in blocks + body.get("tools", []))


def test_make_provider_picks_the_anthropic_format(provider_server):
    assert isinstance(make_provider(provider_server.settings("anthropic")), AnthropicProvider)


def test_the_request_body_for_a_whole_tool_round(provider_server):
    provider_server.push("anthropic_text.sse")
    history = [
        Message("user", "look at a and b"),
        Message("assistant", "Looking.", tool_calls=[ToolCall("c1", "read_file", '{"path": "a"}'),
                                                     ToolCall("c2", "read_file", "not json")]),
        Message("tool", results=[ToolResult("c1", "read_file", "AAA"), ToolResult("c2", "read_file", "bad", True)]),
        Message("user", "and now?"),
    ]
    run(provider_server, Request("You are ankit.", history, [READ], note="held back: git", max_tokens=1000))
    request = provider_server.requests[0]
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == TEST_KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.headers["content-type"] == "application/json"
    assert "anthropic-beta" not in request.headers and "authorization" not in request.headers
    assert request.json == {
        "model": "test-model",
        "max_tokens": 1000,
        "system": [{"type": "text", "text": "You are ankit.", "cache_control": CACHE}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "look at a and b", "cache_control": CACHE}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "c1", "name": "read_file", "input": {"path": "a"}},
                {"type": "tool_use", "id": "c2", "name": "read_file", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "AAA"},
                {"type": "tool_result", "tool_use_id": "c2", "content": "bad", "is_error": True},
                {"type": "text", "text": "and now?", "cache_control": CACHE},
                {"type": "text", "text": "held back: git"}]},
        ],
        "tools": [{"name": "read_file", "description": "Read a file.", "input_schema": READ.parameters}],
        "stream": True,
    }


def test_one_hour_cache_ttl(provider_server):
    provider_server.push("anthropic_text.sse")
    run(provider_server, cache_ttl="1h")
    request = provider_server.requests[0]
    assert request.json["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert request.json["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert request.headers["anthropic-beta"] == "extended-cache-ttl-2025-04-11"


def test_never_more_than_four_breakpoints_in_a_long_history(provider_server):
    provider_server.push("anthropic_text.sse")
    history = [Message("user", "start")]
    for n in range(10):
        history += [Message("assistant", f"step {n}", tool_calls=[ToolCall(f"c{n}", "read_file", "{}")]),
                    Message("tool", results=[ToolResult(f"c{n}", "read_file", "x")])]
    run(provider_server, Request("sys", history, [READ], note="note"))
    assert breakpoints(provider_server.requests[0].json) == 3


def test_the_cached_prefix_of_one_round_is_marked_again_in_the_next(provider_server):
    provider_server.push("anthropic_text.sse")
    provider_server.push("anthropic_text.sse")
    history = [Message("user", "read a")]
    run(provider_server, Request("sys", list(history), [READ], note="round note 1"))
    history += [Message("assistant", "", tool_calls=[ToolCall("c1", "read_file", '{"path": "a"}')]),
                Message("tool", results=[ToolResult("c1", "read_file", "AAA")])]
    run(provider_server, Request("sys", history, [READ], note="round note 2"))
    first, second = (r.json["messages"] for r in provider_server.requests)
    # round 1 ended its cached prefix at "read a" (the note comes after it); round 2 marks that same block again
    assert first[0]["content"] == [{"type": "text", "text": "read a", "cache_control": CACHE},
                                   {"type": "text", "text": "round note 1"}]
    assert second[0]["content"] == first[0]["content"][:1]
    assert second[2]["content"] == [{"type": "tool_result", "tool_use_id": "c1", "content": "AAA", "cache_control": CACHE},
                                    {"type": "text", "text": "round note 2"}]
    assert second[1]["content"] == [{"type": "tool_use", "id": "c1", "name": "read_file", "input": {"path": "a"}}]


def test_the_next_round_starts_with_the_bytes_of_the_round_before_and_a_resend_is_identical(provider_server):
    history = [Message("user", "read a")]
    added = [Message("assistant", "Reading.", [ToolCall("c1", "read_file", '{"path": "a"}')]),
             Message("tool", results=[ToolResult("c1", "read_file", "AAA")])]
    for messages, note in ((history, "note 0"), (history + added, "note 1"), (history + added, "note 1")):
        provider_server.push("anthropic_text.sse")
        run(provider_server, Request("sys", copy.deepcopy(messages), [copy.deepcopy(READ)], note=note))
    first, second, again = (r.body for r in provider_server.requests)
    assert second.startswith(first[:first.index(b', {"type": "text", "text": "note 0"}')])
    assert second == again


def test_the_note_after_an_assistant_message_is_its_own_user_turn(provider_server):
    provider_server.push("anthropic_text.sse")
    run(provider_server, Request("sys", [Message("user", "hi"), Message("assistant", "Hello")], [], note="psst"))
    messages = provider_server.requests[0].json["messages"]
    assert messages[-2] == {"role": "assistant", "content": [{"type": "text", "text": "Hello", "cache_control": CACHE}]}
    assert messages[-1] == {"role": "user", "content": [{"type": "text", "text": "psst"}]}


def test_no_empty_text_blocks_and_same_roles_merge(provider_server):
    provider_server.push("anthropic_text.sse")
    history = [Message("user", "one"), Message("user", "  "), Message("user", "two"),
               Message("assistant", "", cut=True), Message("user", "three")]
    run(provider_server, Request("", history, []), api_key="")
    request = provider_server.requests[0]
    assert "x-api-key" not in request.headers and "system" not in request.json and "tools" not in request.json
    assert request.json["messages"] == [{"role": "user", "content": [
        {"type": "text", "text": "one"}, {"type": "text", "text": "two"},
        {"type": "text", "text": "three", "cache_control": CACHE}]}]


def test_raw_newlines_in_history_arguments_still_parse(provider_server):
    provider_server.push("anthropic_text.sse")
    call = ToolCall("c1", "write_file", '{"path": "n.txt", "content": "a\nb"}')
    history = [Message("user", "write"), Message("assistant", "", tool_calls=[call]),
               Message("tool", results=[ToolResult("c1", "write_file", "")])]
    run(provider_server, Request("sys", history, []))
    messages = provider_server.requests[0].json["messages"]
    assert messages[1]["content"][0]["input"] == {"path": "n.txt", "content": "a\nb"}
    assert messages[2]["content"][0]["content"] == "(no output)"


def test_overloaded_then_success(provider_server):
    provider_server.push("anthropic_529.http", headers={"retry-after": "0"})
    provider_server.push("anthropic_text.sse")
    events, error = run(provider_server)
    assert error is None and text_of(events) == "Hello! How can I help?"
    assert len(provider_server.requests) == 2


def test_a_prompt_too_long_says_the_fix_in_one_short_line(provider_server):
    provider_server.push("anthropic_400_prompt_too_long.http")
    _, error = run(provider_server)
    assert error.overflow and not error.retryable
    assert str(error) == ("400 from anthropic: the request (215473 tokens) does not fit the model's context window "
                          "(200000 tokens): start anew, or set context_window = 200000 to drop the oldest messages")
    assert len(str(error)) < 200


def test_401_is_one_line_without_the_key(provider_server):
    provider_server.push("anthropic_401.http")
    _, error = run(provider_server)
    assert str(error) == "401 from anthropic: check ANTHROPIC_API_KEY" and TEST_KEY not in str(error)
    assert len(provider_server.requests) == 1


# --- thinking blocks: sent back whole, byte for byte and in order ---


def answered(reply: Message, *contents: str) -> list[Message]:
    """The history after a reply whose calls got these results, in order."""
    results = [ToolResult(c.id, c.name, content) for c, content in zip(reply.tool_calls, contents)]
    return [Message("user", "What's the weather in Paris?"), reply, Message("tool", results=results)]


def test_thinking_blocks_go_back_byte_exact_before_text_and_tool_use(provider_server):
    provider_server.push("anthropic_thinking_tool_use.sse")
    provider_server.push("anthropic_text.sse")
    provider = make_provider(provider_server.settings("anthropic"))
    first = Request("sys", [Message("user", "What's the weather in Paris?")], [WEATHER])
    reply = reply_of(provider.stream(first))
    list(provider.stream(Request("sys", answered(reply, "Current temperature: 88°F"), [WEATHER])))
    sent = provider_server.requests[1]
    text = "I can help you get the current weather information for Paris. Let me check that for you"
    assert sent.json["messages"][1] == {"role": "assistant", "content": [
        DOCUMENTED_THINKING, {"type": "text", "text": text},
        {"type": "tool_use", "id": "toolu_01CswdEQBMshySk6Y9DFKrfq", "name": "get_weather",
         "input": {"location": "Paris"}}]}
    assert json.dumps(DOCUMENTED_THINKING, ensure_ascii=False).encode() in sent.body  # same keys, order and bytes
    assert sent.json["messages"][2]["content"][-1]["cache_control"] == CACHE
    assert breakpoints(sent.json) == 3


def test_progress_updates_between_tool_calls_keep_their_place(provider_server):
    provider_server.push("anthropic_progress_updates.sse")
    provider_server.push("anthropic_text.sse")
    provider = make_provider(provider_server.settings("anthropic"))
    events = list(provider.stream(Request("sys", [Message("user", "which version?")], [READ])))
    assert text_of(events) == "Both files:"  # the update is a thinking block: not shown
    reply = reply_of(events)
    list(provider.stream(Request("sys", answered(reply, "[metadata]", "[project]"), [READ])))
    blocks = provider_server.requests[1].json["messages"][1]["content"]
    assert [(b["type"], b.get("id") or b.get("text") or b.get("thinking")) for b in blocks] == [
        ("thinking", ""), ("tool_use", "toolu_01Hn4cT8vWq2XyZ6aBpD9eFg"),
        ("thinking", "Configuration read; the version also lives in pyproject.toml — checking it next. ✓"),
        ("text", "Both files:"), ("tool_use", "toolu_01Rb7mK3sJ9pL2qW5nV8xT4c")]
    assert blocks[0] == {"type": "thinking", "thinking": "", "signature": reply.opaque["anthropic"][0]["signature"]}
    assert json.dumps(blocks[2], ensure_ascii=False).encode() in provider_server.requests[1].body


def test_a_layout_without_placeholders_puts_thinking_first(provider_server):
    provider_server.push("anthropic_text.sse")
    redacted = {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw"}
    reply = Message("assistant", "Checking.", [ToolCall("c1", "read_file", '{"path": "a"}')],
                    opaque={"anthropic": [DOCUMENTED_THINKING, redacted]})
    history = [Message("user", "read a"), reply, Message("tool", results=[ToolResult("c1", "read_file", "A")])]
    run(provider_server, Request("sys", history, [READ]))
    assert provider_server.requests[0].json["messages"][1]["content"] == [
        DOCUMENTED_THINKING, redacted, {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "c1", "name": "read_file", "input": {"path": "a"}}]


def test_text_changed_since_the_reply_stays_in_its_first_place(provider_server):
    provider_server.push("anthropic_text.sse")
    layout = [DOCUMENTED_THINKING, {"type": "text", "chars": 40}, {"type": "tool_use", "id": "c1"},
              {"type": "text", "chars": 3}]
    reply = Message("assistant", "key [redacted], then", [ToolCall("c1", "read_file", "{}")],
                    opaque={"anthropic": layout})
    history = [Message("user", "go"), reply, Message("tool", results=[ToolResult("c1", "read_file", "A")])]
    run(provider_server, Request("sys", history, [READ]))
    assert [b["type"] for b in provider_server.requests[0].json["messages"][1]["content"]] == [
        "thinking", "text", "tool_use"]


def test_a_breakpoint_never_lands_on_a_thinking_block(provider_server):
    provider_server.push("anthropic_text.sse")
    reply = Message("assistant", "Hello", opaque={"anthropic": [{"type": "text", "chars": 5}, DOCUMENTED_THINKING]})
    run(provider_server, Request("sys", [Message("user", "hi"), reply], [], note="psst"))
    assert provider_server.requests[0].json["messages"][1]["content"] == [
        {"type": "text", "text": "Hello", "cache_control": CACHE}, DOCUMENTED_THINKING]


def test_thinking_the_api_refuses_is_dropped_and_the_request_sent_once_more(provider_server):
    provider_server.push("anthropic_thinking_tool_use.sse")
    provider_server.push("anthropic_400_thinking_signature.http")
    provider_server.push("anthropic_thinking_tool_use.sse")
    provider_server.push("anthropic_text.sse")
    provider = make_provider(provider_server.settings("anthropic"))
    reply = reply_of(provider.stream(Request("sys", [Message("user", "What's the weather in Paris?")], [WEATHER])))
    history = answered(reply, "88°F")
    events = list(provider.stream(Request("sys", history, [WEATHER, READ])))  # the tools changed: 400, then again
    assert text_of(events) == "I can help you get the current weather information for Paris. Let me check that for you"
    refused, retried = provider_server.requests[1].json, provider_server.requests[2].json
    assert refused["messages"][1]["content"][0] == DOCUMENTED_THINKING
    assert [b["type"] for b in retried["messages"][1]["content"]] == ["text", "tool_use"]
    assert retried["messages"][2] == refused["messages"][2]
    # later rounds never send the refused block again, but do send the new one
    later = Message("assistant", "More.", [ToolCall("c9", "read_file", "{}")],
                    opaque={"anthropic": [{**DOCUMENTED_THINKING, "signature": "Enew"}, {"type": "text", "chars": 5},
                                          {"type": "tool_use", "id": "c9"}]})
    history += [later, Message("tool", results=[ToolResult("c9", "read_file", "x")])]
    list(provider.stream(Request("sys", history, [WEATHER, READ])))
    messages = provider_server.requests[3].json["messages"]
    assert [b["type"] for b in messages[1]["content"]] == ["text", "tool_use"]
    assert messages[3]["content"][0] == {**DOCUMENTED_THINKING, "signature": "Enew"}
    assert provider_server.pending == 0


def test_other_400s_and_requests_without_thinking_are_not_retried(provider_server):
    provider_server.push("anthropic_400.http")
    reply = Message("assistant", "Checking.", opaque={"anthropic": [DOCUMENTED_THINKING, {"type": "text", "chars": 9}]})
    _, error = run(provider_server, Request("sys", [Message("user", "q"), reply, Message("user", "and?")], []))
    assert error.status == 400 and "text content blocks must be non-empty" in str(error)
    provider_server.push("anthropic_400_thinking_signature.http")
    _, error = run(provider_server)
    assert error.status == 400 and "Invalid `signature` in `thinking` block" in str(error)
    assert len(provider_server.requests) == 2




# --- deferred tools: find_tools' answer as tool_reference blocks ---

GIT_LOG = ToolSpec("git_log", "Show commits.", {"type": "object", "properties": {}}, "git")
WEB = ToolSpec("web_fetch", "Fetch a page.", {"type": "object", "properties": {"url": {"type": "string"}}}, "web")


def test_a_batch_references_the_tools_of_the_groups_first_sent_with_it_and_says_which_are_gone(provider_server):
    provider_server.push("anthropic_text.sse")
    history = [
        Message("user", "log"),
        Message("assistant", tool_calls=[ToolCall("t1", "find_tools", '{"query": "git"}'),
                                         ToolCall("t2", "find_tools", '{"query": "gone"}')]),
        Message("tool", results=[ToolResult("t1", "find_tools", "Loaded git."),
                                 ToolResult("t2", "find_tools", "Loaded gone.")], activated=["git", "mcp:gone"]),
    ]
    run(provider_server, Request("sys", history, [READ], deferred=[GIT_LOG, WEB]))
    body = provider_server.requests[0].json
    assert body["tools"] == [{"name": "read_file", "description": "Read a file.", "input_schema": READ.parameters},
                             {"name": "git_log", "description": "Show commits.", "input_schema": GIT_LOG.parameters,
                              "defer_loading": True}]  # web was never sent: its definition does not travel
    first, second, beside = body["messages"][-1]["content"]
    assert first == {"type": "tool_result", "tool_use_id": "t1", "content": "Loaded git."}
    assert second == {"type": "tool_result", "tool_use_id": "t2",
                      "content": [{"type": "tool_reference", "tool_name": "git_log"}]}
    assert beside["text"] == "Loaded gone.\n[ankit] No longer available: mcp:gone."


def test_before_any_group_is_sent_only_the_plain_tools_are_declared(provider_server):
    provider_server.push("anthropic_text.sse")
    run(provider_server, Request("sys", [Message("user", "hi")], [READ], deferred=[GIT_LOG, WEB]),
        deferred="native")
    assert provider_server.requests[0].json["tools"] == [
        {"name": "read_file", "description": "Read a file.", "input_schema": READ.parameters}]


def test_without_a_plain_tool_nothing_is_deferred(provider_server):
    provider_server.push("anthropic_text.sse")
    run(provider_server, Request("sys", [Message("user", "hi")], [GIT_LOG], deferred=[GIT_LOG]))
    assert "defer_loading" not in provider_server.requests[0].body.decode()  # the API refuses an all-deferred list


def test_the_round_after_find_tools_byte_for_byte(provider_server):
    finder = ToolSpec("find_tools", "Find and load tools. Groups: git, web.", {"type": "object", "properties": {
        "query": {"type": "string"}}, "required": ["query"]}, "core")
    web = ToolSpec("web_fetch", "Fetch a page.", {"type": "object", "properties": {"url": {"type": "string"}}}, "web")
    git_log = ToolSpec("git_log", "Show commits.", {"type": "object", "properties": {"limit": {"type": "integer"}}}, "git")
    history = [Message("user", "what changed?"),
               Message("assistant", "Looking for git tools.",
                       tool_calls=[ToolCall("toolu_01FindGit", "find_tools", '{"query": "git history"}')]),
               Message("tool", results=[ToolResult("toolu_01FindGit", "find_tools", "Loaded git: git_log.")],
                       activated=["git"])]
    provider_server.push("anthropic_text.sse")
    run(provider_server, Request("You are ankit.", history, [READ, finder, git_log], deferred=[git_log, web]),
        model="claude-sonnet-5-5", deferred="native")
    assert provider_server.requests[0].body + b"\n" == fixture_bytes("anthropic_request_deferred.json")
