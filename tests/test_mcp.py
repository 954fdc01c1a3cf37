"""The stdio MCP client against a real fake server subprocess."""

import json
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from ankit.mcp import PROTOCOL_VERSIONS, McpClient, McpError

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


def wait_for(predicate, seconds: float = 5.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


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


def test_a_slow_call_times_out_is_cancelled_and_the_server_goes_on(make, tmp_path):
    client = make()
    client.start(10)
    with pytest.raises(McpError, match=r"did not answer tools/call within 0.3s"):
        client.call_tool("slow", {"seconds": 30}, 0.3)
    slow_id = next(m["id"] for m in received(tmp_path) if m.get("params", {}).get("name") == "slow")
    assert wait_for(lambda: any(m.get("method") == "notifications/cancelled" and m["params"]["requestId"] == slow_id
                                for m in received(tmp_path)))
    assert client.alive
    assert client.call_tool("echo", {"text": "still here"}, 10)["content"][0]["text"] == "still here"
    assert wait_for(lambda: f"request {slow_id} cancelled" in (tmp_path / "fake.log").read_text())


def test_answers_are_matched_to_requests_by_id(make):
    client = make()
    client.start(10)
    slow: list = []
    thread = threading.Thread(target=lambda: slow.append(client.call_tool("slow", {"seconds": 0.5}, 10)))
    thread.start()
    assert client.call_tool("echo", {"text": "first"}, 10)["content"][0]["text"] == "first"
    thread.join()
    assert slow[0]["content"][0]["text"] == "slept"


def test_server_requests_are_answered(make):
    client = make()
    client.start(10)
    text = client.call_tool("talk", {}, 10)["content"][0]["text"]
    assert text == "ping answered {}; roots/list answered error -32601"


def test_notifications_reach_the_callback_and_the_log(make, tmp_path):
    seen: list[str] = []
    changed = threading.Event()

    def notice(method, params):
        seen.append(method)
        if method == "notifications/tools/list_changed":
            changed.set()

    client = make(on_notice=notice)
    client.start(10)
    client.call_tool("grow", {}, 10)
    assert changed.wait(5)
    assert "notifications/message" not in seen  # log messages go to the log only
    assert 'log info: "fake server initialized"' in (tmp_path / "fake.log").read_text()


def test_server_stderr_goes_to_the_log_not_the_screen(make, tmp_path, capfd):
    client = make()
    client.start(10)
    client.close()
    assert "fake server: started" in (tmp_path / "fake.log").read_text()
    assert "fake server" not in capfd.readouterr().err


def test_env_and_cwd_reach_the_server(make, tmp_path):
    folder = tmp_path / "work"
    folder.mkdir()
    client = make(env={"FAKE_GREETING": "hello"}, cwd=str(folder))
    client.start(10)
    text = client.call_tool("whereami", {}, 10)["content"][0]["text"]
    assert text == f"{os.path.realpath(folder)} hello"


def test_a_crash_fails_the_call_in_one_line_and_later_requests_at_once(make):
    client = make()
    client.start(10)
    with pytest.raises(McpError) as caught:
        client.call_tool("crash", {}, 10)
    assert "exited with code 1: fake server: crashing on request" in str(caught.value)
    assert not client.alive and "exited with code 1" in client.failure
    with pytest.raises(McpError, match="exited with code 1"):
        client.call_tool("echo", {"text": "x"}, 10)


def test_a_crash_on_start_says_why(make):
    client = make("--crash-on-start")
    with pytest.raises(McpError, match="exited with code 3: fake server: cannot open the database"):
        client.start(10)


def test_a_missing_command_or_folder_is_one_clear_line(make, tmp_path):
    with pytest.raises(McpError, match="could not start 'no-such-mcp-server': command not found"):
        make(command="no-such-mcp-server").start(10)
    with pytest.raises(McpError, match="cwd .* is not a folder"):
        make(cwd=str(tmp_path / "missing")).start(10)


def test_junk_only_output_is_reported(make, tmp_path):
    client = make("--junk-only")
    with pytest.raises(McpError) as caught:
        client.start(0.5)
    assert "did not answer initialize within 0.5s" in str(caught.value)
    assert "not JSON-RPC" in str(caught.value)
    assert "I do not speak JSON" in (tmp_path / "fake.log").read_text()


def test_junk_between_messages_is_skipped(make, tmp_path):
    client = make("--banner")
    client.start(10)
    assert client.call_tool("junk", {}, 10)["content"][0]["text"] == "after junk"
    assert client.junk_lines == 2
    assert "Fake MCP server ready!" in (tmp_path / "fake.log").read_text()


def test_close_ends_the_process(make):
    client = make()
    client.start(10)
    pid = client.pid
    client.close()
    assert not client.alive
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with pytest.raises(McpError, match="was closed"):
        client.call_tool("echo", {"text": "x"}, 10)
