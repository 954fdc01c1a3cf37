"""The shared HTTP layer: POST JSON over urllib, retry what is worth retrying, one-line errors, idle timeouts."""

import functools
import json
import random
import time
import urllib.error
import urllib.parse
from collections.abc import Iterator

from ankit import __version__
from ankit.errors import ProviderError, StreamError
from ankit.providers import compat
from ankit.providers.base import ProviderSettings, ShapeError
from ankit.providers.sse import LINE_CAP, LineTooLong, ServerEvent, read_events
from ankit.records import Event
from ankit.safety import text as boundary, web
from ankit.safety.scrub import Scrubber, mask_url

# http.client, urllib.request and email load ssl and the email package: they are imported on the first
# request (safety/web.py, _client and _retry_after), so starting ankit never waits for them. The request itself
# goes through web.send: no redirect followed (the key would go along), a local server never behind a proxy.

RETRY_STATUSES = frozenset({408, 409, 429, 529})
BACKOFF_FIRST = 0.5  # seconds before the first retry without Retry-After; doubles each time
BACKOFF_MAX = 8.0
RETRY_AFTER_MAX = 60.0  # a server asking for a longer wait is not waited for: the user hears about it at once
MESSAGE_MAX = 300
OVERFLOW_LINE = 196  # an overflow says its fix in under 200 characters
BODY_CAP = 64 * 1024 * 1024  # bytes of a whole (not streamed) answer
ERROR_CAP = 1024 * 1024  # bytes of an error body read for its message


@functools.cache
def _client():
    """http.client, imported with the first request."""
    import http.client
    return http.client


def post_stream(settings: ProviderSettings, url: str, body: dict, headers: dict) -> "http.client.HTTPResponse":
    """POST body as JSON and return the open 2xx response, retrying failures worth retrying."""
    client = _client()
    # a file name that is not UTF-8 reaches text as lone surrogates: they go as "?" rather than fail the round
    data = json.dumps(body, ensure_ascii=False).encode("utf-8", errors="replace")
    all_headers = {"content-type": "application/json", "accept": "text/event-stream",
                   "user-agent": f"ankit/{__version__}", **headers, **settings.headers}
    if not url.startswith(("http://", "https://")):
        raise ProviderError(f"the base URL {mask_url(settings.base_url)!r} must start with http:// or https:// (check --base-url)")
    attempt = 0
    while True:
        try:
            return _checked(settings, web.send(url, data, all_headers, "POST", settings.connect_timeout,
                                               settings.idle_timeout))
        except urllib.error.HTTPError as exc:
            if 300 <= exc.code < 400:  # never followed: the key would go along to wherever it points
                exc.close()
                raise _redirected(settings, url, exc) from None
            error, wait = _http_failure(settings, exc), _retry_after(exc.headers)
            exc.close()
        except urllib.error.URLError as exc:
            error, wait = _connection_failure(settings, url, exc.reason), None
        except TimeoutError:  # connected, but no answer came within the idle time
            raise idle_error(settings) from None
        except (OSError, client.HTTPException) as exc:  # dropped before any answer
            error, wait = _connection_failure(settings, url, exc), None
        if error.retryable and (wait or 0) > RETRY_AFTER_MAX:
            raise ProviderError(f"{error}; the server asks to wait {wait:.0f} s", error.status, True) from None
        if not error.retryable or attempt >= settings.retries:
            raise error from None
        time.sleep(wait if wait is not None else _backoff(attempt))
        attempt += 1


def _redirected(settings: ProviderSettings, url: str, exc: urllib.error.HTTPError) -> ProviderError:
    """The error for a redirect: where it pointed, masked, and what to check."""
    target = urllib.parse.urljoin(url, (exc.headers or {}).get("location") or "") if exc.headers else ""
    where = mask_url(target) if target else "another address"
    return ProviderError(clean(f"the server redirected to {where} ({exc.code}); the request was not sent there "
                               "with your key: check --base-url", settings, MESSAGE_MAX * 2), status=exc.code)


