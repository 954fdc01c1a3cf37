"""Running a pure computation under a deadline: in a forked child whose answer comes back through a pipe.

Python's regular expression engine never checks for signals or releases the GIL, so a catastrophic pattern
(`(a+)+$` on a long line) cannot be stopped from inside the process; a child can be killed.
"""

import json
import os
import select
import signal
import time
import warnings


def run_with_deadline(work, seconds: float, error_class=Exception):
    """work() (returning JSON-able data) in a child process; TimeoutError once `seconds` pass.

    An exception in the child comes back as error_class(message). Where fork is missing, work() runs here.
    """
    if not hasattr(os, "fork"):
        return work()
    read, write = os.pipe()
    with warnings.catch_warnings():  # fork() in a threaded process: the child only computes and exits
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:
        _child(work, read, write)
    os.close(write)
    try:
        kind, value = _collect(read, time.monotonic() + seconds)
    finally:
        os.close(read)
        _reap(pid)
    if kind == "error":
        raise error_class(value)
    return value


def _child(work, read: int, write: int) -> None:
    """Compute and send the answer, then exit: the child never returns into its caller, a copy of the parent
    (an answer that is no JSON, a Ctrl-C before its handler, a pipe the parent closed at the deadline)."""
    try:
        os.close(read)
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends the child at once
        try:
            answer = ["ok", work()]
        except BaseException as exc:  # noqa: BLE001 - everything goes back to the parent as one line
            answer = ["error", str(exc) or type(exc).__name__]
        data = json.dumps(answer).encode("utf-8", "replace")
        while data:
            data = data[os.write(write, data):]
    finally:
        os._exit(0)


def _collect(read: int, deadline: float) -> list:
    chunks = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        ready, _, _ = select.select([read], [], [], left)
        if ready:
            chunk = os.read(read, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    try:
        return json.loads(b"".join(chunks))
    except ValueError:
        return ["error", "the search stopped unexpectedly"]


def _reap(pid: int) -> None:
    """Kill the child if it still runs, and collect it."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
