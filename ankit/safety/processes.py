"""The one way ankit starts a process (`spawn`), and processes ankit starts die with it: each runs in its own
session (process group), contained, tracked, and ending it ends the group.

The mechanism: start with `start_new_session=True` (so the group id is the leader's pid and a terminal's Ctrl-C
does not reach it), then `end_group`: SIGTERM to the whole group, SIGKILL after a short grace to whatever is left
(a leader that ignores SIGTERM, the children it started), and the leader reaped. Imports nothing from ankit.

Every group ankit starts (MCP servers, background jobs, command runs, `!command` lines, git) is also tracked
(`track`): when ankit exits (normally, on an error, or on SIGTERM/SIGHUP, which the CLI turns into an orderly
exit) `end_all` ends each tracked group that still has a member, the same way: SIGTERM, a short grace, SIGKILL.
A group whose leader already exited but whose children live on (a `cmd &` inside a command) is ended too.

A process that leaves its group (`setsid cmd &`, a double-forked daemon) is not reached by the group's signals, so
every command ankit starts goes through `contained`: the trampoline (confine.py) runs it under a child subreaper
that ends every descendant left when it exits (sandboxed commands get a PID namespace there instead).

`spawn` does all of that for every start: commands and jobs (toolkit/proc.py), git, hooks, `!` lines, MCP stdio
servers, code mode's program and the sandbox trampoline itself; `spawn(..., terminal=True)` alone (the pager, the
editor) starts a program in ankit's own group, in the terminal's foreground, because it reads the keyboard and the
user waits for it. Nothing else in ankit calls subprocess (tests/test_layout.py holds it).
"""

import atexit
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

from ankit import paths

_TRACKED: set[int] = set()  # process group ids ankit started and has not ended yet
_LOCK = threading.Lock()
EXIT_GRACE = 0.5  # seconds the groups still alive at exit get between SIGTERM and SIGKILL


def trampoline() -> list[str]:
    """How the trampoline starts: as a module, with -I -S (nothing from the working folder runs first)."""
    return paths.program("ankit.safety.confine")


def spawn(argv: list[str], cwd=None, env: dict | None = None, *, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
          stderr=subprocess.STDOUT, pass_fds: tuple = (), text: bool = False,
          terminal: bool = False) -> subprocess.Popen:
    """Start argv the one way ankit starts a process: contained, in its own session, tracked (ended when ankit
    ends). terminal: in ankit's own group instead, the terminal's foreground, for a program that reads the keyboard
    while ankit waits (the pager, the editor). OSError as Popen raises it."""
    decoding = {"encoding": "utf-8", "errors": "replace"} if text else {}
    if terminal:
        return subprocess.Popen(argv, cwd=cwd, env=env, stdin=stdin, stdout=stdout, stderr=stderr, **decoding)
    return track(subprocess.Popen(contained(argv, env, cwd), cwd=cwd, env=env, stdin=stdin, stdout=stdout,
                                  stderr=stderr, pass_fds=pass_fds, start_new_session=True, **decoding))


def run(argv: list[str], cwd=None, env: dict | None = None, timeout: float | None = None,
        text: bool = True) -> subprocess.CompletedProcess:
    """Run argv to its end through spawn (stdout and stderr kept apart); a timeout or a Ctrl-C ends its whole
    group before subprocess.TimeoutExpired or KeyboardInterrupt goes on."""
    proc = spawn(argv, cwd, env, stderr=subprocess.PIPE, text=text)
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            end_group(proc)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def contained(argv: list[str], env: dict | None = None, cwd=None) -> list[str]:
    """argv started so that nothing it starts outlives it (Linux: under the trampoline's subreaper); argv already
    started through the trampoline (the sandbox's) and argv elsewhere stay as they are. FileNotFoundError, as
    Popen raises it, when argv[0] is no program (PATH from env, a relative path from cwd)."""
    confine = trampoline()
    if not sys.platform.startswith("linux") or argv[:len(confine)] == confine:
        return argv
    found = shutil.which(argv[0], path=(env or os.environ).get("PATH")) if os.sep not in argv[0] else argv[0]
    where = os.path.join(cwd or ".", found or "")
    if not found or not os.access(where, os.X_OK) or os.path.isdir(where):
        raise FileNotFoundError(2, "No such file or directory", argv[0])
    return [*confine, "--contain-only", "--", *argv]


def group_alive(pgid: int) -> bool:
    """Whether any process of the group still runs (a zombie waiting for its parent counts as gone)."""
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return any(_member(entry, pgid) for entry in _proc_entries())


def _proc_entries() -> list[str]:
    try:
        return [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:  # no /proc (macOS): the signal's answer above is all there is
        return ["self"]


def _member(pid: str, pgid: int) -> bool:
    """Whether /proc says pid is a live (not zombie) member of the group; True where /proc cannot tell."""
    if pid == "self":
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rpartition(b")")[2].split()
    except OSError:
        return False
    return fields[0] != b"Z" and int(fields[2]) == pgid


def _settle(proc: subprocess.Popen, grace: float) -> bool:
    """Wait up to grace for the group to be gone (reaping the leader on the way); return whether it is."""
    deadline = time.monotonic() + grace
    while True:
        proc.poll()
        if not group_alive(proc.pid):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


def end_group(proc: subprocess.Popen, grace: float = 1.0) -> None:
    """SIGTERM the process's whole group, then SIGKILL whatever is left after grace seconds; reap the leader.

    The process must have been started with start_new_session=True: its pid is then the group's id.
    """
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            break
        if _settle(proc, grace if sig == signal.SIGTERM else max(grace, 1.0)):
            break
    try:
        proc.wait(timeout=1)
    except subprocess.TimeoutExpired:
        pass


def track(proc: subprocess.Popen) -> subprocess.Popen:
    """Remember a process started with start_new_session=True: its whole group is ended when ankit exits."""
    with _LOCK:
        _TRACKED.add(proc.pid)
    return proc


def end_all(grace: float = EXIT_GRACE) -> list[int]:
    """End every tracked group that still has a member: SIGTERM to all, grace seconds, SIGKILL to what is left;
    return the group ids that were still alive."""
    with _LOCK:
        groups = sorted(_TRACKED)
        _TRACKED.clear()
    alive = [g for g in groups if group_alive(g)]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pgid in alive:
            try:
                os.killpg(pgid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        deadline = time.monotonic() + (grace if sig == signal.SIGTERM else 1.0)
        while any(group_alive(g) for g in alive) and time.monotonic() < deadline:
            time.sleep(0.02)
    return alive


atexit.register(end_all)
