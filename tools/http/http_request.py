"""http_request: send an HTTP request to an API and return the status, chosen headers and a capped body."""

import json
import os
import re
import urllib.parse

from ankit.toolkit import ToolError, ToolOutput, http

METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
SAFE = {"GET", "HEAD", "OPTIONS"}  # read-only methods: asked once per origin; the others every time
ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
SHOWN = ("content-type", "content-length", "location", "retry-after", "www-authenticate", "x-ratelimit-remaining")
DEFAULT_CHARS, MAX_CHARS = 20_000, 60_000
MAX_HOPS = 5

name = "http_request"
description = (
    "Send an HTTP request to a REST or JSON API (GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS) with headers, "
    "query parameters and a JSON or text body; returns the status, the main response headers and the body "
    "(cut at max_chars). Header values may use ${ENV_NAME} for secrets such as tokens: expanded only when "
    "sent, never shown. Redirects to another origin are not followed without approval. For reading web "
    "pages as text use web_fetch."
)
parameters = {
    "type": "object",
    "properties": {
        "url": {"type": "string", "description": "http:// or https:// address"},
        "method": {"type": "string", "enum": METHODS, "description": "Default GET"},
        "headers": {"type": "object", "additionalProperties": {"type": "string"},
                    "description": "Request headers, e.g. {\"Authorization\": \"Bearer ${API_TOKEN}\"}"},
        "query": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean"]},
                  "description": "Query parameters added to the URL"},
        "json": {"description": "A JSON body (object, array or value); sets Content-Type: application/json"},
        "body": {"type": "string", "description": "A text body (instead of json)"},
        "show_headers": {"type": "array", "items": {"type": "string"}, "description": "More response headers to show"},
        "timeout": {"type": "integer", "description": "Seconds to wait in total (default 30, max 120)"},
        "max_chars": {"type": "integer", "description": "How much of the body to return (default 20000, max 60000)"},
    },
    "required": ["url"],
    "additionalProperties": False,
}
returns = ("dict: {'status', 'url', 'headers', 'body'}: the status code, the final URL, the headers shown, and "
           "the whole body (parsed when it is JSON; None when binary)")
effects = ["read", "network"]
examples = [
    "call the REST API endpoint https://api.example.com/v1/users",
    "send a POST request with a JSON body to the webhook",
    "make a GET request with an Authorization bearer token header",
    "what status code does the API return for /health",
]


def _method(args: dict) -> str:
    return (args.get("method") or "GET").upper()


def _url(args: dict) -> str:
    """The checked URL with the query parameters added."""
    url = http.check_url(str(args.get("url", "")))
    query = args.get("query") or {}
    if query:
        pairs = urllib.parse.urlencode({k: str(v).lower() if isinstance(v, bool) else v for k, v in query.items()})
        url += ("&" if urllib.parse.urlsplit(url).query else "?") + pairs
    return url


origin = http.origin  # approvals are per origin, shared with web_fetch (ankit.toolkit.http)


def _env_names(args: dict) -> set[str]:
    return {m for value in (args.get("headers") or {}).values() for m in ENV_REF.findall(str(value))}


def _secrets_sent(ctx) -> dict:
    """Per approved origin, the environment variables the user let go there."""
    return ctx.state.setdefault("http_secrets", {})


def needs_approval(args: dict, ctx) -> bool:
    """Ask for every request that changes something, and once per origin (and secret) for reading requests."""
    try:
        url = _url(args)
    except ToolError:
        return False  # run() reports the bad URL; nothing is sent
    known = _secrets_sent(ctx).get(origin(url), set())
    return _method(args) not in SAFE or not http.approved(ctx, url) or not _env_names(args) <= known


def touches(args: dict, ctx) -> dict:
    """The host it reaches (redirects may lead to others, each checked as it comes)."""
    return {"reaches": [urllib.parse.urlsplit(str(args.get("url") or "")).hostname or ""]}


def preview(args: dict, ctx) -> str:
    """The request as it would go out, with ${NAME} references left unexpanded."""
    url = _url(args)
    note = http.lookalike_note(url).rstrip("\n")
    lines = [line for line in (note, f"{_method(args)} {url}") if line]
    lines += [f"{key}: {value}" for key, value in (args.get("headers") or {}).items()]
    names = sorted(_env_names(args))
    if names:
        lines.append(f"(sends the values of {', '.join(names)} from the environment; they are never shown)")
    body = _body(args)[0]
    if body:
        text = body.decode("utf-8", errors="replace")
        lines += ["", text]  # whole: the approval shows every byte that would leave the machine
    if _method(args) in SAFE:
        lines.append(f"(approving lets ankit send GET, HEAD and OPTIONS requests to {origin(url)} for the rest of the session)")
    return "\n".join(lines)


