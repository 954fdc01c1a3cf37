"""OAuth 2.1 for MCP servers over HTTP against a real authorization server and protected MCP endpoint on 127.0.0.1:
discovery (RFC 9728, RFC 8414), dynamic registration (RFC 7591), the code exchange with PKCE S256 through a
loopback redirect, refresh, a revoked login, a wrong state, and `ankit mcp login/logout` end to end."""

import base64
import hashlib
import http.server
import json
import os
import secrets
import select
import stat
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from ankit.mcp import oauth, oauthweb
from ankit.mcp.servers import McpManager
from ankit.mcp.tokens import TokenStore
from ankit.mcp.transport import McpError
from ankit.safety import web
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
        self.lifetime, self.forge_state, self.reject_client = 3600, False, False
        self.resource_changes: dict = {}  # changes to the protected-resource metadata
        self.meta_changes: dict = {}  # changes to the authorization server's metadata (None removes a key)
        self.iss: str | None = ""  # the redirect's iss: "" the right one, None left out, else this value
        self.devices: dict = {}  # device_code -> [user_code, state: pending/approved/denied, client_id]
        self.device_errors: list[str] = []  # errors the token endpoint gives device polls first (slow_down...)
        self.polls: list[float] = []  # when device polls came
        threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()

    def issue(self) -> dict:
        access, refresh = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        self.access[access] = time.time() + self.lifetime
        self.refresh.add(refresh)
        return {"access_token": access, "refresh_token": refresh, "token_type": "Bearer", "expires_in": self.lifetime}

    def approve(self, user_code: str, state: str = "approved") -> None:
        """What the user does on the other device: enter the code and approve (or deny) the login."""
        for entry in self.devices.values():
            if entry[0] == user_code:
                entry[1] = state

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
                                   "scopes_supported": ["mcp"], **s.resource_changes})
        if path.path == "/.well-known/oauth-authorization-server/as":
            meta = {"issuer": s.base + "/as", "authorization_endpoint": s.base + "/as/authorize",
                    "token_endpoint": s.base + "/as/token", "registration_endpoint": s.base + "/as/register",
                    "revocation_endpoint": s.base + "/as/revoke", "code_challenge_methods_supported": ["S256"],
                    **s.meta_changes}
            return self.send(200, {k: v for k, v in meta.items() if v is not None})
        if path.path == "/trickle":  # a body that comes a byte at a time, for as long as anyone waits
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            for _ in range(100):
                try:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.2)
            return
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
        answer = {"code": code, "state": state, "iss": s.iss or s.base + "/as"}
        if s.iss is None:
            del answer["iss"]
        where = q["redirect_uri"] + "?" + urllib.parse.urlencode(answer)
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
        if self.path == "/as/hostile":  # an error description that would clear the screen and carries a key
            return self.send(400, {"error": "invalid_grant", "error_description":
                                   "\x1b[2J\x1b[31mno \u202e" + "sk-ant-api03-" + "Q" * 40 + " x" * 500})
        if self.path == "/as/device":
            return self.device(form)
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
        if s.reject_client or form.get("client_id") not in s.clients:
            return self.send(401, {"error": "invalid_client"})
        if form.get("grant_type") == "authorization_code":
            client_id, redirect, challenge = s.codes.pop(form.get("code"), (None, None, None))
            verifier = form.get("code_verifier", "").encode()
            proof = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=").decode()
            if client_id != form.get("client_id") or redirect != form.get("redirect_uri") or proof != challenge:
                return self.send(400, {"error": "invalid_grant"})
            return self.send(200, s.issue())
        if form.get("grant_type") == "urn:ietf:params:oauth:grant-type:device_code":
            return self.device_token(form)
        if form.get("grant_type") == "refresh_token" and form.get("refresh_token") in s.refresh:
            s.refresh.discard(form["refresh_token"])
            return self.send(200, s.issue())
        self.send(400, {"error": "invalid_grant", "error_description": "the refresh token is not valid"})

    def device(self, form: dict) -> None:
        s = self.server
        if form.get("client_id") not in s.clients or form.get("resource") != s.base + "/mcp":
            return self.send(400, {"error": "invalid_client"})
        code, user = secrets.token_urlsafe(16), f"WDJB-{len(s.devices) + 1:04d}"
        s.devices[code] = [user, "pending", form["client_id"]]
        self.send(200, {"device_code": code, "user_code": user, "verification_uri": s.base + "/device",
                        "verification_uri_complete": s.base + "/device?user_code=" + user, "expires_in": 60,
                        "interval": 1})

    def device_token(self, form: dict) -> None:
        s = self.server
        s.polls.append(time.monotonic())
        user, state, client_id = s.devices.get(form.get("device_code"), (None, "expired", None))
        if s.device_errors:
            return self.send(400, {"error": s.device_errors.pop(0)})
        if state == "approved" and client_id == form.get("client_id") and form.get("resource") == s.base + "/mcp":
            del s.devices[form["device_code"]]
            return self.send(200, s.issue())
        error = {"pending": "authorization_pending", "denied": "access_denied"}.get(state, "expired_token")
        self.send(400, {"error": error, "error_description": f"the device login is {state}"})

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


