"""github_notifications against a loopback server shaped like the GitHub REST API."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ankit.records import ToolCall
from ankit.tooling.toolbox import ToolContext, run_call
from tests.helpers import bundled

TOOL = bundled()[0]["github_notifications"]
TOKEN = "ghp_testtoken0123456789abcdefghijklmnopqr"
THREADS = [
    {"id": "101", "unread": True, "reason": "review_requested", "updated_at": "2026-11-29T10:00:00Z",
     "subject": {"title": "Add retries", "url": "https://api.github.com/repos/octo/app/pulls/7", "type": "PullRequest"},
     "repository": {"full_name": "octo/app", "html_url": "https://github.com/octo/app"}},
    {"id": "102", "unread": True, "reason": "mention", "updated_at": "2026-11-28T09:00:00Z",
     "subject": {"title": "Crash on start", "url": "https://api.github.com/repos/octo/lib/issues/3", "type": "Issue"},
     "repository": {"full_name": "octo/lib", "html_url": "https://github.com/octo/lib"}},
]


class GitHub(BaseHTTPRequestHandler):
    calls: list[tuple[str, str, str, str]] = []
    mode = "ok"

    def log_message(self, *args):
        pass

    def reply(self, status: int, body=None, headers: dict | None = None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode()
        GitHub.calls.append((self.command, self.path, self.headers.get("Authorization", ""), body))
        if GitHub.mode == "bad-token":
            return self.reply(401, {"message": f"Bad credentials for {self.headers.get('Authorization')}"})
        if GitHub.mode == "rate-limited":
            return self.reply(403, {"message": "API rate limit exceeded"}, {"X-RateLimit-Remaining": "0"})
        path = self.path.split("?")[0]
        if path.startswith("/moved/"):  # the same server under another host name: a redirect to another origin
            target = f"http://localhost:{self.server.server_address[1]}{self.path.removeprefix('/moved')}"
            return self.reply(301, None, {"Location": target})
        if self.command == "GET" and path == "/notifications":
            return self.reply(200, THREADS)
        if self.command == "GET" and path == "/repos/octo/lib/notifications":
            return self.reply(200, THREADS[1:])
        if self.command == "PATCH" and path.startswith("/notifications/threads/"):
            return self.reply(205)
        if self.command == "PUT" and path in ("/notifications", "/repos/octo/app/notifications"):
            return self.reply(202, {"message": "Unread notifications couldn't be marked in a single request."})
        return self.reply(404, {"message": "Not Found"})

    do_GET = do_PATCH = do_PUT = handle_any


@pytest.fixture(scope="module")
def api():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), GitHub)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def github(api, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    GitHub.calls.clear()
    GitHub.mode = "ok"

    def call(args: dict, previews: list | None = None):
        def approve(tool, args, preview):
            if previews is not None:
                previews.append(preview)
            return True

        ctx = ToolContext(cwd=Path.cwd(), config={"github_api_url": api})
        result = run_call(ToolCall("c1", TOOL.name, json.dumps(args)), TOOL, ctx, approve)
        assert TOKEN not in result.content
        return result

    return call


def test_lists_unread_notifications_with_links(github):
    result = github({})
    assert not result.is_error
    assert result.content.splitlines() == [
        "[101] octo/app PullRequest: Add retries (review_requested, unread, 2026-11-29) https://github.com/octo/app/pull/7",
        "[102] octo/lib Issue: Crash on start (mention, unread, 2026-11-28) https://github.com/octo/lib/issues/3",
    ]
    method, path, auth, _ = GitHub.calls[0]
    assert (method, auth) == ("GET", f"Bearer {TOKEN}")
    assert path == "/notifications?all=false&participating=false&per_page=30"


def test_lists_one_repository_and_read_ones(github):
    result = github({"repo": "octo/lib", "include_read": True, "limit": 5})
    assert result.content.startswith("[102] octo/lib Issue")
    assert GitHub.calls[0][1] == "/repos/octo/lib/notifications?all=true&participating=false&per_page=5"


def test_mark_one_thread_read_needs_approval(github):
    previews = []
    result = github({"action": "mark_read", "thread_id": "101"}, previews)
    assert result.content == "marked thread 101 as read"
    assert previews[0].startswith("mark GitHub notification thread 101 as read (with GITHUB_TOKEN, to ")
    assert GitHub.calls[0][:2] == ("PATCH", "/notifications/threads/101")
    assert TOOL.wants_approval({}, ToolContext(cwd=Path.cwd()))  # listing sends the token: asked once per origin


def test_mark_all_read(github):
    result = github({"action": "mark_read", "repo": "octo/app"})
    assert result.content == "marked all notifications in octo/app as read"
    method, path, _, body = GitHub.calls[0]
    assert (method, path, json.loads(body)) == ("PUT", "/repos/octo/app/notifications", {"read": True})


def test_bad_token_is_explained_without_leaking_it(github):
    GitHub.mode = "bad-token"
    result = github({})
    assert result.is_error and "rejected GITHUB_TOKEN (401" in result.content and "***" in result.content


def test_rate_limit_and_bad_input(github):
    GitHub.mode = "rate-limited"
    assert "rate limit" in github({}).content
    GitHub.mode = "ok"
    assert "owner/name" in github({"repo": "just-a-name"}).content
    assert "not a number" in github({"action": "mark_read", "thread_id": "abc"}).content


def test_missing_token(api, monkeypatch):
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    ctx = ToolContext(cwd=Path.cwd(), config={"github_api_url": api})
    result = run_call(ToolCall("c1", TOOL.name, "{}"), TOOL, ctx, lambda *a: True)
    assert result.is_error and "GITHUB_TOKEN is not set" in result.content


def test_unreachable_api_does_not_leak_the_token(github, monkeypatch):
    ctx = ToolContext(cwd=Path.cwd(), config={"github_api_url": "http://127.0.0.1:9/" + TOKEN})
    result = run_call(ToolCall("c1", TOOL.name, "{}"), TOOL, ctx, lambda *a: True)
    assert result.is_error and TOKEN not in result.content


def test_a_redirect_to_another_host_does_not_carry_the_token(github, api):
    ctx = ToolContext(cwd=Path.cwd(), config={"github_api_url": f"{api}/moved"})
    result = run_call(ToolCall("c1", TOOL.name, "{}"), TOOL, ctx, lambda *a: True)
    assert result.is_error and "redirected to http://localhost" in result.content  # another origin: not followed
    hops = [(path.split("?")[0], auth) for _, path, auth, _ in GitHub.calls]
    assert hops == [("/moved/notifications", f"Bearer {TOKEN}")]
