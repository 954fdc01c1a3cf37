"""The models a server lists, and finding a local server, against real loopback servers."""

import http.server
import socket
import threading

from ankit.providers.models import LocalServer, list_models, probe


def dead_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def test_openai_compatible_and_anthropic_listings(provider_server):
    provider_server.models = ["zeta", "alpha"]
    assert list_models(provider_server.settings("openai")) == ["alpha", "zeta"]
    assert provider_server.model_requests[0].path == "/v1/models"
    assert provider_server.model_requests[0].headers["authorization"].startswith("Bearer sk-test")
    assert list_models(provider_server.settings("anthropic")) == ["alpha", "zeta"]
    anthropic = provider_server.model_requests[1]
    assert anthropic.path == "/v1/models?limit=1000" and anthropic.headers["anthropic-version"] == "2023-06-01"
    assert "x-api-key" in anthropic.headers and "authorization" not in anthropic.headers


def test_no_listing_is_none(provider_server):
    assert list_models(provider_server.settings("openai")) is None  # 404
    assert list_models(provider_server.settings("openai", base_url=dead_url())) is None


def test_a_listing_that_redirects_elsewhere_is_not_followed_and_the_key_stays(provider_server):
    provider_server.models = ["stolen"]  # the other address: it must never see the key

    class Elsewhere(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(302)
            self.send_header("Location", provider_server.url + "/v1/models")
            self.end_headers()

        def log_message(self, *args):
            pass

    redirecting = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Elsewhere)
    threading.Thread(target=redirecting.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{redirecting.server_address[1]}/v1"
        assert list_models(provider_server.settings("openai", base_url=url)) is None
        assert provider_server.model_requests == []
    finally:
        redirecting.shutdown()
        redirecting.server_close()


def test_probe_takes_the_first_server_in_order_that_answers(provider_server):
    provider_server.models = ["qwen3:8b"]
    servers = (LocalServer("Nothing", "local", dead_url()), LocalServer("Ours", "local", provider_server.url + "/v1"))
    server, models = probe(servers)
    assert server.name == "Ours" and models == ["qwen3:8b"]
    assert probe(servers[:1]) is None


def test_probing_where_nothing_listens_loads_no_http_stack(tmp_path):
    import subprocess
    import sys
    from pathlib import Path
    code = ("import sys\nfrom ankit.providers.models import LocalServer, probe\n"
            f"assert probe((LocalServer('Nothing', 'local', {dead_url()!r}),)) is None\n"
            "print(sorted({'ssl', 'http.client', 'urllib.request'} & set(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={"PYTHONPATH": str(Path(__file__).resolve().parents[1]), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr
