"""Time limits, import limits and nesting depth (ankit/tooling/limits.py)."""

import threading
import time

import pytest

from ankit.tooling.limits import ToolTimeout, call_with_limit, import_with_limit, too_deep


def test_call_with_limit_interrupts_the_main_thread():
    started = time.monotonic()
    with pytest.raises(ToolTimeout):
        call_with_limit(lambda: time.sleep(10), 0.3)
    assert time.monotonic() - started < 5
    assert call_with_limit(lambda: 42, 1) == 42


def test_a_timeout_is_neither_a_ctrl_c_nor_an_error_a_handler_can_swallow():
    cleaned = []

    def tool():
        try:
            time.sleep(10)
        except (KeyboardInterrupt, Exception):  # what a Ctrl-C handler or a careless tool catches
            return "swallowed"
        finally:
            cleaned.append(True)

    with pytest.raises(ToolTimeout):
        call_with_limit(tool, 0.3)
    assert cleaned == [True]


def test_call_with_limit_off_the_main_thread_abandons_the_call():
    box = {}

    def worker():
        try:
            call_with_limit(lambda: time.sleep(10), 0.3)
        except ToolTimeout:
            box["stopped"] = True

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(30)
    assert box == {"stopped": True}


def test_import_with_limit():
    with pytest.raises(TimeoutError, match="longer than 0.2 s"):
        import_with_limit(lambda: time.sleep(5), 0.2)
    with pytest.raises(ValueError):
        import_with_limit(lambda: int("x"), 1)


def test_too_deep():
    deep = []
    for _ in range(100):
        deep = [deep]
    assert too_deep(deep) and not too_deep({"a": [[{"b": 1}]]})
