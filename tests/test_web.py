"""The one HTTP function (safety/web.py) against real loopback servers: redirects carry no credentials, the
loopback rule, bounded bodies."""

import time
import urllib.error

import pytest

from ankit.safety import web
from tests.conftest import ProviderServer
from tests.test_http import free_port


@pytest.mark.parametrize("url, local", [("http://127.0.0.1:8080/v1", True), ("http://127.1.2.3/", True),
                                        ("http://localhost:11434/v1", True), ("http://[::1]:8000/", True),
                                        ("http://localhost.example.com/", False), ("http://127.0.0.1.nip.io/", False),
                                        ("https://api.openai.com/v1", False), ("not a url", False)])
def test_the_loopback_rule(url, local):
    assert web.loopback(url) is local


def test_a_redirect_is_not_followed_and_the_key_goes_nowhere_else(provider_server):
    elsewhere = ProviderServer()
    try:
        provider_server.push(b"", status=302, headers={"Location": elsewhere.url + "/steal"})
        with pytest.raises(urllib.error.HTTPError) as caught:
            web.send(provider_server.url + "/v1/x", b"{}", {"Authorization": "Bearer sk-secret"}, "POST")
        assert caught.value.code == 302 and caught.value.headers["Location"] == elsewhere.url + "/steal"
        assert provider_server.requests[0].headers["authorization"] == "Bearer sk-secret"
        assert elsewhere.requests == []
    finally:
        elsewhere.close()


def test_same_origin_follows_a_307_as_the_same_request_and_nothing_else(provider_server):
    provider_server.push(b"", status=307, headers={"Location": "/mcp/"})
    provider_server.push({"ok": True})
    with web.send(provider_server.url + "/mcp", b'{"a": 1}', {"Authorization": "Bearer t"}, "POST",
                  same_origin=True) as answer:
        assert answer.status == 200
    first, second = provider_server.requests
    assert second.path == "/mcp/" and second.body == b'{"a": 1}' and second.headers["authorization"] == "Bearer t"
    elsewhere = f"http://127.0.0.1:{free_port()}/mcp"
    provider_server.push(b"", status=307, headers={"Location": elsewhere})
    with pytest.raises(urllib.error.HTTPError):
        web.send(provider_server.url + "/mcp", b"{}", {}, "POST", same_origin=True)


def test_a_loopback_address_is_never_behind_the_proxy(provider_server, monkeypatch):
    # the environment is the user's, not the code under test: a proxy that does not exist must be bypassed
    monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{free_port()}")
    provider_server.push({"ok": True})
    with web.send(provider_server.url + "/v1/x", b"{}", method="POST") as answer:
        assert web.read(answer, 1000) == (b'{"ok": true}', False)


def test_a_body_is_read_to_its_cap_and_said_to_be_cut(provider_server):
    provider_server.push(b"x" * 5000, status=201)
    with web.send(provider_server.url + "/v1/x", b"{}", method="POST") as answer:
        body, cut = web.read(answer, 1000, time.monotonic() + 10)
    assert body == b"x" * 1000 and cut


def test_credentials_are_dropped_for_another_origin():
    headers = {"Authorization": "a", "cookie": "c", "Proxy-Authorization": "p", "Accept": "text/html"}
    assert web.without_credentials(headers) == {"Accept": "text/html"}
    assert web.origin("https://example.com/x") == web.origin("https://EXAMPLE.com:443/y")
    assert web.origin("http://example.com/") != web.origin("https://example.com/")
