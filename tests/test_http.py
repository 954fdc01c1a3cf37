"""The shared HTTP layer against the loopback server: retries, one-line errors, idle timeouts, no key leaks."""

import json
import socket

import pytest

from ankit.errors import ProviderError, StreamError
from ankit.providers import http
from conftest import TEST_KEY, fixture_parts


def post(server, kind="openai", **changes):
    settings = server.settings(kind, **changes)
    return http.post_stream(settings, settings.base_url + "/chat/completions", {"model": "m"}, {"x-test": "1"})


def failure(server, kind="openai", **changes) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        post(server, kind, **changes)
    assert "\n" not in str(caught.value) and TEST_KEY not in str(caught.value)
    return caught.value


def test_posts_json_with_our_headers(provider_server):
    provider_server.push("openai_text.sse")
    response = post(provider_server, headers={"x-extra": "yes"})
    assert response.status == 200
    response.close()
    request = provider_server.requests[0]
    assert request.method == "POST" and request.path == "/v1/chat/completions"
    assert request.json == {"model": "m"}
    assert request.headers["content-type"] == "application/json"
    assert request.headers["user-agent"].startswith("ankit/")
    assert request.headers["x-test"] == "1" and request.headers["x-extra"] == "yes"


def test_429_with_retry_after_is_retried(provider_server):
    provider_server.push("openai_429.http")
    provider_server.push("openai_text.sse")
    post(provider_server).close()
    assert len(provider_server.requests) == 2 and provider_server.pending == 0


def test_500_then_success_backs_off_and_retries(provider_server):
    provider_server.push("openai_500.http")
    provider_server.push("openai_text.sse")
    post(provider_server).close()
    assert len(provider_server.requests) == 2


@pytest.mark.parametrize("status", [408, 409, 502, 503, 529])
def test_retryable_statuses(provider_server, status):
    provider_server.push({"error": {"message": "busy"}}, status=status, headers={"retry-after-ms": "1"})
    provider_server.push("openai_text.sse")
    post(provider_server).close()
    assert len(provider_server.requests) == 2


def test_retries_stop_after_the_configured_count(provider_server):
    for _ in range(3):
        provider_server.push("anthropic_529.http", headers={"retry-after": "0"})
    error = failure(provider_server, "anthropic", retries=2)
    assert len(provider_server.requests) == 3
    assert error.status == 529 and error.retryable
    assert str(error) == "529 from anthropic: the provider is overloaded; try again in a moment (Overloaded)"


def test_no_retries_when_set_to_zero(provider_server):
    provider_server.push("anthropic_429.http")
    error = failure(provider_server, "anthropic", retries=0)
    assert len(provider_server.requests) == 1 and error.status == 429
    assert str(error).startswith("429 from anthropic: rate limited; wait a moment and try again (This request")


def test_a_long_retry_after_is_not_waited_for(provider_server):
    provider_server.push({"error": {"message": "slow down"}}, status=429, headers={"Retry-After": "3600"})
    error = failure(provider_server)
    assert len(provider_server.requests) == 1 and error.status == 429
    assert str(error) == "429 from openai: rate limited; wait a moment and try again (slow down); the server asks to wait 3600 s"


def test_retry_after_as_a_past_http_date(provider_server):
    provider_server.push({"error": {"message": "later"}}, status=503, headers={"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"})
    provider_server.push("openai_text.sse")
    post(provider_server).close()
    assert len(provider_server.requests) == 2


def test_quota_exhausted_is_not_retried(provider_server):
    provider_server.push("openai_429_quota.http")
    error = failure(provider_server)
    assert len(provider_server.requests) == 1 and not error.retryable
    assert str(error).startswith("429 from openai: the account's quota is used up: check the plan and billing")


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_401_names_the_key_variable_and_is_not_retried(provider_server, kind):
    provider_server.push(f"{kind}_401.http")
    error = failure(provider_server, kind)
    assert len(provider_server.requests) == 1 and error.status == 401 and not error.retryable
    env = "ANTHROPIC_API_KEY" if kind == "anthropic" else "OPENAI_API_KEY"
    assert str(error) == f"401 from {kind}: check {env}"


def test_401_without_a_key_says_to_set_one(provider_server):
    provider_server.push("openai_401.http")
    error = failure(provider_server, preset="local", api_key="", key_env="ANKIT_API_KEY")
    assert str(error) == "401 from local: the server wants an API key: set ANKIT_API_KEY"


def test_403_is_not_retried(provider_server):
    provider_server.push({"error": {"message": "forbidden"}}, status=403)
    error = failure(provider_server)
    assert len(provider_server.requests) == 1
    assert str(error) == "403 from openai: check OPENAI_API_KEY and that it may use the model test-model (forbidden)"


def test_404_names_the_model_and_the_base_url(provider_server):
    provider_server.push("openai_404.http")
    error = failure(provider_server, model="gpt-x")
    assert len(provider_server.requests) == 1
    assert str(error) == f"404 from openai: check the model name (gpt-x) and the base URL ({provider_server.url}/v1)"


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_400_carries_the_providers_own_message(provider_server, kind):
    provider_server.push(f"{kind}_400.http")
    error = failure(provider_server, kind)
    assert len(provider_server.requests) == 1 and error.status == 400
    expected = {"openai": "400 from openai: Invalid type for 'messages[2].content': expected one of a string",
                "anthropic": "400 from anthropic: messages.1.content.0.text: text content blocks must be non-empty"}
    assert str(error).startswith(expected[kind])


def test_a_long_multiline_error_becomes_one_short_line_without_the_key(provider_server):
    message = f"bad key {TEST_KEY} was sent\n" + "x" * 5000
    provider_server.push({"error": {"message": message}}, status=400)
    error = failure(provider_server)
    assert len(str(error)) < 400 and "[redacted]" in str(error) and TEST_KEY not in str(error)