def never(url: str) -> None:
    """A browser that must never be handed the address."""
    raise AssertionError(f"the browser was handed {url!r}")


def refused(auth, store: TokenStore, match: str, open_url=never) -> McpError:
    with pytest.raises(McpError, match=match) as caught:
        oauth.login("web", auth.base + "/mcp", store, open_url, [].append, wait=30)
    assert "\n" not in str(caught.value) and not logins(store.folder)
    return caught.value


def test_metadata_for_another_resource_is_not_used(auth, tmp_path):
    # a server publishing another server's metadata would get that server's tokens sent to it at every call
    auth.resource_changes = {"resource": auth.base + "/other"}
    refused(auth, TokenStore(tmp_path / "auth"), r"is for another resource \(http://127\.0\.0\.1:\d+/other\); not used")
    auth.resource_changes = {"resource": None}
    refused(auth, TokenStore(tmp_path / "auth"), "is for another resource")
    auth.resource_changes = {"resource": auth.base.replace("127.0.0.1", "localhost") + "/mcp"}  # another host name
    refused(auth, TokenStore(tmp_path / "auth"), "is for another resource")
    assert auth.clients == {}  # nothing registered


def test_the_issuer_in_the_metadata_must_be_the_one_named(auth, tmp_path):
    auth.meta_changes = {"issuer": auth.base + "/elsewhere"}
    refused(auth, TokenStore(tmp_path / "auth"), "names another issuer in its metadata; not used")
    auth.meta_changes = {"issuer": None}  # RFC 8414: the issuer is required, and the same
    refused(auth, TokenStore(tmp_path / "auth"), "names no issuer in its metadata; not used")
    auth.meta_changes = {"issuer": auth.base + "/as/"}  # a last slash is the same issuer
    assert log_in(auth, TokenStore(tmp_path / "auth")).startswith("logged in")


def test_the_redirects_issuer_is_checked_before_the_code_is_redeemed(auth, tmp_path):
    auth.iss = auth.base + "/evil"  # a mix-up: the answer of another authorization server
    refused(auth, TokenStore(tmp_path / "auth"), "came from another issuer; nothing was stored", browser)
    auth.iss = None  # left out: taken, as RFC 9207 allows for a server that does not say it sends it
    assert log_in(auth, TokenStore(tmp_path / "one")).startswith("logged in")
    auth.meta_changes = {"authorization_response_iss_parameter_supported": True}
    refused(auth, TokenStore(tmp_path / "two"), "did not say which issuer sent it", browser)
    assert auth.grants == ["authorization_code"]  # only the login without a wrong issuer redeemed its code


@pytest.mark.parametrize("endpoint, address", [
    ("authorization_endpoint", "http://auth.example/authorize"), ("authorization_endpoint", "javascript:alert(1)//"),
    ("authorization_endpoint", "file:///etc/passwd"), ("authorization_endpoint", "https://auth.example/a b"),
    ("authorization_endpoint", "https://auth.example/a\nb"), ("token_endpoint", "http://10.0.0.1/token"),
    ("registration_endpoint", "http://auth.example/register"), ("revocation_endpoint", "ftp://auth.example/"),
    ("device_authorization_endpoint", "http://127.0.0.1.evil.example/device"),
    ("authorization_endpoint", "http://127.0.0.1@evil.example/authorize"), ("token_endpoint", "https://аuth.example/t"),
    ("authorization_endpoint", "https:///no-host"), ("authorization_endpoint", 42),
])
def test_only_https_endpoints_are_used_or_handed_to_the_browser(auth, tmp_path, endpoint, address):
    auth.meta_changes = {endpoint: address}
    refused(auth, TokenStore(tmp_path / "auth"), r"is not an https address \(plain http only on 127\.0\.0\.1 or "
                                                 r"localhost\); not used")
    assert auth.clients == {}  # refused before anything was sent


