"""OAuth 2.1 for MCP servers over HTTP: discovery, registration, the browser login with PKCE, tokens, refresh.

`login` runs the whole flow for `ankit mcp login NAME`: the server's protected-resource metadata (RFC 9728, found
from its 401's WWW-Authenticate or the well-known address; its `resource` must be the server's URL), its
authorization server's metadata (RFC 8414, else OpenID discovery; its `issuer` must be the one named, every
endpoint https: oauthweb.py), a client id (configured, or registered once per authorization server, RFC 7591,
and kept), then the authorization code with PKCE (S256) through the browser and a loopback redirect on 127.0.0.1.
The address is printed whole on a line of its own; when the browser runs on another machine the user pastes the
address it ends on instead. State (and iss, RFC 9207) are checked before the code is redeemed. `device.py` logs
in without a browser here (RFC 8628). `Tokens` gives an HTTP transport its bearer token, only for the resource it
was issued for, and refreshes it; a refused refresh asks the user to log in again. Tokens live in one file per
server under ankit's private state (tokens.py), never in config, sessions or logs.
"""

import base64
import hashlib
import http.server
import re
import secrets
import threading
import time
import urllib.error
import urllib.parse
from collections.abc import Callable

from ankit.mcp.jsonrpc import McpError
from ankit.mcp.oauthweb import SAID, exchange, same_resource, secure, shown
from ankit.safety.text import outside
from ankit.mcp.tokens import TokenStore
from ankit.safety import web

LOGIN_WAIT = 300.0  # seconds the loopback address waits for the browser (or a pasted address)
PASTE_POLL = 0.2  # seconds between looks at what was pasted
HTTP_TIMEOUT = 30.0
_RESOURCE_METADATA = re.compile(r'resource_metadata="([^"]+)"')
ENDPOINTS = ("authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint",
             "device_authorization_endpoint")
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


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
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    try:  # no redirect followed (web.send): the server's own answer names its metadata
        with web.send(secure(url, "MCP server's url"), b"{}", headers, "POST", HTTP_TIMEOUT):
            return _well_known(url, "oauth-protected-resource")
    except urllib.error.HTTPError as exc:
        return challenge(url, dict(exc.headers))
    except (urllib.error.URLError, OSError) as exc:
        raise McpError(f"cannot reach {shown(url)}: {outside(getattr(exc, 'reason', exc), SAID, line=True)}") from None


def discover(url: str) -> tuple[dict, dict]:
    """The server's protected-resource metadata (for this very URL) and its authorization server's metadata."""
    status, resource = exchange(probe(url), what="protected-resource metadata address")
    servers = resource.get("authorization_servers")
    if status != 200 or not isinstance(servers, list) or not servers or not isinstance(servers[0], str):
        raise McpError(f"{shown(url)} publishes no OAuth protected-resource metadata (RFC 9728); give it a token "
                       "in headers instead")
    if not same_resource(resource.get("resource"), url):
        raise McpError(f"the OAuth metadata found for {shown(url)} is for another resource "
                       f"({shown(resource.get('resource') or 'none named')}); not used (RFC 9728)")
    issuer = secure(servers[0], "authorization server")
    for name in ("oauth-authorization-server", "openid-configuration"):
        status, meta = exchange(_well_known(issuer, name), what="authorization server metadata address")
        if status == 200 and meta.get("authorization_endpoint") and meta.get("token_endpoint"):
            return {**resource, "resource": url}, _checked_metadata(meta, issuer)
    raise McpError(f"no authorization server metadata at {shown(issuer)} (RFC 8414 or OpenID discovery)")


def _checked_metadata(meta: dict, issuer: str) -> dict:
    """The authorization server's metadata once its issuer is the one named, it offers S256, and every endpoint
    is https (RFC 8414 §3.3, OAuth 2.1 §1.5)."""
    named = meta.get("issuer")
    if not isinstance(named, str) or named.rstrip("/") != issuer.rstrip("/"):
        raise McpError(f"the authorization server at {shown(issuer)} names "
                       f"{'another issuer' if isinstance(named, str) else 'no issuer'} in its metadata; not used")
    if "S256" not in (meta.get("code_challenge_methods_supported") or ["S256"]):
        raise McpError(f"the authorization server at {shown(issuer)} does not offer PKCE S256; not used")
    for key in ENDPOINTS:
        if meta.get(key) is not None:
            secure(meta[key], f"{key.replace('_', ' ')} of {shown(issuer)}")
    return {**meta, "issuer": issuer}


def credentials(client: dict) -> dict:
    """What identifies the client in a form: its id, and its secret when it has one."""
    return {k: client[k] for k in ("client_id", "client_secret") if client.get(k)}


