"""OAuth 2.1 for MCP servers over HTTP against a real authorization server and protected MCP endpoint on 127.0.0.1:
discovery (RFC 9728, RFC 8414), dynamic registration (RFC 7591), the code exchange with PKCE S256 through a
loopback redirect, refresh, a revoked login, a wrong state, and `ankit mcp login/logout` end to end."""

import base64
import hashlib
import http.server
import json
import os
import secrets
import stat
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from ankit.mcp import oauth
from ankit.mcp.servers import McpManager
from ankit.mcp.tokens import TokenStore
from ankit.mcp.transport import McpError
from tests.helpers import xdg_env
from tests.test_repl import home, run  # noqa: F401 (fixtures)

ROOT = Path(__file__).resolve().parent.parent


class Auth(http.server.ThreadingHTTPServer):
    """An authorization server (/as) and the MCP endpoint it protects (/mcp), both on 127.0.0.1."""

    def __init__(self):
        super().__init__(("127.0.0.1", 0), AuthHandler)
        self.base = f"http://127.0.0.1:{self.server_address[1]}"
        self.clients, self.codes, self.access, self.refresh = {}, {}, {}, set()
        self.grants: list[str] = []  # grant types redeemed at /as/token
        self.bearers: list[str] = []  # Authorization headers the MCP endpoint saw
        self.revoked: list[str] = []
        self.lifetime, self.forge_state = 3600, False
        threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()

    def issue(self) -> dict:
        access, refresh = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        self.access[access] = time.time() + self.lifetime
        self.refresh.add(refresh)
        return {"access_token": access, "refresh_token": refresh, "token_type": "Bearer", "expires_in": self.lifetime}

    def revoke_all(self) -> None:
        self.access.clear()
        self.refresh.clear()


class AuthHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, status: int, body: dict | None = None, headers: dict | None = None) -> None:
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        for key, value in {"Content-Type": "application/json", **(headers or {})}.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        s, path = self.server, urllib.parse.urlsplit(self.path)
        if path.path == "/.well-known/oauth-protected-resource/mcp":
            return self.send(200, {"resource": s.base + "/mcp", "authorization_servers": [s.base + "/as"],
                                   "scopes_supported": ["mcp"]})
        if path.path == "/.well-known/oauth-authorization-server/as":
            return self.send(200, {"issuer": s.base + "/as", "authorization_endpoint": s.base + "/as/authorize",
                                   "token_endpoint": s.base + "/as/token", "registration_endpoint": s.base + "/as/register",
                                   "revocation_endpoint": s.base + "/as/revoke", "code_challenge_methods_supported": ["S256"]})
        if path.path == "/as/authorize":
            return self.authorize(dict(urllib.parse.parse_qsl(path.query)))
        self.send(404, {"error": "not_found"})

    def authorize(self, q: dict) -> None:
        s = self.server
        client = s.clients.get(q.get("client_id"))
        if not client or q.get("redirect_uri") not in client["redirect_uris"] or q.get("code_challenge_method") != "S256" \
                or q.get("resource") != s.base + "/mcp" or q.get("scope") != "mcp" or q.get("response_type") != "code":
            return self.send(400, {"error": "invalid_request"})
        code = secrets.token_urlsafe(8)
        s.codes[code] = (q["client_id"], q["redirect_uri"], q["code_challenge"])
        state = "forged-state" if s.forge_state else q["state"]
        where = q["redirect_uri"] + "?" + urllib.parse.urlencode({"code": code, "state": state, "iss": s.base + "/as"})
        self.send(302, None, {"Location": where})

    def do_POST(self):
        s = self.server
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/as/register":
            body = json.loads(raw)
            client_id = f"client-{len(s.clients) + 1}"
            s.clients[client_id] = body
            return self.send(201, {"client_id": client_id, **body})
        form = dict(urllib.parse.parse_qsl(raw.decode()))
        if self.path == "/as/token":
            return self.token(form)
        if self.path == "/as/revoke":
            s.revoked.append(form.get("token", ""))
            s.refresh.discard(form.get("token", ""))
            return self.send(200, {})
        if self.path == "/mcp":
            return self.mcp(json.loads(raw))
        self.send(404, {"error": "not_found"})

    def token(self, form: dict) -> None:
        s = self.server
        s.grants.append(form.get("grant_type", ""))
        if form.get("grant_type") == "authorization_code":
            client_id, redirect, challenge = s.codes.pop(form.get("code"), (None, None, None))
            verifier = form.get("code_verifier", "").encode()
            proof = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=").decode()
            if client_id != form.get("client_id") or redirect != form.get("redirect_uri") or proof != challenge:
                return self.send(400, {"error": "invalid_grant"})
            return self.send(200, s.issue())
        if form.get("grant_type") == "refresh_token" and form.get("refresh_token") in s.refresh:
            s.refresh.discard(form["refresh_token"])
            return self.send(200, s.issue())
        self.send(400, {"error": "invalid_grant", "error_description": "the refresh token is not valid"})

    def mcp(self, message: dict) -> None:
        s = self.server
        bearer = self.headers.get("Authorization", "")
        s.bearers.append(bearer)
        token = bearer.removeprefix("Bearer ")
        if s.access.get(token, 0) < time.time():
            metadata = f'Bearer resource_metadata="{s.base}/.well-known/oauth-protected-resource/mcp", scope="mcp"'
            return self.send(401, {"error": "invalid_token"}, {"WWW-Authenticate": metadata})
        method, rid = message["method"], message["id"]
        result = {"server/discover": {"supportedVersions": ["2026-07-28"], "serverInfo": {"name": "guarded", "version": "1"}},
                  "tools/list": {"tools": [{"name": "whoami", "description": "Say who asks.",
                                            "annotations": {"readOnlyHint": True, "openWorldHint": False},
                                            "inputSchema": {"type": "object"}}]},
                  "tools/call": {"content": [{"type": "text", "text": f"you hold {token[:4]}…"}]}}[method]
        self.send(200, {"jsonrpc": "2.0", "id": rid, "result": {"resultType": "complete", **result}})


