"""Real MCP servers' recorded exchanges (tests/fixtures/mcp_*.jsonl), replayed by a subprocess through ankit's client.

The fixtures were recorded from the development fleet (tests/bench/fleet) with ankit's own client; the replay
server (tests/mcp_replay_server.py) answers each request with what the real server answered, so the suite checks
the handshake, the tool lists and every recorded call's result as the model would see it, without the fleet.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ankit.errors import ToolError
from ankit.mcp.asks import Asks
from ankit.mcp.client import PROTOCOL_VERSIONS, McpClient
from ankit.mcp.servers import McpManager
from ankit.mcp.tools import make_tools, result_text
from ankit.mcp.transport import McpError
from ankit.records import ToolOutput
from tests.helpers import wait_for, xdg_env
from tests.mcp_replay_server import ReplayHttp

HERE = Path(__file__).parent
REPLAY = str(HERE / "mcp_replay_server.py")
FIXTURES = sorted((HERE / "fixtures").glob("mcp_*.jsonl"))
ASKED = {"action": "accept", "content": {"date": "2026-12-24", "guests": 4}}  # the answer given when recording

# what the model sees for results of each kind a real server sent (fixture, tool, arguments' JSON prefix) -> text in it
SEEN = {
    ("everything", "get-tiny-image", ""): "Here's the image you requested:\n[image: image/png, 3.9 KB, not shown]\n",
    ("everything", "get-structured-content", ""): '"temperature":36',
    ("everything", "get-resource-links", ""): "[resource link: demo://resource/dynamic/blob/1 (Blob Resource 1)",
    ("everything", "get-resource-reference", '{"resourceType": "Text"'):
        "[resource demo://resource/dynamic/text/1 (text/plain)]\nResource 1: This is a plaintext resource",
    ("everything", "get-resource-reference", '{"resourceType": "Blob"'):
        "[resource demo://resource/dynamic/blob/2: text/plain, 55 bytes, not shown]",
    ("everything", "get-annotated-message", ""): "Error: Operation failed\n[image: image/png, 3.9 KB, not shown]",
    ("everything", "trigger-long-running-operation", ""): "Long running operation completed.",
    ("everything", "get-sum", '{"a": "x"'): "Input validation error",
    ("filesystem", "read_text_file", '{"path": "/etc/passwd"'): "Access denied - path outside allowed directories",
    ("filesystem", "read_media_file", ""): "[resource file:///work/fleet/data/probe.txt",
    ("time", "get_current_time", '{"timezone": "Mars/Base"'): "Invalid timezone",
    ("time", "convert_time", ""): '"target": {\n    "timezone": "Asia/Tokyo"',
    ("sqlite", "read_query", '{"query": "select 1'): "[{'one': 1, 'two': 'two'}]",
    ("memory", "search_nodes", ""): '"name": "probe"',
    ("kubernetes", "ping", ""): "(no output)",
    ("playwright", "browser_tabs", ""): "Chromium distribution 'chrome' is not found",
    ("python-sdk", "book_table", ""): "booked Chez Nous on 2026-12-24 for 4",  # asked (elicitation), then retried
    ("python-sdk", "nope", ""): "Unknown tool: nope",
}


def exchange(path: Path) -> list[tuple[str, dict]]:
    """The fixture's messages as (from, message); junk lines are skipped."""
    out = []
    for entry in map(json.loads, path.read_text(encoding="utf-8").splitlines()):
        try:
            out.append((entry["from"], json.loads(entry["line"])))
        except ValueError:
            pass
    return out


def recorded_calls(messages: list[tuple[str, dict]]) -> list[tuple[str, dict, str]]:
    """Each recorded tools/call with how the server answered: 'ok', 'error' (isError) or 'rpc' (a JSON-RPC error)."""
    answers = {m["id"]: m for who, m in messages if who == "server" and "id" in m and "method" not in m}
    calls = []
    for who, m in messages:
        if who == "client" and m.get("method") == "tools/call" and "inputResponses" not in m["params"]:
            answer = answers[m["id"]]
            kind = "rpc" if "error" in answer else "error" if answer["result"].get("isError") else "ok"
            calls.append((m["params"]["name"], m["params"]["arguments"], kind))
    return calls


