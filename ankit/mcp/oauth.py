"""OAuth 2.1 for MCP servers over HTTP: discovery, registration, the browser login with PKCE, tokens, refresh.

`login` runs the whole flow for `ankit mcp login NAME`: the server's protected-resource metadata (RFC 9728, found
from its 401's WWW-Authenticate or the well-known address), its authorization server's metadata (RFC 8414, else
OpenID discovery), a client id (configured, or dynamic registration, RFC 7591), then the authorization code with
PKCE (S256) through the browser and a loopback redirect on 127.0.0.1 (the address is printed too, to open by hand),
checking state (and iss when sent) before the code is redeemed. `Tokens` gives an HTTP transport its bearer token
and refreshes it; a refused refresh asks the user to log in again. Tokens live in one file per server under
ankit's private state (tokens.py), never in config, sessions or logs.
"""

import base64
import hashlib
import http.server
import json
import re
import secrets
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable

from ankit.mcp.jsonrpc import McpError
from ankit.mcp.tokens import TokenStore

LOGIN_WAIT = 300.0  # seconds the loopback address waits for the browser
HTTP_TIMEOUT = 30.0
_RESOURCE_METADATA = re.compile(r'resource_metadata="([^"]+)"')


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Discovery and token requests follow no redirect: a token must never be sent to another address."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_NO_REDIRECT = urllib.request.build_opener(_NoRedirect())


def _json(url: str, data: dict | None = None, form: dict | None = None) -> tuple[int, dict]:
    """GET (or POST JSON / a form) and read a JSON object back: (status, object); never follows a redirect."""
    body, headers = None, {"Accept": "application/json"}
    if data is not None:
        body, headers["Content-Type"] = json.dumps(data).encode(), "application/json"
    elif form is not None:
        body, headers["Content-Type"] = urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded"
    request = urllib.request.Request(url, body, headers, method="POST" if body is not None else "GET")
    try:
        with _NO_REDIRECT.open(request, timeout=HTTP_TIMEOUT) as answer:
            status, raw = answer.status, answer.read(1024 * 1024)
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read(1024 * 1024)
    except (urllib.error.URLError, OSError) as exc:
        raise McpError(f"cannot reach {_shown(url)}: {getattr(exc, 'reason', exc)}") from None
    try:
        parsed = json.loads(raw or b"{}")
    except ValueError:
        parsed = {}
    return status, parsed if isinstance(parsed, dict) else {}


def _shown(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))


def _well_known(base: str, name: str) -> str:
    """RFC 8414 / RFC 9728's well-known address: the suffix goes between the host and the path."""
    parts = urllib.parse.urlsplit(base)
    path = parts.path.rstrip("/")
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, f"/.well-known/{name}{path}", "", ""))


def challenge(url: str, headers: dict) -> str:
    """The protected-resource metadata address a 401 names in WWW-Authenticate, or the well-known one."""
    found = _RESOURCE_METADATA.search(headers.get("WWW-Authenticate", "") or "")
    return found[1] if found else _well_known(url, "oauth-protected-resource")


def probe(url: str) -> str:
    """POST nothing useful to the MCP endpoint to learn where its metadata is (from the 401)."""
    request = urllib.request.Request(url, b"{}", {"Content-Type": "application/json",
                                                 "Accept": "application/json, text/event-stream"}, method="POST")
    try:
        with _NO_REDIRECT.open(request, timeout=HTTP_TIMEOUT):
            return _well_known(url, "oauth-protected-resource")
    except urllib.error.HTTPError as exc:
        return challenge(url, dict(exc.headers))
    except (urllib.error.URLError, OSError) as exc:
        raise McpError(f"cannot reach {_shown(url)}: {getattr(exc, 'reason', exc)}") from None


