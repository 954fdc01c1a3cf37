"""The MCP Streamable HTTP transport: JSON-RPC by POST, answered as JSON or an event stream, in one session."""

import base64
import json
import os
import re
import threading
import time
import urllib.error
import urllib.parse

from ankit.mcp.jsonrpc import (
    LINE_CAP, LOG_LINE, PROGRESS_STRETCH, Answer, Inbox, McpError, Notice, open_log, redact, reply_to, request_message,
    rpc_error,
)
from ankit.mcp.oauth import Tokens
from ankit.safety import text as boundary, web
from ankit.claude.mcp import expand

MODERN = "2026-07-28"  # stateless: no session, no cancel notification (closing the stream cancels)
_HEADER_SAFE = re.compile(r"[!-~](?:[ -~]*[!-~])?")



def header_value(text: str) -> str:
    """A value as an HTTP header carries it: plain when it is safe ASCII, else the =?base64?...?= form."""
    if _HEADER_SAFE.fullmatch(text) and not (text.startswith("=?base64?") and text.endswith("?=")):
        return text
    return "=?base64?" + base64.b64encode(text.encode()).decode() + "?="


_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an HTTP field name (RFC 9110 tchar)


def param_headers(tool: dict) -> list[tuple[list[str], str]] | None:
    """A tool's x-mcp-header annotations (2026-07-28) as (property path, header name); None when any is invalid
    (not a header token, on a non-primitive property, not reachable through properties alone, or repeated)."""
    found: list[tuple[list[str], str]] = []

    def walk(schema, path: list[str]) -> bool:
        props = schema.get("properties") if isinstance(schema, dict) else None
        for key, sub in (props.items() if isinstance(props, dict) else []):
            name = sub.get("x-mcp-header") if isinstance(sub, dict) else None
            if name is not None:
                if not isinstance(name, str) or not _TOKEN.fullmatch(name) or \
                        sub.get("type") not in ("string", "integer", "boolean"):
                    return False
                found.append(([*path, key], name))
            if isinstance(sub, dict) and not walk(sub, [*path, key]):
                return False
        return True

    schema = tool.get("inputSchema")
    if not walk(schema, []) or json.dumps(schema).count('"x-mcp-header"') != len(found):
        return None
    names = [name.lower() for _, name in found]
    return found if len(set(names)) == len(names) else None


def _param_value(arguments, path: list[str]) -> str | None:
    for key in path:
        arguments = arguments.get(key) if isinstance(arguments, dict) else None
    if arguments is None or isinstance(arguments, (dict, list, float)):
        return None
    return ("true" if arguments else "false") if isinstance(arguments, bool) else header_value(str(arguments))


def shown_url(url: str) -> str:
    """The URL without its user, password and query (they may hold secrets)."""
    parts = urllib.parse.urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", ""))


