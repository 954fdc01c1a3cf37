"""Bounds on what a tool may do to ankit: run time, import time, nesting depth; a tool never takes ankit down."""

import signal
import threading
from collections.abc import Callable

from ankit.errors import ToolTimeout

IMPORT_LIMIT = 5.0  # seconds a tool module may take to import before it is abandoned
MAX_DEPTH = 64  # nesting of a call's arguments; deeper is an error result, never a RecursionError


def _run_in_thread(fn: Callable, seconds: float):
    """fn() in a worker thread; ToolTimeout when it is not done in time (the thread is abandoned)."""
    box: dict = {}

    def work():
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the caller, whatever it is
            box["error"] = exc

    worker = threading.Thread(target=work, daemon=True, name="ankit-tool")
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise ToolTimeout()
    if "error" in box:
        raise box["error"]
    return box.get("value")


def call_with_limit(fn: Callable, seconds: float | None):
    """fn() that raises ToolTimeout after `seconds`.

    In the main thread an alarm signal interrupts the tool where it is, so Ctrl-C handling and cleanup in the
    tool stay on one thread; elsewhere (no signals there) the call runs in a thread that is abandoned.
    """
    if not seconds or seconds <= 0:
        return fn()
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return _run_in_thread(fn, seconds)

    def alarm(signum, frame):
        raise ToolTimeout()

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def import_with_limit(load: Callable, seconds: float = IMPORT_LIMIT):
    """load() in a worker thread, abandoned after `seconds` with TimeoutError (a module that hangs on import)."""
    try:
        return _run_in_thread(load, seconds)
    except ToolTimeout:
        raise TimeoutError(f"importing it took longer than {seconds:g} s; it was abandoned") from None


def too_deep(value, limit: int = MAX_DEPTH) -> bool:
    """Whether lists and dicts nest deeper than limit (checked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False
