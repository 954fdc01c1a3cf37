"""Shared test fixtures; above all `provider_server`, a scripted provider on 127.0.0.1 for wire-level tests.

The server is a real http.server.ThreadingHTTPServer on a free loopback port, in a thread. Each request it
receives is recorded, then answered with the next scripted reply (in push order). Nothing is patched: point a
provider, a session or an `ankit` subprocess at `server.url` and it speaks real HTTP.

    def test_something(provider_server):
        server = provider_server
        server.push("openai_text.sse")                 # a capture in tests/fixtures/, sent event by event
        server.push("anthropic_429.http")              # a whole HTTP response capture: status, headers, body
        server.push({"error": {"message": "no"}}, status=400)       # a dict is sent as a JSON body
        server.push(b"data: [DONE]\\n\\n", headers={"x-a": "1"})    # raw bytes, sent as one piece
        server.push([b"data: {}\\n\\n", 0.05, b"data: [DONE]\\n\\n"])  # parts, see below
        server.push(fixture_parts("openai_text.sse")[:3] + ["cut"])  # the first three events, then a cut
        server.push_openai(text="Hi", tool_calls=[("call_1", "read_file", '{"path": "a"}')])
        server.push_anthropic(text="Hi", usage={"input_tokens": 10, "output_tokens": 2})

        settings = server.settings("openai", preset="local")   # ProviderSettings aimed at the server
        ...                                                    # run the code under test
        request = server.requests[0]          # RecordedRequest: method, path, headers (lower-case keys),
        assert request.path == "/v1/chat/completions"          # body (raw bytes), json (parsed body)
        assert request.json["stream"] is True
        assert server.pending == 0            # every scripted reply was used
        server.models = ["m1", "m2"]          # GET .../models lists these (404 while None); such requests go
                                              # to server.model_requests, never to server.requests; an entry may
                                              # be a whole object: {"id": "m", "max_model_len": 8192} (vLLM)
        server.info["/props"] = {"default_generation_settings": {"n_ctx": 8192}}  # what a server says of itself:
                                              # /props (llama.cpp), /api/show (Ollama), /api/v0/models/M (LM
                                              # Studio) are answered apart (404 when not set), recorded in
                                              # server.info_requests

Parts of a reply (a list): bytes are written and flushed at once (a chunk of a chunked body); a number pauses
that many seconds; "stall" stops sending and holds the connection open until the test ends (or STALL_MAX);
"cut" closes the connection mid-body (no final chunk: the client sees an incomplete read); "reset" aborts it
with a TCP reset. push(..., delay=s) waits before the status line; push(..., delay=server.gate()) waits until
the test sets that gate (an Event; a gate in the parts waits there), so a test never bets on how long a pause is; push(..., chunked=False) sends the body
close-delimited instead of chunked; push(status=0) closes the connection without any answer. A request that finds no scripted reply gets a 500 whose JSON error says so.
`openai_sse(...)` and `anthropic_sse(...)` build streams for scripted loops; `fixture_bytes(name)` and
`fixture_parts(name)` read captures; `stream_round(server, request, kind=...)` streams one round through a real
provider and `reply_of(events)` builds the reply a session would keep. The tests folder is on sys.path, so
`from conftest import openai_sse` works.
"""

import http.server
import json
import socket
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ankit.errors import ProviderError
from ankit.providers import make_provider
from ankit.providers.base import ProviderSettings
from ankit.records import Event, Message, OpaqueData, Request, TextDelta, ToolCallDone, ToolSpec
from tests.helpers import xdg_env

FIXTURES = Path(__file__).parent / "fixtures"
INFO_PATHS = ("/props", "/api/show", "/api/v0/models/")  # where servers say their context window
STALL_MAX = 30.0  # a stalled reply never holds its thread longer than this
TEST_KEY = "sk-test-SECRET-0123456789abcdef"
READ = ToolSpec("read_file", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}}, "files")


@dataclass
class RecordedRequest:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self):
        """The body parsed as JSON."""
        return json.loads(self.body)


@dataclass
class Reply:
    """One scripted answer."""

    status: int = 200
    headers: list[tuple[str, str]] = field(default_factory=list)
    parts: list = field(default_factory=list)  # bytes, pause seconds, a gate (Event), "stall", "cut", "reset"
    streamed: bool = True  # chunked (or close-delimited) rather than Content-Length
    chunked: bool = True
    delay: "float | threading.Event" = 0.0  # seconds, or a gate to wait for


