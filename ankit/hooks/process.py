"""One hook command as a process: its own process group, tracked so it dies with ankit, its input written and
its output read on their own threads, each stream capped as it arrives (the rest is read and dropped, never
held), and the whole group ended at the timeout."""

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ankit.safety.text import decode

OUTPUT_CAP = 64 * 1024  # bytes of a hook's stdout or stderr that are kept
CHUNK = 65536
LEFTOVER_GRACE = 2.0  # seconds a hook's background children may hold its output open after it exits


@dataclass
class Finished:
    """How one hook process ended: its exit code (None: it did not run to its end), its capped output, and a
    line saying what went wrong when it did not run to its end."""

    code: int | None
    out: str = ""
    err: str = ""
    failure: str = ""
    dropped: int = 0  # bytes of output past the cap, read and thrown away


class _Capped:
    """Reads one stream to its end on a thread, keeping the first `cap` bytes."""

    def __init__(self, stream, cap: int):
        self.kept, self.dropped, self.cap = bytearray(), 0, cap
        self.thread = threading.Thread(target=self._pump, args=(stream,), daemon=True, name="ankit-hook-output")
        self.thread.start()

    def _pump(self, stream) -> None:
        try:
            while chunk := stream.read1(CHUNK) if hasattr(stream, "read1") else stream.read(CHUNK):
                room = self.cap - len(self.kept)
                self.kept += chunk[:max(room, 0)]
                self.dropped += max(len(chunk) - max(room, 0), 0)
        except (OSError, ValueError):
            pass

    def text(self) -> str:
        return decode(bytes(self.kept))


def _feed(process, data: bytes) -> None:
    """Write the event to the hook's stdin and close it; a hook that does not read it is no error."""
    try:
        process.stdin.write(data)
    except (BrokenPipeError, OSError, ValueError):
        pass
    try:
        process.stdin.close()
    except (BrokenPipeError, OSError, ValueError):
        pass


def run(command: str, data: bytes, cwd: Path, env: dict, timeout: float, cap: int = OUTPUT_CAP) -> Finished:
    """Run a hook's shell command with data on stdin; stop its whole group at the timeout or on Ctrl-C."""
    from ankit.safety.processes import end_group, spawn, subprocess  # here: listings start without it
    try:
        process = spawn(["/bin/sh", "-c", command], cwd, env, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as exc:
        return Finished(None, failure=f"could not start ({exc.strerror or exc})")
    threading.Thread(target=_feed, args=(process, data), daemon=True, name="ankit-hook-input").start()
    out, err = _Capped(process.stdout, cap), _Capped(process.stderr, cap)
    try:
        code = _wait(process, out, err, timeout, subprocess.TimeoutExpired, end_group)
    except BaseException:  # Ctrl-C: the hook's whole group goes too
        end_group(process, grace=0.2)
        raise
    if code is None:
        return Finished(None, out.text(), err.text(), f"stopped after {timeout:g} s (its timeout)")
    return Finished(code, out.text(), err.text(), dropped=out.dropped + err.dropped)


def _wait(process, out: _Capped, err: _Capped, timeout: float, expired: type, end_group) -> int | None:
    """The hook's exit code, or None when it ran past its timeout (its group is ended either way once it is
    past its time; what it left running with its output still open gets LEFTOVER_GRACE seconds). `expired` and
    `end_group` are subprocess.TimeoutExpired and processes.end_group, imported only once a hook runs."""
    deadline = time.monotonic() + timeout
    try:
        code = process.wait(timeout)
    except expired:
        end_group(process, grace=0.2)
        return None
    for reader in (out, err):
        reader.thread.join(max(min(deadline, time.monotonic() + LEFTOVER_GRACE) - time.monotonic(), 0))
    if out.thread.is_alive() or err.thread.is_alive():
        end_group(process, grace=0.2)
        for reader in (out, err):
            reader.thread.join(1)
    return code


def environment(cwd: Path, extra: dict[str, str]) -> dict[str, str]:
    """The environment a hook runs with: ankit's, the settings' env, and Claude Code's variables."""
    return {**os.environ, **extra, "CLAUDE_PROJECT_DIR": str(cwd), "ANKIT_PROJECT_DIR": str(cwd)}
