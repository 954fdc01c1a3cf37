"""The one HTTP function for every outbound request (`send`): the providers, model listings, the toolkit behind
http_request and web_fetch, MCP over HTTP and OAuth. What every request shares is decided here, once:

- redirects: urllib follows none; a 3xx comes back as urllib.error.HTTPError, so a key, a token or a cookie
  never goes along to the address it names. With `same_origin`, a 307/308 to the same scheme, host and port is
  followed as the same request (MCP's /mcp to /mcp/). A caller that follows redirects (toolkit/http.py) does it
  hop by hop through `send`, and `without_credentials` drops the credentials when the origin changes;
- the loopback rule (`loopback`): localhost, 127.0.0.0/8 and ::1 are never reached through the user's
  HTTP(S)_PROXY; every other address goes through it as urllib reads it from the environment;
- timeouts: connecting within `timeout` seconds, then each read within `idle` (the same unless given);
- bounded bodies (`read`): at most a cap of bytes, in pieces, until a deadline whatever Content-Length says.

urllib.request, http.client and ssl are imported with the first request (`_stack`): starting ankit never
waits for them. Imports nothing from ankit.
"""

import functools
import time
import urllib.parse

CREDENTIALS = frozenset({"authorization", "proxy-authorization", "cookie"})  # headers a redirect elsewhere drops
USER_AGENT = "ankit/0.1"


def loopback(url: str) -> bool:
    """Whether the URL's host is this machine: localhost, 127.0.0.0/8 or ::1 (never behind a proxy)."""
    try:
        host = (urllib.parse.urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    return host == "localhost" or host == "::1" or (host.startswith("127.") and host.replace(".", "").isdigit())


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of a URL, the unit credentials are sent to."""
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port or {"https": 443, "http": 80}.get(parts.scheme.lower())
    except ValueError:
        port = None
    return parts.scheme.lower(), (parts.hostname or "").lower(), port


def without_credentials(headers: dict) -> dict:
    """The headers without those that carry credentials (for a request to another origin)."""
    return {key: value for key, value in headers.items() if key.lower() not in CREDENTIALS}


@functools.cache
def _stack():
    """urllib.request, http.client, and the handler classes every request is opened with (imported on the first
    request)."""
    import http.client
    import urllib.request

    handler, secure_handler = _handlers(urllib.request, *_connections(http.client))
    return urllib.request, http.client, handler, secure_handler, _redirects(urllib.request)


def _connections(client) -> tuple[type, type]:
    """HTTP and HTTPS connections that connect within the connect timeout, then wait at most `idle` seconds for
    every later read."""

    class Idle:
        def __init__(self, *args, idle: float, **kwargs):
            super().__init__(*args, **kwargs)
            self.idle = idle

        def connect(self):
            super().connect()
            self.sock.settimeout(self.idle)

    class Connection(Idle, client.HTTPConnection):
        pass

    class SecureConnection(Idle, client.HTTPSConnection):
        pass

    return Connection, SecureConnection


def _handlers(request_module, connection: type, secure_connection: type) -> tuple[type, type]:
    """urllib's HTTP and HTTPS handlers, opening those connections with the idle timeout."""

    class Handler(request_module.HTTPHandler):
        def __init__(self, idle: float):
            super().__init__()
            self.idle = idle

        def http_open(self, req):
            return self.do_open(functools.partial(connection, idle=self.idle), req)

    class SecureHandler(request_module.HTTPSHandler):
        def __init__(self, idle: float):
            super().__init__()
            self.idle = idle

        def https_open(self, req):
            return self.do_open(functools.partial(secure_connection, idle=self.idle), req, context=self._context)

    return Handler, SecureHandler


def _redirects(request_module) -> type:
    """The redirect rule: none followed; with same_origin, a 307/308 to the same origin as the same request."""

    class Redirects(request_module.HTTPRedirectHandler):
        def __init__(self, same: bool):
            super().__init__()
            self.same = same

        def redirect_request(self, req, fp, code, msg, headers, newurl):
            target = urllib.parse.urljoin(req.full_url, newurl)
            if not self.same or code not in (307, 308) or origin(target) != origin(req.full_url):
                return None
            return request_module.Request(target, req.data, dict(req.header_items()), method=req.get_method())

    return Redirects


def send(url: str, data: bytes | None = None, headers: dict | None = None, method: str | None = None,
         timeout: float = 30.0, idle: float | None = None, same_origin: bool = False):
    """Open one request and return the open response (a 2xx; any other status raises urllib.error.HTTPError, a
    redirect included, as urllib does); URLError and OSError when it cannot connect."""
    request_module, _client, handler, secure_handler, redirects = _stack()
    wait = timeout if idle is None else idle
    handlers = [handler(wait), secure_handler(wait), redirects(same_origin)]
    if loopback(url):
        handlers.append(request_module.ProxyHandler({}))
    opener = request_module.build_opener(*handlers)
    request = request_module.Request(url, data, {"User-Agent": USER_AGENT, **(headers or {})}, method=method)
    return opener.open(request, timeout=timeout)


def read(response, cap: int, deadline: float | None = None, inflate=None) -> tuple[bytes, bool]:
    """The body in pieces: (at most cap bytes, whether more was there or the deadline cut it). inflate(chunk,
    room), when given, decodes each piece (never more than room bytes). A read that times out raises
    TimeoutError, or with a deadline gives the body so far, cut; a connection dropped midway ends the body."""
    client = _stack()[1]
    chunks, size, cut = [], 0, False
    try:
        while size <= cap:
            if deadline is not None and time.monotonic() > deadline:
                cut = True
                break
            chunk = (getattr(response, "read1", None) or response.read)(65536)
            if not chunk:
                break
            piece = inflate(chunk, cap - size + 1) if inflate is not None else chunk
            chunks.append(piece)
            size += len(piece)
    except TimeoutError:
        if deadline is None:
            raise
        cut = True
    except (OSError, client.HTTPException):
        pass  # what came is all there is
    body = b"".join(chunks)
    return (body[:cap], True) if len(body) > cap else (body, cut)