def server_said(messages, method: str) -> dict:
    ids = {m["id"] for who, m in messages if who == "client" and m.get("method") == method}
    return next(m["result"] for who, m in messages if who == "server" and m.get("id") in ids and "result" in m)


@pytest.fixture
def replay(tmp_path):
    clients = []

    def start(path: Path) -> McpClient:
        client = McpClient(path.stem, sys.executable, [REPLAY, str(path), "--record", str(tmp_path / "got.jsonl")],
                           log_path=tmp_path / "replay.log")
        clients.append(client)
        client.start(30)
        return client

    yield start
    for client in clients:
        client.close()


def outcome(run, arguments: dict) -> tuple[str, str]:
    """How a call ended, and the model's text (a ToolOutput's text: its value is a run_code program's)."""
    try:
        result = run(arguments)
        return "ok", result.text if isinstance(result, ToolOutput) else result
    except McpError as exc:
        return "rpc", str(exc)
    except ToolError as exc:
        return "error", str(exc)


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_a_real_servers_session_replays_through_ankits_tools(path, replay):
    messages = exchange(path)
    name = path.stem.removeprefix("mcp_").replace("_", "-")
    client = replay(path)
    if any(m.get("method") == "initialize" for who, m in messages if who == "client"):
        assert client.protocol_version == server_said(messages, "initialize")["protocolVersion"]
    else:
        assert client.protocol_version in server_said(messages, "server/discover")["supportedVersions"]
    assert client.protocol_version in PROTOCOL_VERSIONS
    specs = client.list_tools(30)
    assert [s["name"] for s in specs] == [t["name"] for t in server_said(messages, "tools/list")["tools"]]
    tools, problems = make_tools(name, specs, lambda original, args: client.call_tool(original, args, 30))
    assert len(tools) + len(problems) == len(specs)
    by_name = {t.name.removeprefix(f"mcp__{name}__"): t for t in tools}
    for tool in tools:
        assert tool.parameters["type"] == "object" and "$schema" not in tool.parameters
        assert tool.description.strip() and len(tool.name) <= 64
    for original, arguments, kind in recorded_calls(messages):
        tool = by_name.get(original)
        run = tool.run if tool else (lambda args, o=original: result_text(client.call_tool(o, args, 30)))
        got, text = outcome(run, arguments)
        assert got == kind, (original, arguments, text)
        assert text.strip() and "\n" not in text if got == "rpc" else True
        for (server, which, prefix), expected in SEEN.items():
            if server == name and which == original and json.dumps(arguments).startswith(prefix):
                assert expected in text, (original, text)


def test_a_tool_that_runs_only_as_a_task_is_left_out_with_a_reason(replay):
    client = replay(HERE / "fixtures" / "mcp_everything.jsonl")
    tools, problems = make_tools("everything", client.list_tools(30), lambda o, a: {})
    assert "mcp__everything__simulate-research-query" not in {t.name for t in tools}
    assert problems == ["skipped tool 'simulate-research-query' of MCP server 'everything': it runs only as an MCP "
                        "task, which ankit does not support"]


def test_annotations_decide_approval_as_the_real_servers_set_them(replay):
    client = replay(HERE / "fixtures" / "mcp_filesystem.jsonl")
    tools, _ = make_tools("filesystem", client.list_tools(30), lambda o, a: {}, trusted=True)
    asks = {t.name.removeprefix("mcp__filesystem__"): t.needs_approval for t in tools}
    assert asks["read_text_file"] is False and asks["list_directory"] is False
    assert asks["write_file"] is True and asks["move_file"] is True