def run(args: dict, ctx) -> ToolOutput:
    """Send the request (following same-origin or approved redirects) and describe the response; a program gets
    it as a record."""
    url, method = _url(args), _method(args)
    names = _env_names(args)
    http.approve(ctx, url)
    _secrets_sent(ctx).setdefault(origin(url), set()).update(names)
    data, kind = _body(args)
    headers, secrets = _expand(args.get("headers") or {})
    if kind and not any(k.lower() == "content-type" for k in headers):
        headers["Content-Type"] = kind
    timeout = max(1, min(120, int(args.get("timeout") or 30)))
    max_bytes = int(ctx.config.get("web_max_bytes") or 3_000_000)
    chain, note = [], ""
    while True:
        response = http.fetch(url, method=method, headers=headers, data=data, timeout=timeout, max_bytes=max_bytes,
                              follow=False)
        target = response.headers.get("location")
        if response.status not in http.REDIRECTS or not target:
            break
        following = http.check_url(urllib.parse.urljoin(url, target))
        note = _stop(following, origin(url), method, response.status, ctx, len(chain))
        if note:
            break
        if origin(following) != origin(url):
            headers = {k: v for k, v in headers.items() if k.lower() not in http.CREDENTIALS
                       and not ENV_REF.search(str((args.get("headers") or {}).get(k, "")))}
        if response.status == 303:
            method, data = "GET", None
        chain.append(url)
        url = following
    return ToolOutput(_scrub(_describe(response, args, chain, note), secrets), _scrub(_record(response, args), secrets))


def _stop(following: str, here: str, method: str, status: int, ctx, hops: int) -> str:
    """Why a redirect is not followed ('' to follow it): too many, another unapproved origin, or a write."""
    if hops >= MAX_HOPS:
        return f"(stopped after {MAX_HOPS} redirects; the next one leads to {following})"
    there = origin(following)
    if there != here and not http.approved(ctx, following):
        return f"(redirected to {following}, another origin: not followed; call http_request with that URL to go on)"
    if method not in SAFE and status in (307, 308):
        return f"(redirected to {following}, which would repeat the {method}: not followed; send it there if meant)"
    return ""


def _body(args: dict) -> tuple[bytes | None, str]:
    """The request body and its default content type."""
    if "json" in args and args.get("body") is not None:
        raise ToolError("give either json or body, not both")
    if "json" in args:
        return json.dumps(args["json"], ensure_ascii=False).encode("utf-8"), "application/json"
    if args.get("body") is not None:
        return str(args["body"]).encode("utf-8"), "text/plain; charset=utf-8"
    return None, ""


def _expand(headers: dict) -> tuple[dict, list[str]]:
    """Headers with ${NAME} replaced from the environment, and the values put in (to scrub from the output)."""
    out, secrets = {}, []
    for key, value in headers.items():
        for ref in ENV_REF.findall(str(value)):
            if not os.environ.get(ref):
                raise ToolError(f"header {key} uses ${{{ref}}}, which is not set in the environment; "
                                f"export {ref} before starting ankit")
            secrets.append(os.environ[ref])
        if re.search(r"[\r\n]", str(value)) or re.search(r"[\r\n:]", str(key)):
            raise ToolError(f"header {key!r} holds a line break or colon; give one header per key")
        out[str(key)] = ENV_REF.sub(lambda m: os.environ[m.group(1)], str(value))
    return out, secrets


def _describe(response, args: dict, chain: list[str], note: str) -> str:
    """Status, URL, chosen headers, then the body cut at max_chars."""
    lines = [f"HTTP {response.status} {response.reason}".rstrip(), f"URL: {response.url}"]
    if chain:
        lines.append(f"(redirected from {chain[0]})")
    wanted = [*SHOWN, *(h.lower() for h in args.get("show_headers") or [])]
    lines += [f"{key}: {response.headers[key]}" for key in dict.fromkeys(wanted) if key in response.headers]
    if note:
        lines.append(note)
    if response.truncated:
        lines.append("(the body stopped at the size or time limit; its end is missing)")
    return "\n".join(lines) + "\n\n" + _text(response, args)


def _text(response, args: dict) -> str:
    """The body as text: JSON indented, other text as it is, binary as a note."""
    if not response.body:
        return "(empty body)"
    kind = response.content_type
    text = response.text()
    if "json" in kind:
        try:
            text = json.dumps(json.loads(text), ensure_ascii=False, indent=1)
        except ValueError:
            pass
    elif kind and not (kind.startswith("text/") or "xml" in kind or "javascript" in kind or "form" in kind):
        return f"(binary body, {len(response.body)} bytes of {kind}; not shown)"
    size = max(500, min(MAX_CHARS, int(args.get("max_chars") or DEFAULT_CHARS)))
    return text if len(text) <= size else text[:size] + f"\n[body cut at {size} of {len(text)} characters; raise max_chars]"


def _record(response, args: dict) -> dict:
    """The response as data: status, final URL, the headers shown, the body (JSON parsed, binary None)."""
    wanted = [*SHOWN, *(h.lower() for h in args.get("show_headers") or [])]
    kind, body = response.content_type, response.text() if response.body else ""
    if "json" in kind:
        try:
            body = json.loads(body)
        except ValueError:
            pass
    elif kind and not (kind.startswith("text/") or "xml" in kind or "javascript" in kind or "form" in kind):
        body = None
    return {"status": response.status, "url": response.url, "body": body,
            "headers": {key: response.headers[key] for key in dict.fromkeys(wanted) if key in response.headers}}


def _scrub(value, secrets: list[str]):
    """Text (or every string of a record) with the header values taken from the environment redacted."""
    if isinstance(value, dict):
        return {_scrub(k, secrets): _scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, secrets) for v in value]
    if not isinstance(value, str):
        return value
    for secret in sorted(set(secrets), key=len, reverse=True):
        value = value.replace(secret, "[redacted]")
    return value
