"""Subprocesses for tools: a shell in its own process group, bounded output capture, group kill.

Nothing started here outlives the call that started it, except background jobs (which the session stops at
exit): a timeout, a Ctrl-C (KeyboardInterrupt) or any other exception while a command runs stops its whole
process group with SIGINT, then SIGTERM, then SIGKILL after short grace periods.
"""

__all__ = ["run", "Outcome", "spawn", "Capture", "LiveText", "stop", "release", "shell", "shell_line", "printed",
           "GENTLE"]

import atexit
import codecs
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ankit.errors import ToolError, ToolTimeout
from ankit.safety import processes
from ankit.toolkit.edits import editor_of

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
_LIVE: list[subprocess.Popen] = []
CUT_MARK = "\n[... {} bytes of output cut ...]\n"


@dataclass
class Capture:
    """Output kept within bounds: the first head_limit bytes and the last tail_limit bytes."""

    head_limit: int = 16_000
    tail_limit: int = 24_000
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    total: int = 0
    lines: int = 0  # newlines seen, kept or not
    listener: Callable[[bytes], None] | None = None  # told of each chunk as it arrives (live output)
    lock: threading.Lock = field(default_factory=threading.Lock)
    done: threading.Event = field(default_factory=threading.Event)  # set once the reader saw end of output

    def feed(self, chunk: bytes) -> None:
        """Add output, dropping the middle once both ends are full."""
        if self.listener is not None:
            try:
                self.listener(chunk)
            except Exception:  # showing output must never lose it
                pass
        with self.lock:
            self.total += len(chunk)
            self.lines += chunk.count(b"\n")
            room = self.head_limit - len(self.head)
            if room > 0:
                self.head += chunk[:room]
                chunk = chunk[room:]
            self.tail += chunk
            del self.tail[: max(0, len(self.tail) - self.tail_limit)]

    @property
    def cut(self) -> int:
        """How many bytes were dropped from the middle."""
        with self.lock:
            return self.total - len(self.head) - len(self.tail)

    def text(self, last_lines: int | None = None) -> str:
        """The kept output as text, with a marker where bytes were dropped; ANSI colours removed."""
        with self.lock:
            head, tail, total = bytes(self.head), bytes(self.tail), self.total
        dropped = total - len(head) - len(tail)
        joined = _decode(head)
        if dropped:
            joined += CUT_MARK.format(dropped)
        joined += _decode(tail)
        if last_lines:
            joined = "\n".join(joined.splitlines()[-last_lines:])
        return joined


def _decode(data: bytes) -> str:
    return ANSI.sub("", data.decode("utf-8", errors="replace")).replace("\r\n", "\n")


class LiveText:
    """Output chunks decoded as they come (colours removed), for a tool's ctx.output; counts the characters."""

    def __init__(self, show: Callable[[str], None] | None):
        self.show = show
        self.chars = 0
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def feed(self, chunk: bytes) -> None:
        """Decode one chunk and pass it on."""
        text = self.decoder.decode(chunk)
        self.chars += len(text)
        if self.show is not None and text:
            self.show(ANSI.sub("", text))


def printed(outcome: "Outcome", chars: int) -> str:
    """' · 6,853 lines', with ' · 40,000 of 1.2 M characters sent' when the middle was cut."""
    lines = outcome.lines + (1 if outcome.output and not outcome.output.endswith("\n") else 0)
    text = f" · {lines:,} line{'' if lines == 1 else 's'}" if lines else " · no output"
    if outcome.cut:
        kept = len(outcome.output) - len(CUT_MARK.format(outcome.cut))
        shown = f"{chars / 1e6:.1f} M" if chars >= 1_000_000 else f"{chars:,}"
        text += f" · {kept:,} of {shown} characters sent"
    return text


def shell() -> list[str]:
    """The shell to run command lines with: bash when present, else sh."""
    return [shutil.which("bash") or "/bin/sh", "-c"]


def shell_line(command: str, args: dict, ctx) -> list[str]:
    """The shell running a command line, inside the session's sandbox when it has one (ctx.confine decides from
    the call's args: `sandbox: false` that the user approved runs outside)."""
    argv = [*shell(), command]
    confine = getattr(ctx, "confine", None)
    return confine(argv, args) if confine is not None else argv


def spawn(argv: list[str], cwd: Path, capture: Capture, stdin=subprocess.DEVNULL) -> tuple[subprocess.Popen, threading.Thread]:
    """Start argv in a new process group, stdout and stderr merged into capture by a reader thread."""
    proc = _popen(argv, cwd, stdin)
    try:
        return proc, _read_into(proc, capture)
    except BaseException:  # a Ctrl-C while the reader starts (its output may be what prompted it): stop the group
        stop(proc)
        raise


def _popen(argv: list[str], cwd: Path, stdin) -> subprocess.Popen:
    env = {**os.environ, "PAGER": "cat", "GIT_PAGER": "cat", "NO_COLOR": "1"}
    proc = processes.spawn(argv, cwd, env, stdin=stdin)  # its own group, ended with ankit (safety/processes.py)
    _LIVE.append(proc)
    return proc


