"""JSON-RPC 2.0 over newline-delimited streams: one reader thread, one writer thread, requests both ways.

Everything the client sends is data: each line is parsed at the text boundary (safety/text.loads), bounded in
size, and a line that is not a JSON-RPC message gets an error reply; the connection goes on.
"""

import itertools
import json
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

from ankit.safety import text as boundary

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603
AUTH_REQUIRED, RESOURCE_NOT_FOUND = -32000, -32002
LINE_CAP = 64 * 1024 * 1024  # bytes of one message (a prompt's images travel base64 inside it)
WAIT_STEP = 0.2  # seconds a waiting request sleeps at a time (a signal interrupts it at once anyway)


class RpcError(Exception):
    """A JSON-RPC error, sent as a reply (raised by a method) or received (raised by request())."""

    def __init__(self, code: int, message: str, data=None):
        super().__init__(message)
        self.code, self.message, self.data = code, message, data

    def as_dict(self) -> dict:
        """The error object of a reply."""
        return {"code": self.code, "message": self.message, **({"data": self.data} if self.data is not None else {})}


class Closed(Exception):
    """The client closed the connection (end of stdin)."""


@dataclass
class Incoming:
    """A request (id set) or notification (id None) from the client."""

    method: str
    params: dict
    id: int | str | None = None


class Connection:
    """The client on the other end: `inbox` gets its requests and notifications, `urgent` ones are handled on the
    reader thread at once (a cancel must not wait behind the turn it cancels), `gone` is told when it closes."""

    def __init__(self, reader: BinaryIO, writer: BinaryIO, line_cap: int = LINE_CAP):
        self.reader, self.writer, self.line_cap = reader, writer, line_cap
        self.urgent: Callable[[Incoming], bool] = _nothing_urgent
        self.gone: Callable[[], None] = _nothing
        self.inbox: queue.Queue[Incoming | None] = queue.Queue()
        self._out: queue.Queue[bytes | None] = queue.Queue()
        self._pending: dict[int, queue.Queue] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self.closed = threading.Event()
        self._writer = threading.Thread(target=self._write, name="acp-writer", daemon=True)

    def start(self, urgent: Callable[[Incoming], bool] = None, gone: Callable[[], None] = None) -> "Connection":
        """Start reading and writing; `urgent` takes a message on the reader thread (True: handled there), `gone`
        hears that the client closed the connection."""
        self.urgent, self.gone = urgent or _nothing_urgent, gone or _nothing
        threading.Thread(target=self._read, name="acp-reader", daemon=True).start()
        self._writer.start()
        return self

    def notify(self, method: str, params: dict) -> None:
        """Send a notification."""
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def reply(self, rid, result) -> None:
        """Answer a request."""
        self._send({"jsonrpc": "2.0", "id": rid, "result": result})

    def error(self, rid, error: RpcError) -> None:
        """Answer a request (or a line that was none: id null) with an error."""
        self._send({"jsonrpc": "2.0", "id": rid, "error": error.as_dict()})

    def request(self, method: str, params: dict, timeout: float | None = None):
        """Ask the client and wait for its result; RpcError for its error, TimeoutError, Closed. A signal (a
        cancel's SIGINT) interrupts the wait, and the late answer is dropped."""
        rid = next(self._ids)
        waiter: queue.Queue = queue.Queue(1)
        with self._lock:
            self._pending[rid] = waiter
        try:
            self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
            answer = self._wait(waiter, timeout)
        finally:
            with self._lock:
                self._pending.pop(rid, None)
        if "error" in answer:
            error = answer["error"] if isinstance(answer["error"], dict) else {}
            raise RpcError(error.get("code") if isinstance(error.get("code"), int) else INTERNAL_ERROR,
                           str(error.get("message") or "error without a message"), error.get("data"))
        return answer.get("result")

    def _wait(self, waiter: queue.Queue, timeout: float | None) -> dict:
        waited = 0.0
        while timeout is None or waited < timeout:
            if self.closed.is_set() and waiter.empty():
                raise Closed()
            try:
                return waiter.get(timeout=WAIT_STEP)
            except queue.Empty:
                waited += WAIT_STEP
        raise TimeoutError(f"no answer within {timeout:g} s")

    def _send(self, message: dict) -> None:
        self._out.put(json.dumps(message, ensure_ascii=False).encode("utf-8", "replace") + b"\n")

    def close(self, timeout: float = 5.0) -> None:
        """Send what is queued (waiting up to timeout seconds), then stop writing."""
        self._out.put(None)
        if self._writer.is_alive():
            self._writer.join(timeout)

    def _write(self) -> None:
        while (line := self._out.get()) is not None:
            try:
                self.writer.write(line)
                self.writer.flush()
            except (OSError, ValueError):
                return

    def _read(self) -> None:
        try:
            while line := self.reader.readline(self.line_cap + 1):
                if len(line) > self.line_cap and not line.endswith(b"\n"):
                    self._skip_rest()
                    self.error(None, RpcError(INVALID_REQUEST, f"message longer than {self.line_cap:,} bytes; not read"))
                elif line.strip():
                    self._take(line)
        except (OSError, ValueError):
            pass
        self.closed.set()
        self.inbox.put(None)
        self.gone()  # the client went away: what runs for it stops

    def _skip_rest(self) -> None:
        while (more := self.reader.readline(1024 * 1024)) and not more.endswith(b"\n"):
            pass

    def _take(self, line: bytes) -> None:
        """One line: a reply to one of our requests, or a request or notification for the agent."""
        try:
            message = boundary.loads(line)
        except (ValueError, RecursionError):
            self.error(None, RpcError(PARSE_ERROR, "not JSON: send one JSON-RPC 2.0 message per line"))
            return
        problem = _shape(message)
        if problem:
            rid = message.get("id") if isinstance(message, dict) and isinstance(message.get("id"), (int, str)) else None
            self.error(rid, RpcError(INVALID_REQUEST, problem))
        elif "method" not in message:
            with self._lock:
                waiter = self._pending.get(message.get("id"))
            if waiter is not None:
                waiter.put(message)
        else:
            params = message.get("params") if isinstance(message.get("params"), dict) else {}
            incoming = Incoming(message["method"], params, message.get("id"))
            if not self.urgent(incoming):
                self.inbox.put(incoming)


def _nothing_urgent(incoming: Incoming) -> bool:
    return False


def _nothing() -> None:
    pass


def _shape(message) -> str:
    """Why a parsed line is not a JSON-RPC 2.0 message ("" when it is one)."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return 'not a JSON-RPC 2.0 message: send an object with "jsonrpc": "2.0"'
    if "method" in message:
        if not isinstance(message["method"], str):
            return "method must be a string"
        if "params" in message and not isinstance(message["params"], (dict, list)):
            return "params must be an object"
        if "id" in message and not isinstance(message["id"], (int, str)):
            return "id must be a number or a string"
        return ""
    if "result" not in message and "error" not in message:
        return "a message needs a method (a request) or a result or error (a reply)"
    return ""
