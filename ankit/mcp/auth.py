"""Authorization of the MCP servers over HTTP: OAuth login in the browser (or with a pasted address, or the device
flow), and logout (imported only for them: oauth.py loads urllib and http.server)."""

from pathlib import Path

from ankit.mcp import oauth
from ankit.mcp.device import device_login
from ankit.mcp.server import Server
from ankit.mcp.settings import ServerConfig
from ankit.mcp.tokens import TokenStore
from ankit.mcp.transport import McpError


class McpLogin:
    """Logs a server over HTTP in and out; its next start (or call) uses the token."""

    def __init__(self, servers: list[Server], log_dir: Path):
        self._servers = servers
        self.log_dir = log_dir

    def login(self, name: str, open_url, say, paste=None, device: bool = False) -> str:
        """`ankit mcp login NAME [--device]` / `/mcp login NAME`: OAuth in the browser (or a pasted address, or the
        device flow) for a server over HTTP; its next start (or call) uses the token."""
        cfg, store = self._http_config(name), TokenStore(self.log_dir / "auth")
        if device:
            line = device_login(cfg.name, cfg.url, store, say, client_id=cfg.oauth_client_id, scope=cfg.oauth_scope)
        else:
            line = oauth.login(cfg.name, cfg.url, store, open_url, say, client_id=cfg.oauth_client_id,
                               scope=cfg.oauth_scope, paste=paste)
        server = next(s for s in self._servers if s.name == name)
        with server.lock:
            server.error, server.restarts = "", 0  # a start refused for want of a login may go again
        return line

    def logout(self, name: str) -> str:
        """Forget (and revoke) a server's login."""
        cfg = self._http_config(name)
        return oauth.logout(cfg.name, cfg.url, TokenStore(self.log_dir / "auth"))

    def _http_config(self, name: str) -> ServerConfig:
        server = next((s for s in self._servers if s.name == name), None)
        if server is None:
            raise McpError(f"no MCP server named {name!r}; see ankit mcp list")
        if server.config is None:
            raise McpError(server.error)
        if not server.config.url:
            raise McpError(f"MCP server {name!r} runs on this machine (command); only servers over HTTP log in")
        return server.config
