"""Time limits, import limits and nesting depth (ankit/tooling/limits.py)."""

import threading
import time

import pytest

from ankit.tooling.limits import ToolTimeout, call_with_limit, import_with_limit, too_deep


def test_call_with_limit_interrupts_the_main_thread_and_is_a_keyboard_interrupt():
    started = time.monotonic()
    with pytest.raises(ToolTimeout):
        call_with_limit(lambda: time.sleep(10), 0.3)
    assert time.monotonic() - started < 5 and issubclass(ToolTimeout, KeyboardInterrupt)
    assert call_with_limit(lambda: 42, 1) == 42


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