def test_metadata_and_error_bodies_are_read_bounded_and_shown_as_one_clean_line(auth, tmp_path):
    auth.resource_changes = {"padding": " " * (oauthweb.SIZE + 10)}  # the JSON is cut: no metadata
    refused(auth, TokenStore(tmp_path / "auth"), "publishes no OAuth protected-resource metadata")
    auth.resource_changes = {}
    auth.meta_changes = {"token_endpoint": auth.base + "/as/hostile"}
    error = refused(auth, TokenStore(tmp_path / "auth"), "refused the token", browser)
    assert "\x1b" not in str(error) and "^[[2J" in str(error) and "<U+202E>" in str(error) and "sk-ant-" not in str(error)
    assert len(str(error)) < 300


def test_a_slow_trickle_is_cut_at_the_deadline(auth):
    started = time.monotonic()
    with urllib.request.urlopen(auth.base + "/trickle", timeout=30) as answer:
        got, cut = web.read(answer, oauthweb.SIZE, time.monotonic() + 1.0)
    assert time.monotonic() - started < 5 and 0 < len(got) < 20 and cut


def test_a_client_is_registered_once_and_kept_across_logouts(auth, tmp_path):
    store = TokenStore(tmp_path / "auth")
    log_in(auth, store)
    log_in(auth, store)
    oauth.logout("web", auth.base + "/mcp", store)
    log_in(auth, store)
    assert list(auth.clients) == ["client-1"] and auth.grants == ["authorization_code"] * 3
    auth.reject_client = True  # the authorization server forgot it: the token endpoint says invalid_client
    with pytest.raises(McpError, match="refused the token"):
        log_in(auth, store)
    assert store.client(auth.base + "/as") == {}  # forgotten, so the next login registers again
    auth.reject_client = False
    log_in(auth, store)
    assert list(auth.clients) == ["client-1", "client-2"]


def test_a_token_goes_only_to_the_resource_it_was_issued_for(auth, tmp_path):
    store = TokenStore(tmp_path / "auth")
    log_in(auth, store)
    data = store.load("web", auth.base + "/mcp")
    assert oauth.Tokens("web", auth.base + "/mcp", store).header().startswith("Bearer ")
    store.save("web", auth.base + "/mcp", {**data, "resource": auth.base + "/other"})  # kept by an older ankit
    assert oauth.Tokens("web", auth.base + "/mcp", store).header() == ""


def configured(auth, tmp_path) -> dict:
    """A config naming the guarded server, and the environment of an ankit whose browser opens nothing here (the
    session runs over SSH, say)."""
    (tmp_path / "config" / "ankit").mkdir(parents=True, exist_ok=True)
    (tmp_path / "config" / "ankit" / "config.toml").write_text(f'[mcp.servers.web]\nurl = "{auth.base}/mcp"\n')
    return {**{k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN"))}, **xdg_env(tmp_path),
            "PYTHONPATH": str(ROOT), "BROWSER": "true %s"}


class Login:
    """`ankit mcp login ...` running, its output read line by line as it comes and its input written to."""

    def __init__(self, env: dict, cwd: Path, *args: str):
        self.process = subprocess.Popen([sys.executable, "-m", "ankit", "mcp", "login", *args], cwd=cwd, env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines: list[str] = []
        self.held = b""

    def until(self, start: str, timeout: float = 30) -> str:
        """The first line starting with `start` (waiting for it)."""
        deadline = time.monotonic() + timeout
        while not any(line.startswith(start) for line in self.lines):
            assert time.monotonic() < deadline, self.lines
            if select.select([self.process.stdout], [], [], 0.2)[0]:
                data = os.read(self.process.stdout.fileno(), 65536)
                assert data, self.lines
                self.held += data
                *whole, self.held = self.held.split(b"\n")
                self.lines += [line.decode() for line in whole]
        return next(line for line in self.lines if line.startswith(start))

    def paste(self, text: str) -> None:
        self.process.stdin.write(text.encode() + b"\n")
        self.process.stdin.flush()

    def end(self) -> tuple[int, str, str]:
        out, err = self.process.communicate(timeout=60)
        return self.process.returncode, "\n".join(self.lines) + "\n" + (self.held + out).decode(), err.decode()


def redirected(address: str) -> str:
    """What a browser on another machine ends on: the authorization server's redirect to the loopback address
    (which does not load there)."""
    try:
        web.send(address, timeout=30)
    except urllib.error.HTTPError as exc:
        assert exc.code == 302
        return exc.headers["Location"]
    raise AssertionError("no redirect")


def test_a_login_without_a_browser_here_finishes_with_the_pasted_address(auth, tmp_path):
    login = Login(configured(auth, tmp_path), tmp_path, "web")
    address = login.until(auth.base + "/as/authorize?")  # whole, alone on its line
    login.until("if the browser runs on another machine, it ends on an address starting http://127.0.0.1:")
    back = redirected(address)
    port = urllib.parse.urlsplit(back).port
    query = urllib.parse.urlsplit(back).query
    for wrong in (f"http://127.0.0.1:{port + 1}/callback?{query}", f"http://localhost:{port}/callback?{query}",
                  f"https://127.0.0.1:{port}/callback?{query}", f"http://127.0.0.1:{port}/elsewhere?{query}",
                  f"http://127.0.0.1:{port}/%63allback?{query}", "just some words", f"http://127.0.0.1:{port}/callback"):
        login.paste(wrong)  # another address is not the answer, whatever its query says
        login.until("that is not the address the login ended on")
        login.lines.clear()
    login.paste("  " + back + "  ")
    code, out, err = login.end()
    assert code == 0, err
    assert "logged in to MCP server web" in out and auth.grants == ["authorization_code"]


def test_a_pasted_address_from_another_login_is_refused(auth, tmp_path):
    login = Login(configured(auth, tmp_path), tmp_path, "web")
    back = redirected(login.until(auth.base + "/as/authorize?"))
    forged = urllib.parse.urlsplit(back)._replace(query=urllib.parse.urlencode(
        {**dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(back).query)), "state": "an attacker's"})).geturl()
    login.paste(forged)
    code, out, err = login.end()
    assert code != 0 and "carried the wrong state" in err and auth.grants == []


