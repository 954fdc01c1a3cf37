"""Security: data that leaves the machine. Tools that send data out ask first (refused in -p without --yes),
approval is per origin, every redirect is checked again, and compressed bodies are capped after decoding
(real servers on 127.0.0.1, the real tools, `ankit -p` against the loopback model server)."""

import gzip
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ankit.records import ToolCall
from ankit.tooling.toolbox import ToolContext, run_call
from tests.test_approval import BY_NAME
from tests.test_oneshot import ankit

BOMB = gzip.compress(b"\0" * 20_000_000)  # 20 kB on the wire, 20 MB decoded


class Site:
    """A web server on 127.0.0.1 that records what reached it; /go/URL redirects to URL, /bomb is gzip."""

    def __init__(self):
        self.hits: list[str] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                site.hits.append(self.path)
                if self.path.startswith("/go/"):
                    self.send_response(302)
                    self.send_header("Location", self.path[4:])
                    self.end_headers()
                    return
                body, extra = (BOMB, [("Content-Encoding", "gzip")]) if self.path == "/bomb" else (b"hello", [])
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                for name, value in extra:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_GET

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def sites():
    made = [Site(), Site()]
    yield made
    for site in made:
        site.close()


def fetch(url: str, ctx: ToolContext, approve, **extra):
    args = json.dumps({"url": url, **extra})
    return run_call(ToolCall("c1", "web_fetch", args), BY_NAME["web_fetch"], ctx, approve)


def test_web_search_asks_first_and_is_refused_in_p_without_yes(provider_server, sites, tmp_path):
    folder = tmp_path / "config" / "ankit"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text(f'web_search_url = "{sites[0].url}"\n')
    query = json.dumps({"query": "OPENAI_API_KEY=sk-from-the-dotenv-file"})
    provider_server.push_openai(tool_calls=[("c1", "web_search", query)])
    provider_server.push_openai(text="could not search")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "look it up")
    assert done.returncode == 0, done.stderr
    assert sites[0].hits == [] and "web_search needs approval; refused" in done.stderr
    assert "declined" in provider_server.requests[1].json["messages"][-1]["content"]


def test_web_approval_is_per_origin_not_per_host(sites):
    ctx, asked = ToolContext(cwd=Path.cwd()), []
    approve = lambda tool, args, preview: asked.append(args["url"]) or True  # noqa: E731
    assert not fetch(sites[0].url + "/a", ctx, approve).is_error
    assert not fetch(sites[0].url + "/b", ctx, approve).is_error  # same origin: not asked again
    assert not fetch(sites[1].url + "/c", ctx, approve).is_error  # same host, another port: asked
    assert asked == [sites[0].url + "/a", sites[1].url + "/c"]


def test_a_redirect_to_an_origin_not_approved_is_not_followed(sites):
    ctx = ToolContext(cwd=Path.cwd())
    result = fetch(f"{sites[0].url}/go/{sites[1].url}/leak?id=abc", ctx, lambda *a: True)
    assert result.is_error and f"redirected to {sites[1].url}/leak?id=abc" in result.content
    assert sites[1].hits == []


def test_a_gzip_bomb_is_cut_at_the_decoded_cap(sites):
    ctx = ToolContext(cwd=Path.cwd(), config={"web_max_bytes": 100_000})
    result = fetch(sites[0].url + "/bomb", ctx, lambda *a: True, raw=True)
    assert not result.is_error and "stopped at the size or time limit" in result.content
    assert "100000 bytes" in result.content or len(result.content) < 200_000


def test_a_look_alike_host_is_named_in_ascii_and_a_request_body_is_shown_whole():
    """gооgle.com (Cyrillic o's) is another origin, said so in the approval; a body is never cut before it leaves."""
    ctx = ToolContext(cwd=Path("."))
    spoof = "https://g\u043e\u043egle.com/search"
    shown = BY_NAME["web_fetch"].preview({"url": spoof}, ctx)
    assert "NOTE: the host g\u043e\u043egle.com is written with letters beyond ASCII (xn--ggle-55da.com)" in shown
    assert "https://xn--ggle-55da.com:443" in shown and BY_NAME["web_fetch"].preview({"url": "https://google.com"}, ctx) \
        .startswith("GET https://google.com")
    body = {"q": "x" * 5000 + " and the secret at the end"}
    shown = BY_NAME["http_request"].preview({"url": "https://api.example.com/", "method": "POST", "json": body}, ctx)
    assert "the secret at the end" in shown
