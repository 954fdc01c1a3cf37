"""Where `ankit mcp login` keeps a server's OAuth client and tokens: one file per server under ankit's private
state, through the state-file layer (safety/statefiles.py: 0600 in a 0700 folder, no symlink followed, atomic),
and ignored when another user owns it or others can read it. `secrets()` hands every token to the scrubber, so
none reaches a screen or a log.
"""

import hashlib
import json
import os
from pathlib import Path

from ankit.mcp.jsonrpc import McpError
from ankit.safety import statefiles


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
        text = statefiles.read_cache(path, 1024 * 1024)
        try:
            private = text is not None and not os.stat(path, follow_symlinks=False).st_mode & 0o077
            data = json.loads(text) if private else {}
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) and data.get("url") == url else {}

    def save(self, name: str, url: str, data: dict) -> None:
        """Write the server's entry through ankit's state-file layer (atomic, 0600 in a 0700 folder)."""
        try:
            statefiles.write(self._path(name, url), json.dumps({**data, "url": url}))
        except OSError as exc:  # StateFileError (a symlink, another user's folder) says what to fix
            raise McpError(f"cannot keep the login for MCP server {name!r}: {exc}") from None

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
                data = json.loads(statefiles.read_cache(path, 1024 * 1024) or "{}")
            except ValueError:
                continue
            tokens = data.get("tokens") if isinstance(data, dict) else None
            if isinstance(tokens, dict):
                found += [str(tokens[k]) for k in ("access_token", "refresh_token") if tokens.get(k)]
        return found