def test_the_device_login_shows_the_code_and_polls_until_approved(auth, tmp_path):
    auth.meta_changes = {"device_authorization_endpoint": auth.base + "/as/device"}
    env = configured(auth, tmp_path)
    login = Login(env, tmp_path, "web", "--device")
    assert login.until("and enter the code ") == "and enter the code WDJB-0001"
    login.until("waiting for the login to be approved")
    assert auth.base + "/device" in login.lines and auth.base + "/device?user_code=WDJB-0001" in login.lines
    time.sleep(1.5)  # a poll or so, still pending
    auth.approve("WDJB-0001")
    code, out, err = login.end()
    assert code == 0, err
    assert "logged in to MCP server web" in out
    assert auth.clients["client-1"]["grant_types"][-1] == "urn:ietf:params:oauth:grant-type:device_code"
    assert all(b - a >= 0.9 for a, b in zip(auth.polls, auth.polls[1:]))  # at the server's interval
    listed = subprocess.run([sys.executable, "-m", "ankit", "mcp", "list"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60)
    assert listed.stdout.startswith("web: ready (1 tools; guarded 1, protocol 2026-07-28)"), listed.stdout


def test_a_device_login_refused_or_told_to_slow_down(auth, tmp_path):
    auth.meta_changes = {"device_authorization_endpoint": auth.base + "/as/device"}
    auth.device_errors = ["slow_down"]
    env = configured(auth, tmp_path)
    login = Login(env, tmp_path, "web", "--device")
    login.until("and enter the code ")
    while len(auth.polls) < 2:
        time.sleep(0.2)
    auth.approve("WDJB-0001", "denied")
    code, out, err = login.end()
    assert code != 0 and "the login for 'web' was refused on the other device; nothing was stored" in err
    assert auth.polls[1] - auth.polls[0] >= 5.9  # slow_down: five seconds more between polls
    auth.meta_changes = {}
    done = subprocess.run([sys.executable, "-m", "ankit", "mcp", "login", "web", "--device"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "offers no device login (RFC 8628): run ankit mcp login web and paste" in done.stderr


def test_mcp_login_in_a_narrow_repl_prints_the_address_whole_and_takes_a_pasted_one(auth, run, home):  # noqa: F811
    (home / "config" / "ankit").mkdir(parents=True, exist_ok=True)
    (home / "config" / "ankit" / "config.toml").write_text(f'[mcp.servers.web]\nurl = "{auth.base}/mcp"\n')
    terminal = run(BROWSER="true %s")
    terminal.prompt()
    terminal.resize(60)
    terminal.line("/mcp login web")
    terminal.expect("open this address by hand:\n")
    address = terminal.expect("\n")  # one line however narrow the terminal: copied whole
    assert address.startswith(auth.base + "/as/authorize?") and "&state=" in address and len(address) > 200
    terminal.expect("paste it here and press Enter")
    terminal.type(redirected(address) + "\r")
    terminal.expect("logged in to MCP server web")
    assert terminal.finish() == 0
