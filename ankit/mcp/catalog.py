"""The catalog the MCP servers feed: their tools as ankit Tools, their groups mcp:NAME and what describes them."""

from ankit.mcp.server import Server, summary
from ankit.tooling.tool import Tool


class McpCatalog:
    """What the servers listed, in config order, as the discovery catalog reads it."""

    def __init__(self, servers: list[Server]):
        self._servers = servers

    def tools(self) -> list[Tool]:
        """The tools of every server whose list has arrived, in config order."""
        return [tool for server in self._servers for tool in server.tools]

    def listed(self) -> list[tuple[str, str, list[Tool]]]:
        """(name, label, tools) of every server whose list has arrived, in config order."""
        return [(server.name, server.label, server.tools) for server in self._servers if server.tools]

    def group_meta(self) -> dict[str, dict]:
        """Catalog metadata per group mcp:NAME: summary (the server's instructions, if any) and core flag; the
        search has the server's name as a field of its tools (ankit.discovery.index)."""
        return {f"mcp:{s.name}": {**({"summary": summary(s)} if summary(s) else {}),
                                  "core": bool(s.config and s.config.core)} for s in self._servers}

    def core_groups(self) -> list[str]:
        """Groups of the servers configured with core = true."""
        return [f"mcp:{s.name}" for s in self._servers if s.config is not None and s.config.core]

    def server_names(self) -> list[str]:
        """The configured servers' names."""
        return [s.name for s in self._servers if s.config is not None]
