"""web_fetch and web_search against a real loopback HTTP server."""

import gzip
import json
import socket
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ankit.records import ToolCall
from ankit.tooling.toolbox import ToolContext, run_call
from tests.helpers import bundled, call, ok

BY_NAME = bundled()[0]
ANSWER_SLOW = threading.Event()  # /slow answers only once the test has seen the client give up


def configured(config: dict) -> ToolContext:
    """A context in the current folder with these config keys."""
    return ToolContext(cwd=Path.cwd(), config=config)


PAGE = "<html><head><title>Caf\u00e9 page</title></head><body><h1>Menu</h1><p>Caf\u00e9 cr\u00e8me \u20ac3</p><a href='/next'>next</a></body></html>"
DDG_PAGE = """<html><body>
<div class="result results_links"><h2 class="result__title">
<a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fdocs.python.org%2F3%2Flibrary%2Fasyncio.html&amp;rut=abc">asyncio &mdash; <b>Asynchronous</b> I/O</a></h2>
<a class="result__snippet" href="x">asyncio is a library to write <b>concurrent</b> code<br>using async/await.</a></div>
<div class="result result--ad"><a class="result__a" href="https://duckduckgo.com/y.js?ad_provider=x">Ad</a></div>
<div class="result"><a class="result__a" href="https://realpython.com/async-io-python/">Async IO in Python</a>
<div class="result__snippet">A complete walkthrough.</div></div>
</body></html>"""