def _read_into(proc: subprocess.Popen, capture: Capture) -> threading.Thread:
    """A started thread feeding the process's output to capture (capture.done is set at its end)."""
    reader = threading.Thread(target=_pump, args=(proc.stdout, capture), daemon=True)
    reader.start()
    return reader


def _pump(stream, capture: Capture) -> None:
    try:
        with stream:
            while chunk := os.read(stream.fileno(), 65536):
                capture.feed(chunk)
    finally:
        capture.done.set()


GENTLE = (signal.SIGINT, signal.SIGTERM)  # what a Ctrl-C or a timeout sends first, in order


def stop(proc: subprocess.Popen, signals: tuple = GENTLE, grace: float = 1.0) -> str:
    """Stop a whole process group: each signal in turn with a grace period, then SIGKILL for whatever is left.

    Returns the signal that ended the leader. A second Ctrl-C while waiting goes straight to SIGKILL (and is
    raised again once nothing is left).
    """
    ended_by, interrupted = "SIGKILL", None
    try:
        for sig in signals:
            _signal_group(proc.pid, sig)
            try:
                proc.wait(grace)
            except subprocess.TimeoutExpired:
                continue
            ended_by = signal.Signals(sig).name
            break
    except KeyboardInterrupt as interrupt:
        interrupted = interrupt
    _signal_group(proc.pid, signal.SIGKILL)  # children that ignored the signals or outlived the leader
    try:
        proc.wait(5.0)
    except subprocess.TimeoutExpired:
        pass
    release(proc)
    if interrupted is not None:
        raise interrupted
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
    total: int = 0  # bytes printed
    cut: int = 0  # bytes dropped from the middle
    lines: int = 0  # lines printed


def run(argv: list[str], cwd: Path, timeout: float, on_output: Callable[[bytes], None] | None = None,
        ctx=None) -> Outcome:
    """Run argv to completion or timeout; at timeout the whole process group is stopped.

    on_output hears each chunk as it arrives. A Ctrl-C (KeyboardInterrupt) or ankit's time limit for the tool
    (ToolTimeout) stops the group too, and is raised again with a message saying what the command had printed.
    With ctx in an editor that offers terminals (ankit acp), argv runs in one of them: the editor shows its
    output live, and it is killed at the timeout or a cancel.
    """
    editor = editor_of(ctx, "runs")
    if editor is not None:
        return _in_editor(editor, argv, cwd, timeout)
    capture, started = Capture(listener=on_output), time.monotonic()
    proc, used = _popen(argv, cwd, subprocess.DEVNULL), ""
    try:
        _read_into(proc, capture)  # in the try: a Ctrl-C its first output prompts may come before it returns
        code = proc.wait(timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        used = stop(proc)
        code, timed_out = proc.returncode, True
    except (KeyboardInterrupt, ToolTimeout) as exc:  # Ctrl-C, or ankit's time limit for the tool
        used = stop(proc)
        capture.done.wait(1.0)
        who = "by the user " if isinstance(exc, KeyboardInterrupt) else ""
        exc.args = (f"stopped {who}after {time.monotonic() - started:.1f} s: the command and its child processes "
                    f"were ended ({used}); output so far:\n{capture.text().rstrip() or '(none)'}",)
        raise
    finally:
        if proc.poll() is None:  # any other exception: nothing is left running
            stop(proc)
        release(proc)
    capture.done.wait(2.0)
    return Outcome(code, capture.text(), timed_out, time.monotonic() - started, used, capture.total, capture.cut,
                   capture.lines)


def _in_editor(editor, argv: list[str], cwd: Path, timeout: float) -> Outcome:
    """argv run in a terminal of the user's editor, its output kept within the same bounds as run()'s."""
    started, capture = time.monotonic(), Capture()
    try:
        ran = editor.run(argv, cwd, timeout)
    except KeyboardInterrupt as exc:
        exc.args = (f"stopped by the user after {time.monotonic() - started:.1f} s: the command was killed in the "
                    "editor's terminal",)
        raise
    except OSError as exc:
        raise ToolError(f"the editor could not run the command: {exc}") from None
    capture.feed(ran.output.encode("utf-8", "replace"))
    return Outcome(ran.code, capture.text(), ran.timed_out, ran.seconds or time.monotonic() - started,
                   ran.signal, capture.total, capture.cut, capture.lines)


def release(proc: subprocess.Popen) -> None:
    """Forget a process that has been stopped or reaped, so the exit hook leaves it alone."""
    if proc in _LIVE:
        _LIVE.remove(proc)


@atexit.register
def _stop_leftovers() -> None:
    """Background jobs do not outlive the session: each one still running is named on stderr and stopped."""
    for proc in list(_LIVE):
        if proc.poll() is None:
            command = re.sub(r"[\x00-\x1f\x7f-\x9f]", "?", str(proc.args[-1] if isinstance(proc.args, list) else proc.args))
            print(f"ankit: stopping background job (pid {proc.pid}): {command[:200]}", file=sys.stderr)
            stop(proc, (signal.SIGTERM,), grace=0.5)
