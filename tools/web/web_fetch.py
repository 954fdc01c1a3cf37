"""web_fetch: download a web page and return it as readable text."""

import importlib.util
import urllib.parse
from pathlib import Path

_spec = importlib.util.spec_from_file_location("ankit_tools_load", Path(__file__).resolve().parents[1] / "_common" / "_load.py")
_spec.loader.exec_module(_load := importlib.util.module_from_spec(_spec))
http, html = _load.common("http"), _load.common("html")

DEFAULT_CHARS = 30_000
MAX_CHARS = 60_000  # under ankit's 64 KiB cap on a tool's output, so nothing is cut between start offsets
TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript", "application/x-yaml")

name = "web_fetch"
description = (
    "Fetch a web page or file over http or https and return it as readable text (HTML is turned into text "
    "with headings, lists and [links](url)). Reports the final URL after redirects. Long pages are cut; read "
    "further with start. raw returns the page source instead."
)
parameters = {
    "type": "object",
    "properties": {
        "url": {"type": "string", "description": "http:// or https:// address (a bare host gets https://)"},
        "start": {"type": "integer", "description": "Character offset in the text to start from (default 0)"},
        "max_chars": {"type": "integer", "description": "How much text to return (default 30000, max 60000)"},
        "raw": {"type": "boolean", "description": "Return the source (e.g. HTML) instead of readable text"},
        "timeout": {"type": "integer", "description": "Seconds to wait in total (default 20, max 120)"},
    },
    "required": ["url"],
    "additionalProperties": False,
}
read_only = True
examples = [
    "fetch https://docs.python.org/3/library/json.html and summarise it",
    "read this web page for me",
    "download the content of this URL",
]


def needs_approval(args: dict, ctx) -> bool:
    """Ask once per origin (scheme, host, port) and session: a URL can carry data out, so the user sees where."""
    return not http.approved(ctx, str(args.get("url", "")))


def preview(args: dict, ctx) -> str:
    """The address about to be fetched."""
    where = http.origin(str(args.get("url", "")))
    note = http.lookalike_note(str(args.get("url", "")))
    return f"{note}GET {args.get('url', '')}\n(approving lets ankit fetch from {where} for the rest of the session)"


def run(args: dict, ctx) -> str:
    """Fetch the URL and return a short header plus the (cut) text; a redirect to an origin not approved stops."""
    http.approve(ctx, str(args["url"]))
    timeout = max(1, min(120, int(args.get("timeout") or ctx.config.get("web_timeout") or 20)))
    response = http.fetch(args["url"], timeout=timeout, max_bytes=int(ctx.config.get("web_max_bytes") or 3_000_000),
                          allowed=lambda url: http.approved(ctx, url))
    header = [f"URL: {response.url}"]
    if response.redirects:
        header.append(f"(redirected from {response.redirects[0]})")
    if response.status >= 400:
        _, snippet = _body(response, False)
        raise http.HttpError(f"HTTP {response.status} {response.reason} from {response.url}: {snippet[:200].strip()!r}")
    title, body = _body(response, bool(args.get("raw")))
    if title:
        header.append(f"Title: {title}")
    header.append(f"Content-Type: {response.content_type or 'unknown'}")
    if response.truncated:
        header.append("(the download stopped at the size or time limit; the end of the page is missing)")
    return "\n".join(header) + "\n\n" + _window(body, args)


def _body(response, raw: bool) -> tuple[str, str]:
    """(title, text) for the response: readable text for HTML, decoded text, or a note for binary."""
    kind = response.content_type
    sniff = response.body[:512].lstrip().lower()
    is_html = "html" in kind or (not kind and sniff.startswith((b"<!doctype html", b"<html")))
    if not (is_html or kind.startswith(TEXT_TYPES) or not kind or "+xml" in kind or "+json" in kind):
        return "", f"(binary content, {len(response.body)} bytes of {kind}; not shown)"
    text = response.text()
    if is_html and not raw:
        return html.to_text(text, response.url)
    return "", text


def _window(body: str, args: dict) -> str:
    """The requested slice of the text with a note on what remains."""
    start = max(0, int(args.get("start") or 0))
    size = max(500, min(MAX_CHARS, int(args.get("max_chars") or DEFAULT_CHARS)))
    if start >= len(body) and body:
        return f"(start {start} is past the end; the text has {len(body)} characters)"
    piece = body[start : start + size]
    if start + size < len(body):
        piece += f"\n\n[text cut at character {start + size} of {len(body)}; continue with start={start + size}]"
    return piece or "(empty page)"