def fixture_bytes(name: str) -> bytes:
    """A capture from tests/fixtures, byte for byte."""
    return (FIXTURES / name).read_bytes()


def fixture_parts(name_or_bytes: str | bytes) -> list[bytes]:
    """An event stream split after each event (each blank line), keeping every byte."""
    data = fixture_bytes(name_or_bytes) if isinstance(name_or_bytes, str) else name_or_bytes
    parts, start, i = [], 0, 0
    while i < len(data):
        for end in (b"\r\n\r\n", b"\n\n", b"\r\r"):
            if data.startswith(end, i):
                parts.append(data[start:i + len(end)])
                start = i = i + len(end)
                break
        else:
            i += 1
    if start < len(data):
        parts.append(data[start:])
    return parts


def parse_http_capture(data: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
    """Status, headers and body of a raw HTTP response capture (.http file)."""
    head, _, body = data.partition(b"\r\n\r\n" if b"\r\n\r\n" in data else b"\n\n")
    lines = head.decode().splitlines()
    status = int(lines[0].split()[1])
    headers = [(k.strip(), v.strip()) for k, _, v in (line.partition(":") for line in lines[1:])]
    skip = {"content-length", "transfer-encoding", "connection"}
    return status, [(k, v) for k, v in headers if k.lower() not in skip], body


def _sse(event: str | None, payload) -> bytes:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return (f"event: {event}\n" if event else "").encode() + f"data: {text}\n\n".encode()


def openai_sse(text: str = "", tool_calls=(), usage: dict | None = None, finish: str | None = None,
               done: bool = True, model: str = "gpt-test") -> bytes:
    """A Chat Completions stream: text in two pieces, tool calls (id, name, arguments) in two pieces each."""
    base = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1700000000, "model": model}

    def chunk(delta, reason=None):
        return _sse(None, {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": reason}]})

    out = chunk({"role": "assistant", "content": ""})
    if text:
        half = len(text) // 2
        out += chunk({"content": text[:half]}) + chunk({"content": text[half:]})
    for index, (call_id, name, arguments) in enumerate(tool_calls):
        half = len(arguments) // 2
        first = {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
        out += chunk({"tool_calls": [first]})
        for piece in (arguments[:half], arguments[half:]):
            out += chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    out += chunk({}, finish or ("tool_calls" if tool_calls else "stop"))
    if usage is not None:
        out += _sse(None, {**base, "choices": [], "usage": usage})
    return out + (b"data: [DONE]\n\n" if done else b"")


def logprobs_sse(tops: dict[str, float], usage: dict | None = None) -> bytes:
    """A one-token Chat Completions stream with logprobs, as llama.cpp's server and OpenAI send it: the first chunk
    carries the role and an empty logprobs.content, the token's chunk its top_logprobs (token, logprob, bytes)."""
    base = {"id": "chatcmpl-lp", "object": "chat.completion.chunk", "created": 1700000000, "model": "lp-test"}
    best = max(tops, key=tops.get)
    entries = [{"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in tops.items()]
    first = {"index": 0, "delta": {"role": "assistant", "content": ""}, "logprobs": {"content": []},
             "finish_reason": None}
    token = {"index": 0, "delta": {"content": best}, "finish_reason": None,
             "logprobs": {"content": [{"token": best, "logprob": tops[best], "bytes": list(best.encode()),
                                       "top_logprobs": entries}]}}
    end = {"index": 0, "delta": {}, "logprobs": None, "finish_reason": "length"}
    out = b"".join(_sse(None, {**base, "choices": [c]}) for c in (first, token, end))
    if usage is not None:
        out += _sse(None, {**base, "choices": [], "usage": usage})
    return out + b"data: [DONE]\n\n"


def anthropic_sse(text: str = "", tool_calls=(), usage: dict | None = None, stop: str | None = None,
                  model: str = "claude-test") -> bytes:
    """A Messages stream: a text block, then tool_use blocks (id, name, arguments JSON) in two pieces each."""
    start_usage = {"input_tokens": 10, "output_tokens": 1, **(usage or {})}
    message = {"id": "msg_test", "type": "message", "role": "assistant", "content": [], "model": model,
               "stop_reason": None, "stop_sequence": None, "usage": start_usage}
    out = _sse("message_start", {"type": "message_start", "message": message})
    index = 0
    if text:
        out += _sse("content_block_start", {"type": "content_block_start", "index": 0,
                                             "content_block": {"type": "text", "text": ""}})
        out += _sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                             "delta": {"type": "text_delta", "text": text}})
        out += _sse("content_block_stop", {"type": "content_block_stop", "index": 0})
        index = 1
    for call_id, name, arguments in tool_calls:
        out += _sse("content_block_start", {"type": "content_block_start", "index": index,
                                             "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}}})
        half = len(arguments) // 2
        for piece in (arguments[:half], arguments[half:]):
            out += _sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                                 "delta": {"type": "input_json_delta", "partial_json": piece}})
        out += _sse("content_block_stop", {"type": "content_block_stop", "index": index})
        index += 1
    reason = stop or ("tool_use" if tool_calls else "end_turn")
    out += _sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None},
                                  "usage": {"output_tokens": start_usage.get("output_tokens", 1) + 9}})
    return out + _sse("message_stop", {"type": "message_stop"})


