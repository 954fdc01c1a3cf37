"""Every known tool by name, as one mapping that the catalog replaces whole when it is rebuilt."""

from collections.abc import Iterator, Mapping

from ankit.tooling.tool import Tool


class Toolset(Mapping):
    """Every known tool by name (files, built-ins, MCP), replaced whole when the catalog is rebuilt."""

    def __init__(self, tools: dict[str, Tool] | None = None):
        self._tools = dict(tools or {})

    def replace(self, tools: dict[str, Tool]) -> None:
        """Put a new set of tools in place (one assignment, so a reader never sees half of it)."""
        self._tools = dict(tools)

    def __getitem__(self, name: str) -> Tool:
        return self._tools[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    def search(self, query: str) -> str:
        """Run find_tools for a query (ctx.find_tools, /find)."""
        finder = self._tools.get("find_tools")
        if finder is None:
            return "find_tools is not available here"
        return str(finder.run({"query": query}, None))
