"""web_fetch: download a web page and return it as readable text."""

import re
import urllib.parse
from html.parser import HTMLParser

from ankit.toolkit import ToolError, http

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
effects = ["network"]
examples = [
    "fetch https://docs.python.org/3/library/json.html and summarise it",
    "read this web page for me",
    "download the content of this URL",
]


def needs_approval(args: dict, ctx) -> bool:
    """Ask once per origin (scheme, host, port) and session: a URL can carry data out, so the user sees where."""
    return not http.approved(ctx, str(args.get("url", "")))


def touches(args: dict, ctx) -> dict:
    """The host it reaches (redirects may lead to others, each checked as it comes)."""
    return {"reaches": [urllib.parse.urlsplit(str(args.get("url") or "")).hostname or ""]}


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
        raise ToolError(f"HTTP {response.status} {response.reason} from {response.url}: {snippet[:200].strip()!r}")
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
        return to_text(text, response.url)
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


# --- HTML to readable text: headings, lists, links, tables and code kept legible ----------------------------

SKIP = {"script", "style", "noscript", "template", "svg", "iframe", "canvas", "object"}
BLOCK = {
    "p", "div", "section", "article", "header", "footer", "nav", "main", "aside", "ul", "ol", "table", "form",
    "blockquote", "dl", "dt", "dd", "figure", "figcaption", "address", "details", "summary", "fieldset", "hr",
}


class Readable(HTMLParser):
    """Collects the visible text of a page as lightly marked-up lines."""

    def __init__(self, base_url: str = ""):
        super().__init__(convert_charrefs=True)
        self.base_url = base_url
        self.out: list[str] = []
        self.title = ""
        self.skip_depth = 0
        self.in_title = False
        self.pre_depth = 0
        self.links: list[tuple[int, str]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "title":
            self.in_title = True
        if tag in SKIP:
            self.skip_depth += 1
        if self.skip_depth:
            return
        self._open(tag, attrs)

    def _open(self, tag: str, attrs: dict) -> None:
        if tag in BLOCK:
            self._newline(2 if tag in ("p", "blockquote", "table") else 1)
        elif re.fullmatch(r"h[1-6]", tag):
            self._newline(2)
            self.out.append("#" * int(tag[1]) + " ")
        elif tag == "li":
            self._newline(1)
            self.out.append("- ")
        elif tag == "br":
            self.out.append("\n")
        elif tag == "tr":
            self._newline(1)
        elif tag in ("td", "th"):
            self.out.append(" | ")
        elif tag == "pre":
            self._newline(2)
            self.out.append("```\n")
            self.pre_depth += 1
        elif tag == "img" and attrs.get("alt"):
            self.out.append(f"[image: {attrs['alt'].strip()}]")
        elif tag == "a":
            self.links.append((len(self.out), attrs.get("href") or ""))

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        if tag in SKIP:
            self.skip_depth = max(0, self.skip_depth - 1)
            return
        if self.skip_depth:
            return
        if tag == "pre" and self.pre_depth:
            self.pre_depth -= 1
            self.out.append("\n```")
            self._newline(2)
        elif tag == "a" and self.links:
            self._close_link(*self.links.pop())
        elif tag in BLOCK or re.fullmatch(r"h[1-6]", tag):
            self._newline(2 if tag in ("p", "table") or tag.startswith("h") else 1)

    def _close_link(self, start: int, href: str) -> None:
        label = "".join(self.out[start:]).strip()
        if not label or not href or href.startswith(("#", "javascript:", "mailto:")):
            return
        url = urllib.parse.urljoin(self.base_url, href)
        del self.out[start:]
        self.out.append(f"[{label}]({url})")

    def handle_data(self, data):
        if self.in_title:
            self.title += data
            return
        if self.skip_depth:
            return
        if self.pre_depth:
            self.out.append(data)
        else:
            self.out.append(re.sub(r"\s+", " ", data))

    def _newline(self, count: int) -> None:
        self.out.append("\n" * count)

    def text(self) -> str:
        """The collected text, blank runs squeezed and lines trimmed."""
        raw = "".join(self.out)
        lines, in_pre = [], False
        for line in raw.split("\n"):
            if line.strip() == "```":
                in_pre = not in_pre
            lines.append(line.rstrip() if in_pre else re.sub(r" {2,}", " ", line).strip(" |") if "|" in line else line.strip())
        return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def to_text(html: str, base_url: str = "") -> tuple[str, str]:
    """Return (title, readable text) for an HTML document."""
    parser = Readable(base_url)
    try:
        parser.feed(html)
        parser.close()
    except AssertionError:
        pass  # html.parser gives up on some malformed markup; keep what was read
    return re.sub(r"\s+", " ", parser.title).strip(), parser.text()