class HttpTransport:
    """One server at a URL: each request a POST whose answer is JSON or an event stream; the session id kept."""

    def __init__(self, name: str, url: str, headers: dict | None = None, log_path=None,
                 on_notice: Notice | None = None, answer: Answer | None = None, auth: Tokens | None = None):
        self.name = name
        self.answer = answer
        self.auth = auth  # the OAuth login's bearer token (ankit mcp login), when the headers carry none
        self.param_headers: dict[str, list] = {}  # tool name -> its x-mcp-header annotations (see param_headers)
        self.url = url
        self.headers = dict(headers or {})
        self.log_path = log_path
        self.on_notice = on_notice
        self.protocol_version = ""  # sent as MCP-Protocol-Version once negotiated
        self.session = ""  # the Mcp-Session-Id the server gave at initialize
        self.junk_lines = 0
        self.fatal = False  # stopped for misbehaving (a flood, an endless line): not to be restarted
        self.pid = None
        self._log = None
        self._lock = threading.Lock()
        self._next_id = 0
        self._dead = "is not started"
        self._inbox = Inbox(name, self._handle)  # the server's own requests and notices: one thread, bounded

    @property
    def alive(self) -> bool:
        """Whether the session is open."""
        return not self._dead

    @property
    def failure(self) -> str:
        """One line saying why the session is gone (empty while it is open)."""
        return self._dead

    def spawn(self) -> None:
        """Check the URL and open the log; the server itself runs already."""
        parts = urllib.parse.urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise McpError(f"MCP server {self.name!r}: url {shown_url(self.url)!r} is not an http:// or https:// "
                           f"address; fix it in [mcp.servers.{self.name}]")
        if self.log_path is not None:
            self._log = open_log(self.log_path, self.name)
            self._note(f"connecting to {shown_url(self.url)} at {time.strftime('%Y-%m-%d %H:%M:%S')}")
        self._dead = ""

    def request(self, method: str, params: dict | None = None, timeout: float = 60.0, progress: bool = False) -> dict:
        """POST a request and read its answer; raise McpError on error, timeout or a lost session. With progress,
        each progress notification gives the server timeout seconds more (at most PROGRESS_STRETCH times)."""
        with self._lock:
            if self._dead:
                raise McpError(f"MCP server {self.name!r} {self._dead}")
            self._next_id += 1
            rid = self._next_id
        message = request_message(rid, method, params, progress)
        try:
            return self._exchange(message, timeout)
        except TimeoutError:
            if method != "initialize" and self.protocol_version != MODERN:
                threading.Thread(target=self._quietly, args=({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                 "params": {"requestId": rid, "reason": f"no answer within {timeout:g}s"}},),
                                 daemon=True).start()
            raise McpError(f"MCP server {self.name!r} did not answer {method} within {timeout:g}s") from None

    def notify(self, method: str, params: dict | None = None) -> None:
        """POST a notification (the server answers 202 with no body)."""
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._post(message, 30.0).close()

    def _quietly(self, message: dict) -> None:
        try:
            self._post(message, 10.0).close()
        except (McpError, OSError):
            pass

    def _headers(self, message: dict | None = None) -> dict:
        """The configured headers with ${NAME} taken from the environment, the session's own, and the message's
        method and name (Mcp-Method, Mcp-Name: 2026-07-28 asks for them, older servers ignore them)."""
        out = {k: expand(str(v), os.environ) for k, v in self.headers.items()}
        out.update({"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
        if self.auth is not None and not any(k.lower() == "authorization" for k in out):
            bearer = self.auth.header()
            if bearer:
                out["Authorization"] = bearer
        if self.session:
            out["Mcp-Session-Id"] = self.session
        if self.protocol_version:
            out["MCP-Protocol-Version"] = self.protocol_version
        if message and isinstance(message.get("method"), str) and "id" in message:
            out["Mcp-Method"] = message["method"]
            params = message.get("params") if isinstance(message.get("params"), dict) else {}
            name = params.get("name") if message["method"] in ("tools/call", "prompts/get") else \
                params.get("uri") if message["method"] == "resources/read" else None
            if isinstance(name, str):
                out["Mcp-Name"] = header_value(name)
            for path, header in self.param_headers.get(name, []) if message["method"] == "tools/call" else []:
                value = _param_value(params.get("arguments"), path)
                if value is not None:
                    out[f"Mcp-Param-{header}"] = value
        return out

    def _post(self, message: dict, timeout: float, verb: str = "POST", again: bool = True):
        data = json.dumps(message, ensure_ascii=False).encode() if verb == "POST" else None
        try:  # only a 307/308 to the same origin (/mcp to /mcp/) is followed, as the same POST (web.send)
            return web.send(self.url, data, self._headers(message), verb, timeout, same_origin=True)
        except urllib.error.HTTPError as exc:
            if exc.code == 401 and again and self.auth is not None and self.auth.refused():
                return self._post(message, timeout, verb, again=False)  # refreshed: once more with the new token
            raise self._http_error(exc) from None
        except TimeoutError:
            raise
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", None) or exc
            if isinstance(reason, TimeoutError):
                raise reason from None
            raise McpError(f"MCP server {self.name!r} at {shown_url(self.url)}: cannot connect "
                           f"({self._redact(str(getattr(reason, 'strerror', None) or reason))}); is it running?") from None

    def _http_error(self, exc: urllib.error.HTTPError) -> McpError:
        try:
            body = web.read(exc, 4000)[0].decode("utf-8", "replace")
        except TimeoutError:
            body = ""
        try:
            error = boundary.loads(body).get("error")
        except (ValueError, AttributeError):
            error = None
        if isinstance(error, dict) and isinstance(error.get("code"), int) and exc.code not in (401, 403):
            return rpc_error(self.name, error, exc.code, self._redact)  # a JSON-RPC error (2026-07-28 sends 400s)
        said = (error or {}).get("message") if isinstance(error, dict) else body
        said = boundary.outside(self._redact(" ".join(str(said).split())[:200]), 200, line=True)
        if exc.code == 404 and self.session:
            with self._lock:
                self._dead = "ended the session (HTTP 404)"
            return McpError(f"MCP server {self.name!r} ended the session (HTTP 404); ankit starts a new one on the next call")
        login = "bearer" in (exc.headers.get("WWW-Authenticate") or "").lower()
        hint = {401: f"; it needs you to log in: ankit mcp login {self.name}" if login else
                f"; it needs credentials: set headers in [mcp.servers.{self.name}]",
                403: "; it refused the credentials in headers"}.get(exc.code, "")
        if 300 <= exc.code < 400:
            hint = f"; it redirects elsewhere ({shown_url(exc.headers.get('Location') or '?')}), which ankit does not follow: set url to the server's own address"
        return McpError(f"MCP server {self.name!r} answered HTTP {exc.code}" + (f": {said}" if said else "") + hint,
                        status=exc.code)

    def _exchange(self, message: dict, timeout: float) -> dict:
        """POST one request; read its answer from a JSON body or an event stream."""
        rid = message["id"]
        with self._post(message, timeout) as answer:
            if message["method"] == "initialize":
                self.session = answer.headers.get("Mcp-Session-Id") or ""
            kind = answer.headers.get_content_type()
            if kind == "application/json":
                body = answer.read(LINE_CAP + 1)
                found = self._messages(body.decode("utf-8", "replace"), rid)
                if found is not None:
                    return found
            elif kind == "text/event-stream":
                found = self._stream(answer, rid, timeout)
                if found is not None:
                    return found
            else:
                raise McpError(f"MCP server {self.name!r} answered with {kind}, not JSON or an event stream")
        raise McpError(f"MCP server {self.name!r} sent no answer to {message['method']}")

    def _stream(self, answer, rid: int, timeout: float) -> dict | None:
        """Read server-sent events until the answer to rid; notifications and requests on the way are handled."""
        began = time.monotonic()
        deadline = [began + timeout]  # moved on by progress for this request
        data: list[str] = []
        for raw in iter(lambda: answer.readline(LINE_CAP + 1), b""):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
            elif not line and data:
                found = self._messages("\n".join(data), rid, deadline, timeout)
                data = []
                if found is not None:
                    return found
            if time.monotonic() > min(deadline[0], began + timeout * PROGRESS_STRETCH):
                raise TimeoutError
        return self._messages("\n".join(data), rid, deadline, timeout) if data else None

    def _messages(self, text: str, rid: int, deadline: list | None = None, timeout: float = 0.0) -> dict | None:
        """Handle one body or event (a message or a batch); return the result for rid if it is there."""
        if not text.strip():
            return None  # an event that only primes the stream
        try:
            parsed = boundary.loads(text)  # the text boundary: no lone surrogate gets past here
        except (ValueError, RecursionError):
            self.junk_lines += 1
            self._note(f"not JSON-RPC, ignored: {text[:500]}")
            return None
        for message in parsed if isinstance(parsed, list) else [parsed]:
            if not isinstance(message, dict):
                continue
            if isinstance(message.get("method"), str):
                self._from_server(message, rid, deadline, timeout)
            elif message.get("id") == rid:
                return self._result(message)
        return None

    def _result(self, message: dict) -> dict:
        error = message.get("error")
        if error is None:
            result = message.get("result")
            return result if isinstance(result, dict) else {}
        raise rpc_error(self.name, error, redactor=self._redact)

    def _from_server(self, message: dict, rid: int, deadline: list | None, timeout: float) -> None:
        method, params = message["method"], message.get("params")
        params = params if isinstance(params, dict) else {}
        if method == "notifications/progress" and "id" not in message:
            if deadline is not None and params.get("progressToken") == rid:
                deadline[0] = time.monotonic() + timeout
            return
        flood = self._inbox.put(message)  # requests answered and notices passed on by one thread (the stream reads on)
        if flood:
            with self._lock:
                self._dead, self.fatal = self._dead or flood, True
            self._inbox.close()
            self._note(flood)
            raise McpError(f"MCP server {self.name!r} {flood}")

    def _handle(self, message: dict) -> None:
        """One message of the server's own, on the inbox thread."""
        method, params = message["method"], message.get("params")
        params = params if isinstance(params, dict) else {}
        if "id" in message:
            self._quietly(reply_to(message, self.answer))
        elif method == "notifications/message":
            self._note(f"log {boundary.outside(params.get('level', 'info'), 20, line=True)}: "
                       f"{boundary.outside(json.dumps(params.get('data'), ensure_ascii=False), LOG_LINE, line=True)}")
        elif self.on_notice is not None:
            self.on_notice(method, params)

    def _note(self, text: str) -> None:
        if self._log is not None:
            try:
                self._log.write(f"[ankit] {text}\n".encode("utf-8", "replace"))
            except (OSError, ValueError):
                pass

    def _redact(self, text: str) -> str:
        parts = urllib.parse.urlsplit(self.url)
        secrets = [str(v) for v in self._headers().values()] + [p for p in (parts.password, parts.query) if p]
        return redact(text, secrets)

    def close(self, grace: float = 1.0) -> None:
        """End the session (DELETE with its id, as the transport asks) and close the log."""
        with self._lock:
            was, self._dead = self._dead, self._dead or "was closed"
        self._inbox.close()
        if not was and self.session:
            try:
                self._post({}, grace, verb="DELETE").close()
            except (McpError, OSError):
                pass  # a server may not allow ending sessions (405): it ends them itself
        if self._log is not None:
            self._log.close()
            self._log = None
