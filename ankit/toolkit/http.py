"""HTTP for tools over urllib: http/https only, bounded redirects, size and time caps, charset decoding."""

__all__ = ["fetch", "Response", "check_url", "origin", "approved", "approve", "lookalike_note", "CREDENTIALS", "REDIRECTS"]

import codecs
import re
import socket
import time
import urllib.error
import urllib.parse
import zlib
from dataclasses import dataclass, field

from ankit.errors import ToolError
from ankit.safety import web

USER_AGENT = "Mozilla/5.0 (compatible; ankit/0.1; Python-urllib)"
REDIRECTS = {301, 302, 303, 307, 308}
CREDENTIALS = set(web.CREDENTIALS)  # what a redirect to another origin drops (safety/web.py decides)
META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]+)""", re.IGNORECASE)


# Approval per origin (scheme, host, port): the tools that send data off the machine ask before the first request
# to an origin in a session, and every redirect to another origin is checked as a new request (fetch(allowed=)).
APPROVED = "web_origins"


def origin(url: str) -> str:
    """scheme://host:port of a URL (a bare host counts as https), the unit web approvals are given for; a host
    written with letters beyond ASCII is given in its ASCII (punycode) form, the one the request really goes to."""
    url = url.strip()
    parts = urllib.parse.urlsplit(url if "://" in url else "https://" + url)
    scheme = (parts.scheme or "https").lower()
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        port = 0
    return f"{scheme}://{ascii_host(parts.hostname or '')}:{port}"


def ascii_host(host: str) -> str:
    """A host name as DNS sees it: gооgle.com (with Cyrillic o's) is xn--ggle-55da.com, not google.com."""
    host = host.lower()
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return host.encode("ascii", "backslashreplace").decode("ascii")


def lookalike_note(url: str) -> str:
    """A NOTE line for an approval when the URL's host is not plain ASCII (it may imitate a familiar one)."""
    host = urllib.parse.urlsplit(url.strip() if "://" in url else "https://" + url.strip()).hostname or ""
    if host.isascii():
        return ""
    return f"NOTE: the host {host} is written with letters beyond ASCII ({ascii_host(host)}); it may imitate another\n"


def approved(ctx, url: str) -> bool:
    """Whether the user approved this URL's origin earlier in the session."""
    return origin(url) in ctx.state.get(APPROVED, set())


def approve(ctx, url: str) -> None:
    """Remember the origin as approved for the rest of the session (called once the user said yes)."""
    ctx.state.setdefault(APPROVED, set()).add(origin(url))


@dataclass
class Response:
    """What came back: final URL, status, headers, body bytes (maybe cut), and the redirect chain."""

    url: str
    status: int
    reason: str
    headers: dict
    body: bytes
    truncated: bool = False
    redirects: list[str] = field(default_factory=list)

    @property
    def content_type(self) -> str:
        """The media type without parameters, lower-case ('' when none was sent)."""
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    def text(self) -> str:
        """The body decoded with its declared (or sniffed) charset."""
        return self.body.decode(charset(self.headers.get("content-type", ""), self.body), errors="replace")


def check_url(url: str) -> str:
    """The URL to request: a bare host gets https://; any scheme but http and https is refused."""
    url = url.strip()
    if "://" not in url and not url.lower().startswith(("javascript:", "data:", "mailto:", "file:")):
        url = "https://" + url
    parts = urllib.parse.urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        raise ToolError(f"only http and https URLs can be fetched, not {parts.scheme or 'this'}: {url[:80]}")
    if not parts.hostname:
        raise ToolError(f"the URL has no host name: {url[:80]}")
    return url


def fetch(url: str, *, method: str = "GET", headers: dict | None = None, data: bytes | None = None,
          timeout: float = 20, max_bytes: int = 2_000_000, max_redirects: int = 5, follow: bool = True,
          allowed=None) -> Response:
    """Request url, following up to max_redirects redirects; error statuses come back as responses.

    Credentials in headers go to the first host only: a redirect elsewhere drops them. With follow=False a
    redirect comes back as it is, for the caller to check where it leads. allowed(url), when given, is asked
    for every redirect to another origin; a target it refuses stops with an ToolError naming it.
    """
    deadline = time.monotonic() + timeout
    chain: list[str] = []
    url, headers = check_url(url), dict(headers or {})
    while True:
        response = _once(url, method, headers, data, timeout, max_bytes, deadline)
        location = response.headers.get("location")
        if response.status not in REDIRECTS or not location or not follow:
            response.redirects = chain
            return response
        if len(chain) >= max_redirects:
            raise ToolError(f"more than {max_redirects} redirects starting at {chain[0]}; the site loops")
        chain.append(url)
        url = check_url(urllib.parse.urljoin(url, location))
        if allowed is not None and origin(url) != origin(chain[-1]) and not allowed(url):
            raise ToolError(f"{chain[-1]} redirected to {url}, another origin the user has not approved; "
                            "fetch that address itself to ask the user")
        if web.origin(url) != web.origin(chain[-1]):
            headers = web.without_credentials(headers)
        if response.status == 303 or (response.status in (301, 302) and method == "POST"):
            method, data = "GET", None


def _once(url, method, headers, data, timeout, max_bytes, deadline) -> Response:
    host = urllib.parse.urlsplit(url).netloc
    try:  # web.send follows no redirect: fetch() checks each hop
        with web.send(url, data, {"User-Agent": USER_AGENT, **headers}, method, timeout) as resp:
            return _read(resp, url, resp.status, resp.reason, max_bytes, deadline)
    except urllib.error.HTTPError as exc:
        with exc:
            return _read(exc, url, exc.code, str(exc.reason), max_bytes, deadline)
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, (TimeoutError, socket.timeout)):
            raise ToolError(f"no response from {host} within {timeout:.0f} s") from None
        raise ToolError(f"could not reach {host} ({_reason(exc.reason)}); check the address or whether you are offline") from None
    except (TimeoutError, socket.timeout):
        raise ToolError(f"no response from {host} within {timeout:.0f} s") from None
    except (ConnectionError, OSError) as exc:
        raise ToolError(f"connection to {host} failed ({_reason(exc)})") from None