def responses_sse(text: str = "", tool_calls=(), search: str | None = None, usage: dict | None = None,
                  done: bool = True, model: str = "gpt-test", search_id: str = "call_search") -> bytes:
    """A Responses stream: a message item with text in two deltas, function calls (call_id, name, arguments),
    or a client tool_search_call (search_id) whose arguments are {"query": search}; then response.completed."""
    items, out, number = [], b"", 0

    def event(kind, **data):
        nonlocal number
        number += 1
        return _sse(kind, {"type": kind, **data, "sequence_number": number - 1})

    out += event("response.created", response={"id": "resp_test", "object": "response", "model": model,
                                                "status": "in_progress", "output": []})
    if text:
        item = {"id": "msg_test", "type": "message", "status": "completed", "role": "assistant",
                "content": [{"type": "output_text", "annotations": [], "text": text}]}
        half = len(text) // 2
        for piece in (text[:half], text[half:]):
            out += event("response.output_text.delta", item_id="msg_test", output_index=len(items), content_index=0,
                         delta=piece)
        out += event("response.output_item.done", output_index=len(items), item=item)
        items.append(item)
    for call_id, name, arguments in tool_calls:
        item = {"id": f"fc_{call_id}", "type": "function_call", "status": "completed", "arguments": arguments,
                "call_id": call_id, "name": name}
        out += event("response.function_call_arguments.delta", item_id=item["id"], output_index=len(items),
                     delta=arguments)
        out += event("response.output_item.done", output_index=len(items), item=item)
        items.append(item)
    if search is not None:
        item = {"id": f"tsc_{search_id}", "type": "tool_search_call", "execution": "client", "call_id": search_id,
                "status": "completed", "arguments": {"query": search}}
        out += event("response.output_item.done", output_index=len(items), item=item)
        items.append(item)
    usage = usage or {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 2}
    final = {"id": "resp_test", "object": "response", "model": model, "status": "completed", "output": items,
             "usage": usage}
    return out + (event("response.completed", response=final) if done else b"")


def stream_round(server: "ProviderServer", request: Request | None = None, kind: str = "openai",
                 **changes) -> tuple[list[Event], ProviderError | None]:
    """Stream one round through a provider aimed at the server; return its events and the error that ended it."""
    provider = make_provider(server.settings(kind, **changes))
    events, error = [], None
    try:
        for event in provider.stream(request or Request("sys", [Message("user", "hi")], [])):
            events.append(event)
    except ProviderError as exc:
        error = exc
    return events, error


def text_of(events: list[Event]) -> str:
    """The reply text the events show."""
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def reply_of(events) -> Message:
    """The assistant message a session keeps from a round's events."""
    reply = Message("assistant")
    for event in events:
        if isinstance(event, TextDelta):
            reply.text += event.text
        elif isinstance(event, ToolCallDone):
            reply.tool_calls.append(event.call)
        elif isinstance(event, OpaqueData):
            reply.opaque[event.kind] = event.data
    return reply