def test_progress_notifications_reach_the_caller_with_its_own_token(replay, tmp_path):
    client = replay(HERE / "fixtures" / "mcp_everything.jsonl")
    client.list_tools(30)
    result = client.call_tool("trigger-long-running-operation", {"duration": 2, "steps": 2}, 30)
    assert "Long running operation completed" in result["content"][0]["text"]
    sent = [json.loads(line) for line in (tmp_path / "got.jsonl").read_text().splitlines()]
    call = next(m for m in sent if m.get("method") == "tools/call")
    assert call["params"]["_meta"] == {"progressToken": call["id"]}


def test_a_manager_relists_after_the_everything_servers_list_changed(tmp_path):
    fixture = HERE / "fixtures" / "mcp_everything.jsonl"
    record = tmp_path / "got.jsonl"
    manager = McpManager({"everything": {"command": sys.executable, "args": [REPLAY, str(fixture), "--record",
                                                                               str(record)]}}, tmp_path)
    try:
        manager.start()
        assert manager.wait(30)
        got = lambda: [json.loads(line).get("method") for line in record.read_text().splitlines()]  # noqa: E731
        assert wait_for(lambda: got().count("tools/list") == 2)  # the announced change is listed afresh
        echo = next(t for t in manager.catalog.tools() if t.name == "mcp__everything__echo")
        assert echo.run({"message": "hi"}) == "Echo: hi"
        assert not manager.status.failures()
    finally:
        manager.close()


