"""What both MCP transports share: JSON-RPC constants and errors, a server's log file, a request's waiter."""

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ankit.errors import ToolError
from ankit.safety.scrub import Scrubber

METHOD_NOT_FOUND = -32601
QUIET_NOTICES = ("notifications/message", "notifications/progress")  # logged or ignored, not passed on
LOG_CAP = 1024 * 1024  # a server's log file starts afresh past this size
PROGRESS_STRETCH = 10  # a request that keeps reporting progress may take this many times its timeout
LINE_CAP = 32 * 1024 * 1024  # one JSON-RPC line from a server; past it the server is stopped and marked failed
Notice = Callable[[str, dict], None]


class McpError(ToolError):
    """A server failed to start, broke the protocol, timed out or answered with an error."""

    def __init__(self, message: str, code: int | None = None):
        super().__init__(message)
        self.code = code


def request_message(rid: int, method: str, params: dict | None, progress: bool) -> dict:
    """A JSON-RPC request; with progress, it asks for progress notifications under its own id as the token."""
    message = {"jsonrpc": "2.0", "id": rid, "method": method}
    if progress:
        params = {**(params or {}), "_meta": {"progressToken": rid}}
    if params is not None:
        message["params"] = params
    return message


def open_log(path: Path, name: str):
    """A server's log file, readable by the user only: a server may print its settings, tokens included."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        big = path.exists() and path.stat().st_size > LOG_CAP
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if big else os.O_APPEND), 0o600)
        os.fchmod(fd, 0o600)  # a log an older ankit left readable by others
    except OSError as exc:
        raise McpError(f"MCP server {name!r}: cannot write its log {path}: {exc.strerror}") from None
    return open(fd, "wb", buffering=0)


def redact(text: str, values: list[str]) -> str:
    """A server's own words with the given values (its env, its headers) and other secrets hidden."""
    return Scrubber(values=values).text(text)


class Waiter:
    """One pending request: the reader thread fills it and sets the event."""

    def __init__(self, timeout: float):
        self.event = threading.Event()
        self.result: dict = {}
        self.error: McpError | None = None
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout  # moved on by each progress notification

    def wait(self) -> bool:
        """Wait for the answer until no progress was heard for timeout seconds (at most PROGRESS_STRETCH times
        the timeout in all); return whether it came."""
        last = time.monotonic() + self.timeout * PROGRESS_STRETCH
        while not self.event.wait(max(0.0, min(self.deadline, last) - time.monotonic())):
            if time.monotonic() >= min(self.deadline, last):
                return False
        return True

    def finish(self, result: dict | None = None, error: McpError | None = None) -> None:
        self.result = result if isinstance(result, dict) else {}
        self.error = error
        self.event.set()