class ProviderServer:
    """The scripted loopback provider; see the module docstring."""

    def __init__(self):
        self.requests: list[RecordedRequest] = []
        self.models: list[str] | None = None  # what GET .../models lists; None answers 404 (no such endpoint)
        self.model_requests: list[RecordedRequest] = []  # GET .../models requests, kept apart from `requests`
        self.info: dict[str, dict] = {}  # path -> the JSON a server says of itself there (INFO_PATHS), else 404
        self.info_requests: list[RecordedRequest] = []  # requests to INFO_PATHS, kept apart from `requests`
        self.replies: deque[Reply] = deque()
        self.release = threading.Event()
        self.gates: list[threading.Event] = []
        self.lock = threading.Lock()
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.owner = self
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
        self.thread.start()

    @property
    def pending(self) -> int:
        """How many scripted replies are still waiting for a request."""
        return len(self.replies)

    def gate(self) -> threading.Event:
        """An Event to hold a reply at (push(delay=gate) or a part): it goes on when the test sets it (or at close)."""
        gate = threading.Event()
        self.gates.append(gate)
        return gate

    def push(self, body: str | bytes | dict | list = b"", status: int = 200, headers: dict | None = None,
             delay: "float | threading.Event" = 0.0, chunked: bool = True) -> None:
        """Script the next reply: a fixture name (.sse or .http), bytes, a JSON dict or a list of parts."""
        reply = Reply(status=status, delay=delay, chunked=chunked)
        content_type = "text/event-stream"
        if isinstance(body, str) and body.endswith(".http"):
            reply.status, reply.headers, raw = parse_http_capture(fixture_bytes(body))
            reply.parts, reply.streamed = [raw], False
        elif isinstance(body, str):
            reply.parts = fixture_parts(body)
        elif isinstance(body, dict):
            reply.parts, reply.streamed, content_type = [json.dumps(body).encode()], False, "application/json"
        elif isinstance(body, bytes):
            reply.parts, reply.streamed = [body], status == 200
        else:
            reply.parts = list(body)
        names = {k.lower() for k, _ in reply.headers} | {k.lower() for k in headers or {}}
        if "content-type" not in names:
            reply.headers.append(("Content-Type", content_type))
        reply.headers += list((headers or {}).items())
        with self.lock:
            self.replies.append(reply)

    def push_openai(self, **stream) -> None:
        """Script a Chat Completions stream built by openai_sse(**stream), sent event by event."""
        self.push(fixture_parts(openai_sse(**stream)))

    def push_anthropic(self, **stream) -> None:
        """Script a Messages stream built by anthropic_sse(**stream), sent event by event."""
        self.push(fixture_parts(anthropic_sse(**stream)))

    def push_responses(self, **stream) -> None:
        """Script a Responses stream built by responses_sse(**stream), sent event by event."""
        self.push(fixture_parts(responses_sse(**stream)))

    def settings(self, kind: str = "openai", **changes) -> ProviderSettings:
        """ProviderSettings aimed at this server (base URL {url}/v1, a test key, quick timeouts)."""
        values = dict(preset=kind, kind=kind, base_url=self.url + "/v1", model="test-model", api_key=TEST_KEY,
                      key_env="ANTHROPIC_API_KEY" if kind == "anthropic" else "OPENAI_API_KEY",
                      retries=2, idle_timeout=5.0, connect_timeout=5.0)
        return ProviderSettings(**{**values, **changes})

    def close(self) -> None:
        """Release stalled replies and stop the server."""
        self.release.set()
        for gate in self.gates:
            gate.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def serve(self, handler: "_Handler") -> None:
        """Record one request and play the next scripted reply (GET .../models and INFO_PATHS are answered apart)."""
        length = int(handler.headers.get("content-length") or 0)
        body = handler.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in handler.headers.items()}
        if handler.path.startswith(INFO_PATHS):
            self.info_requests.append(RecordedRequest(handler.command, handler.path, headers, body))
            said = self.info.get(handler.path.split("?")[0])
            _play(handler, Reply(200 if said is not None else 404, [("Content-Type", "application/json")],
                                 [json.dumps(said if said is not None else {"error": "not found"}).encode()],
                                 streamed=False), self.release)
            return
        if handler.command == "GET" and handler.path.split("?")[0].endswith("/models"):
            self.model_requests.append(RecordedRequest(handler.command, handler.path, headers, body))
            listing = {"object": "list", "data": [{"id": m, "object": "model"} if isinstance(m, str) else m
                                                  for m in self.models or []]}
            _play(handler, Reply(200 if self.models is not None else 404, [("Content-Type", "application/json")],
                                 [json.dumps(listing if self.models is not None else {"error": "no models"}).encode()],
                                 streamed=False), self.release)
            return
        with self.lock:
            self.requests.append(RecordedRequest(handler.command, handler.path, headers, body))
            reply = self.replies.popleft() if self.replies else None
        if reply is None:
            reply = Reply(500, [("Content-Type", "application/json")],
                          [b'{"error": {"message": "provider_server: no scripted reply left"}}'], streamed=False)
        try:
            _play(handler, reply, self.release)
        except (ConnectionError, TimeoutError):
            pass  # the client gave up (an idle timeout, a cancelled turn): nothing to tell it


