"""web_search: search the web through SearXNG (JSON API) or DuckDuckGo's HTML page."""

import json
import urllib.parse
from html.parser import HTMLParser

from ankit.toolkit import ToolError, http

DUCKDUCKGO = "https://html.duckduckgo.com/html/"

name = "web_search"
description = (
    "Search the web and return the top results (title, URL, snippet). Uses the SearXNG instance set as "
    "web_search_url in the configuration, or DuckDuckGo by default. Follow up with web_fetch to read a result."
)
parameters = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What to search for"},
        "max_results": {"type": "integer", "description": "How many results (default 8, max 25)"},
    },
    "required": ["query"],
    "additionalProperties": False,
}
effects = ["network"]
examples = [
    "search the web for python asyncio tutorials",
    "look up online what the latest version of Django is",
    "google how to configure nginx reverse proxy",
]


def needs_approval(args: dict, ctx) -> bool:
    """Always: the query leaves the machine, and it may carry what a file said (a key from .env)."""
    return True


def preview(args: dict, ctx) -> str:
    """Where the query goes, and the query itself."""
    return f"send this search query to {_endpoint(ctx)}:\n{args.get('query', '')}"


def _endpoint(ctx) -> str:
    url = (ctx.config.get("web_search_url") or "").strip()
    return http.origin(url) if url else http.origin(DUCKDUCKGO)


def run(args: dict, ctx) -> str:
    """Query the configured backend and list the results."""
    query = args["query"].strip()
    if not query:
        raise ToolError("the query is empty; say what to search for")
    limit = max(1, min(25, int(args.get("max_results") or 8)))
    url = (ctx.config.get("web_search_url") or "").strip()
    backend = (ctx.config.get("web_search_backend") or ("searxng" if url else "duckduckgo")).lower()
    if backend == "searxng":
        if not url:
            raise ToolError("web_search_backend is searxng but web_search_url is not set; set it to your instance")
        results = _searxng(url, query)
    else:
        results = _duckduckgo(url or DUCKDUCKGO, query)
    if not results:
        hint = "" if backend == "searxng" else " (DuckDuckGo may be limiting requests; set web_search_url to a SearXNG instance)"
        return f"no results for {query!r}{hint}"
    lines = []
    for number, (title, link, snippet) in enumerate(results[:limit], 1):
        lines.append(f"{number}. {title or link}\n   {link}" + (f"\n   {snippet}" if snippet else ""))
    return "\n".join(lines)


def _searxng(base: str, query: str) -> list[tuple[str, str, str]]:
    """Results from a SearXNG instance's JSON API."""
    endpoint = base.rstrip("/") if base.rstrip("/").endswith("/search") else base.rstrip("/") + "/search"
    response = http.fetch(f"{endpoint}?{urllib.parse.urlencode({'q': query, 'format': 'json'})}",
                          headers={"Accept": "application/json"}, timeout=20)
    if response.status == 403:
        raise ToolError("the SearXNG instance refused format=json; enable json in search.formats of its settings.yml")
    if response.status >= 400:
        raise ToolError(f"HTTP {response.status} {response.reason} from the search server {endpoint}")
    try:
        data = json.loads(response.text())
    except json.JSONDecodeError:
        raise ToolError(f"{endpoint} did not answer with JSON; is web_search_url a SearXNG instance?") from None
    return [(_clean(r.get("title")), str(r.get("url") or ""), _clean(r.get("content")))
            for r in data.get("results", []) if isinstance(r, dict) and r.get("url")]


def _duckduckgo(endpoint: str, query: str) -> list[tuple[str, str, str]]:
    """Results scraped from DuckDuckGo's HTML-only page."""
    response = http.fetch(endpoint, method="POST", data=urllib.parse.urlencode({"q": query}).encode(),
                          headers={"Content-Type": "application/x-www-form-urlencoded"}, timeout=20)
    if response.status >= 400:
        raise ToolError(f"HTTP {response.status} {response.reason} from DuckDuckGo; try again later or set web_search_url")
    parser = _DuckParser()
    parser.feed(response.text())
    return [(_clean(t), _unwrap(link), _clean(s)) for t, link, s in parser.results if "/y.js" not in link]


class _DuckParser(HTMLParser):
    """Collect (title, href, snippet) from result__a and result__snippet elements."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.results: list[list[str]] = []
        self.field: str | None = None
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if self.field:
            self.depth += tag not in ("br", "img", "wbr")
            if tag == "br":
                self.handle_data(" ")
        elif "result__a" in classes:
            self.results.append(["", dict(attrs).get("href") or "", ""])
            self.field, self.depth = "title", 1
        elif "result__snippet" in classes and self.results:
            self.field, self.depth = "snippet", 1

    def handle_endtag(self, tag):
        if self.field:
            self.depth -= 1
            if self.depth <= 0:
                self.field = None

    def handle_data(self, data):
        if self.field == "title":
            self.results[-1][0] += data
        elif self.field == "snippet":
            self.results[-1][2] += data


def _unwrap(link: str) -> str:
    """DuckDuckGo wraps result links as /l/?uddg=<target>; return the target."""
    parts = urllib.parse.urlsplit(link)
    target = urllib.parse.parse_qs(parts.query).get("uddg")
    if target:
        return target[0]
    return "https:" + link if link.startswith("//") else link


def _clean(text) -> str:
    return " ".join(str(text or "").split())
