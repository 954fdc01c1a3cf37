"""Session files written by appending: what is new since the last save goes at the end, under an exclusive lock.

A save at turn 200 costs what a save at turn 2 does, a crash mid-write loses at most the line being written
(a reader skips it, and the next append starts on a fresh line), and two processes continuing one session both
keep their turns: each appends what it added, never rewriting what the other wrote. Only a history changed in
place (/clear, /compact, /retry) is rewritten whole, atomically.

A turn in progress is kept apart until it ends (`Progress`): its lines so far sit in a hidden `.ID.turn` file
beside the session, locked by the process running the turn, and go into the session file whole at its end, so a
second process's turn never lands inside it. A process killed mid-turn leaves the file unlocked; the next
reader of the folder adds its lines to the session (`recover`), so the question and the calls made are kept.
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


class Progress:
    """The lines of the turns under way in this process, one locked `.ID.turn` file per session."""

    def __init__(self):
        self.files: dict[Path, int] = {}  # the session file's path -> the locked descriptor of its turn file

    def keep(self, path: Path, lines: list[str]) -> None:
        """Replace what the turn file of the session at path holds with lines (flushed to disk)."""
        fd = self.files.get(path)
        while fd is None:  # locked on the file the name holds (a reader may have just taken an empty one away)
            fd = statefiles.open_private(turn_file(path))
            fcntl.flock(fd, fcntl.LOCK_EX)
            if os.fstat(fd).st_ino != _inode(turn_file(path)):
                os.close(fd)
                fd = None
        self.files[path] = fd
        data = "".join(line + "\n" for line in lines).encode("utf-8", "replace")
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
        os.fsync(fd)

    def drop(self, path: Path) -> None:
        """The turn's lines are going into the session file: its turn file goes (before they are written)."""
        fd = self.files.pop(path, None)
        if fd is not None:
            with contextlib.suppress(OSError):
                turn_file(path).unlink()
            os.close(fd)


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None


def turn_file(path: Path) -> Path:
    """Where the turn under way of the session at path is kept."""
    return path.with_name(f".{path.stem}.turn")


def recover(folder: Path) -> None:
    """Add each turn file that no live process holds (its turn was killed) to its session file."""
    for turn in folder.glob(".*.turn"):
        path = folder / f"{turn.stem[1:]}.jsonl"
        try:
            fd = statefiles.open_private(turn, os.O_RDWR)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            lines = os.pread(fd, os.fstat(fd).st_size, 0).decode("utf-8", "replace").splitlines()
            with locked(path):
                turn.unlink()
                if lines:
                    append(path, lines)
        except OSError:  # held by the process running the turn, or gone meanwhile
            pass
        finally:
            os.close(fd)
