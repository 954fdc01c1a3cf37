"""Appending to session files, the lock, and repairing unanswered calls (ankit/storage/journal.py)."""

import fcntl
import threading

import pytest

from ankit.records import Message, ToolCall, ToolResult
from ankit.storage import journal


def test_append_starts_on_a_fresh_line_after_a_torn_write(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":')
    journal.append(path, ['{"c":3}'])
    assert path.read_bytes() == b'{"a":1}\n{"b":\n{"c":3}\n'


def test_the_lock_is_exclusive_while_held_and_free_once_released(tmp_path):
    path, held, release = tmp_path / "s.jsonl", threading.Barrier(2), threading.Barrier(2)

    def holder():
        with journal.locked(path):
            held.wait(30)  # the lock is held from here...
            release.wait(30)  # ...until the test has tried to take it

    thread = threading.Thread(target=holder)
    thread.start()
    held.wait(30)
    with open(path, "rb") as other:  # another open file, as another process would have
        with pytest.raises(BlockingIOError):
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        release.wait(30)
        thread.join(30)
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released: taken at once
        fcntl.flock(other, fcntl.LOCK_UN)
    with journal.locked(path):
        pass


def test_repair_answers_every_call_without_a_result():
    messages = [Message("user", "go"),
                Message("assistant", "", [ToolCall("a", "x", "{}"), ToolCall("b", "y", "{}")]),
                Message("tool", results=[ToolResult("a", "x", "done")]),
                Message("assistant", "", [ToolCall("c", "z", "{}")])]
    assert journal.repair(messages) == 2
    assert [r.call_id for r in messages[2].results] == ["a", "b"] and messages[2].results[1].is_error
    assert messages[4].role == "tool" and messages[4].results[0].content == journal.CANCELLED
    assert journal.repair(messages) == 0
