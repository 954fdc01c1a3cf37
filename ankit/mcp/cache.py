"""The MCP tool-list cache: each server's last tools/list on disk, keyed by how the server is started.

Kept through ankit's state-file layer (safety/statefiles.py): a file another user owns or could have written is
no entry. An entry lists tools to offer before the server has started; it never decides what a tool may do
unasked (make_tools(..., hints=False)): that waits for the live server's own list."""

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

from ankit.safety import statefiles

FORMAT = 1  # bump when what is stored changes
FAILED_FOR = 600  # seconds a server that did not start is not waited for again (it still starts in the background)


def cache_key(command: str, args: list[str], env: dict, cwd: str | None) -> str:
    """A key for one way of starting a server: command, arguments, env names (never values), folder, and the
    executable's identity (path, size, modification time), so an upgraded server is listed afresh."""
    program = os.path.expanduser(command)
    found = shutil.which(program) or program
    try:
        info = os.stat(found)
        identity = [os.path.realpath(found), info.st_size, info.st_mtime_ns]
    except OSError:
        identity = [found]
    data = json.dumps([FORMAT, command, list(args), sorted(env), cwd, identity], ensure_ascii=False)
    return hashlib.sha256(data.encode()).hexdigest()[:32]


class ToolCache:
    """One JSON file per key under a folder only the user can read; a broken or missing file is no entry."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    def load(self, key: str) -> dict | None:
        """The stored entry {tools, instructions, server_info, listed, protocol, prompts, resources}, or None."""
        try:
            data = json.loads(statefiles.read_cache(self.folder / f"{key}.json") or "null")
        except (ValueError, RecursionError):
            return None
        if not isinstance(data, dict) or not isinstance(data.get("tools"), list):
            return None
        return data

    def save(self, key: str, tools: list[dict], instructions: str = "", server_info: dict | None = None,
             protocol: str = "", prompts: list | None = None, resources: list | None = None) -> None:
        """Store a server's lists atomically (a reader never sees half a file); a failure only costs speed."""
        entry = {"tools": tools, "instructions": instructions, "server_info": server_info or {},
                 "listed": time.strftime("%Y-%m-%d %H:%M"), "protocol": protocol, "prompts": prompts or [],
                 "resources": resources or []}
        try:
            statefiles.write(self.folder / f"{key}.json", json.dumps(entry, ensure_ascii=False))
        except (OSError, TypeError, ValueError):
            pass

    def remember_failure(self, key: str, reason: str) -> None:
        """Note that the server started this way did not start (nothing waits for it for a while)."""
        entry = {"at": time.time(), "when": time.strftime("%H:%M"), "reason": reason[:300]}
        try:
            statefiles.write(self.folder / f"{key}.failed.json", json.dumps(entry, ensure_ascii=False))
        except (OSError, TypeError, ValueError):
            pass

    def failure(self, key: str, now: float | None = None) -> dict | None:
        """The recent failure noted for this key {at, when, reason}, or None (none, or older than FAILED_FOR)."""
        try:
            data = json.loads(statefiles.read_cache(self.folder / f"{key}.failed.json") or "null")
        except (ValueError, RecursionError):
            return None
        if not isinstance(data, dict) or not isinstance(data.get("at"), (int, float)):
            return None
        age = (time.time() if now is None else now) - data["at"]
        return data if 0 <= age < FAILED_FOR else None

    def forget_failure(self, key: str) -> None:
        """The server started: nothing to remember."""
        try:
            (self.folder / f"{key}.failed.json").unlink()
        except OSError:
            pass
