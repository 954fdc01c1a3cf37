"""What the user hears of the MCP servers: `ankit mcp list` and /mcp, one server's page, and the lines told once."""

import threading

from ankit.mcp import NO_SERVERS
from ankit.mcp.prompts import prompt_commands, usage
from ankit.mcp.server import Server, state
from ankit.mcp.transport import McpError


class McpStatus:
    """The servers' state as lines for the user; what server threads queue is told before the next turn, once."""

    def __init__(self, servers: list[Server]):
        self._servers = servers
        self._lock = threading.Lock()
        self._queued: list[str] = []  # lines for the user from server threads, until before_turn tells them
        self._told: set[str] = set()

    def queue(self, line: str) -> None:
        """A line for the user from a server thread, told with the next news."""
        with self._lock:
            self._queued.append(line)

    def server_text(self, name: str) -> str:
        """/mcp NAME: the server's state, its prompts (slash commands) and resources (@NAME:URI)."""
        server = next((s for s in self._servers if s.name == name), None)
        if server is None:
            raise McpError(f"no MCP server named {name!r}; /mcp lists them")
        lines = [f"{server.name}: {state(server)}", f"  {len(server.tools)} tools (/tools mcp:{server.name})"]
        commands = prompt_commands(server.label, server.prompts)
        lines += ["  prompts:" if commands else "  no prompts"]
        lines += [f"    {usage(c, p)}  {str(p.get('description') or '').splitlines()[0][:60] if p.get('description') else ''}".rstrip()
                  for c, p in commands.items()]
        lines += ["  resources:" if server.resources else "  no resources"]
        lines += [f"    @{server.name}:{r['uri']}  {str(r.get('name') or '')[:40]}".rstrip()
                  for r in server.resources if isinstance(r.get("uri"), str)]
        return "\n".join(lines)

    def lines(self) -> list[str]:
        """For `ankit mcp list` and /mcp: each server's state (not started, starting, ready, not answering, failed)
        and its tools."""
        if not self._servers:
            return [NO_SERVERS]
        lines = []
        for server in self._servers:
            lines.append(f"{server.name}: {state(server)}")
            for tool in server.tools:
                first = (tool.description.splitlines() or [""])[0]
                lines.append(f"  {tool.name}  {first[:70] + ('...' if len(first) > 70 else '')}")
            lines += [f"  {problem}" for problem in server.problems]
        return lines

    def troubled(self) -> bool:
        """Whether any server failed, is not answering, ran out of its startup_timeout or stays off (`ankit mcp
        list` then exits 1)."""
        return any(state(s).startswith(("failed", "not answering", "did not answer")) for s in self._servers)

    def failures(self) -> list[str]:
        """One line per server that could not start or be configured, or was stopped for good, for the user to see
        once."""
        lines = []
        for s in self._servers:
            client = s.client
            if s.stays_off or (client is not None and client.fatal):
                lines.append(f"MCP server {s.name!r} {s.stays_off or client.failure} (log: {s.log_path})")
            elif s.error and (client is None or not client.alive):
                lines.append(s.error + (f" (log: {s.log_path})" if s.config else ""))
        return lines

    def news(self) -> list[str]:
        """Lines the user has not been told yet, each once."""
        with self._lock:
            lines, self._queued = self._queued, []
        lines += [f"MCP server {s.name!r} is not answering after {s.config.start_timeout:g}s: its tools are missing "
                  f"from this turn (they join if it answers later; log: {s.log_path})"
                  for s in self._servers if s.config is not None and s.overdue()]
        lines += self.failures()
        fresh = [line for line in dict.fromkeys(lines) if line not in self._told]
        self._told.update(fresh)
        return fresh
