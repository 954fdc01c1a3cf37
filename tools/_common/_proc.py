"""Subprocesses for tools: a shell in its own process group, bounded output capture, group kill."""

import atexit
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_LIVE: list[subprocess.Popen] = []


@dataclass
class Capture:
    """Output kept within bounds: the first head_limit bytes and the last tail_limit bytes."""

    head_limit: int = 16_000
    tail_limit: int = 24_000
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    total: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def feed(self, chunk: bytes) -> None:
        """Add output, dropping the middle once both ends are full."""
        with self.lock:
            self.total += len(chunk)
            room = self.head_limit - len(self.head)
            if room > 0:
                self.head += chunk[:room]
                chunk = chunk[room:]
            self.tail += chunk
            del self.tail[: max(0, len(self.tail) - self.tail_limit)]

    def text(self, last_lines: int | None = None) -> str:
        """The kept output as text, with a marker where bytes were dropped; ANSI colours removed."""
        with self.lock:
            head, tail, total = bytes(self.head), bytes(self.tail), self.total
        dropped = total - len(head) - len(tail)
        joined = _decode(head)
        if dropped:
            joined += f"\n[... {dropped} bytes of output cut ...]\n"
        joined += _decode(tail)
        if last_lines:
            joined = "\n".join(joined.splitlines()[-last_lines:])
        return joined


def _decode(data: bytes) -> str:
    return ANSI.sub("", data.decode("utf-8", errors="replace")).replace("\r\n", "\n")


def shell() -> list[str]:
    """The shell to run command lines with: bash when present, else sh."""
    return [shutil.which("bash") or "/bin/sh", "-c"]


def spawn(argv: list[str], cwd: Path, capture: Capture) -> tuple[subprocess.Popen, threading.Thread]:
    """Start argv in a new process group, stdout and stderr merged into capture by a reader thread."""
    env = {**os.environ, "PAGER": "cat", "GIT_PAGER": "cat", "NO_COLOR": "1"}
    proc = subprocess.Popen(
        argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True, env=env,
    )
    _LIVE.append(proc)
    reader = threading.Thread(target=_pump, args=(proc.stdout, capture), daemon=True)
    reader.start()
    return proc, reader


def _pump(stream, capture: Capture) -> None:
    with stream:
        while chunk := os.read(stream.fileno(), 65536):
            capture.feed(chunk)


def stop(proc: subprocess.Popen, grace: float = 2.0) -> str:
    """Stop a whole process group: SIGTERM, then SIGKILL for whatever is left; say what ended the leader."""
    _signal_group(proc.pid, signal.SIGTERM)
    try:
        proc.wait(grace)
        ended_by = "SIGTERM"
    except subprocess.TimeoutExpired:
        ended_by = "SIGKILL"
    _signal_group(proc.pid, signal.SIGKILL)  # children that ignored SIGTERM or outlived the leader
    try:
        proc.wait(5.0)
    except subprocess.TimeoutExpired:
        pass
    release(proc)
    return ended_by


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


@dataclass
class Outcome:
    """How a finished command went."""

    code: int | None
    output: str
    timed_out: bool
    seconds: float
    signal_used: str = ""


def run(argv: list[str], cwd: Path, timeout: float) -> Outcome:
    """Run argv to completion or timeout; at timeout the whole process group is killed."""
    capture, started = Capture(), time.monotonic()
    proc, reader = spawn(argv, cwd, capture)
    try:
        code = proc.wait(timeout)
        timed_out, used = False, ""
    except subprocess.TimeoutExpired:
        used = stop(proc)
        code, timed_out = proc.returncode, True
    finally:
        release(proc)
    reader.join(2.0)
    return Outcome(code, capture.text(), timed_out, time.monotonic() - started, used)


def release(proc: subprocess.Popen) -> None:
    """Forget a process that has been stopped or reaped, so the exit hook leaves it alone."""
    if proc in _LIVE:
        _LIVE.remove(proc)


@atexit.register
def _stop_leftovers() -> None:
    """Background jobs do not outlive the session."""
    for proc in list(_LIVE):
        if proc.poll() is None:
            stop(proc, grace=0.5)