def test_ankit_p_calls_a_replayed_real_server_and_asks_before_it_writes(provider_server, tmp_path):
    fixture = HERE / "fixtures" / "mcp_filesystem.jsonl"
    (tmp_path / "config" / "ankit").mkdir(parents=True)
    (tmp_path / "config" / "ankit" / "config.toml").write_text(
        f"[mcp.servers.filesystem]\ncommand = {json.dumps(sys.executable)}\nargs = {json.dumps([REPLAY, str(fixture)])}\n"
        "trust_annotations = true\n")
    provider_server.push_openai(tool_calls=[
        ("c1", "mcp__filesystem__read_text_file", '{"path": "/work/fleet/data/probe.txt"}'),
        ("c2", "mcp__filesystem__write_file", '{"path": "/work/fleet/data/probe.txt", "content": "hello probe\\n"}'),
        ("c3", "mcp__filesystem__read_text_file", '{"path": "/etc/passwd"}')])
    provider_server.push_openai(text="done")
    env = {**{k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN"))}, **xdg_env(tmp_path),
           "PYTHONPATH": str(HERE.parent), "OPENAI_API_KEY": "sk-test"}
    done = subprocess.run([sys.executable, "-m", "ankit", "--base-url", provider_server.url + "/v1", "-p", "read it"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "done", done.stderr
    results = {m["tool_call_id"]: m["content"] for m in provider_server.requests[1].json["messages"]
               if m["role"] == "tool"}
    assert results["c1"] == "hello probe\n"
    assert "needs approval" in done.stderr and "mcp__filesystem__write_file" in done.stderr
    assert results["c2"].startswith("Error") and "Successfully" not in results["c2"]
    assert results["c3"].startswith("Error") and "Access denied" in results["c3"]


def test_the_python_sdks_2026_07_28_server_is_spoken_to_statelessly_over_stdio(replay, tmp_path):
    client = replay(HERE / "fixtures" / "mcp_python_sdk.jsonl")
    assert client.modern and client.server_info["name"] == "sdk-demo"
    assert client.instructions == "Demo tools on the official Python SDK."
    assert [t["name"] for t in client.list_tools(30)] == ["echo", "add", "book_table"]
    booked = client.call_tool("book_table", {"restaurant": "Chez Nous"}, 30)
    assert booked["content"][0]["text"] == "booked Chez Nous on 2026-12-24 for 4"
    sent = [json.loads(line) for line in (tmp_path / "got.jsonl").read_text().splitlines()]
    assert [m["method"] for m in sent] == ["server/discover", "tools/list", "tools/call", "tools/call"]
    first, retry = sent[2]["params"], sent[3]["params"]
    assert "requestState" not in first and retry["requestState"].startswith("v1.")  # echoed as the server sent it
    assert sent[3]["id"] != sent[2]["id"]


def test_the_python_sdks_2026_07_28_server_over_http_replays_with_its_headers_and_no_session(tmp_path):
    server = ReplayHttp(str(HERE / "fixtures" / "http_mcp_python_sdk.jsonl"))
    client = McpClient("sdk", "", url=server.url, log_path=tmp_path / "log",
                       asks=Asks("sdk", tmp_path, lambda who, message, schema: ASKED))
    try:
        client.start(30)
        assert client.modern and client.server_info["name"] == "sdk-demo"
        assert [t["name"] for t in client.list_tools(30)] == ["echo", "add", "book_table"]
        assert client.call_tool("echo", {"text": "héllo"}, 30)["content"][0]["text"] == "héllo"
        booked = client.call_tool("book_table", {"restaurant": "Chez Nous"}, 30)
        assert booked["content"][0]["text"] == "booked Chez Nous on 2026-12-24 for 4"
    finally:
        client.close()
        server.stop()
    for headers, message in server.seen:
        assert headers["mcp-protocol-version"] == "2026-07-28" and headers["mcp-method"] == message["method"]
        assert "mcp-session-id" not in headers
        if message["method"] == "tools/call":
            assert headers["mcp-name"] == message["params"]["name"]
    assert server.seen[-1][1]["params"]["inputResponses"] == {"__main__:ask_booking": ASKED}


def test_ankit_p_calls_the_python_sdks_2026_07_28_server(provider_server, tmp_path):
    fixture = HERE / "fixtures" / "mcp_python_sdk.jsonl"
    (tmp_path / "config" / "ankit").mkdir(parents=True)
    (tmp_path / "config" / "ankit" / "config.toml").write_text(
        f"[mcp.servers.sdk]\ncommand = {json.dumps(sys.executable)}\nargs = {json.dumps([REPLAY, str(fixture)])}\n"
        "start_timeout = 60\ntrust_annotations = true\n")
    provider_server.push_openai(tool_calls=[("c1", "mcp__sdk__echo", '{"text": "hello"}')])
    provider_server.push_openai(text="done")
    env = {**{k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN"))}, **xdg_env(tmp_path),
           "PYTHONPATH": str(HERE.parent), "OPENAI_API_KEY": "sk-test"}
    done = subprocess.run([sys.executable, "-m", "ankit", "--base-url", provider_server.url + "/v1", "-p", "echo"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "done", done.stderr
    assert provider_server.requests[1].json["messages"][-1]["content"] == "hello"
    listed = subprocess.run([sys.executable, "-m", "ankit", "mcp", "list"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60)
    assert listed.stdout.startswith("sdk: not started (3 tools as listed ")  # its list was cached by the -p run


def test_the_python_sdks_prompt_and_resource_reach_the_user_as_a_command_and_a_mention(tmp_path):
    fixture = HERE / "fixtures" / "mcp_python_sdk.jsonl"
    manager = McpManager({"sdk": {"command": sys.executable, "args": [REPLAY, str(fixture)]}}, tmp_path)
    try:
        manager.start()
        assert manager.wait(30) and not manager.status.news()  # prompts and resources listed without a problem
        assert manager.content.prompt_text("mcp__sdk__review", "code='x = 1' language=go") == "Please review this go code:\nx = 1"
        assert manager.content.read("sdk", "notes://today") == "[resource notes://today (text/plain)]\nbuy milk"
        assert "    @sdk:notes://today  today" in manager.status.server_text("sdk")
    finally:
        manager.close()