def register(meta: dict, redirect: str, store: TokenStore, client_id: str = "") -> dict:
    """The client: the configured client id, the one kept from an earlier registration with this authorization
    server, or a new one (RFC 7591), kept for every later login."""
    if client_id:
        return {"client_id": client_id}
    kept = store.client(meta["issuer"])
    if kept.get("client_id"):
        return kept
    if not meta.get("registration_endpoint"):
        raise McpError(f"the authorization server at {shown(meta['issuer'])} has no dynamic registration: set "
                       "oauth_client_id in the server's table")
    grants = ["authorization_code", "refresh_token"] + ([DEVICE_GRANT] if meta.get("device_authorization_endpoint") else [])
    status, client = exchange(meta["registration_endpoint"], data={
        "client_name": "ankit", "redirect_uris": [redirect], "grant_types": grants,
        "response_types": ["code"], "token_endpoint_auth_method": "none", "application_type": "native"},
        what="registration endpoint")
    if status not in (200, 201) or not isinstance(client.get("client_id"), str) or not client["client_id"]:
        raise McpError(f"registration at {shown(meta['issuer'])} failed (HTTP {status})")
    kept = {**credentials(client), "redirect_uri": redirect}
    store.keep_client(meta["issuer"], kept)
    return kept


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


def _listen(kept: dict) -> http.server.HTTPServer:
    """The loopback redirect's listener: on the port the client was registered with when it is free, else on
    any (RFC 8252 §7.3: any port goes for a loopback redirect)."""
    registered = urllib.parse.urlsplit(kept.get("redirect_uri") or "")
    for port in ([registered.port] if web.loopback(registered.geturl()) and registered.port else []) + [0]:
        try:
            server = http.server.HTTPServer(("127.0.0.1", port), _Callback)
        except OSError:
            continue
        server.answer, server.done = {}, threading.Event()
        return server
    raise McpError("cannot listen on 127.0.0.1 for the login's redirect")


