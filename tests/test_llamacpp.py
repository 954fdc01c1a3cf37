"""Real captures from llama.cpp's own server (b0 build via xllamacpp, SmolLM2-135M-Instruct Q4_1 GGUF), replayed
byte for byte through the loopback server: what ankit got back from a real third-party server, and the requests that
server accepted. How they were recorded is in README.md (Providers and settings, Local servers)."""

import http.server
import json
import threading

from ankit.errors import ProviderError
from ankit.providers import make_provider
from ankit.providers.base import ProviderSettings
from ankit.providers.models import list_models
from ankit.providers.openai import wire_messages
from ankit.records import Message, Notice, Request, StreamEnd, ToolCall, ToolCallDone, ToolResult, Usage, UsageReport
from conftest import READ, fixture_bytes, parse_http_capture, stream_round, text_of
from tests.test_oneshot import ankit

CALL_ID = "Ag3FonFhx2zvyugRnC9nnFFvb5Bu4Y0D"  # the id llama.cpp gave the find_tools call (no call_ prefix)


def run(server, request=None):
    return stream_round(server, request, kind="openai", preset="local", model="smollm2-135m", api_key="")


def test_a_real_text_stream_with_usage_and_timings_in_the_last_chunk(provider_server):
    provider_server.push("llamacpp_text.sse")
    events, error = run(provider_server)
    assert error is None
    assert text_of(events).startswith("Dude! I'm a little buddy of a chatty guy,")
    assert text_of(events).endswith("or maybe a little buddy of a chatty guy.")
    assert events[-2:] == [UsageReport(Usage(282, 271, 0, 70, True)), StreamEnd("end_turn")]


def test_a_real_streamed_tool_call_and_the_round_the_server_accepted_after_it(provider_server):
    provider_server.push("llamacpp_find_tools_call.sse")
    events, error = run(provider_server, Request("sys", [Message("user", "load git")], [READ]))
    assert error is None and text_of(events) == ""
    assert events == [ToolCallDone(ToolCall(CALL_ID, "find_tools", '{"query": "git status"}')),
                      UsageReport(Usage(2520, 2328, 0, 32, True)), StreamEnd("tool_use")]
    accepted = json.loads(fixture_bytes("llamacpp_request_tool_result.json"))["messages"]
    result = ToolResult(CALL_ID, "find_tools", accepted[-1]["content"])
    sent = wire_messages(Message("assistant", "", tool_calls=[events[0].call])) + wire_messages(
        Message("tool", results=[result]))
    assert sent == accepted[-2:]  # today's wire form of that round is what the real server took


def test_the_requests_the_real_server_accepted_carry_what_ankit_sends(provider_server):
    first = json.loads(fixture_bytes("llamacpp_request_find_tools.json"))
    second = json.loads(fixture_bytes("llamacpp_request_tool_result.json"))
    for body in (first, second):
        assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
        assert body["max_tokens"] == 4096 and "max_completion_tokens" not in body
        assert body["messages"][0]["role"] == "system"
    loaded = {t["function"]["name"] for t in second["tools"]} - {t["function"]["name"] for t in first["tools"]}
    assert "git_status" in loaded  # find_tools loaded the git group between the two rounds
    assert second["messages"][:len(first["messages"])] == first["messages"]


def test_ankit_p_runs_a_real_find_tools_round(provider_server, tmp_path):
    provider_server.push("llamacpp_find_tools_call.sse")
    provider_server.push("llamacpp_after_tool_result.sse")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--model", "smollm2-135m", "-p", "load git")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("<tool_response>\nLoaded git:")
    assert 'find_tools(query="git status")' in done.stderr and "loaded git" in done.stderr
    second = provider_server.requests[1].json
    assert second["messages"][-2]["tool_calls"][0]["id"] == CALL_ID
    assert second["messages"][-1]["tool_call_id"] == CALL_ID
    assert "git_status" in {t["function"]["name"] for t in second["tools"]}


def test_llamacpp_without_jinja_refuses_tools_with_a_500_once(provider_server):
    provider_server.push("llamacpp_500_no_jinja.http")
    provider_server.push("llamacpp_text.sse")
    provider = make_provider(provider_server.settings("openai", preset="local", model="smollm2-135m"))
    events = list(provider.stream(Request("sys", [Message("user", "hi")], [READ])))
    assert [e for e in events if isinstance(e, Notice)] == [Notice(
        "local takes no tools with the model smollm2-135m (500): going on without tools (no files, no commands); "
        "/model picks another model")]
    assert text_of(events).startswith("Dude!")
    bodies = [r.json for r in provider_server.requests]
    assert len(bodies) == 2 and "tools" in bodies[0] and "tools" not in bodies[1]  # a 500 that says so: no retries


def test_ankit_p_says_once_that_the_server_takes_no_tools_and_answers(provider_server, tmp_path):
    provider_server.push("llamacpp_500_no_jinja.http")
    provider_server.push("llamacpp_text.sse")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--model", "smollm2-135m", "-p", "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Dude!") and done.stderr.count("takes no tools") == 1


def test_a_real_context_overflow_is_one_line_with_the_fix(provider_server):
    provider_server.push("llamacpp_400_context.http")
    events, error = run(provider_server, Request("sys", [Message("user", "hi")], [READ]))
    assert isinstance(error, ProviderError) and not error.retryable and len(provider_server.requests) == 1
    assert str(error) == (
        "400 from local: the request (2259 tokens) does not fit the model's context window (1024 tokens): start "
        "anew, or set context_window = 1024 to drop the oldest messages")


def test_the_real_model_list(tmp_path):
    status, headers, body = parse_http_capture(fixture_bytes("llamacpp_models.http"))

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        assert list_models(ProviderSettings("local", "openai", base_url, "")) == ["smollm2-135m"]
    finally:
        server.shutdown()
        server.server_close()



def test_a_real_leading_think_block_split_into_tokens_is_not_reply_text(provider_server):
    # llama.cpp without --jinja passes <think> through as text, as the tokens "<", "think", ">" ... "</", "think", ">"
    provider_server.push("llamacpp_inline_think.sse")
    events, error = run(provider_server)
    assert error is None
    assert text_of(events) == "The user wants a color. Blue is simple.\n<think>\nThe user wants a color"
    assert events[-2:] == [UsageReport(Usage(219, 5, 0, 40, True)), StreamEnd("max_tokens")]
