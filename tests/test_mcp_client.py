"""The MCP client against a real fake server subprocess: handshake, version, tool pages, calls."""

import json
import sys
from pathlib import Path

import pytest

from ankit.mcp.asks import Asks
from ankit.mcp.client import LEGACY, MODERN, McpClient
from ankit.mcp.transport import McpError
from tests.helpers import wait_for

FAKE = str(Path(__file__).with_name("mcp_fake_server.py"))


@pytest.fixture
def make(tmp_path):
    clients = []

    def build(*flags, record=True, env=None, cwd=None, on_notice=None, command=sys.executable, asks=None):
        args = [FAKE, *flags] + (["--record", str(tmp_path / "record.jsonl")] if record else [])
        client = McpClient("fake", command, args, env=env, cwd=cwd, log_path=tmp_path / "fake.log",
                           on_notice=on_notice, asks=asks)
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.close()


def received(tmp_path: Path) -> list[dict]:
    path = tmp_path / "record.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_an_older_server_gets_the_discover_probe_then_the_handshake(make, tmp_path):
    client = make()
    client.start(10)
    assert client.protocol_version == "2025-06-18" and not client.modern  # the server's latest, since it lacks ours
    assert client.server_info == {"name": "fake-server", "version": "1.2.3"}
    assert wait_for(lambda: len(received(tmp_path)) >= 3)
    probe, first, second = received(tmp_path)[:3]
    assert probe["method"] == "server/discover"
    assert probe["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == MODERN
    assert first["method"] == "initialize" and first["id"] is not None
    assert first["params"]["protocolVersion"] == LEGACY[0]
    assert first["params"]["clientInfo"]["name"] == "ankit"
    assert second == {"jsonrpc": "2.0", "method": "notifications/initialized"}


def test_an_older_server_seen_before_gets_the_handshake_at_once(make, tmp_path):
    client = make()
    client.start(10, era="legacy")
    assert client.protocol_version == "2025-06-18"
    assert wait_for(lambda: received(tmp_path)) and received(tmp_path)[0]["method"] == "initialize"


def test_an_older_server_that_exits_on_the_probe_is_started_again_for_the_handshake(make, tmp_path):
    client = make("--die-on-unknown")
    client.start(10)
    assert client.protocol_version == "2025-06-18" and client.alive
    assert [m.get("method") for m in received(tmp_path)][:2] == ["server/discover", "initialize"]
    assert "fake server: unknown method server/discover" in (tmp_path / "fake.log").read_text()


def test_same_version_is_kept_when_the_server_speaks_it(make):
    client = make("--supported", ",".join(LEGACY))
    client.start(10)
    assert client.protocol_version == LEGACY[0]


@pytest.mark.parametrize("flag", ["--modern-only", "--modern"])
def test_a_2026_07_28_server_is_spoken_to_statelessly(make, tmp_path, flag):
    client = make(flag, "--instructions", "Modern fake.")
    client.start(10)
    assert client.protocol_version == MODERN and client.modern
    assert client.server_info == {"name": "fake-modern", "version": "2.0"} and client.instructions == "Modern fake."
    assert "echo" in [t["name"] for t in client.list_tools(10)]
    assert client.call_tool("echo", {"text": "hi"}, 10)["content"] == [{"type": "text", "text": "hi"}]
    sent = received(tmp_path)
    assert [m["method"] for m in sent] == ["server/discover", "tools/list", "tools/call"]  # no initialize
    for message in sent:
        meta = message["params"]["_meta"]
        assert meta["io.modelcontextprotocol/protocolVersion"] == MODERN
        assert meta["io.modelcontextprotocol/clientInfo"]["name"] == "ankit"
        assert isinstance(meta["io.modelcontextprotocol/clientCapabilities"], dict)


def test_a_2026_07_28_only_server_seen_as_older_before_is_still_reached(make, tmp_path):
    client = make("--modern-only")
    client.start(10, era="legacy")  # initialize answered with UnsupportedProtocolVersion naming 2026-07-28
    assert client.modern
    assert [m["method"] for m in received(tmp_path)] == ["initialize", "server/discover"]


def test_input_rounds_answer_roots_and_elicitation_on_the_retry(make, tmp_path):
    asked = []

    def elicit(server, message, schema):
        asked.append((server, message, sorted(schema["properties"])))
        return {"action": "accept", "content": {"date": "2026-12-24"}}

    client = make("--modern-only", asks=Asks("fake", tmp_path, elicit))
    client.start(10)
    booked = client.call_tool("book", {}, 10)["content"][0]["text"]
    assert json.loads(booked) == {"action": "accept", "content": {"date": "2026-12-24"}}
    assert asked == [("fake", "Which date?", ["date"])]
    roots = json.loads(client.call_tool("roots", {}, 10)["content"][0]["text"])
    assert roots == {"roots": [{"uri": tmp_path.as_uri(), "name": tmp_path.name}]}
    retry = [m for m in received(tmp_path) if m["method"] == "tools/call"][1]
    assert retry["params"]["requestState"] == "state-when" and "when" in retry["params"]["inputResponses"]
    caps = retry["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    assert caps == {"roots": {}, "elicitation": {"form": {}}}


def test_an_older_server_asks_roots_and_elicitation_as_requests_of_its_own(make, tmp_path):
    client = make("--asking", asks=Asks("fake", tmp_path, lambda server, message, schema: {"action": "decline"}))
    client.start(10)
    assert client.call_tool("book", {}, 10)["content"][0]["text"] == 'elicitation answered {"action": "decline"}'
    assert tmp_path.as_uri() in client.call_tool("roots", {}, 10)["content"][0]["text"]
    initialize = next(m for m in received(tmp_path) if m.get("method") == "initialize")
    assert initialize["params"]["capabilities"] == {"roots": {}, "elicitation": {"form": {}}}


def test_a_server_that_never_stops_asking_is_stopped_after_a_few_rounds(make, tmp_path):
    client = make("--modern-only", asks=Asks("fake", tmp_path, lambda server, message, schema: {"action": "accept"}))
    client.start(10)
    with pytest.raises(McpError, match="asked for more input 4 times"):
        client.call_tool("book", {}, 10)  # an answer without content never satisfies it


def test_an_unsupported_answer_fails_in_one_line_and_stops_the_server(make):
    client = make("--answer-version", "1999-01-01")
    with pytest.raises(McpError) as caught:
        client.start(10)
    assert "'1999-01-01'" in str(caught.value) and "does not support" in str(caught.value)
    assert "\n" not in str(caught.value)
    assert not client.alive


def test_an_initialize_error_is_reported(make):
    client = make("--init-error")
    with pytest.raises(McpError, match="Unsupported protocol version"):
        client.start(10)


def test_tools_list_follows_every_cursor(make, tmp_path):
    client = make("--tools", "25", "--page-size", "4")
    client.start(10)
    tools = client.list_tools(10)
    names = [t["name"] for t in tools]
    assert len(names) == len(set(names)) and "tool_024" in names and "echo" in names
    lists = [m for m in received(tmp_path) if m.get("method") == "tools/list"]
    assert len(lists) == (len(names) + 3) // 4
    assert "cursor" not in lists[0]["params"] and all(m["params"]["cursor"] for m in lists[1:])


def test_a_server_without_tools_lists_none(make):
    client = make("--no-tools")
    client.start(10)
    assert client.list_tools(10) == []


def test_call_returns_the_raw_result_and_protocol_errors_raise(make):
    client = make()
    client.start(10)
    assert client.call_tool("echo", {"text": "hi"}, 10)["content"] == [{"type": "text", "text": "hi"}]
    assert client.call_tool("fail", {"message": "boom"}, 10)["isError"] is True
    with pytest.raises(McpError, match="Unknown tool: nope") as caught:
        client.call_tool("nope", {}, 10)
    assert caught.value.code == -32602
    with pytest.raises(McpError) as said:  # the server's message passes the text boundary, on one line, capped
        client.call_tool("nope\x1b]0;owned\x07" + "x" * 5000, {}, 10)
    assert str(said.value).startswith("MCP server 'fake': Unknown tool: nope^[]0;owned^Gxxx")
    assert "\x1b" not in str(said.value) and len(str(said.value)) < 400


def test_a_crash_on_start_says_why(make):
    client = make("--crash-on-start")
    with pytest.raises(McpError, match="exited with code 3: fake server: cannot open the database"):
        client.start(10)
    hostile = make("--crash-on-start", "--hostile")  # its last words reach the screen with escapes shown
    with pytest.raises(McpError) as said:
        hostile.start(10)
    assert str(said.value).endswith("cannot open the database^[]0;owned^G") and "\x1b" not in str(said.value)

SECRET = "sk-fake-0123456789abcdefghijklmnopqrstu"


def test_a_hostile_elicitation_reaches_the_user_capped_scrubbed_and_visible(make, tmp_path, monkeypatch):
    """4 MB of question with escape sequences and a secret ankit knows (it is in ankit's environment)."""
    monkeypatch.setenv("FAKE_API_KEY", SECRET)
    asked = []

    def elicit(server, message, schema):
        asked.append((message, schema["properties"]["date"]["description"]))
        return {"action": "decline"}

    client = make("--asking", "--hostile", env={"FAKE_TOKEN": SECRET}, asks=Asks("fake", tmp_path, elicit))
    client.start(10)
    assert client.call_tool("book", {}, 30)["content"][0]["text"] == 'elicitation answered {"action": "decline"}'
    [(message, about)] = asked
    assert message.startswith("Which date? ^[]0;owned^G^[[2J^[]8;;http://evil^Gclick^[]8;;^G key [redacted] AAA")
    assert len(message) < 2100 and message.endswith(" more characters cut]") and "\x1b" not in message
    assert len(about) < 400 and about.startswith("YYYY-MM-DD ^[]0;owned^G") and SECRET not in about


def test_a_servers_name_and_version_pass_the_text_boundary_and_nothing_else_of_its_info_is_kept(make):
    client = make("--hostile", env={"FAKE_TOKEN": SECRET})
    client.start(10)
    name, version = client.server_info["name"], client.server_info["version"]
    assert set(client.server_info) == {"name", "version"} and version == "1.2.3^[[2J"
    assert name.startswith("fake-server ^[]0;owned^G^[[2J") and len(name) < 130 and SECRET not in name


def test_a_servers_instructions_pass_the_text_boundary(make, monkeypatch):
    monkeypatch.setenv("FAKE_API_KEY", SECRET)
    client = make("--instructions", f"Use me.\x1b]0;owned\x07 key {SECRET} " + "B" * 100_000)
    client.start(10)
    assert client.instructions.startswith("Use me.^[]0;owned^G key [redacted] BBB")
    assert len(client.instructions) < 2100 and client.instructions.endswith(" more characters cut]")


def test_a_server_answering_discover_with_an_empty_result_gets_the_handshake(make, tmp_path):
    client = make("--lenient")  # {} for server/discover, as hand-written servers answer what they do not know
    client.start(10)
    assert client.protocol_version == "2025-06-18" and not client.modern
    assert wait_for(lambda: len(received(tmp_path)) >= 3)
    assert [m.get("method") for m in received(tmp_path)[:3]] == [
        "server/discover", "initialize", "notifications/initialized"]
    assert "echo" in [t["name"] for t in client.list_tools(10)]
    assert client.call_tool("echo", {"text": "hi"}, 10)["content"][0]["text"] == "hi"
