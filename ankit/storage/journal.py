"""Session files written by appending: what is new since the last save goes at the end, under an exclusive lock.

A save at turn 200 costs what a save at turn 2 does, a crash mid-write loses at most the line being written
(a reader skips it, and the next append starts on a fresh line), and two processes continuing one session both
keep their turns: each appends what it added, never rewriting what the other wrote. Only a history changed in
place (/clear, /compact, /retry) is rewritten whole, atomically.
"""

import contextlib
import fcntl
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ankit.records import Message, ToolResult
from ankit.safety import statefiles

CANCELLED = "Error: cancelled (ankit stopped before this call ran)"


@dataclass
class Mark:
    """What this process knows the file holds: counts, and the last message's line to check the prefix by."""

    messages: int
    last: str
    rounds: int
    header: str
    activated: str
    todos: str = ""  # the checklist's line ("" for none)
    subagents: int = 0  # subagent runs written


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock on one session file, held across processes. A rewrite replaces the file, so the lock
    is taken again until it is held on the file the path names now."""
    while True:
        fd = statefiles.open_private(path, os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if os.fstat(fd).st_ino == os.stat(path).st_ino:
                break
        except FileNotFoundError:
            pass
        os.close(fd)
    try:
        yield
    finally:
        os.close(fd)  # closing releases the lock


def append(path: Path, lines: list[str]) -> None:
    """Add lines at the end of the file, on a fresh line even after a torn write, and flush them to disk."""
    fd = statefiles.open_private(path, os.O_RDWR | os.O_APPEND)
    try:
        size = os.fstat(fd).st_size
        torn = size > 0 and os.pread(fd, 1, size - 1) != b"\n"
        data = ("\n" if torn else "") + "".join(line + "\n" for line in lines)
        view = memoryview(data.encode("utf-8", "replace"))
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


def repair(messages: list[Message]) -> int:
    """Answer every tool call that has no result as cancelled (a crash or kill mid-turn), so the history can be
    sent again; returns how many calls were answered."""
    answered = 0
    index = 0
    while index < len(messages):
        message = messages[index]
        if message.role == "assistant" and message.tool_calls:
            following = messages[index + 1] if index + 1 < len(messages) else None
            if following is None or following.role != "tool":
                following = Message("tool", results=[])
                messages.insert(index + 1, following)
            have = {r.call_id for r in following.results}
            missing = [c for c in message.tool_calls if c.id not in have]
            following.results += [ToolResult(c.id, c.name, CANCELLED, True) for c in missing]
            answered += len(missing)
        index += 1
    return answered