def _reason(reason) -> str:
    text = getattr(reason, "strerror", None) or str(reason)
    return text.removeprefix("[Errno -2] ").removeprefix("[Errno -3] ")


def _read(resp, url: str, status: int, reason: str, max_bytes: int, deadline: float) -> Response:
    """Read the body up to max_bytes of DECODED content or the deadline; gzip/deflate is inflated as it comes,
    chunk by chunk, and cut at the cap (a small compressed body cannot grow to gigabytes in memory)."""
    headers = {k.lower(): v for k, v in resp.headers.items()}
    inflate = _Inflater(headers.get("content-encoding", ""))
    body, truncated = web.read(resp, max_bytes, deadline, inflate.feed)
    return Response(url, status, reason, headers, body, truncated)


class _Inflater:
    """Decodes a gzip or deflate body piece by piece, never producing more than it is asked for at once."""

    def __init__(self, encoding: str):
        encoding = encoding.strip().lower()
        wbits = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}.get(encoding)
        self.zlib = zlib.decompressobj(wbits) if wbits else None
        self.raw_deflate = encoding == "deflate"
        self.started = False

    def feed(self, chunk: bytes, room: int) -> bytes:
        """At most room decoded bytes for this chunk (what is left over past the cap is dropped with it)."""
        if self.zlib is None:
            return chunk
        try:
            out = self.zlib.decompress(chunk, room)
        except zlib.error:
            if self.raw_deflate and not self.started:  # deflate sent without its zlib header
                self.zlib, self.raw_deflate = zlib.decompressobj(-zlib.MAX_WBITS), False
                return self.feed(chunk, room)
            if not self.started:  # labelled compressed but not: the bytes as they are
                self.zlib = None
                return chunk
            return b""
        self.started = True
        return out


def charset(content_type: str, body: bytes) -> str:
    """The charset to decode with: the header's, a BOM, an HTML meta tag, else UTF-8 or Windows-1252."""
    found = re.search(r"charset\s*=\s*[\"']?([\w.:-]+)", content_type, re.IGNORECASE)
    candidates = [found.group(1)] if found else []
    if body.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if body.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    meta = META_CHARSET.search(body[:4096])
    if meta:
        candidates.append(meta.group(1).decode("ascii", "replace"))
    for name in candidates:
        try:
            codec = codecs.lookup(name).name
        except LookupError:
            continue
        return "cp1252" if codec in ("latin-1", "iso8859-1", "ascii") else codec
    try:
        body.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        return "cp1252"
