"""Appending to session files, the lock, and repairing unanswered calls (ankit/storage/journal.py)."""

import threading
import time

from ankit.records import Message, ToolCall, ToolResult
from ankit.storage import journal


def test_append_starts_on_a_fresh_line_after_a_torn_write(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":')
    journal.append(path, ['{"c":3}'])
    assert path.read_bytes() == b'{"a":1}\n{"b":\n{"c":3}\n'


def test_the_lock_is_exclusive(tmp_path):
    path, order = tmp_path / "s.jsonl", []

    def other():
        with journal.locked(path):
            order.append("other")

    with journal.locked(path):
        thread = threading.Thread(target=other)
        thread.start()
        time.sleep(0.2)
        order.append("first")
    thread.join(30)
    assert order == ["first", "other"]


def test_repair_answers_every_call_without_a_result():
    messages = [Message("user", "go"),
                Message("assistant", "", [ToolCall("a", "x", "{}"), ToolCall("b", "y", "{}")]),
                Message("tool", results=[ToolResult("a", "x", "done")]),
                Message("assistant", "", [ToolCall("c", "z", "{}")])]
    assert journal.repair(messages) == 2
    assert [r.call_id for r in messages[2].results] == ["a", "b"] and messages[2].results[1].is_error
    assert messages[4].role == "tool" and messages[4].results[0].content == journal.CANCELLED
    assert journal.repair(messages) == 0
