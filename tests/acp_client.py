"""An Agent Client Protocol client on the standard library, for the tests of `ankit acp`: it starts ankit acp as a
real subprocess, sends requests, answers the agent's own requests (permissions, fs/*, terminal/*) with the test's
handlers, and keeps every notification.

    with acp(tmp_path, provider_server, "--trust") as client:  # started, initialized, closed after
        client.initialize(fs=True, terminal=True)                # again, offering the editor's files and terminals
        client.handlers["session/request_permission"] = lambda params: {"outcome": {...}}
        sid = client.new_session()
        reply = client.prompt(sid, "hello")      # the session/prompt answer (result or error)
        client.updates("agent_message_chunk")    # the session/update notifications of that kind
"""

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.helpers import xdg_env

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def acp(root: Path, server=None, *args: str) -> Iterator["AcpClient"]:
    """ankit acp started (pointed at the loopback provider server when given) and initialized; closed after."""
    client = AcpClient(root, *(["--base-url", server.url + "/v1"] if server is not None else []), *args)
    try:
        client.initialize()
        yield client
    finally:
        client.close()


def acp_env(root: Path, **extra) -> dict:
    """The environment ankit acp runs with in a test: no keys, no ANKIT_ settings, HOME and XDG under root."""
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN")) and not k.startswith("ANKIT_")}
    env.update(xdg_env(root), NO_COLOR="1", PYTHONPATH=str(ROOT))
    env.update(extra)
    return env


class AcpClient:
    """ankit acp in a subprocess, and the client's side of the conversation."""

    def __init__(self, root: Path, *args: str, cwd: Path | None = None, env: dict | None = None):
        self.root, self.cwd = root, cwd or root / "work"
        self.cwd.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen([sys.executable, "-m", "ankit", "acp", *args], cwd=self.cwd,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=acp_env(root, **(env or {})))
        self.messages: list[dict] = []  # everything the agent sent, in order
        self.answers: dict = {}
        self.arrived = threading.Condition()
        self.handlers: dict = {}  # method -> function(params) -> result (raise ValueError for an error reply)
        self.asked: list[dict] = []  # the agent's requests, in order
        self.next_id = 0
        self.junk: list[bytes] = []  # lines on stdout that were not JSON
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for raw in self.proc.stdout:
            try:
                message = json.loads(raw)
            except ValueError:
                self.junk.append(raw)  # stdout must carry nothing but JSON-RPC lines: a test asserts none came
                continue
            with self.arrived:
                self.messages.append(message)
                if "method" in message and "id" in message:
                    self.asked.append(message)
                elif "method" not in message:
                    self.answers[message.get("id")] = message
                self.arrived.notify_all()
            if "method" in message and "id" in message:
                threading.Thread(target=self._answer, args=(message,), daemon=True).start()

    def _answer(self, message: dict) -> None:
        handler = self.handlers.get(message["method"])
        if handler is None:
            self.send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no handler"}})
            return
        try:
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": handler(message["params"])})
        except ValueError as exc:
            self.send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32002, "message": str(exc)}})

    def send(self, message: dict) -> None:
        """Write one message as a line."""
        self.send_raw(json.dumps(message).encode() + b"\n")

    def send_raw(self, data: bytes) -> None:
        """Write bytes as they are (bad input); after ankit ended, nothing (a late answer of a handler thread)."""
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (OSError, ValueError):
            if self.proc.poll() is None and not self.proc.stdin.closed:
                raise

    def call(self, method: str, params: dict | None = None) -> int:
        """Send a request; its id."""
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}})
        return self.next_id

    def answer(self, rid, timeout: float = 60.0) -> dict:
        """The agent's answer to a request (the whole message: result or error)."""
        return self.wait(lambda: self.answers.get(rid), timeout)

    def request(self, method: str, params: dict | None = None, timeout: float = 60.0) -> dict:
        """Send a request and wait for its answer."""
        return self.answer(self.call(method, params), timeout)

    def wait(self, found, timeout: float = 60.0):
        """Wait until found() gives something (checked as messages arrive); fail the test after timeout."""
        deadline = time.monotonic() + timeout
        with self.arrived:
            while not (value := found()):
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None and not self.arrived.wait(0.2):
                    raise AssertionError(f"waited {timeout} s in vain; stderr: {self.stderr_so_far()}")
                self.arrived.wait(min(left, 0.5))
        return value

    def stderr_so_far(self) -> str:
        return "" if self.proc.poll() is None else self.proc.stderr.read().decode(errors="replace")

    def initialize(self, fs: bool = False, terminal: bool = False) -> dict:
        """The handshake, offering the editor's files and terminals when asked to."""
        capabilities = {"fs": {"readTextFile": fs, "writeTextFile": fs}, "terminal": terminal}
        return self.request("initialize", {"protocolVersion": 1, "clientCapabilities": capabilities,
                                           "clientInfo": {"name": "tests", "version": "1"}})

    def new_session(self, servers: list | None = None, cwd: Path | None = None) -> str:
        """session/new in the working folder; its id."""
        reply = self.request("session/new", {"cwd": str(cwd or self.cwd), "mcpServers": servers or []})
        assert "result" in reply, reply
        return reply["result"]["sessionId"]

    def prompt(self, session_id: str, *blocks, timeout: float = 60.0) -> dict:
        """session/prompt with text (a str) or content blocks (dicts); its answer."""
        prompt = [{"type": "text", "text": b} if isinstance(b, str) else b for b in blocks]
        return self.request("session/prompt", {"sessionId": session_id, "prompt": prompt}, timeout)

    def updates(self, kind: str | None = None) -> list[dict]:
        """The session/update notifications so far (of one kind)."""
        with self.arrived:
            found = [m["params"]["update"] for m in self.messages if m.get("method") == "session/update"]
        return [u for u in found if kind is None or u["sessionUpdate"] == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        """The text of the message (or thought) chunks so far."""
        return "".join(u["content"]["text"] for u in self.updates(kind))

    def close(self) -> int:
        """Close stdin (the client goes away) and wait for ankit to end; its exit code."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.stdout.close()
            self.proc.stderr.close()
