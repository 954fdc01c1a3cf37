"""http_request against real loopback HTTP servers: methods, bodies, ${ENV} headers, approvals per origin, redirects."""

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ankit.records import ToolCall
from ankit.tooling.toolbox import ToolContext, run_call
from tests.helpers import bundled

TOOL = bundled()[0]["http_request"]


class Api(BaseHTTPRequestHandler):
    """Echoes what it got; /moved redirects within the server, /away to the URL in ?to=."""

    def log_message(self, *args):
        pass

    def _answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        self.server.seen.append((self.command, self.path, dict(self.headers), body))
        if self.path.startswith("/moved"):
            return self._send(302, b"", {"Location": "/echo?from=moved"})
        if self.path.startswith("/away"):
            return self._send(307, b"", {"Location": self.path.split("to=", 1)[1]})
        echo = {"method": self.command, "path": self.path, "auth": self.headers.get("Authorization"), "body": body}
        self._send(201 if self.command == "POST" else 200, json.dumps(echo).encode(), {"X-Ratelimit-Remaining": "41"})

    def _send(self, status, body, headers):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _answer


@pytest.fixture
def api():
    servers = []
    for _ in range(2):
        server = ThreadingHTTPServer(("127.0.0.1", 0), Api)
        server.seen = []
        server.url = f"http://127.0.0.1:{server.server_port}"
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    yield servers
    for server in servers:
        server.shutdown()
        server.server_close()


class Approver:
    def __init__(self, answer=True):
        self.answer, self.previews = answer, []

    def __call__(self, tool, args, preview):
        self.previews.append(preview)
        return self.answer


def call(args: dict, ctx: ToolContext, approver=None, values: bool = False):
    return run_call(ToolCall("c1", "http_request", json.dumps(args)), TOOL, ctx, approver or Approver(), values=values)


def test_get_with_query_returns_status_chosen_headers_and_indented_json(api, tmp_path):
    result = call({"url": api[0].url + "/echo", "query": {"q": "a b", "all": True}}, ToolContext(cwd=tmp_path))
    head, _, body = result.content.partition("\n\n")
    assert head.splitlines()[0] == "HTTP 200 OK" and "x-ratelimit-remaining: 41" in head
    assert json.loads(body)["path"] == "/echo?q=a+b&all=true" and "\n \"method\": \"GET\"" in body


def test_post_json_and_text_bodies(api, tmp_path):
    ctx = ToolContext(cwd=tmp_path)
    posted = call({"url": api[0].url + "/items", "method": "POST", "json": {"name": "x"}}, ctx)
    assert posted.content.startswith("HTTP 201 Created")
    method, _, headers, body = api[0].seen[-1]
    assert (method, body, headers["Content-Type"]) == ("POST", '{"name": "x"}', "application/json")
    call({"url": api[0].url + "/note", "method": "PUT", "body": "plain words"}, ctx)
    assert api[0].seen[-1][3] == "plain words" and api[0].seen[-1][2]["Content-Type"].startswith("text/plain")
    both = call({"url": api[0].url, "method": "POST", "json": 1, "body": "x"}, ctx)
    assert both.is_error and "either json or body" in both.content


def test_env_references_are_sent_but_never_shown(api, tmp_path, monkeypatch):
    monkeypatch.setenv("DEMO_API_TOKEN", "tok-VERY-secret-123")
    approver = Approver()
    result = call({"url": api[0].url + "/me", "headers": {"Authorization": "Bearer ${DEMO_API_TOKEN}"}},
                  ToolContext(cwd=tmp_path), approver)
    assert api[0].seen[-1][2]["Authorization"] == "Bearer tok-VERY-secret-123"
    assert "tok-VERY-secret" not in result.content and "Bearer [redacted]" in result.content  # the echo is scrubbed
    assert "Authorization: Bearer ${DEMO_API_TOKEN}" in approver.previews[0]
    assert "tok-VERY" not in approver.previews[0]


def test_a_program_gets_the_response_as_a_record_with_its_json_body_parsed_and_secrets_redacted(api, tmp_path,
                                                                                                monkeypatch):
    monkeypatch.setenv("DEMO_API_TOKEN", "tok-VERY-secret-123")
    result = call({"url": api[0].url + "/me", "headers": {"Authorization": "Bearer ${DEMO_API_TOKEN}"}},
                  ToolContext(cwd=tmp_path), values=True)
    record = json.loads(result.data)
    assert record["status"] == 200 and record["url"].endswith("/me") and record["headers"]["x-ratelimit-remaining"] == "41"
    assert record["body"]["path"] == "/me" and "tok-VERY" not in result.data  # parsed, and redacted as the text is


def test_a_missing_env_reference_is_one_line_and_sends_nothing(api, tmp_path, monkeypatch):
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    result = call({"url": api[0].url, "headers": {"X-Key": "${NOT_SET_ANYWHERE}"}}, ToolContext(cwd=tmp_path))
    assert result.is_error and "\n" not in result.content and "${NOT_SET_ANYWHERE}, which is not set" in result.content
    assert api[0].seen == []


def test_reading_asks_once_per_origin_and_writes_ask_every_time(api, tmp_path, monkeypatch):
    ctx, approver = ToolContext(cwd=tmp_path), Approver()
    call({"url": api[0].url + "/a"}, ctx, approver)
    call({"url": api[0].url + "/b"}, ctx, approver)
    assert len(approver.previews) == 1 and "for the rest of the session" in approver.previews[0]
    call({"url": api[1].url + "/a"}, ctx, approver)  # another port is another origin
    assert len(approver.previews) == 2
    monkeypatch.setenv("DEMO_KEY", "abcdefgh12345")
    call({"url": api[0].url + "/c", "headers": {"X-Key": "${DEMO_KEY}"}}, ctx, approver)  # a new secret asks again
    call({"url": api[0].url + "/d", "method": "DELETE"}, ctx, approver)
    call({"url": api[0].url + "/d", "method": "DELETE"}, ctx, approver)
    assert len(approver.previews) == 5 and approver.previews[-1].startswith("DELETE ")


def test_declined_or_without_approval_nothing_is_sent(api, tmp_path):
    declined = call({"url": api[0].url + "/x", "method": "POST", "json": {}}, ToolContext(cwd=tmp_path), Approver(False))
    assert declined.is_error and api[0].seen == []


def test_redirects_within_an_origin_are_followed_and_to_another_are_not(api, tmp_path):
    ctx = ToolContext(cwd=tmp_path)
    moved = call({"url": api[0].url + "/moved"}, ctx).content
    assert "URL: " + api[0].url + "/echo?from=moved" in moved and "(redirected from " in moved
    away = call({"url": f"{api[0].url}/away?to={api[1].url}/steal"}, ctx).content
    assert away.startswith("HTTP 307") and f"redirected to {api[1].url}/steal, another origin: not followed" in away
    assert api[1].seen == []


def test_an_unreachable_url_is_one_line(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = call({"url": f"http://127.0.0.1:{port}/"}, ToolContext(cwd=tmp_path))
    assert result.is_error and "\n" not in result.content and "could not reach" in result.content
    bad = call({"url": "ftp://example.com/x"}, ToolContext(cwd=tmp_path))
    assert bad.is_error and "only http and https" in bad.content