def _checked(settings: ProviderSettings, response):
    """The response, unless it is a web page rather than an API answer."""
    if "html" in response.headers.get("content-type", ""):
        response.close()
        raise ProviderError(f"{mask_url(settings.base_url)} answered with a web page, not the API: check --base-url")
    return response


def read_reply(settings: ProviderSettings, response, read_stream, read_whole) -> Iterator[Event]:
    """A reply's events: streamed, or whole from a server that ignored stream: true; an odd shape is a StreamError."""
    try:
        if "json" in response.headers.get("content-type", ""):
            yield from read_whole(settings, read_json(settings, response))
        else:
            yield from read_stream(settings, stream_events(settings, response))
    except ShapeError as exc:  # only a field the parser found of the wrong type: a bug in ankit stays a bug
        line = f"{settings.preset} sent a reply ankit cannot read ({exc}); check --base-url"
        raise StreamError(clean(line, settings)) from None


def read_json(settings: ProviderSettings, response) -> dict:
    """The whole body of a non-streamed answer as a JSON object."""
    try:
        raw, cut = web.read(response, BODY_CAP)
    except TimeoutError:
        raise idle_error(settings) from None
    finally:
        response.close()
    if cut:
        raise StreamError(f"{settings.preset} sent an answer over {BODY_CAP // (1024 * 1024)} MB; ankit stopped "
                          "reading it (check --base-url)")
    try:
        body = boundary.loads(raw)
    except (ValueError, RecursionError):
        body = None
    if not isinstance(body, dict):
        raise StreamError(f"{settings.preset} sent an answer that is not a JSON object: check --base-url")
    return body


def stream_events(settings: ProviderSettings, response) -> Iterator[ServerEvent]:
    """Yield the response's server events; a cut connection just ends them, a silent one raises StreamError."""
    client = _client()
    try:
        yield from read_events(response)
    except LineTooLong:
        raise StreamError(f"{settings.preset} sent a stream line over {LINE_CAP // (1024 * 1024)} MB; ankit stopped "
                          "reading it (a broken or hostile server: check --base-url)") from None
    except TimeoutError:
        raise idle_error(settings) from None
    except (client.IncompleteRead, OSError):
        return  # the caller sees the stream end without its end marker and reports it
    finally:
        response.close()


def idle_error(settings: ProviderSettings) -> StreamError:
    """The error for a provider that went silent for longer than the idle timeout."""
    return StreamError(
        f"{settings.preset} sent nothing for {settings.idle_timeout:g} s, so the reply was aborted "
        "(a slow local model may need a longer idle_timeout)")


def _backoff(attempt: int) -> float:
    """Exponential backoff with full jitter in its upper half."""
    top = min(BACKOFF_MAX, BACKOFF_FIRST * 2**attempt)
    return top / 2 + random.random() * top / 2


def _retry_after(headers) -> float | None:
    """Seconds the server asked us to wait (retry-after-ms, Retry-After seconds or date), or None."""
    import email.utils
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    try:
        if millis is not None:
            return max(0.0, float(millis) / 1000)
    except ValueError:
        pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _http_failure(settings: ProviderSettings, exc: urllib.error.HTTPError) -> ProviderError:
    """Turn an HTTP error response into one line naming the provider, the status and the fix."""
    client = _client()
    status, who = exc.code, settings.preset
    try:
        raw = exc.read(ERROR_CAP)  # an error body is read only to its first bytes
    except (OSError, client.HTTPException):
        raw = b""
    detail, kind = _error_detail(raw)
    detail = clean(detail, settings)
    fix, retryable = _advice(settings, status, kind)
    overflow = status == 413 or (status in (400, 422) and compat.overflow_fix(detail, kind) is not None)
    if status in (400, 413, 422):
        fix = compat.overflow_fix(detail, kind) or fix
    if compat.refuses_tools(detail):  # llama.cpp says so with a 500: asking again cannot help
        retryable = False
    if fix is None:
        fix, detail = detail or exc.reason or "the request was refused", ""
    line = f"{status} from {who}: {fix}"
    if detail and status not in (401, 404) and not (overflow and len(line) + len(detail) > OVERFLOW_LINE):
        line += f" ({detail})"  # an overflow's own words only while the line stays short
    return ProviderError(clean(line, settings, MESSAGE_MAX * 2), status=status, retryable=retryable, overflow=overflow,
                         detail=detail)


