"""Checkpoints: the content a tool call is about to change, kept per session and turn so /undo can put it back.

Any tool that declares `changes(args, ctx)` (the paths it will write, move, create or delete) is covered: the
runner keeps each path's state just before the call runs and notes the state it leaves behind. /undo
restores the last turn that changed files, and refuses a file whose current state is not the one ankit
left (it was changed outside ankit since); /rewind restores every turn from a point of the conversation on.
Kept under the session's folder, `<sessions>/<id>.checkpoints/`, through ankit's state-file layer
(safety/statefiles.py). A path is put back only inside the working folder and only through real folders
(statefiles.beneath): a parent swapped for a symlink since is refused.
"""

import hashlib
import json
import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ankit.safety import statefiles

FILE_CAP = 20 * 1024 * 1024  # bytes of one file kept; bigger files are not covered (and say so)
TREE_CAP = 2000  # files of one folder kept (a folder that is moved or deleted)
ABSENT = "absent"


@dataclass
class Undone:
    """What /undo did: files put back, files removed (the turn created them), and files left alone with the
    reason."""

    turn: int = 0
    restored: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """One line a file: restored, removed, or why it was left alone (paths as given: make them visible)."""
        return ([f"restored {path}" for path in self.restored] + [f"removed {path} (the turn created it)"
                                                               for path in self.removed] + self.refused)

    def told(self) -> str:
        """What the model is told of it, or "" when no file changed."""
        parts = ([f"restored {', '.join(self.restored)} to what they were before it"] if self.restored else []) + (
            [f"removed {', '.join(self.removed)}, which it had created"] if self.removed else [])
        return "; ".join(parts)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def state_of(path: Path) -> str:
    """A hash of what is at path now: a file's bytes, a folder's files (names and bytes), or 'absent'."""
    if path.is_symlink():  # the link itself, never what it points to
        return "link:" + os.readlink(path)
    if path.is_file():
        return "file:" + _digest(path.read_bytes())
    if path.is_dir():
        files = sorted((str(p.relative_to(path)), p) for p in path.rglob("*") if p.is_file())
        listing = "\n".join(f"{rel} {_digest(p.read_bytes())}" for rel, p in files[:TREE_CAP])
        return "dir:" + _digest(listing.encode())
    return ABSENT


