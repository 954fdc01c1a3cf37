"""Where `ankit mcp login` keeps a server's OAuth client and tokens: one file per server, 0600 in a 0700 folder
under ankit's private state, opened without following symlinks, written atomically, and ignored when another user
owns it or others can read it. `secrets()` hands every token to the scrubber, so none reaches a screen or a log.
"""

import hashlib
import json
import os
import secrets
from pathlib import Path

from ankit.mcp.jsonrpc import McpError


class TokenStore:
    """One JSON file per server under a private folder: its client registration and its tokens."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def _path(self, name: str, url: str) -> Path:
        key = hashlib.sha256(f"{name}\0{url}".encode()).hexdigest()[:24]
        return self.folder / f"{key}.json"

    def load(self, name: str, url: str) -> dict:
        """What is stored for the server (empty when nothing is, or the file is not safely ours)."""
        path = self._path(name, url)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return {}
        with open(fd, encoding="utf-8") as handle:
            info = os.fstat(handle.fileno())
            if info.st_uid != os.getuid() or info.st_mode & 0o077:
                return {}  # written by someone else, or readable by others: not trusted, not used
            try:
                data = json.load(handle)
            except ValueError:
                return {}
        return data if isinstance(data, dict) and data.get("url") == url else {}

    def save(self, name: str, url: str, data: dict) -> None:
        """Write the server's entry atomically, 0600 in a 0700 folder."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if self.folder.is_symlink() or self.folder.stat().st_uid != os.getuid():
            raise McpError(f"{self.folder} is not a folder of yours; ankit keeps no tokens there")
        os.chmod(self.folder, 0o700)
        path = self._path(name, url)
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with open(fd, "w", encoding="utf-8") as handle:
            json.dump({**data, "url": url}, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)

    def forget(self, name: str, url: str) -> bool:
        """Remove the server's entry; return whether there was one."""
        try:
            self._path(name, url).unlink()
        except FileNotFoundError:
            return False
        return True

    def secrets(self) -> list[str]:
        """Every stored token, for the scrubber."""
        found = []
        for path in self.folder.glob("*.json") if self.folder.is_dir() else []:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            tokens = data.get("tokens") if isinstance(data, dict) else None
            if isinstance(tokens, dict):
                found += [str(tokens[k]) for k in ("access_token", "refresh_token") if tokens.get(k)]
        return found
