"""What OAuth reads from and sends to the web, under the rules the specifications' security sections set.

- Every endpoint ankit talks to or hands to the browser is https; plain http only on the loopback (127.0.0.1,
  ::1, localhost), for a server under development (OAuth 2.1 §1.5, RFC 8414 §2, RFC 9728 §7.1). An address
  with anything but printable ASCII in it (a space, a line break, a control) is refused, so the line the user
  copies is the address that is opened.
- A JSON answer (metadata, a registration, tokens, an error) is read in pieces up to SIZE bytes and within
  DEADLINE seconds whatever its Content-Length says, then parsed through the text boundary (safety/text.py).
- What a server says is shown through the text boundary (outside(text, SAID, line=True)): one line, controls
  made visible, secrets scrubbed, cut to SAID characters.
- No redirect is followed (safety/web.py, the one HTTP function): a code, a token or a secret is never sent to
  another address.
"""

import json
import time
import urllib.error
import urllib.parse

from ankit.mcp.jsonrpc import McpError
from ankit.safety import text as boundary, web
from ankit.safety.text import outside

SIZE = 256 * 1024  # bytes of one JSON answer
SAID = 200  # characters of what a login server says (an error description, an address) shown in a line
DEADLINE = 30.0  # seconds for one exchange, however slowly the answer trickles in


def shown(url: str) -> str:
    """The URL fit for a message: no user, password or query (they may hold secrets), controls made visible."""
    parts = urllib.parse.urlsplit(str(url))
    return outside(urllib.parse.urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", "")), SAID,
                   line=True)


def secure(url, what: str) -> str:
    """url when it is https (or http on the loopback) and plain printable ASCII; McpError saying what to do else."""
    text = url if isinstance(url, str) else ""
    try:
        parts = urllib.parse.urlsplit(text)
        host = (parts.hostname or "").lower()
    except ValueError:
        parts, host = None, ""
    plain = bool(text) and all("!" <= c <= "~" for c in text)
    if plain and parts is not None and host and (parts.scheme == "https" or parts.scheme == "http" and web.loopback(text)):
        return text
    raise McpError(f"the {what} {outside(str(url), SAID, line=True)!r} is not an https address (plain http only on "
                   "127.0.0.1 or localhost); not used")


def same_resource(a, b) -> bool:
    """Whether two URLs name the same resource (RFC 9728 §3.3): scheme and host without case, a path's last
    slash aside."""
    try:
        x, y = urllib.parse.urlsplit(str(a)), urllib.parse.urlsplit(str(b))
    except ValueError:
        return False
    return (x.scheme.lower(), x.netloc.lower(), x.path.rstrip("/"), x.query) == \
        (y.scheme.lower(), y.netloc.lower(), y.path.rstrip("/"), y.query)


def exchange(url: str, data: dict | None = None, form: dict | None = None, what: str = "endpoint") -> tuple[int, dict]:
    """GET (or POST JSON / a form) to a secure address and read a JSON object back: (status, object)."""
    body, headers = None, {"Accept": "application/json"}
    if data is not None:
        body, headers["Content-Type"] = json.dumps(data).encode(), "application/json"
    elif form is not None:
        body, headers["Content-Type"] = urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded"
    address, deadline = secure(url, what), time.monotonic() + DEADLINE
    try:
        with web.send(address, body, headers, "POST" if body is not None else "GET", DEADLINE) as answer:
            status, raw = answer.status, web.read(answer, SIZE, deadline)[0]
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, web.read(exc, SIZE, deadline)[0]
    except (urllib.error.URLError, OSError) as exc:
        raise McpError(f"cannot reach {shown(url)}: {outside(getattr(exc, 'reason', exc), SAID, line=True)}") from None
    try:
        parsed = boundary.loads(raw or b"{}")
    except ValueError:
        parsed = {}
    return status, parsed if isinstance(parsed, dict) else {}