class Checkpoints:
    """The checkpoints of one session at a time; `begin` says which session and turn the next calls belong to."""

    def __init__(self, root: Path, cwd: Path | None = None):
        self.root = Path(root)  # the sessions folder
        self.cwd = Path(cwd) if cwd is not None else None  # the working folder: nothing is restored outside it
        self.session = ""
        self.turn = 0
        self.at = 0  # where the turn's user message stands in the history (what /rewind goes back to)
        self.notes: list[str] = []  # one line per path that could not be kept, for the user

    def begin(self, session_id: str, turn: int, at: int = 0) -> None:
        """The calls that follow belong to this session's turn, whose user message is message `at`."""
        self.session, self.turn, self.at = session_id, turn, at

    @property
    def folder(self) -> Path:
        return self.root / f"{self.session}.checkpoints"

    def _index(self) -> list[dict]:
        try:
            entries = json.loads(statefiles.read_cache(self.folder / "index.json") or "[]")
        except (ValueError, RecursionError):
            return []
        return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []

    def _write_index(self, entries: list[dict]) -> None:
        statefiles.write(self.folder / "index.json", json.dumps(entries))

    def _blob(self, path: Path) -> tuple[str, int]:
        data = path.read_bytes()
        name = _digest(data)
        target = self.folder / name
        if not target.exists():
            statefiles.write(target, data)
        return name, path.stat().st_mode & 0o7777

    def _before(self, path: Path) -> dict | None:
        """The state to restore later, or None when it is too big to keep."""
        if path.is_symlink():
            return {"kind": "link", "target": os.readlink(path)}
        if path.is_file():
            if path.stat().st_size > FILE_CAP:
                return None
            blob, mode = self._blob(path)
            return {"kind": "file", "blob": blob, "mode": mode}
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.is_file())
            if len(files) > TREE_CAP or any(p.stat().st_size > FILE_CAP for p in files):
                return None
            return {"kind": "dir", "files": {str(p.relative_to(path)): self._blob(p) for p in files}}
        return {"kind": ABSENT}

    def keep(self, paths: list[Path]) -> None:
        """Before a call: keep each path's state, unless this turn already kept it."""
        if not self.session or not paths:
            return
        entries = self._index()
        kept = {e["path"] for e in entries if e.get("turn") == self.turn}
        for path in paths:
            key = os.path.abspath(path)
            if key in kept:
                continue
            try:
                before = self._before(Path(key))
            except OSError as exc:
                before, why = None, exc.strerror or str(exc)
            else:
                why = "too big"
            if before is None:
                self.notes.append(f"{path}: not kept for /undo ({why})")
                continue
            entries.append({"turn": self.turn, "at": self.at, "path": key, "before": before,
                            "after": state_of(Path(key))})
            kept.add(key)
        self._write_index(entries)

    def settle(self, paths: list[Path]) -> None:
        """After a call: note the state it left, so /undo can tell a later change made outside ankit."""
        if not self.session or not paths:
            return
        entries = self._index()
        wanted = {os.path.abspath(p) for p in paths}
        for entry in entries:
            if entry.get("turn") == self.turn and entry.get("path") in wanted:
                entry["after"] = state_of(Path(entry["path"]))
        self._write_index(entries)

    def undo(self, session_id: str) -> Undone:
        """Restore the files of the latest turn that changed any (of this session); its checkpoint is used up."""
        self.session = session_id
        entries = self._index()
        changed = [e for e in entries if e.get("after") != self._before_state(e)]
        if not changed:
            return Undone()
        turn = max(e.get("turn", 0) for e in changed)
        done = self._put_back([e for e in entries if e.get("turn") == turn], Undone(turn))
        self._write_index([e for e in entries if e.get("turn") != turn])
        return done

    def rewind(self, session_id: str, at: int) -> Undone:
        """Restore what every turn from message `at` on changed, newest first; those checkpoints are used up."""
        self.session = session_id
        entries = self._index()
        since = [e for e in entries if isinstance(e.get("at"), int) and e["at"] >= at]
        done = self._put_back(since, Undone(min((e.get("turn", 0) for e in since), default=0)))
        self._write_index([e for e in entries if e not in since])
        return done

    def changed_since(self, session_id: str, at: int) -> list[str]:
        """The files the turns from message `at` on changed (what /rewind would put back)."""
        self.session = session_id
        since = [e for e in self._index() if isinstance(e.get("at"), int) and e["at"] >= at
                 and e.get("after") != self._before_state(e)]
        return list(dict.fromkeys(str(e["path"]) for e in since))

    def _put_back(self, entries: list[dict], done: Undone) -> Undone:
        """Restore the entries' files, last kept first; a file changed outside ankit since is left alone."""
        for entry in reversed(entries):
            path = Path(entry["path"])
            if state_of(path) != entry.get("after"):
                done.refused.append(f"{path}: changed outside ankit since; left as it is")
                continue
            if entry.get("after") == self._before_state(entry):
                continue  # the call changed nothing here (declined or failed)
            try:
                self._restore(path, entry["before"])
            except OSError as error:
                done.refused.append(f"{path}: {error.strerror or error}")
                continue
            for listed in (done.restored, done.removed):  # the earliest entry of a path says where it ends
                if str(path) in listed:
                    listed.remove(str(path))
            (done.removed if self._before_state(entry) == ABSENT else done.restored).append(str(path))
        return done

    def _before_state(self, entry: dict) -> str:
        """The state hash of an entry's kept content, to compare with what the call left."""
        before = entry.get("before") or {}
        kind = before.get("kind")
        if kind == "file":
            return "file:" + before["blob"]
        if kind == "link":
            return "link:" + before["target"]
        if kind == "dir":
            listing = "\n".join(f"{rel} {blob}" for rel, (blob, _) in sorted(before["files"].items()))
            return "dir:" + _digest(listing.encode())
        return ABSENT

    def _restore(self, path: Path, before: dict) -> None:
        """Put a path back as it was, reached through real folders inside the working folder only."""
        kind = before.get("kind")
        with statefiles.beneath(self._root(path), path, create=True) as (fd, name):
            _remove(fd, name)
            if kind == "file":
                self._put(fd, name, before["blob"], before["mode"])
            elif kind == "link":
                os.symlink(before["target"], name, dir_fd=fd)
            elif kind == "dir":
                os.mkdir(name, dir_fd=fd)
        if kind == "dir":
            for rel, (blob, mode) in before["files"].items():
                with statefiles.beneath(self._root(path), path / rel, create=True) as (fd, name):
                    _remove(fd, name)
                    self._put(fd, name, blob, mode)

    def _root(self, path: Path) -> Path:
        """The folder a path is restored beneath: the working folder (the path's own folder when none is known)."""
        return self.cwd if self.cwd is not None else path.parent

    def _put(self, fd: int, name: str, blob: str, mode: int) -> None:
        data = statefiles.read(self.folder / blob)
        if data is None:
            raise FileNotFoundError(2, "its kept copy is gone")
        out = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=fd)
        with os.fdopen(out, "wb") as handle:
            handle.write(data)
            os.fchmod(handle.fileno(), mode & 0o7777)

    def copy(self, session_id: str, new_id: str) -> None:
        """Give a forked session the checkpoints of the one it came from (the original keeps its own)."""
        source, target = self.root / f"{session_id}.checkpoints", self.root / f"{new_id}.checkpoints"
        for path in sorted(source.iterdir()) if source.is_dir() else []:
            data = statefiles.read(path) if path.is_file() and not path.is_symlink() else None
            if data is not None:
                statefiles.write(target / path.name, data)

    def forget(self, session_id: str) -> None:
        """Remove a session's checkpoints (ankit sessions rm)."""
        shutil.rmtree(self.root / f"{session_id}.checkpoints", ignore_errors=True)


def _remove(fd: int, name: str) -> None:
    """Remove what is at name in the open folder (a folder's whole tree; a link itself, never its target)."""
    try:
        info = os.lstat(name, dir_fd=fd)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(name, dir_fd=fd)
    else:
        os.unlink(name, dir_fd=fd)