@pytest.fixture
def auth():
    server = Auth()
    yield server
    server.shutdown()
    server.server_close()


def browser(url: str) -> None:
    """What a browser does with the login address: follow the authorization server's redirect to the loopback."""
    urllib.request.urlopen(url, timeout=30).read()


def log_in(auth, store: TokenStore, said: list | None = None) -> str:
    return oauth.login("web", auth.base + "/mcp", store, browser, (said if said is not None else []).append, wait=30)


def logins(folder: Path) -> list[Path]:
    """The login files kept (tokens), the registered clients' files aside."""
    return [p for p in folder.glob("*.json") if not p.name.startswith("client-")] if folder.is_dir() else []


def manager(auth, tmp_path) -> McpManager:
    return McpManager({"web": {"url": auth.base + "/mcp", "start_timeout": 30}}, tmp_path / "mcp")


def test_login_discovers_registers_exchanges_and_the_server_answers(auth, tmp_path):
    store, said = TokenStore(tmp_path / "mcp" / "auth"), []
    line = log_in(auth, store, said)
    assert line.startswith("logged in to MCP server web (authorized by http://127.0.0.1:")
    assert said[0] == "log in to MCP server 'web' in your browser; if none opens, open this address by hand:"
    assert said[1].startswith(auth.base + "/as/authorize?")  # alone on its line, whole, to copy
    assert "code_challenge_method=S256" in said[1] and "client_id=client-1" in said[1]
    assert auth.clients["client-1"]["redirect_uris"][0].startswith("http://127.0.0.1:")
    assert auth.clients["client-1"]["token_endpoint_auth_method"] == "none"
    assert auth.grants == ["authorization_code"]
    [saved] = logins(tmp_path / "mcp" / "auth")
    [client] = (tmp_path / "mcp" / "auth").glob("client-*.json")  # kept apart: it outlives a logout
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600 and stat.S_IMODE(saved.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(client.stat().st_mode) == 0o600
    servers = manager(auth, tmp_path)
    try:
        servers.start()
        assert servers.wait(30), servers.status.lines()
        assert servers.status.lines()[0].startswith("web: ready (1 tools; guarded 1, protocol 2026-07-28)")
        token = next(iter(auth.access))
        assert servers.catalog.tools()[0].run({}) == f"you hold {token[:4]}…"
        assert set(auth.bearers) == {"", f"Bearer {token}"}  # the login's probe had none
        assert token in store.secrets()  # the scrubber hides it everywhere
        assert token not in (tmp_path / "mcp" / "mcp-web.log").read_text()
    finally:
        servers.close()


def test_a_refused_token_is_refreshed_once_and_the_call_goes_on(auth, tmp_path):
    store = TokenStore(tmp_path / "mcp" / "auth")
    log_in(auth, store)
    auth.access.clear()  # the server forgets the access token; the refresh token still holds
    servers = manager(auth, tmp_path)
    try:
        servers.start()
        assert servers.wait(30) and servers.catalog.tools(), servers.status.lines()
        assert auth.grants == ["authorization_code", "refresh_token"]
        assert auth.bearers[0] != auth.bearers[-1]
    finally:
        servers.close()


def test_an_expired_token_is_refreshed_before_it_is_sent(auth, tmp_path):
    auth.lifetime = 1  # expires_in 1 s: within the 30 s margin, so refreshed before use
    store = TokenStore(tmp_path / "mcp" / "auth")
    log_in(auth, store)
    first = next(iter(auth.access))
    assert oauth.Tokens("web", auth.base + "/mcp", store).header() != f"Bearer {first}"
    assert auth.grants == ["authorization_code", "refresh_token"]


def test_a_revoked_login_asks_to_log_in_again_and_is_forgotten(auth, tmp_path):
    store = TokenStore(tmp_path / "mcp" / "auth")
    log_in(auth, store)
    auth.revoke_all()
    servers = manager(auth, tmp_path)
    try:
        servers.start()
        servers.wait(30)
        line = servers.status.lines()[0]
        assert line.startswith("web: failed: MCP server 'web': its login expired or was revoked; run ankit mcp login web")
        assert store.load("web", auth.base + "/mcp") == {}
    finally:
        servers.close()


def test_a_wrong_state_stores_nothing(auth, tmp_path):
    auth.forge_state = True
    store = TokenStore(tmp_path / "mcp" / "auth")
    with pytest.raises(McpError, match="wrong state") as caught:
        log_in(auth, store)
    assert "\n" not in str(caught.value)
    assert auth.grants == [] and not logins(tmp_path / "mcp" / "auth")  # the code was never redeemed


def test_without_a_login_the_server_says_how_to_log_in(auth, tmp_path):
    servers = manager(auth, tmp_path)
    try:
        servers.start()
        servers.wait(30)
        assert "it needs you to log in: ankit mcp login web" in servers.status.lines()[0]
    finally:
        servers.close()


def test_a_token_file_others_could_read_is_not_used(auth, tmp_path):
    store = TokenStore(tmp_path / "auth")
    log_in(auth, store)
    [saved] = logins(tmp_path / "auth")
    os.chmod(saved, 0o644)
    assert store.load("web", auth.base + "/mcp") == {}


def test_ankit_mcp_login_and_logout_through_the_browser(auth, tmp_path):
    (tmp_path / "config" / "ankit").mkdir(parents=True)
    (tmp_path / "config" / "ankit" / "config.toml").write_text(f'[mcp.servers.web]\nurl = "{auth.base}/mcp"\n')
    fetch = tmp_path / "browser.py"
    fetch.write_text("import sys, urllib.request\nurllib.request.urlopen(sys.argv[1], timeout=30).read()\n")
    env = {**{k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN"))}, **xdg_env(tmp_path),
           "PYTHONPATH": str(ROOT), "BROWSER": f"{sys.executable} {fetch} %s"}

    def ankit(*args):
        return subprocess.run([sys.executable, "-m", "ankit", *args], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=60)

    done = ankit("mcp", "login", "web")
    assert done.returncode == 0, done.stderr
    assert "logged in to MCP server web" in done.stdout
    listed = ankit("mcp", "list")
    assert listed.stdout.startswith("web: ready (1 tools; guarded 1, protocol 2026-07-28)"), listed.stdout
    token = next(iter(auth.access))
    assert token not in done.stdout + done.stderr + listed.stdout + listed.stderr
    out = ankit("mcp", "logout", "web")
    assert out.stdout.strip() == "logged out of MCP server web: its tokens are forgotten"
    assert auth.revoked and ankit("mcp", "logout", "web").stdout.strip() == "no login kept for MCP server web"
    assert "ankit mcp login web" in ankit("mcp", "list", "--refresh").stdout
    local = ankit("mcp", "login", "nothere")
    assert local.returncode != 0 and "no MCP server named 'nothere'" in local.stderr


def test_mcp_login_in_the_repl_then_the_server_starts(auth, run, home, tmp_path):  # noqa: F811
    (home / "config" / "ankit").mkdir(parents=True, exist_ok=True)
    (home / "config" / "ankit" / "config.toml").write_text(f'[mcp.servers.web]\nurl = "{auth.base}/mcp"\n')
    fetch = tmp_path / "browser.py"
    fetch.write_text("import sys, urllib.request\nurllib.request.urlopen(sys.argv[1], timeout=30).read()\n")
    terminal = run(BROWSER=f"{sys.executable} {fetch} %s")
    terminal.line("/mcp refresh")  # waits for it: it has never been listed
    terminal.expect("it needs you to log in: ankit mcp login web")
    terminal.line("/mcp login web")
    terminal.expect("logged in to MCP server web")
    terminal.line("/mcp refresh")
    terminal.expect("web: ready (1 tools; guarded 1, protocol 2026-07-28)")
    assert terminal.finish() == 0
    assert next(iter(auth.access)) not in terminal.seen
