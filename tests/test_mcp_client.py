"""The MCP client against a real fake server subprocess: handshake, version, tool pages, calls."""

import json
import sys
from pathlib import Path

import pytest

from ankit.mcp.client import PROTOCOL_VERSIONS, McpClient
from ankit.mcp.transport import McpError
from tests.helpers import wait_for

FAKE = str(Path(__file__).with_name("mcp_fake_server.py"))


@pytest.fixture
def make(tmp_path):
    clients = []

    def build(*flags, record=True, env=None, cwd=None, on_notice=None, command=sys.executable):
        args = [FAKE, *flags] + (["--record", str(tmp_path / "record.jsonl")] if record else [])
        client = McpClient("fake", command, args, env=env, cwd=cwd, log_path=tmp_path / "fake.log",
                           on_notice=on_notice)
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.close()


def received(tmp_path: Path) -> list[dict]:
    path = tmp_path / "record.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_handshake_sends_latest_version_and_accepts_the_servers(make, tmp_path):
    client = make()
    result = client.start(10)
    assert result["serverInfo"]["name"] == "fake-server"
    assert client.protocol_version == "2025-06-18"  # the server's latest, since it lacks ours
    assert client.server_info["version"] == "1.2.3"
    assert wait_for(lambda: len(received(tmp_path)) >= 2)
    first, second = received(tmp_path)[:2]
    assert first["method"] == "initialize" and first["id"] is not None
    assert first["params"]["protocolVersion"] == PROTOCOL_VERSIONS[0]
    assert first["params"]["clientInfo"]["name"] == "ankit"
    assert second == {"jsonrpc": "2.0", "method": "notifications/initialized"}


def test_same_version_is_kept_when_the_server_speaks_it(make):
    client = make("--supported", ",".join(PROTOCOL_VERSIONS))
    client.start(10)
    assert client.protocol_version == PROTOCOL_VERSIONS[0]


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


def test_a_crash_on_start_says_why(make):
    client = make("--crash-on-start")
    with pytest.raises(McpError, match="exited with code 3: fake server: cannot open the database"):
        client.start(10)