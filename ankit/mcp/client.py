"""The MCP client: the initialize handshake, tools/list with its pages and tools/call, over stdio or Streamable HTTP."""

import json
from pathlib import Path

from ankit import __version__
from ankit.mcp.transport import METHOD_NOT_FOUND, McpError, Notice, StdioTransport

PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
PAGE_CAP = 100  # tools/list pages followed; a server that always gives a new cursor stops here
TOOLS_CAP = 2000  # tools taken from one server in all
TOOLS_BYTES_CAP = 8 * 1024 * 1024  # their definitions' JSON in all


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
        self.list_note = ""  # one line when the last tools/list was cut at a cap

    @property
    def alive(self) -> bool:
        """Whether the server runs and is being listened to."""
        return self.transport.alive

    @property
    def fatal(self) -> bool:
        """Whether the server was stopped for misbehaving (a flood, an endless line): it is not restarted."""
        return self.transport.fatal

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
        """Every tool the server offers, following nextCursor through its pages up to PAGE_CAP pages, TOOLS_CAP
        tools and TOOLS_BYTES_CAP bytes of definitions (list_note then says so)."""
        tools: list[dict] = []
        cursor, seen, size = None, set(), 0
        self.list_note = ""
        for _ in range(PAGE_CAP):
            try:
                page = self.transport.request("tools/list", {"cursor": cursor} if cursor else {}, timeout)
            except McpError as exc:
                if exc.code == METHOD_NOT_FOUND:
                    return []  # a server without tools
                raise
            for tool in (t for t in page.get("tools") or [] if isinstance(t, dict)):
                size += len(json.dumps(tool, ensure_ascii=False))
                if len(tools) >= TOOLS_CAP or size > TOOLS_BYTES_CAP:
                    return self._cut(tools)
                tools.append(tool)
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str) or not cursor or cursor in seen:
                return tools
            seen.add(cursor)
        return self._cut(tools)

    def _cut(self, tools: list[dict]) -> list[dict]:
        self.list_note = (f"MCP server {self.name!r} offers more tools than ankit takes (at most {PAGE_CAP} pages, "
                          f"{TOOLS_CAP} tools, {TOOLS_BYTES_CAP // (1024 * 1024)} MB); only its first "
                          f"{len(tools)} are used")
        return tools

    def call_tool(self, name: str, arguments: dict, timeout: float) -> dict:
        """Call one tool by its original name; return the raw CallToolResult."""
        return self.transport.request("tools/call", {"name": name, "arguments": arguments}, timeout, progress=True)

    def close(self, grace: float = 1.0) -> None:
        """Stop the server process (grace: seconds each shutdown step waits)."""
        self.transport.close(grace)
