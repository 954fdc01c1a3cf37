"""The MCP servers' prompts (slash commands) and resources (@NAME:URI mentions)."""

from collections.abc import Callable

from ankit.mcp.client import McpClient
from ankit.mcp.prompts import fill, messages_text, prompt_commands, resource_text
from ankit.mcp.server import Server
from ankit.mcp.transport import McpError
from ankit.safety.text import outside

PROMPT_CAP = 100_000  # characters of a prompt's messages sent as the user's message

class McpContent:
    """Prompts and resources of the servers; a server not running is started (`running`) to answer."""

    def __init__(self, servers: list[Server], running: Callable[[Server], McpClient]):
        self._servers = servers
        self._running = running

    def prompts(self) -> dict[str, tuple[str, dict]]:
        """Every server's prompts as slash commands: command name -> (server name, prompt)."""
        return {command: (s.name, prompt) for s in self._servers
                for command, prompt in prompt_commands(s.label, s.prompts).items()}

    def prompt_text(self, command: str, arguments: str) -> str:
        """Run one prompt command (the server starts if it has not): its messages as the text to send."""
        name, prompt = self.prompts()[command]
        server = next(s for s in self._servers if s.name == name)
        filled = fill(command, prompt, arguments)
        client = self._running(server)
        return outside(messages_text(client.get_prompt(prompt["name"], filled, server.config.timeout)), PROMPT_CAP)

    def resources(self) -> list[tuple[str, dict]]:
        """(server name, resource) for every server's listed resources."""
        return [(s.name, r) for s in self._servers for r in s.resources if isinstance(r.get("uri"), str)]

    def read(self, name: str, uri: str) -> str:
        """The text of one resource of a server (started if it has not), for an @NAME:URI mention."""
        server = next((s for s in self._servers if s.name == name and s.config is not None), None)
        if server is None:
            raise McpError(f"no MCP server named {name!r}; see /mcp")
        client = self._running(server)
        return resource_text(name, uri, client.read_resource(uri, server.config.timeout))
