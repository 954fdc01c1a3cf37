"""Toolset: every known tool by name, replaced whole, and find_tools reached through it."""

from ankit.tooling.toolbox import Tool
from ankit.tooling.toolset import Toolset


def tool(name, run=lambda args, ctx: "ran"):
    return Tool(name, f"{name} tool", {"type": "object", "properties": {}}, run)


def test_replace_puts_a_whole_new_set_in_place():
    tools = Toolset({"a": tool("a")})
    tools.replace({"b": tool("b"), "c": tool("c")})
    assert sorted(tools) == ["b", "c"] and len(tools) == 2 and "a" not in tools


def test_search_runs_find_tools_or_says_it_is_not_there():
    tools = Toolset({"a": tool("a")})
    assert tools.search("files") == "find_tools is not available here"
    tools.replace({"find_tools": tool("find_tools", lambda args, ctx: f"found for {args['query']}")})
    assert tools.search("files") == "found for files"
