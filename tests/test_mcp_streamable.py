"""The Streamable HTTP transport against a real HTTP server on 127.0.0.1 that speaks the protocol byte for byte."""

import http.server
import json
import threading

import pytest

from ankit.errors import ConfigError
from ankit.mcp.asks import Asks
from ankit.mcp.client import McpClient
from ankit.mcp.servers import McpManager
from ankit.mcp.settings import server_config
from ankit.mcp.streamable import header_value
from ankit.mcp.transport import McpError
from tests.helpers import wait_for

TOOLS = [{"name": "echo", "description": "Echo the text.", "annotations": {"readOnlyHint": True, "openWorldHint": False},
          "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
         {"name": "work", "description": "Work with progress, a ping and a log line.", "inputSchema": {"type": "object"}}]


class McpHttp(http.server.BaseHTTPRequestHandler):
    """POST /mcp: JSON-RPC in, an event stream or JSON out; a session id from initialize; DELETE ends it."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_DELETE(self):
        self.server.seen.append(("DELETE", self.headers.get("Mcp-Session-Id"), None))
        self.server.sessions.discard(self.headers.get("Mcp-Session-Id"))
        self.reply(200, b"", "text/plain")

    def do_POST(self):
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.seen.append(("POST", dict(self.headers), message))
        if self.path == "/moved":
            self.send_response(307)
            self.send_header("Location", self.server.elsewhere or "/mcp")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.server.token and self.headers.get("Authorization") != f"Bearer {self.server.token}":
            body = json.dumps({"error": {"message": f"bad credentials {self.headers.get('Authorization')}"}})
            return self.reply(401, body.encode(), "application/json")
        meta = (message.get("params") or {}).get("_meta") or {}
        if self.server.modern and "io.modelcontextprotocol/protocolVersion" in meta:
            return self.modern(message, meta)
        session = self.headers.get("Mcp-Session-Id")
        if message.get("method") != "initialize" and session not in self.server.sessions:
            return self.reply(404 if session else 400, b'{"error": {"message": "Session not found"}}', "application/json")
        if "method" not in message or "id" not in message:  # a notification or our answer to the server's ping
            return self.reply(202, b"", "application/json")
        self.answer(message)

    def answer(self, message: dict) -> None:
        method, rid = message["method"], message["id"]
        if method == "initialize":
            self.server.sessions.add("session-1")
            result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "http-test", "version": "1"}}
            return self.stream([b"id: 0\ndata: \n\n", event({"jsonrpc": "2.0", "id": rid, "result": result})],
                               {"Mcp-Session-Id": "session-1"})
        if method == "tools/list":
            body = json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}}).encode()
            return self.reply(200, body, "application/json")
        name, args = message["params"]["name"], message["params"]["arguments"]
        if name == "echo":
            return self.stream([event({"jsonrpc": "2.0", "id": rid, "result": text(args.get("text", ""))})])
        token = message["params"]["_meta"]["progressToken"]
        self.stream([event({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token,
                                                                                              "progress": 1}}),
                     event({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"}),
                     event({"jsonrpc": "2.0", "method": "notifications/message",
                            "params": {"level": "info", "data": "working"}}),
                     b"data: not json at all\n\n",
                     event({"jsonrpc": "2.0", "id": rid, "result": text("worked")})])

    def modern(self, message: dict, meta: dict) -> None:
        """2026-07-28: no session; version and method in headers that must match the body; input rounds."""
        method, rid, params = message["method"], message["id"], message["params"]
        name = params.get("name")
        if (self.headers.get("MCP-Protocol-Version") != meta["io.modelcontextprotocol/protocolVersion"]
                or self.headers.get("Mcp-Method") != method or (name and self.headers.get("Mcp-Name") != name)):
            body = {"jsonrpc": "2.0", "id": rid, "error": {"code": -32020, "message": "Header mismatch"}}
            return self.reply(400, json.dumps(body).encode(), "application/json")
        if method == "server/discover":
            result = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                      "serverInfo": {"name": "http-modern", "version": "3"}}
        elif method == "tools/list":
            result = {"tools": self.server.tools, "ttlMs": 0, "cacheScope": "private"}
        elif name == "echo":
            result = text(params["arguments"].get("text", ""))
        elif "inputResponses" not in params:
            result = {"resultType": "input_required", "requestState": "opaque",
                      "inputRequests": {"q": {"method": "elicitation/create", "params": {
                          "mode": "form", "message": "Sure?", "requestedSchema": {"type": "object", "properties": {}}}}}}
        else:
            result = text(json.dumps([params["inputResponses"], params["requestState"]]))
        answer = {"jsonrpc": "2.0", "id": rid, "result": {"resultType": "complete", **result}}
        self.stream([event(answer)]) if name else self.reply(200, json.dumps(answer).encode(), "application/json")

    def reply(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def stream(self, events: list[bytes], headers: dict | None = None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Connection", "close")
        self.end_headers()
        for chunk in events:
            self.wfile.write(chunk)
            self.wfile.flush()
        self.close_connection = True


def event(message: dict) -> bytes:
    return b"event: message\ndata: " + json.dumps(message).encode() + b"\n\n"


def text(value: str) -> dict:
    return {"content": [{"type": "text", "text": value}], "isError": False}


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), McpHttp)
    httpd.seen, httpd.sessions, httpd.token, httpd.elsewhere, httpd.modern = [], set(), "", "", False
    httpd.tools = TOOLS
    httpd.url = f"http://127.0.0.1:{httpd.server_address[1]}/mcp"
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def client(tmp_path):
    made = []

    def build(url: str, headers: dict | None = None, asks: Asks | None = None) -> McpClient:
        made.append(McpClient("web", "", url=url, headers=headers, log_path=tmp_path / "web.log", asks=asks))
        return made[-1]

    yield build
    for one in made:
        one.close()


def posts(server) -> list[tuple[dict, dict]]:
    return [(headers, message) for verb, headers, message in server.seen if verb == "POST"]


def test_a_session_over_http_lists_and_calls_and_ends(server, client, tmp_path):
    web = client(server.url)
    web.start(10)
    assert web.server_info["name"] == "http-test" and web.protocol_version == "2025-06-18"
    assert [t["name"] for t in web.list_tools(10)] == ["echo", "work"]
    assert web.call_tool("echo", {"text": "hi"}, 10)["content"][0]["text"] == "hi"
    assert web.call_tool("work", {}, 10)["content"][0]["text"] == "worked"
    sent = posts(server)
    assert sent[0][1]["method"] == "server/discover"  # the 2026-07-28 probe, refused (400): an older server
    assert sent[2][1] == {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert all(h["Mcp-Session-Id"] == "session-1" and h["Mcp-Protocol-Version"] == "2025-06-18" for h, _ in sent[2:])
    assert "text/event-stream" in sent[0][0]["Accept"] and "application/json" in sent[0][0]["Accept"]
    assert wait_for(lambda: any(m == {"jsonrpc": "2.0", "id": "srv-1", "result": {}} for _, m in posts(server)))
    # the inbox thread writes the server's notices as they come, after the reply the test waited for
    assert wait_for(lambda: 'log info: "working"' in (tmp_path / "web.log").read_text())
    assert "not JSON-RPC, ignored: not json at all" in (tmp_path / "web.log").read_text()
    web.close()
    assert ("DELETE", "session-1", None) in server.seen and not web.alive


def test_an_ended_session_fails_the_call_in_one_line_and_marks_the_client_gone(server, client):
    web = client(server.url)
    web.start(10)
    server.sessions.clear()
    with pytest.raises(McpError, match=r"ended the session \(HTTP 404\)"):
        web.list_tools(10)
    assert not web.alive and "HTTP 404" in web.failure


def test_a_manager_runs_a_url_server_and_starts_a_new_session_after_one_ends(server, tmp_path):
    manager = McpManager({"web": {"url": server.url, "trust_annotations": True}}, tmp_path)
    try:
        manager.start()
        assert manager.wait(10) and not manager.status.failures()
        echo = next(t for t in manager.catalog.tools() if t.name == "mcp__web__echo")
        assert echo.run({"text": "one"}) == "one" and echo.read_only
        server.sessions.clear()
        with pytest.raises(McpError, match="ended the session"):
            echo.run({"text": "two"})
        assert echo.run({"text": "three"}) == "three"  # a new initialize, a new session
        assert [m.get("method") for _, m in posts(server)].count("initialize") == 2
    finally:
        manager.close()


def test_nothing_listening_is_one_line(client):
    with pytest.raises(McpError) as caught:
        client("http://127.0.0.1:9/mcp").start(5)
    assert "cannot connect" in str(caught.value) and "is it running?" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_2026_07_28_server_over_http_has_no_session_and_gets_its_headers(server, client):
    server.modern = True
    web = client(server.url, asks=Asks("web", None, lambda who, message, schema: {"action": "accept", "content": {}}))
    web.start(10)
    assert web.modern and web.server_info == {"name": "http-modern", "version": "3"}
    assert [t["name"] for t in web.list_tools(10)] == ["echo", "work"]
    assert web.call_tool("echo", {"text": "hé"}, 10)["content"][0]["text"] == "hé"
    answered = json.loads(web.call_tool("work", {}, 10)["content"][0]["text"])
    assert answered == [{"q": {"action": "accept", "content": {}}}, "opaque"]
    web.close()
    sent = posts(server)
    assert [m["method"] for _, m in sent] == ["server/discover", "tools/list", "tools/call", "tools/call", "tools/call"]
    assert all(h["Mcp-Protocol-Version"] == "2026-07-28" and "Mcp-Session-Id" not in h for h, _ in sent)
    assert [h.get("Mcp-Name") for h, _ in sent][2:] == ["echo", "work", "work"]
    assert all(verb == "POST" for verb, _, _ in server.seen)  # no session to end: no DELETE


def test_x_mcp_header_parameters_are_mirrored_and_invalid_annotations_leave_the_tool_out(server, client):
    server.modern = True
    region = {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"},
                                               "opts": {"type": "object", "properties": {
                                                   "dry": {"type": "boolean", "x-mcp-header": "Dry"}}}}}
    bad = {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "string", "x-mcp-header": "X"}}}}
    server.tools = [{"name": "echo", "description": "Echo.", "inputSchema": region},
                    {"name": "broken", "description": "Bad.", "inputSchema": bad}]
    web = client(server.url)
    web.start(10)
    assert [t["name"] for t in web.list_tools(10)] == ["echo"]
    assert "left out tool(s) 'broken'" in web.list_note and "x-mcp-header" in web.list_note
    web.call_tool("echo", {"region": "us-west1", "opts": {"dry": True}}, 10)
    web.call_tool("echo", {"region": "Zürich"}, 10)
    first, second = [h for h, m in posts(server) if m["method"] == "tools/call"]
    assert first["Mcp-Param-Region"] == "us-west1" and first["Mcp-Param-Dry"] == "true"
    assert second["Mcp-Param-Region"] == "=?base64?WsO8cmljaA==?=" and "Mcp-Param-Dry" not in second


def test_header_values_that_are_not_plain_ascii_are_base64():
    assert header_value("get_weather") == "get_weather"
    assert header_value("Hello, 世界") == "=?base64?SGVsbG8sIOS4lueVjA==?="
    assert header_value(" padded ") == "=?base64?IHBhZGRlZCA=?="
    assert header_value("=?base64?literal?=") == "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="


def test_credentials_come_from_the_environment_and_never_show(server, client, monkeypatch):
    server.token = "s3cret-token-value-123"
    with pytest.raises(McpError) as caught:
        client(server.url, {"Authorization": "Bearer wrong-token-value-456"}).start(5)
    assert "HTTP 401" in str(caught.value) and "wrong-token-value-456" not in str(caught.value)
    monkeypatch.setenv("WEB_TOKEN", server.token)
    web = client(server.url, {"Authorization": "Bearer ${WEB_TOKEN}"})
    web.start(5)
    assert posts(server)[-1][0]["Authorization"] == f"Bearer {server.token}"


def test_a_redirect_is_followed_only_to_the_same_origin(server, client):
    moved = server.url.replace("/mcp", "/moved")
    first = client(moved)
    first.start(5)
    assert first.server_info["name"] == "http-test"
    server.elsewhere = "http://localhost:9/steal"
    with pytest.raises(McpError, match="redirects elsewhere") as caught:
        client(moved, {"Authorization": "Bearer abc"}).start(5)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("table, fix", [
    ({"url": "ftp://host/mcp"}, "url must be an http:// or https:// address"),
    ({"url": "http://h/mcp", "command": "x"}, "has both command and url"),
    ({"url": "http://h/mcp", "headers": {"A": 1}}, "headers must be a table of strings"),
    ({}, "needs command = \"program\""),
])
def test_bad_http_settings_are_one_line(table, fix):
    with pytest.raises(ConfigError, match=fix):
        server_config("web", table)


def test_http_settings_are_kept():
    cfg = server_config("web", {"url": "https://h/mcp", "headers": {"X-Key": "${KEY}"}})
    assert (cfg.url, cfg.headers, cfg.command) == ("https://h/mcp", {"X-Key": "${KEY}"}, "")