def discover(url: str) -> tuple[dict, dict]:
    """The server's protected-resource metadata and its authorization server's metadata."""
    status, resource = _json(probe(url))
    if status != 200 or not resource.get("authorization_servers"):
        raise McpError(f"{_shown(url)} publishes no OAuth protected-resource metadata (RFC 9728); give it a token "
                       "in headers instead")
    issuer = str(resource["authorization_servers"][0])
    for name in ("oauth-authorization-server", "openid-configuration"):
        status, meta = _json(_well_known(issuer, name))
        if status == 200 and meta.get("authorization_endpoint") and meta.get("token_endpoint"):
            if meta.get("issuer", issuer).rstrip("/") != issuer.rstrip("/"):
                raise McpError(f"the authorization server at {_shown(issuer)} names another issuer; not used")
            if "S256" not in (meta.get("code_challenge_methods_supported") or ["S256"]):
                raise McpError(f"the authorization server at {_shown(issuer)} does not offer PKCE S256; not used")
            return resource, {**meta, "issuer": issuer}
    raise McpError(f"no authorization server metadata at {_shown(issuer)} (RFC 8414 or OpenID discovery)")


def register(meta: dict, redirect: str, client_id: str = "") -> dict:
    """The client: the configured client id, or one from dynamic registration (RFC 7591)."""
    if client_id:
        return {"client_id": client_id}
    if not meta.get("registration_endpoint"):
        raise McpError(f"the authorization server at {_shown(meta['issuer'])} has no dynamic registration: set "
                       "oauth_client_id in the server's table")
    status, client = _json(meta["registration_endpoint"], data={
        "client_name": "ankit", "redirect_uris": [redirect], "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"], "token_endpoint_auth_method": "none", "application_type": "native"})
    if status not in (200, 201) or not client.get("client_id"):
        raise McpError(f"registration at {_shown(meta['issuer'])} failed (HTTP {status})")
    return {k: client[k] for k in ("client_id", "client_secret") if client.get(k)}


class _Callback(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))
        if urllib.parse.urlsplit(self.path).path != "/callback":
            self.send_response(404)
            self.end_headers()
            return
        self.server.answer = query
        body = b"ankit: you can close this page and go back to the terminal.\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.server.done.set()