def test_a_plain_text_error_body(provider_server):
    provider_server.push(b"upstream exploded\n", status=422, headers={"Content-Type": "text/plain"})
    assert str(failure(provider_server)) == "422 from openai: upstream exploded"


def test_the_key_is_not_in_the_settings_repr(provider_server):
    assert TEST_KEY not in repr(provider_server.settings())


def test_extra_headers_are_sent_but_not_in_the_settings_repr(provider_server):
    provider_server.push("openai_text.sse")
    post(provider_server, headers={"authorization": "Bearer proxy-SECRET-42"}).close()
    assert provider_server.requests[0].headers["authorization"] == "Bearer proxy-SECRET-42"
    assert "proxy-SECRET-42" not in repr(provider_server.settings(headers={"authorization": "Bearer proxy-SECRET-42"}))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_connection_refused_says_what_to_check(provider_server):
    base = f"http://127.0.0.1:{free_port()}/v1"
    error = failure(provider_server, base_url=base, retries=0)
    assert str(error) == f"cannot reach {base}: is the server running? (check --base-url)"
    assert error.retryable


def test_connection_refused_is_retried(provider_server):
    base = f"http://127.0.0.1:{free_port()}/v1"
    settings = provider_server.settings(base_url=base, retries=1)
    with pytest.raises(ProviderError, match="cannot reach"):
        http.post_stream(settings, base + "/chat/completions", {}, {})


def test_a_connection_dropped_before_any_answer_is_retried(provider_server):
    provider_server.push(status=0)
    provider_server.push("openai_text.sse")
    post(provider_server).close()
    assert len(provider_server.requests) == 2 and provider_server.pending == 0


def test_a_connection_dropped_every_time_says_so_in_one_line(provider_server):
    for _ in range(2):
        provider_server.push(status=0)
    error = failure(provider_server, retries=1)
    assert len(provider_server.requests) == 2 and error.retryable
    assert str(error) == (f"{provider_server.url}/v1 dropped the connection before answering "
                          "(Remote end closed connection without response); try again")


def test_text_that_is_not_valid_unicode_is_sent_replaced(provider_server):
    # os.listdir gives a file name that is not UTF-8 as lone surrogates; the request must still go out
    provider_server.push("openai_text.sse")
    settings = provider_server.settings()
    http.post_stream(settings, settings.base_url + "/chat/completions", {"content": "caf\udce9.txt"}, {}).close()
    assert provider_server.requests[0].json == {"content": "caf?.txt"}


def test_a_base_url_without_a_scheme(provider_server):
    error = failure(provider_server, base_url="localhost:8080/v1")
    assert str(error) == "the base URL 'localhost:8080/v1' must start with http:// or https:// (check --base-url)"


def test_a_web_page_instead_of_the_api(provider_server):
    provider_server.push(b"<html>hello</html>", headers={"Content-Type": "text/html"})
    error = failure(provider_server)
    assert "answered with a web page, not the API: check --base-url" in str(error)


def test_a_stalled_stream_is_aborted_after_the_idle_time(provider_server):
    provider_server.push(fixture_parts("openai_text.sse")[:2] + ["stall"])
    settings = provider_server.settings(idle_timeout=1.0)  # the events before the stall get 1 s
    response = http.post_stream(settings, settings.base_url + "/chat/completions", {}, {})
    seen = []
    with pytest.raises(StreamError) as caught:
        for event in http.stream_events(settings, response):
            seen.append(json.loads(event.data))
    assert len(seen) == 2
    assert str(caught.value).startswith("openai sent nothing for 1 s, so the reply was aborted")


def test_silence_before_the_answer_is_an_idle_timeout_too(provider_server):
    silent = provider_server.gate()  # set only after the client gave up: the server never answers in time
    provider_server.push("openai_text.sse", delay=silent)
    with pytest.raises(StreamError, match="sent nothing for 0.2 s"):
        post(provider_server, idle_timeout=0.2)
    silent.set()
    assert len(provider_server.requests) == 1  # not retried: it already waited


@pytest.mark.parametrize("how", ["cut", "reset"])
def test_a_cut_connection_just_ends_the_events(provider_server, how):
    provider_server.push(fixture_parts("openai_text.sse")[:3] + [how])
    settings = provider_server.settings()
    response = http.post_stream(settings, settings.base_url + "/chat/completions", {}, {})
    assert len(list(http.stream_events(settings, response))) == 3


def test_a_loopback_server_is_reached_past_a_proxy_setting(provider_server, monkeypatch):
    # the environment is the user's, not the code under test: a proxy that does not exist must be bypassed
    monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{free_port()}")
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{free_port()}")
    provider_server.push("openai_text.sse")
    post(provider_server, retries=0).close()
    assert len(provider_server.requests) == 1


def test_a_field_of_the_wrong_type_is_the_servers_one_line_but_a_parser_bug_stays_a_bug(provider_server):
    from ankit.providers.base import ShapeError

    def odd(settings, events):
        raise ShapeError("choices is str")
        yield

    def buggy(settings, events):
        raise AttributeError("'NoneType' object has no attribute 'get'")  # a mistake in a parser
        yield

    provider_server.push(b"data: {}\n\n")
    settings = provider_server.settings("openai")
    with pytest.raises(StreamError, match=r"^openai sent a reply ankit cannot read \(choices is str\); check"):
        list(http.read_reply(settings, post(provider_server), odd, None))
    provider_server.push(b"data: {}\n\n")
    with pytest.raises(AttributeError):
        list(http.read_reply(settings, post(provider_server), buggy, None))