def _advice(settings: ProviderSettings, status: int, kind: str) -> tuple[str | None, bool]:
    """What the user should do about a status, and whether a retry may help (None: no general advice)."""
    key = settings.key_env or "the API key"
    retryable = status in RETRY_STATUSES or 500 <= status < 600
    if status == 401:
        return (f"check {key}" if settings.api_key else f"the server wants an API key: set {key}"), False
    if status == 403:
        return f"check {key} and that it may use the model {settings.model}", False
    if status == 404:
        return f"check the model name ({settings.model}) and the base URL ({mask_url(settings.base_url)})", False
    if status == 429 and kind == "insufficient_quota":
        return "the account's quota is used up: check the plan and billing", False
    if status == 429:
        return "rate limited; wait a moment and try again", True
    if status == 529 or kind == "overloaded_error":
        return "the provider is overloaded; try again in a moment", True
    if status >= 500:
        return "the server failed; try again later", retryable
    if status == 413:
        return "the request is too large for the server; start a new conversation", False
    return None, retryable


def _error_detail(raw: bytes) -> tuple[str, str]:
    """The provider's own error message and error type/code from a response body."""
    text = raw.decode("utf-8", errors="replace").strip()
    try:
        body = boundary.loads(text)
    except (ValueError, RecursionError):
        return text, ""
    return error_message(body)


def error_message(body) -> tuple[str, str]:
    """Message and type/code from an error payload in the OpenAI, Anthropic or a looser shape."""
    if not isinstance(body, dict):
        return str(body), ""
    error = body.get("error", body)
    if isinstance(error, dict):
        message = error.get("message") or _details(error.get("detail")) or json.dumps(error)
        kind = error.get("code") if isinstance(error.get("code"), str) else error.get("type", "")
        return str(message), str(kind or "")
    return str(error), ""


def _details(detail) -> str:
    """A FastAPI/pydantic validation list (llama-cpp-python, vLLM) as 'body.field: message; ...'."""
    if not isinstance(detail, list):
        return str(detail) if detail else ""
    parts = [f"{'.'.join(map(str, d.get('loc') or []))}: {d.get('msg', '')}" if isinstance(d, dict) else str(d)
             for d in detail]
    return "; ".join(parts)


def _connection_failure(settings: ProviderSettings, url: str, reason) -> ProviderError:
    """Turn a failure to connect, or a connection dropped before any answer, into one retryable line."""
    client = _client()
    base = mask_url(settings.base_url or url)
    if isinstance(reason, ConnectionRefusedError):
        line = f"cannot reach {base}: is the server running? (check --base-url)"
    elif isinstance(reason, TimeoutError):
        line = f"cannot reach {base} within {settings.connect_timeout:g} s: is the server up? (check --base-url)"
    elif isinstance(reason, (ConnectionError, client.HTTPException)):
        line = f"{base} dropped the connection before answering ({str(reason) or type(reason).__name__}); try again"
    else:
        line = f"cannot reach {base}: {reason} (check --base-url and the network)"
    return ProviderError(clean(line, settings, MESSAGE_MAX * 2), retryable=True)


def clean(text: str, settings: ProviderSettings, limit: int = MESSAGE_MAX) -> str:
    """One line, at most limit characters, with the API key and other secrets removed."""
    text = " ".join(str(text).split())
    text = Scrubber(values=[settings.api_key, *map(str, settings.headers.values())]).text(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"