def _pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def login(name: str, url: str, store: TokenStore, open_url: Callable[[str], object], say: Callable[[str], None],
          client_id: str = "", scope: str = "", wait: float = LOGIN_WAIT) -> str:
    """The whole login for one server; returns a line saying it worked (McpError in one line otherwise)."""
    resource, meta = discover(url)
    loopback = http.server.HTTPServer(("127.0.0.1", 0), _Callback)
    loopback.answer, loopback.done = {}, threading.Event()
    redirect = f"http://127.0.0.1:{loopback.server_address[1]}/callback"
    threading.Thread(target=loopback.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        client = register(meta, redirect, client_id)
        verifier, code_challenge = _pkce()
        state = secrets.token_urlsafe(24)
        query = {"response_type": "code", "client_id": client["client_id"], "redirect_uri": redirect,
                 "code_challenge": code_challenge, "code_challenge_method": "S256", "state": state,
                 "resource": resource.get("resource") or url}
        scope = scope or " ".join(resource.get("scopes_supported") or [])
        if scope:
            query["scope"] = scope
        address = meta["authorization_endpoint"] + ("&" if "?" in meta["authorization_endpoint"] else "?") + \
            urllib.parse.urlencode(query)
        say(f"log in to MCP server {name!r} in your browser; if none opens, open this address by hand:\n{address}")
        threading.Thread(target=open_url, args=(address,), daemon=True).start()
        if not loopback.done.wait(wait):
            raise McpError(f"no answer from the browser within {wait:g}s; run ankit mcp login {name} again")
        answer = loopback.answer
    finally:
        loopback.shutdown()
        loopback.server_close()
    code = _checked(answer, state, meta["issuer"], name)
    tokens = _token(meta, client, {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect,
                                   "code_verifier": verifier, "resource": query["resource"]}, name)
    store.save(name, url, {"issuer": meta["issuer"], "token_endpoint": meta["token_endpoint"],
                           "revocation_endpoint": meta.get("revocation_endpoint", ""), "client": client,
                           "resource": query["resource"], "tokens": tokens})
    return f"logged in to MCP server {name} (authorized by {_shown(meta['issuer'])}); ankit mcp logout {name} forgets it"


def _checked(answer: dict, state: str, issuer: str, name: str) -> str:
    """The code from the redirect, once its state (and iss, when sent) are the ones this login expects."""
    if answer.get("state") != state:
        raise McpError(f"the login answer for {name!r} carried the wrong state (not from this login); nothing was "
                       "stored: run ankit mcp login again")
    if "iss" in answer and answer["iss"].rstrip("/") != issuer.rstrip("/"):
        raise McpError(f"the login answer for {name!r} came from another issuer; nothing was stored")
    if answer.get("error"):
        said = " ".join(str(answer.get("error_description") or answer["error"]).split())[:200]
        raise McpError(f"the authorization server refused the login for {name!r}: {said}")
    if not answer.get("code"):
        raise McpError(f"the login answer for {name!r} had no code; run ankit mcp login {name} again")
    return answer["code"]


def _token(meta: dict, client: dict, form: dict, name: str) -> dict:
    """POST to the token endpoint; the tokens with their expiry time."""
    status, tokens = _json(meta["token_endpoint"], form={**form, **client})
    if status != 200 or not tokens.get("access_token"):
        said = tokens.get("error_description") or tokens.get("error") or f"HTTP {status}"
        raise McpError(f"the authorization server refused the token for {name!r}: {str(said)[:200]}")
    expires = tokens.get("expires_in")
    tokens["expires_at"] = time.time() + float(expires) if isinstance(expires, (int, float)) else 0
    return tokens


def logout(name: str, url: str, store: TokenStore) -> str:
    """Forget the server's tokens (revoking the refresh token where the authorization server offers that)."""
    data = store.load(name, url)
    tokens = data.get("tokens") or {}
    if data.get("revocation_endpoint") and tokens.get("refresh_token"):
        try:
            _json(data["revocation_endpoint"], form={"token": tokens["refresh_token"],
                                                     "token_type_hint": "refresh_token", **(data.get("client") or {})})
        except McpError:
            pass  # forgotten here whatever the server says
    if not store.forget(name, url):
        return f"no login kept for MCP server {name}"
    return f"logged out of MCP server {name}: its tokens are forgotten"


class Tokens:
    """A server's bearer token for its HTTP transport, refreshed when it expires or is refused."""

    def __init__(self, name: str, url: str, store: TokenStore):
        self.name, self.url, self.store = name, url, store
        self._lock = threading.Lock()

    def header(self) -> str:
        """'Bearer TOKEN', refreshed first when it has expired; empty when the server has no login."""
        with self._lock:
            data = self.store.load(self.name, self.url)
            tokens = data.get("tokens") or {}
            if tokens.get("expires_at") and time.time() > tokens["expires_at"] - 30 and tokens.get("refresh_token"):
                tokens = self._refresh(data)
            return f"Bearer {tokens['access_token']}" if tokens.get("access_token") else ""

    def refused(self) -> bool:
        """The server refused the token (401): refresh it; return whether there is a new one to try."""
        with self._lock:
            data = self.store.load(self.name, self.url)
            if not (data.get("tokens") or {}).get("refresh_token"):
                return False
            self._refresh(data)
            return True

    def _refresh(self, data: dict) -> dict:
        meta = {"token_endpoint": data["token_endpoint"]}
        form = {"grant_type": "refresh_token", "refresh_token": data["tokens"]["refresh_token"],
                "resource": data.get("resource") or self.url}
        try:
            tokens = _token(meta, data.get("client") or {}, form, self.name)
        except McpError:
            self.store.forget(self.name, self.url)
            raise McpError(f"MCP server {self.name!r}: its login expired or was revoked; run ankit mcp login "
                           f"{self.name}", status=401) from None
        tokens.setdefault("refresh_token", data["tokens"]["refresh_token"])
        self.store.save(self.name, self.url, {**data, "tokens": tokens})
        return tokens