def _play(handler: http.server.BaseHTTPRequestHandler, reply: Reply, release: threading.Event) -> None:
    """Write one reply, part by part."""
    handler.close_connection = True
    if isinstance(reply.delay, threading.Event):
        reply.delay.wait(STALL_MAX)
    elif reply.delay:
        time.sleep(reply.delay)
    if reply.status == 0:
        return
    handler.send_response(reply.status)
    for name, value in reply.headers:
        handler.send_header(name, value)
    chunked = reply.streamed and reply.chunked
    if chunked:
        handler.send_header("Transfer-Encoding", "chunked")
    elif not reply.streamed:
        handler.send_header("Content-Length", str(sum(len(p) for p in reply.parts if isinstance(p, bytes))))
    handler.send_header("Connection", "close")
    handler.end_headers()
    out = handler.wfile
    for part in reply.parts:
        if isinstance(part, bytes):
            out.write(b"%x\r\n%s\r\n" % (len(part), part) if chunked and part else part)
            out.flush()
        elif isinstance(part, (int, float)):
            time.sleep(part)
        elif isinstance(part, threading.Event):
            out.flush()
            part.wait(STALL_MAX)
        elif part == "stall":
            out.flush()
            release.wait(STALL_MAX)
            return
        elif part == "cut":
            out.flush()
            return
        elif part == "reset":
            handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return
    if chunked:
        out.write(b"0\r\n\r\n")
    out.flush()


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        self.server.owner.serve(self)

    do_GET = do_PUT = do_DELETE = do_POST

    def log_message(self, format, *args):  # keep test output clean
        pass


GITCONFIG = "[user]\n\tname = ankit tests\n\temail = tests@ankit.invalid\n[init]\n\tdefaultBranch = main\n"


@pytest.fixture(autouse=True)
def own_home(tmp_path_factory, monkeypatch) -> Path:
    """Every test gets a HOME and XDG folders of its own, empty but for a git identity: nothing in the user's
    ~/.claude, ~/.config/ankit, caches or git config decides what a test sees (xdg_home sets its own on top)."""
    root = tmp_path_factory.mktemp("own-home")
    for name, value in {**xdg_env(root), "XDG_CACHE_HOME": str(root / "cache")}.items():
        monkeypatch.setenv(name, value)
    for name in ("GIT_CONFIG_GLOBAL", "CLAUDE_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)
    (root / "home").mkdir()
    (root / "home" / ".gitconfig").write_text(GITCONFIG)
    return root / "home"


@pytest.fixture(autouse=True)
def terminal_size(monkeypatch):
    """Every test sees the 80 x 24 terminal that CI's pipes get, whatever terminal runs pytest (COLUMNS, LINES
    come first for shutil.get_terminal_size); a test that wants another size sets them itself."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")


@pytest.fixture
def provider_server():
    """A scripted loopback provider (ProviderServer); stopped after the test."""
    server = ProviderServer()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def xdg_home(tmp_path, monkeypatch):
    """tmp_path with ankit's XDG folders (config, state, data) and HOME set under it, and a working folder `work`."""
    for name, value in xdg_env(tmp_path).items():
        monkeypatch.setenv(name, value)
    (tmp_path / "work").mkdir(exist_ok=True)
    return tmp_path
