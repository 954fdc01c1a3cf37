"""What both MCP transports share: JSON-RPC constants and errors, a server's log file, a request's waiter."""

import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

from ankit.errors import ToolError
from ankit.safety import statefiles
from ankit.safety.scrub import Scrubber
from ankit.safety.text import outside

METHOD_NOT_FOUND = -32601
QUIET_NOTICES = ("notifications/message", "notifications/progress")  # logged or ignored, not passed on
MESSAGE_CAP = 300  # characters kept of a server's error message (its first line)
LOG_CAP = 1024 * 1024  # a server's log file starts afresh past this size
LOG_LINE = 4000  # characters of one log message a server sends, as its log keeps it (through the text boundary)
PROGRESS_STRETCH = 10  # a request that keeps reporting progress may take this many times its timeout
LINE_CAP = 32 * 1024 * 1024  # one JSON-RPC line from a server; past it the server is stopped and marked failed
INBOX_SIZE = 256  # a server's own messages waiting to be handled; a server that fills this floods
FLOOD_LIMIT, FLOOD_WINDOW = 5000, 10.0  # more of a server's own messages than this within the window: a flood
WATCH = 0.5  # seconds between two looks at whether a server a request waits for has exited
JUNK_LOGGED = 100  # lines that are not JSON-RPC written to the log; past this they are only counted
Notice = Callable[[str, dict], None]


class McpError(ToolError):
    """A server failed to start, broke the protocol, timed out or answered with an error."""

    def __init__(self, message: str, code: int | None = None, data=None, status: int | None = None):
        super().__init__(message)
        self.code = code
        self.data = data  # the JSON-RPC error's data (the versions a server supports, say)
        self.status = status  # the HTTP status it came with, over Streamable HTTP


def rpc_error(name: str, error, status: int | None = None, redactor=None) -> McpError:
    """A JSON-RPC error object from a server as an McpError in one line (its text redacted)."""
    error = error if isinstance(error, dict) else {}
    text = (str(error.get("message") or "").strip().splitlines() or ["error without a message"])[0]
    text = outside(redactor(text) if redactor is not None else text, MESSAGE_CAP, line=True)
    code = error.get("code") if isinstance(error.get("code"), int) else None
    return McpError(f"MCP server {name!r}: {text}", code, error.get("data"), status)


def request_message(rid: int, method: str, params: dict | None, progress: bool) -> dict:
    """A JSON-RPC request; with progress, it asks for progress notifications under its own id as the token."""
    message = {"jsonrpc": "2.0", "id": rid, "method": method}
    if progress:
        params = {**(params or {}), "_meta": {**((params or {}).get("_meta") or {}), "progressToken": rid}}
    if params is not None:
        message["params"] = params
    return message


Answer = Callable[[str, dict], dict | None]  # a server's request (method, params) -> its result, None: not supported


def reply_to(message: dict, answer: Answer | None = None) -> dict:
    """ankit's answer to a server's request: ping gets an empty result, what `answer` knows its result, anything
    else 'method not found'."""
    reply = {"jsonrpc": "2.0", "id": message["id"]}
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    result = {} if message["method"] == "ping" else answer(message["method"], params) if answer else None
    if result is not None:
        reply["result"] = result
    else:
        reply["error"] = {"code": METHOD_NOT_FOUND, "message": f"ankit does not support {message['method']}"}
    return reply


def open_log(path: Path, name: str):
    """A server's log file, readable by the user only: a server may print its settings, tokens included."""
    try:  # ankit's state-file layer: 0600 in a 0700 folder, never through a symlink
        fd = statefiles.open_private(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        if os.fstat(fd).st_size > LOG_CAP:
            os.ftruncate(fd, 0)
        os.fchmod(fd, 0o600)  # a log an older ankit left readable by others
    except OSError as exc:
        raise McpError(f"MCP server {name!r}: cannot write its log {path}: {exc.strerror or exc}") from None
    return open(fd, "wb", buffering=0)


def redact(text: str, values: list[str]) -> str:
    """A server's own words with the given values (its env, its headers) and other secrets hidden."""
    return Scrubber(values=values).text(text)


class Inbox:
    """A server's own messages (notifications and requests) handled in order by one thread, never one per message.

    The queue is bounded and so is the rate: a server that sends more than FLOOD_LIMIT messages within
    FLOOD_WINDOW seconds, or more than INBOX_SIZE faster than they are handled (a server that stops reading its
    answers), floods: `put` returns a one-line reason and the transport stops the server.
    """

    def __init__(self, name: str, handle: Callable[[dict], None]):
        self.name = name
        self.handle = handle
        self._queue: queue.Queue = queue.Queue(INBOX_SIZE)
        self._times: deque[float] = deque()
        self._thread: threading.Thread | None = None
        self._closed = False

    def put(self, message: dict) -> str:
        """Queue one message for the handler thread; return why the server floods, or "" when it does not."""
        now = time.monotonic()
        self._times.append(now)
        while self._times[0] < now - FLOOD_WINDOW:
            self._times.popleft()
        if len(self._times) > FLOOD_LIMIT:
            return f"sent more than {FLOOD_LIMIT} messages within {FLOOD_WINDOW:g}s (a flood), so it was stopped"
        if self._closed:
            return ""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"mcp-{self.name}-inbox", daemon=True)
            self._thread.start()
        try:
            self._queue.put_nowait(message)
        except queue.Full:
            return f"sent more than {INBOX_SIZE} messages faster than they could be handled, so it was stopped"
        return ""

    def _run(self) -> None:
        while (message := self._queue.get()) is not None:
            try:
                self.handle(message)
            except Exception:  # a handler's bug must not end the thread: later messages still need handling
                pass

    def close(self) -> None:
        """Let the handler thread end once it has handled what is queued; later messages are dropped."""
        self._closed = True
        if self._thread is not None:
            try:
                self._queue.put_nowait(None)
            except queue.Full:  # a flooded queue: drop what waits so the thread sees the end
                self._drain()

    def _drain(self) -> None:
        try:
            while True:
                self._queue.get_nowait()
        except queue.Empty:
            pass
        self._queue.put_nowait(None)


class Waiter:
    """One pending request: the reader thread fills it and sets the event."""

    def __init__(self, timeout: float):
        self.event = threading.Event()
        self.result: dict = {}
        self.error: McpError | None = None
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout  # moved on by each progress notification

    def wait(self, gone: Callable[[], bool] | None = None) -> bool:
        """Wait for the answer until no progress was heard for timeout seconds (at most PROGRESS_STRETCH times
        the timeout in all); return whether it came. gone() is asked every WATCH seconds whether the server went
        (it then finishes the waiter with the reason)."""
        last = time.monotonic() + self.timeout * PROGRESS_STRETCH
        while not self.event.wait(max(0.0, min(self.deadline, last, time.monotonic() + WATCH) - time.monotonic())):
            if gone is not None and gone():
                return self.event.is_set()
            if time.monotonic() >= min(self.deadline, last):
                return False
        return True

    def finish(self, result: dict | None = None, error: McpError | None = None) -> None:
        self.result = result if isinstance(result, dict) else {}
        self.error = error
        self.event.set()
