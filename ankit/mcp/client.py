"""The MCP client: the initialize handshake, tools/list with its pages and tools/call, over stdio or Streamable HTTP."""

from pathlib import Path

from ankit import __version__
from ankit.mcp.transport import METHOD_NOT_FOUND, McpError, Notice, StdioTransport

PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")


class McpClient:
    """One MCP server: started with the handshake, asked for its tools, called; what it said about itself."""

    def __init__(self, name: str, command: str, args: list[str] | None = None, env: dict | None = None,
                 cwd: str | None = None, log_path: Path | None = None, on_notice: Notice | None = None,
                 url: str | None = None, headers: dict | None = None):
        self.name = name
        if url:
            from ankit.mcp.streamable import HttpTransport  # urllib and ssl cost start-up time: only when used
            self.transport = HttpTransport(name, url, headers, log_path, on_notice)
        else:
            self.transport = StdioTransport(name, command, args, env, cwd, log_path, on_notice)
        self.protocol_version = ""
        self.server_info: dict = {}
        self.instructions = ""

    @property
    def alive(self) -> bool:
        """Whether the server runs and is being listened to."""
        return self.transport.alive

    @property
    def failure(self) -> str:
        """One line saying why the server is gone (empty while it runs)."""
        return self.transport.failure

    def start(self, timeout: float) -> dict:
        """Launch the process and run the initialize handshake; raise McpError in one line on failure."""
        try:
            self.transport.spawn()
            result = self.transport.request("initialize", {
                "protocolVersion": PROTOCOL_VERSIONS[0],
                "capabilities": {},
                "clientInfo": {"name": "ankit", "version": __version__},
            }, timeout)
            self._accept(result)
            self.transport.notify("notifications/initialized")
        except McpError:
            self.close()
            raise
        return result

    def _accept(self, result: dict) -> None:
        version = result.get("protocolVersion")
        if version not in PROTOCOL_VERSIONS:
            raise McpError(f"MCP server {self.name!r} speaks protocol version {version!r}, which ankit does not "
                           f"support (it speaks {', '.join(PROTOCOL_VERSIONS)}); try another version of the server")
        self.protocol_version = self.transport.protocol_version = version
        info = result.get("serverInfo")
        self.server_info = info if isinstance(info, dict) else {}
        text = result.get("instructions")
        self.instructions = text.strip() if isinstance(text, str) else ""

    def list_tools(self, timeout: float) -> list[dict]:
        """Every tool the server offers, following nextCursor through all pages."""
        tools: list[dict] = []
        cursor, seen = None, set()
        while True:
            try:
                page = self.transport.request("tools/list", {"cursor": cursor} if cursor else {}, timeout)
            except McpError as exc:
                if exc.code == METHOD_NOT_FOUND:
                    return []  # a server without tools
                raise
            tools += [t for t in page.get("tools") or [] if isinstance(t, dict)]
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str) or not cursor or cursor in seen:
                return tools
            seen.add(cursor)

    def call_tool(self, name: str, arguments: dict, timeout: float) -> dict:
        """Call one tool by its original name; return the raw CallToolResult."""
        return self.transport.request("tools/call", {"name": name, "arguments": arguments}, timeout, progress=True)

    def close(self, grace: float = 1.0) -> None:
        """Stop the server process (grace: seconds each shutdown step waits)."""
        self.transport.close(grace)