class Handler(BaseHTTPRequestHandler):
    seen: list[str] = []

    def log_message(self, *args):
        pass

    def send(self, status: int, body: bytes, content_type: str = "text/html", headers: dict | None = None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # a client that stops reading at its cap (the huge page) closes early, as the tests want

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        Handler.seen.append(self.path + " " + self.rfile.read(length).decode())
        self.send(200, DDG_PAGE.encode(), "text/html; charset=utf-8")

    def do_GET(self):
        path, _, query = self.path.partition("?")
        Handler.seen.append(self.path)
        routes = {
            "/utf8": lambda: self.send(200, PAGE.encode(), "text/html; charset=utf-8"),
            "/latin1": lambda: self.send(200, PAGE.replace("\u20ac", "EUR").encode("latin-1"), "text/html; charset=ISO-8859-1"),
            "/meta": lambda: self.send(200, ('<meta charset="shift_jis"><p>\u65e5\u672c\u8a9e</p>').encode("shift_jis"), "text/html"),
            "/http-equiv": lambda: self.send(200, ('<meta http-equiv="Content-Type" content="text/html; charset=windows-1251"><p>\u041f\u0440\u0438\u0432\u0435\u0442</p>').encode("cp1251"), "text/html"),
            "/bogus-charset": lambda: self.send(200, "<p>plain \u00fc</p>".encode(), "text/html; charset=no-such-thing"),
            "/redirect": lambda: self.send(302, b"", headers={"Location": "/hop"}),
            "/hop": lambda: self.send(301, b"", headers={"Location": "/utf8"}),
            "/loop": lambda: self.send(302, b"", headers={"Location": "/loop"}),
            "/to-file": lambda: self.send(302, b"", headers={"Location": "file:///etc/passwd"}),
            "/missing": lambda: self.send(404, b"<h1>Not here</h1>"),
            "/huge": lambda: self.send(200, b"<p>" + b"word " * 1_000_000 + b"</p>"),
            "/long": lambda: self.send(200, ("".join(f"line {n}\n" for n in range(20000))).encode(), "text/plain"),
            "/json": lambda: self.send(200, b'{"ok": true}', "application/json"),
            "/png": lambda: self.send(200, b"\x89PNG\r\n\x1a\n" + bytes(100), "image/png"),
            "/gzip": lambda: self.send(200, gzip.compress(PAGE.encode()), "text/html; charset=utf-8", {"Content-Encoding": "gzip"}),
            "/slow": self.slow,
            "/searx/search": lambda: self.searx(query),
            "/searx403/search": lambda: self.send(403, b"forbidden"),
        }
        routes.get(path, lambda: self.send(404, b"no route"))()

    def slow(self):
        ANSWER_SLOW.wait(30)
        self.send(200, b"late")  # the client gave up long ago, as the test wants

    def searx(self, query: str):
        params = urllib.parse.parse_qs(query)
        results = [{"title": f"Result {n} for {params['q'][0]}", "url": f"https://example.org/{n}",
                    "content": f"snippet {n}", "engine": "fake"} for n in range(1, 13)]
        body = {"query": params["q"][0], "number_of_results": 12, "results": results, "answers": [], "suggestions": []}
        self.send(200, json.dumps(body).encode(), "application/json" if params.get("format") == ["json"] else "text/html")


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_fetch_turns_html_into_readable_text(server):
    out = ok("web_fetch", {"url": f"{server}/utf8"})
    assert out.startswith(f"URL: {server}/utf8\nTitle: Caf\u00e9 page\nContent-Type: text/html")
    assert "# Menu" in out and "Caf\u00e9 cr\u00e8me \u20ac3" in out and f"[next]({server}/next)" in out
    assert "<p>" in ok("web_fetch", {"url": f"{server}/utf8", "raw": True})


@pytest.mark.parametrize("path, expected", [
    ("/latin1", "Caf\u00e9 cr\u00e8me EUR3"),
    ("/meta", "\u65e5\u672c\u8a9e"),
    ("/http-equiv", "\u041f\u0440\u0438\u0432\u0435\u0442"),
    ("/bogus-charset", "plain \u00fc"),
    ("/gzip", "Caf\u00e9 cr\u00e8me \u20ac3"),
])
def test_fetch_decodes_odd_charsets(server, path, expected):
    assert expected in ok("web_fetch", {"url": server + path})


def test_fetch_follows_redirects_and_reports_the_final_url(server):
    out = ok("web_fetch", {"url": f"{server}/redirect"})
    assert out.startswith(f"URL: {server}/utf8\n(redirected from {server}/redirect)")


def test_fetch_bounds_redirects_and_refuses_other_schemes(server):
    loop = call("web_fetch", {"url": f"{server}/loop"})
    assert loop.is_error and "redirects" in loop.content
    to_file = call("web_fetch", {"url": f"{server}/to-file"})
    assert to_file.is_error and "only http and https" in to_file.content
    for url in ("file:///etc/passwd", "ftp://example.com/x", "javascript:alert(1)"):
        refused = call("web_fetch", {"url": url})
        assert refused.is_error and "only http and https" in refused.content


def test_fetch_404_is_an_error_with_the_status(server):
    result = call("web_fetch", {"url": f"{server}/missing"})
    assert result.is_error and "HTTP 404" in result.content and "Not here" in result.content


def test_fetch_huge_page_is_capped_and_pageable(server):
    out = ok("web_fetch", {"url": f"{server}/huge"}, configured({"web_max_bytes": 1_000_000}))
    assert "stopped at the size or time limit" in out and "continue with start=30000" in out
    assert len(out) < 31_000
    assert "continue with start=60000" in ok("web_fetch", {"url": f"{server}/long", "max_chars": 100_000})
    text = ok("web_fetch", {"url": f"{server}/long", "start": 30000, "max_chars": 1000})
    assert "[text cut at character 31000" in text


def test_fetch_slow_page_times_out(server):
    try:
        result = call("web_fetch", {"url": f"{server}/slow", "timeout": 1})
    finally:
        ANSWER_SLOW.set()
    assert result.is_error and "within 1 s" in result.content


def test_fetch_text_json_and_binary(server):
    assert '{"ok": true}' in ok("web_fetch", {"url": f"{server}/json"})
    assert "binary content" in ok("web_fetch", {"url": f"{server}/png"})


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_fetch_unreachable_host_is_one_line():
    result = call("web_fetch", {"url": closed_port_url() + "/x"})
    assert result.is_error and "could not reach" in result.content and "\n" not in result.content


def test_search_with_searxng_json(server):
    Handler.seen.clear()
    out = ok("web_search", {"query": "tea & cake", "max_results": 3}, configured({"web_search_url": f"{server}/searx"}))
    assert out.splitlines() == [
        "1. Result 1 for tea & cake", "   https://example.org/1", "   snippet 1",
        "2. Result 2 for tea & cake", "   https://example.org/2", "   snippet 2",
        "3. Result 3 for tea & cake", "   https://example.org/3", "   snippet 3",
    ]
    assert "format=json" in Handler.seen[-1] and "q=tea+%26+cake" in Handler.seen[-1]


def test_search_searxng_without_json_enabled(server):
    result = call("web_search", {"query": "x"}, configured({"web_search_url": f"{server}/searx403"}))
    assert result.is_error and "search.formats" in result.content


def test_search_duckduckgo_html(server):
    config = {"web_search_backend": "duckduckgo", "web_search_url": f"{server}/ddg/"}
    out = ok("web_search", {"query": "python asyncio"}, configured(config))
    assert out.splitlines() == [
        "1. asyncio \u2014 Asynchronous I/O", "   https://docs.python.org/3/library/asyncio.html",
        "   asyncio is a library to write concurrent code using async/await.",
        "2. Async IO in Python", "   https://realpython.com/async-io-python/", "   A complete walkthrough.",
    ]
    assert Handler.seen[-1] == "/ddg/ q=python+asyncio"


def test_search_offline_says_so():
    result = call("web_search", {"query": "anything"}, configured({"web_search_url": closed_port_url()}))
    assert result.is_error and "could not reach" in result.content and "offline" in result.content


def test_fetch_asks_once_per_origin_and_session(server):
    ctx = ToolContext(cwd=Path.cwd())
    asked = []

    def approve(tool, args, preview):
        asked.append(preview)
        return True

    for url in (f"{server}/utf8", f"{server}/latin1", server.replace("127.0.0.1", "localhost") + "/utf8"):
        assert not run_call(ToolCall("c", "web_fetch", json.dumps({"url": url})), BY_NAME["web_fetch"], ctx, approve).is_error
    assert len(asked) == 2  # 127.0.0.1 once, then localhost
    assert asked[0].startswith(f"GET {server}/utf8\n(approving lets ankit fetch from http://127.0.0.1:")
    denied = run_call(ToolCall("c", "web_fetch", json.dumps({"url": "https://example.invalid/?secret=1"})),
                      BY_NAME["web_fetch"], ctx, lambda *a: False)
    assert denied.is_error and "declined" in denied.content
