"""The MCP stdio transport: a server process spoken to in newline-delimited JSON-RPC 2.0, read by its own thread."""

import codecs
import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

from ankit.mcp.jsonrpc import (  # noqa: F401 (McpError, METHOD_NOT_FOUND, LINE_CAP: also imported from here)
    JUNK_LOGGED, LINE_CAP, LOG_CAP, LOG_LINE, METHOD_NOT_FOUND, QUIET_NOTICES, Answer, Inbox, McpError, Notice, Waiter, open_log,
    redact, reply_to, request_message, rpc_error,
)
from ankit.safety import text as boundary
from ankit.safety.processes import end_group, spawn
from ankit.safety.scrub import Scrubber




class StdioTransport:
    """One server process in its own process group: requests with timeouts, stderr to a log, close (the group).

    One thread reads stdout; the server's own messages (requests, notifications) go through a bounded Inbox
    handled by one more thread, so a server that floods is stopped instead of costing a thread per message.
    """

    def __init__(self, name: str, command: str, args: list[str] | None = None, env: dict | None = None,
                 cwd: str | None = None, log_path: Path | None = None, on_notice: Notice | None = None,
                 answer: Answer | None = None):
        self.name = name
        self.answer = answer  # what ankit answers a server's own requests (roots, elicitation)
        self.command = command
        self.args = list(args or [])
        self.env = dict(env or {})
        self.cwd = cwd
        self.log_path = log_path
        self.on_notice = on_notice
        self.protocol_version = ""  # what the server agreed to (the HTTP transport sends it on each request)
        self.junk_lines = 0
        self.fatal = False  # stopped for misbehaving (a flood, an endless line): not to be restarted
        self._heard = False  # whether any valid JSON-RPC message arrived
        self._proc: subprocess.Popen | None = None
        self._log = None
        self._stderr: threading.Thread | None = None
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._pending: dict[int, Waiter] = {}
        self._next_id = 0
        self._dead = ""  # why the server is gone; empty while it runs
        self._inbox = Inbox(name, self._handle)

    @property
    def alive(self) -> bool:
        """Whether the process runs and its output is still being read."""
        return self._proc is not None and not self._dead

    @property
    def pid(self) -> int | None:
        """The server's process id, once started."""
        return self._proc.pid if self._proc is not None else None

    @property
    def failure(self) -> str:
        """One line saying why the server is gone (empty while it runs)."""
        return self._dead

    def spawn(self) -> None:
        """Start the process with its stderr going to the log; raise McpError in one line on failure."""
        if self.log_path is not None:
            self._log = open_log(self.log_path, self.name)
            self._note(f"starting {self.command} at {time.strftime('%Y-%m-%d %H:%M:%S')}")
        cwd = os.path.expanduser(self.cwd) if self.cwd else None
        if cwd and not os.path.isdir(cwd):
            raise McpError(f"MCP server {self.name!r}: cwd {self.cwd!r} is not a folder; fix it in [mcp.servers.{self.name}]")
        env = {**os.environ, **self.env}
        try:
            self._proc = spawn(  # its own group (Ctrl-C does not reach it), contained, tracked: close ends all of it
                [os.path.expanduser(self.command), *self.args], cwd, env, stdin=subprocess.PIPE,
                stderr=subprocess.PIPE if self._log else subprocess.DEVNULL)
        except OSError as exc:
            reason = "command not found" if isinstance(exc, FileNotFoundError) else exc.strerror or str(exc)
            raise McpError(f"MCP server {self.name!r} could not start {self.command!r}: {reason}; "
                           f"check command in [mcp.servers.{self.name}]") from None
        threading.Thread(target=self._read_loop, name=f"mcp-{self.name}-reader", daemon=True).start()
        if self._log is not None:
            self._stderr = threading.Thread(target=self._stderr_loop, name=f"mcp-{self.name}-stderr", daemon=True)
            self._stderr.start()

    def request(self, method: str, params: dict | None = None, timeout: float = 60.0, progress: bool = False) -> dict:
        """Send a request and wait for its result; raise McpError on error, timeout or exit. With progress, the
        request asks for progress notifications, and each one gives the server timeout seconds more."""
        waiter = Waiter(timeout)
        with self._lock:
            if self._dead:
                raise McpError(f"MCP server {self.name!r} {self._dead}")
            self._next_id += 1
            rid = self._next_id
            self._pending[rid] = waiter
        message = request_message(rid, method, params, progress)
        try:
            self._send(message)
        except McpError:
            self._pending.pop(rid, None)
            raise
        if not waiter.wait(self._exited):
            self._pending.pop(rid, None)
            if method != "initialize":  # the protocol forbids cancelling initialize
                self._send_quietly({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                    "params": {"requestId": rid, "reason": f"no answer within {timeout:g}s"}})
            raise McpError(self._timeout_line(method, timeout))
        if waiter.error:
            raise waiter.error
        return waiter.result

    def _exited(self) -> bool:
        """Whether the server process has exited (its children may still hold its output open, so the reader
        would not see it): then it is gone, with its exit code, and its group is ended."""
        proc = self._proc
        if proc is None or proc.poll() is None:
            return False
        self._gone(proc)
        return True

    def _timeout_line(self, method: str, timeout: float) -> str:
        line = f"MCP server {self.name!r} did not answer {method} within {timeout:g}s"
        if self.junk_lines and not self._heard:
            line += f"; it wrote {self.junk_lines} line(s) to stdout that are not JSON-RPC"
        return line

    def notify(self, method: str, params: dict | None = None) -> None:
        """Send a notification (no answer expected)."""
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._send(message)

    def _send(self, message: dict) -> None:
        data = (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise McpError(f"MCP server {self.name!r} is not running")
        try:
            with self._write_lock:
                proc.stdin.write(data)
                proc.stdin.flush()
        except (OSError, ValueError):
            if not self._dead:  # its input is closed: most likely it is exiting; say so with its code
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=0.5)
                self._exited()
            raise McpError(f"MCP server {self.name!r} {self._dead or 'closed its input'}") from None

    def _send_quietly(self, message: dict) -> None:
        try:
            self._send(message)
        except McpError:
            pass

    def _read_loop(self) -> None:
        proc = self._proc
        try:
            for raw in iter(lambda: proc.stdout.readline(LINE_CAP + 1), b""):
                if len(raw) > LINE_CAP:  # a line without end: reading on would take all the memory there is
                    self._stop(f"sent a line longer than {LINE_CAP // (1024 * 1024)} MB, so it was stopped")
                    break
                line = raw.decode("utf-8", "replace").strip()
                if not line:
                    continue
                try:
                    message = boundary.loads(line)  # the text boundary: no lone surrogate gets past here
                except (ValueError, RecursionError):  # nested too deep is junk too
                    self._junk(line)
                    continue
                for item in message if isinstance(message, list) else [message]:  # batches (2025-03-26)
                    self._dispatch(item, line)
        except (OSError, ValueError):
            pass
        self._gone(proc)

    def _stop(self, why: str) -> None:
        """Mark the server failed for why and end its process group (the reader then sees its output close)."""
        with self._lock:
            self._dead = self._dead or why
            self.fatal = True
        self._note(why)
        self._inbox.close()
        if self._proc is not None:
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)
            except OSError:
                pass

    def _dispatch(self, message, line: str) -> None:
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            self._junk(line)
        elif isinstance(message.get("method"), str):
            self._heard = True
            flood = self._inbox.put(message)
            if flood and not self.fatal:  # stopped once; what it still sends is dropped
                self._stop(flood)
        elif "id" in message and ("result" in message or "error" in message):
            self._heard = True
            self._respond(message)
        else:
            self._junk(line)

    def _respond(self, message: dict) -> None:
        waiter = self._pending.pop(message["id"], None) if isinstance(message["id"], int) else None
        if waiter is None:
            return  # late answer to a request that timed out
        error = message.get("error")
        if error is None:
            waiter.finish(message.get("result"))
            return
        waiter.finish(error=rpc_error(self.name, error, redactor=self._redact))

    def _handle(self, message: dict) -> None:
        """One message of the server's own, on the inbox thread (the reader never waits on a full stdin pipe)."""
        if "id" in message:
            self._send_quietly(reply_to(message, self.answer))
        else:
            self._notice(message["method"], message.get("params"))

    def _notice(self, method: str, params) -> None:
        params = params if isinstance(params, dict) else {}
        if method == "notifications/progress":
            token = params.get("progressToken")
            waiter = self._pending.get(token) if isinstance(token, int) else None
            if waiter is not None:
                waiter.deadline = time.monotonic() + waiter.timeout
        if method == "notifications/message":
            self._note(f"log {boundary.outside(params.get('level', 'info'), 20, line=True)}: "
                       f"{boundary.outside(json.dumps(params.get('data'), ensure_ascii=False), LOG_LINE, line=True)}")
        if self.on_notice is not None and method not in QUIET_NOTICES:
            self.on_notice(method, params)  # on the inbox thread: it may send requests and wait for the reader

    def _junk(self, line: str) -> None:
        self.junk_lines += 1
        if self.junk_lines <= JUNK_LOGGED:
            self._note(f"not JSON-RPC on stdout, ignored: {line[:500]}")

    def _stderr_loop(self) -> None:
        """The server's stderr into its log, line by line with its env values and other secrets hidden and escapes
        made visible (a server may print its settings; whoever reads the log reads it in a terminal), up to LOG_CAP
        bytes a run; the rest is read and dropped so the server never blocks on a full pipe."""
        scrub = Scrubber(values=[str(v) for v in self.env.values()])
        source, lines, room = self._proc.stderr, scrub.stream(), LOG_CAP
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        try:
            while chunk := source.read1(65536):
                room = self._log_bytes(boundary.outside(lines.feed(decoder.decode(chunk)), LOG_CAP, scrub), room)
            ending = lines.feed(decoder.decode(b"", final=True)) + lines.end()
            self._log_bytes(boundary.outside(ending, LOG_CAP, scrub), room)
        except (OSError, ValueError):
            pass

    def _log_bytes(self, text: str, room: int) -> int:
        """Write text (scrubbed, escapes made visible) to the log within room bytes; the room left."""
        data = text.encode("utf-8", "replace")[:max(room, 0)]
        log = self._log
        if data and log is not None:
            log.write(data)
        return room - len(data)

    def _note(self, text: str) -> None:
        if self._log is not None:
            try:
                self._log.write(f"[ankit] {self._redact(text)}\n".encode("utf-8", "replace"))
            except (OSError, ValueError):
                pass

    def _gone(self, proc: subprocess.Popen) -> None:
        try:
            code = proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        reason = "closed its output" if code is None else f"exited with code {code}"
        if self._stderr is not None:
            self._stderr.join(1.0)  # its last words reach the log before they are read back
        last = boundary.outside(self._redact(self._last_log_line()), 160, line=True)
        reason += f": {last}" if last else ""
        with self._lock:
            self._dead = self._dead or reason
            pending, self._pending = list(self._pending.values()), {}
        for waiter in pending:
            waiter.finish(error=McpError(f"MCP server {self.name!r} {self._dead}"))
        self._inbox.close()
        end_group(proc, 0.5)  # what the server started ends with it

    def _last_log_line(self) -> str:
        """The server's last line of stderr, a hint at why it stopped."""
        if self.log_path is None or not self.log_path.exists():
            return ""
        with open(self.log_path, "rb") as handle:
            handle.seek(max(0, self.log_path.stat().st_size - 4096))
            lines = [ln for ln in handle.read().decode("utf-8", "replace").splitlines()
                     if ln.strip() and not ln.startswith("[ankit]")]
        return lines[-1].strip()[:160] if lines else ""

    def _redact(self, text: str) -> str:
        """The server's own words with its env values and other secrets hidden: they are shown and saved."""
        return redact(text, [str(v) for v in self.env.values()])

    def close(self, grace: float = 1.0) -> None:
        """Close stdin and give the server grace seconds to exit (the stdio shutdown sequence), then end its whole
        process group: SIGTERM, and SIGKILL after grace to whatever is left (children included)."""
        proc = self._proc
        with self._lock:
            self._dead = self._dead or "was closed"
        self._inbox.close()
        if proc is not None:
            try:
                self._close_stdin()
                proc.wait(timeout=grace)
            except (subprocess.TimeoutExpired, OSError):
                pass
            end_group(proc, grace)
            if proc.stdout is not None:
                try:
                    proc.stdout.close()
                except OSError:
                    pass
        if self._log is not None:
            self._log.close()
            self._log = None

    def _close_stdin(self) -> None:
        # a writer stuck on a full pipe holds the lock: then go straight to terminate
        if self._proc is not None and self._proc.stdin is not None and self._write_lock.acquire(timeout=1):
            try:
                self._proc.stdin.close()
            finally:
                self._write_lock.release()
