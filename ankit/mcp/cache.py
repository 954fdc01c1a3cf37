"""The MCP tool-list cache: each server's last tools/list on disk, keyed by how the server is started."""

import hashlib
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

FORMAT = 1  # bump when what is stored changes


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
        """The stored entry {tools, instructions, server_info, listed}, or None."""
        try:
            data = json.loads((self.folder / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or not isinstance(data.get("tools"), list):
            return None
        return data

    def save(self, key: str, tools: list[dict], instructions: str = "", server_info: dict | None = None) -> None:
        """Store a server's list atomically (a reader never sees half a file); a failure only costs speed."""
        entry = {"tools": tools, "instructions": instructions, "server_info": server_info or {},
                 "listed": time.strftime("%Y-%m-%d %H:%M")}
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=f".{key}.", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(entry, handle, ensure_ascii=False)
            os.replace(tmp, self.folder / f"{key}.json")
        except (OSError, TypeError, ValueError):
            try:
                os.unlink(tmp)
            except (OSError, UnboundLocalError):
                pass
