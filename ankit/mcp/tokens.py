"""Where `ankit mcp login` keeps a server's tokens (one file per server) and the clients it registered (one file
per authorization server, kept across logouts: a client is registered once, not at every login), under ankit's
private state, through the state-file layer (safety/statefiles.py: 0600 in a 0700 folder, no symlink followed,
atomic), and ignored when another user owns it or others can read it. `secrets()` hands every token and client
secret to the scrubber, so none reaches a screen or a log.
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

    def _client_path(self, issuer: str) -> Path:
        return self.folder / f"client-{hashlib.sha256(issuer.encode()).hexdigest()[:24]}.json"

    def load(self, name: str, url: str) -> dict:
        """What is stored for the server (empty when nothing is, or the file is not safely ours)."""
        data = _private(self._path(name, url))
        return data if data.get("url") == url else {}

    def client(self, issuer: str) -> dict:
        """The client registered with this authorization server ({} when none is kept)."""
        data = _private(self._client_path(issuer))
        return data.get("client") or {} if data.get("issuer") == issuer and isinstance(data.get("client"), dict) else {}

    def keep_client(self, issuer: str, client: dict) -> None:
        """Keep a client registered with this authorization server, for every later login."""
        try:
            statefiles.write(self._client_path(issuer), json.dumps({"issuer": issuer, "client": client}))
        except OSError as exc:
            raise McpError(f"cannot keep the client registered at {issuer!r}: {exc}") from None

    def save(self, name: str, url: str, data: dict) -> None:
        """Write the server's entry through ankit's state-file layer (atomic, 0600 in a 0700 folder)."""
        try:
            statefiles.write(self._path(name, url), json.dumps({**data, "url": url}))
        except OSError as exc:  # StateFileError (a symlink, another user's folder) says what to fix
            raise McpError(f"cannot keep the login for MCP server {name!r}: {exc}") from None

    def forget_client(self, issuer: str) -> None:
        """Forget the client registered with this authorization server (it no longer knows it)."""
        self._client_path(issuer).unlink(missing_ok=True)

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
            for part, keys in (("tokens", ("access_token", "refresh_token")), ("client", ("client_secret",))):
                held = data.get(part) if isinstance(data, dict) else None
                if isinstance(held, dict):
                    found += [str(held[k]) for k in keys if held.get(k)]
        return found


def _private(path: Path) -> dict:
    """A JSON object from a file of ours that others cannot read ({} otherwise)."""
    text = statefiles.read_cache(path, 1024 * 1024)
    try:
        private = text is not None and not os.stat(path, follow_symlinks=False).st_mode & 0o077
        data = json.loads(text) if private else {}
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