def login(name: str, url: str, store: TokenStore, open_url: Callable[[str], object], say: Callable[[str], None],
          client_id: str = "", scope: str = "", wait: float = LOGIN_WAIT,
          paste: Callable[[float], str | None] | None = None) -> str:
    """The whole browser login for one server; returns a line saying it worked (McpError in one line otherwise).
    `paste(seconds)` gives a line the user pasted meanwhile (the address the browser ended on), if any."""
    resource, meta = discover(url)
    loopback = _listen(store.client(meta["issuer"]) if not client_id else {})
    redirect = f"http://127.0.0.1:{loopback.server_address[1]}/callback"
    threading.Thread(target=loopback.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        client = credentials(register(meta, redirect, store, client_id))
        verifier, code_challenge = _pkce()
        state = secrets.token_urlsafe(24)
        query = {"response_type": "code", "client_id": client["client_id"], "redirect_uri": redirect,
                 "code_challenge": code_challenge, "code_challenge_method": "S256", "state": state,
                 "resource": resource["resource"]}
        scope = scope or " ".join(str(s) for s in resource.get("scopes_supported") or [])
        if scope:
            query["scope"] = scope
        endpoint = meta["authorization_endpoint"]
        address = secure(endpoint + ("&" if "?" in endpoint else "?") + urllib.parse.urlencode(query), "login address")
        _guide(name, address, redirect, meta, paste is not None, say)
        threading.Thread(target=open_url, args=(address,), daemon=True).start()
        answer = _answer(loopback, redirect, wait, paste, say) or {}
        if not answer:
            raise McpError(f"no answer from the browser within {wait:g}s; run ankit mcp login {name} again")
    finally:
        loopback.shutdown()
        loopback.server_close()
    code = _checked(answer, state, meta, name)
    tokens = redeem(meta, client, {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect,
                                   "code_verifier": verifier, "resource": resource["resource"]}, name, store)
    return keep(store, name, url, meta, client, tokens)


def _guide(name: str, address: str, redirect: str, meta: dict, pasting: bool, say: Callable[[str], None]) -> None:
    """What the user does: the address alone on its line (whole, to copy), the paste, the device login."""
    say(f"log in to MCP server {name!r} in your browser; if none opens, open this address by hand:")
    say(address)
    if pasting:
        say(f"if the browser runs on another machine, it ends on an address starting {redirect}?... that does "
            "not load there: copy that address, paste it here and press Enter")
    if meta.get("device_authorization_endpoint"):
        say(f"without a browser at hand: ankit mcp login {name} --device")


def _answer(loopback, redirect: str, wait: float, paste, say: Callable[[str], None]) -> dict | None:
    """The redirect's query: from the browser on this machine, or from the address the user pasted."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if loopback.done.wait(0.05 if paste is not None else max(0.0, deadline - time.monotonic())):
            return loopback.answer
        line = paste(PASTE_POLL) if paste is not None else None
        if line is None or not line.strip():
            continue
        query = pasted(line, redirect)
        if query is not None:
            return query
        say(f"that is not the address the login ended on (it starts {redirect}?): paste it whole, or press Ctrl-C")
    return None


def pasted(line: str, redirect: str) -> dict | None:
    """The query of a pasted address when it is this login's redirect (scheme, host, port and path), else None."""
    try:
        parts, expected = urllib.parse.urlsplit(line.strip()), urllib.parse.urlsplit(redirect)
        same = (parts.scheme, parts.hostname, parts.port, parts.path) == \
            (expected.scheme, expected.hostname, expected.port, expected.path)
    except ValueError:
        return None
    return dict(urllib.parse.parse_qsl(parts.query)) if same and parts.query else None


def _checked(answer: dict, state: str, meta: dict, name: str) -> str:
    """The code from the redirect, once its state and iss are the ones this login expects (RFC 9207: iss must
    come when the authorization server says it sends it, and be its issuer when it comes)."""
    issuer = meta["issuer"]
    if answer.get("state") != state:
        raise McpError(f"the login answer for {name!r} carried the wrong state (not from this login); nothing was "
                       "stored: run ankit mcp login again")
    if "iss" in answer and answer["iss"].rstrip("/") != issuer.rstrip("/"):
        raise McpError(f"the login answer for {name!r} came from another issuer; nothing was stored")
    if "iss" not in answer and meta.get("authorization_response_iss_parameter_supported") is True:
        raise McpError(f"the login answer for {name!r} did not say which issuer sent it, though "
                       f"{shown(issuer)} always does; nothing was stored")
    if answer.get("error"):
        raise McpError(f"the authorization server refused the login for {name!r}: "
                       f"{outside(answer.get('error_description') or answer['error'], SAID, line=True)}")
    if not answer.get("code"):
        raise McpError(f"the login answer for {name!r} had no code; run ankit mcp login {name} again")
    return answer["code"]


def redeem(meta: dict, client: dict, form: dict, name: str, store: TokenStore | None = None) -> dict:
    """POST to the token endpoint; the tokens with their expiry time. A client the server no longer knows is
    forgotten, so the next login registers afresh."""
    status, tokens = exchange(meta["token_endpoint"], form={**form, **credentials(client)}, what="token endpoint")
    if status != 200 or not isinstance(tokens.get("access_token"), str) or not tokens["access_token"]:
        if tokens.get("error") == "invalid_client" and store is not None:
            store.forget_client(meta["issuer"])
        error = tokens.get("error_description") or tokens.get("error") or f"HTTP {status}"
        raise McpError(f"the authorization server refused the token for {name!r}: {outside(error, SAID, line=True)}")
    return stamped(tokens)


def stamped(tokens: dict) -> dict:
    """The tokens with the time their access token expires (0: not said)."""
    expires = tokens.get("expires_in")
    good = isinstance(expires, (int, float)) and not isinstance(expires, bool)
    return {**tokens, "expires_at": time.time() + float(expires) if good else 0}


def keep(store: TokenStore, name: str, url: str, meta: dict, client: dict, tokens: dict) -> str:
    """Store a login's tokens for the server (for this URL as the resource) and say so."""
    store.save(name, url, {"issuer": meta["issuer"], "token_endpoint": meta["token_endpoint"],
                           "revocation_endpoint": meta.get("revocation_endpoint", ""), "client": credentials(client),
                           "resource": url, "tokens": tokens})
    return f"logged in to MCP server {name} (authorized by {shown(meta['issuer'])}); ankit mcp logout {name} forgets it"


def logout(name: str, url: str, store: TokenStore) -> str:
    """Forget the server's tokens (revoking the refresh token where the authorization server offers that)."""
    data = store.load(name, url)
    tokens = data.get("tokens") or {}
    if data.get("revocation_endpoint") and tokens.get("refresh_token"):
        try:
            exchange(data["revocation_endpoint"], form={"token": tokens["refresh_token"], "token_type_hint":
                                                        "refresh_token", **credentials(data.get("client") or {})},
                     what="revocation endpoint")
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
        """'Bearer TOKEN', refreshed first when it has expired; empty when the server has no login, or its token
        was issued for another resource than this URL (it is never sent there)."""
        with self._lock:
            data = self._load()
            tokens = data.get("tokens") or {}
            if tokens.get("expires_at") and time.time() > tokens["expires_at"] - 30 and tokens.get("refresh_token"):
                tokens = self._refresh(data)
            return f"Bearer {tokens['access_token']}" if tokens.get("access_token") else ""

    def refused(self) -> bool:
        """The server refused the token (401): refresh it; return whether there is a new one to try."""
        with self._lock:
            data = self._load()
            if not (data.get("tokens") or {}).get("refresh_token"):
                return False
            self._refresh(data)
            return True

    def _load(self) -> dict:
        """The server's login, when it was made for this very URL (RFC 8707: a token goes to its resource only)."""
        data = self.store.load(self.name, self.url)
        return data if same_resource(data.get("resource"), self.url) else {}

    def _refresh(self, data: dict) -> dict:
        meta = {"token_endpoint": data["token_endpoint"], "issuer": data.get("issuer", "")}
        form = {"grant_type": "refresh_token", "refresh_token": data["tokens"]["refresh_token"], "resource": self.url}
        try:
            tokens = redeem(meta, data.get("client") or {}, form, self.name)
        except McpError:
            self.store.forget(self.name, self.url)
            raise McpError(f"MCP server {self.name!r}: its login expired or was revoked; run ankit mcp login "
                           f"{self.name}", status=401) from None
        tokens.setdefault("refresh_token", data["tokens"]["refresh_token"])
        self.store.save(self.name, self.url, {**data, "tokens": tokens})
        return tokens
