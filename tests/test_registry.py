"""The registry: every known tool, and when MCP servers start (real fake servers over stdio)."""

import json
import sys
import threading
from pathlib import Path

from ankit.mcp.cache import ToolCache
from ankit.mcp.servers import McpManager
from ankit.tooling.toolbox import Tool
from ankit.turn.registry import Registry

FAKE = str(Path(__file__).with_name("mcp_fake_server.py"))


class View:
    def __init__(self):
        self.notices = []

    def notice(self, text):
        self.notices.append(text)


def servers(tmp_path, *names) -> dict:
    """Fake servers, each recording the messages it receives in record-NAME.jsonl."""
    return {name: {"command": sys.executable, "args": [FAKE, "--record", str(tmp_path / f"record-{name}.jsonl")]}
            for name in names}


def listed_before(tmp_path, config: dict) -> None:
    """Give each server a cached tool list, as an earlier run would have left it; forget what it recorded."""
    manager = McpManager(config, tmp_path / "mcp", cache=ToolCache(tmp_path / "mcp" / "cache"))
    manager.start()
    assert manager.wait(30)
    manager.close()
    for record in tmp_path.glob("record-*.jsonl"):
        record.unlink()


def test_servers_listed_before_start_only_when_a_tool_of_theirs_is_activated_or_called(tmp_path):
    config = servers(tmp_path, "known", "other")
    listed_before(tmp_path, config)
    config.update(servers(tmp_path, "new"))
    registry = Registry([], [], mcp_servers=config, mcp_log_dir=tmp_path / "mcp", mcp_start="deferred")
    try:
        assert any(t.name.startswith("mcp__known__") for t in registry.tools.values())  # from the cache at once
        assert "mcp:known" in registry.catalog.groups
        assert registry.mcp.status.lines()[0].startswith("known: not started (15 tools as listed ")
        registry.before_turn(View())  # waits for 'new' (never listed) only
        registry.before_turn(View())
        assert any(t.name.startswith("mcp__new__") for t in registry.tools.values())
        assert (tmp_path / "record-new.jsonl").read_text().count('"initialize"') == 1
        assert not (tmp_path / "record-known.jsonl").exists() and not (tmp_path / "record-other.jsonl").exists()
        registry.tools["find_tools"].run({"query": "mcp__known__echo"}, None)  # loads the tool alone, wakes its server
        assert registry.activation.active == ["mcp__known__echo"]
        assert registry.mcp.wait(30)
        assert registry.mcp.status.lines()[0].startswith("known: ready (15 tools;")
        assert (tmp_path / "record-known.jsonl").read_text().count('"initialize"') == 1
        assert not (tmp_path / "record-other.jsonl").exists()
        echo = registry.tools["mcp__other__echo"].run({"text": "called by name"}, None)  # starts 'other' first
        assert echo == "called by name"
        assert (tmp_path / "record-other.jsonl").read_text().count('"initialize"') == 1
    finally:
        registry.close()


def test_a_tool_loaded_alone_from_a_cached_list_is_sent_as_its_server_lists_it_once_listed(tmp_path):
    config = servers(tmp_path, "known")
    listed_before(tmp_path, config)
    [cached] = [p for p in (tmp_path / "mcp" / "cache").glob("*.json") if not p.name.endswith(".failed.json")]
    entry = json.loads(cached.read_text())
    for tool in entry["tools"]:
        tool["description"] = "As an older version of the server said it."
    cached.write_text(json.dumps(entry))
    registry = Registry([], [], mcp_servers=config, mcp_log_dir=tmp_path / "mcp", mcp_start="deferred")

    def echo() -> str:
        sent = registry.activation.tools_for_round(10**6).specs
        return next(s.description for s in sent if s.name == "mcp__known__echo")
    try:
        registry.tools["find_tools"].run({"query": "mcp__known__echo"}, None)
        assert registry.activation.active == ["mcp__known__echo"] and echo().startswith("As an older version")
        assert registry.mcp.wait(30)
        registry.before_turn(View())  # the live list replaces the cached one: the frozen bytes follow it
        assert not echo().startswith("As an older version") and echo() == registry.tools["mcp__known__echo"].description
    finally:
        registry.close()


def test_refresh_starts_every_server_including_those_listed_before(tmp_path):
    config = servers(tmp_path, "a", "b", "c")
    listed_before(tmp_path, config)
    config.update(servers(tmp_path, "d"))
    registry = Registry([], [], mcp_servers=config, mcp_log_dir=tmp_path / "mcp", mcp_start="refresh")
    try:
        assert registry.mcp.wait(60)
        assert all("ready" in line for line in registry.mcp.status.lines() if not line.startswith(" "))
        for name in "abcd":
            assert (tmp_path / f"record-{name}.jsonl").read_text().count('"initialize"') == 1
    finally:
        registry.close()


def test_uncached_leaves_servers_listed_before_off(tmp_path):
    config = servers(tmp_path, "known")
    listed_before(tmp_path, config)
    for mode in ("uncached", "all"):
        registry = Registry([], [], mcp_servers=config, mcp_log_dir=tmp_path / "mcp", mcp_start=mode)
        try:
            registry.before_turn(View())
            assert registry.mcp.wait(30) and "not started" in registry.mcp.status.lines()[0]
            assert not (tmp_path / "record-known.jsonl").exists()
        finally:
            registry.close()


def test_a_server_listing_its_tools_changes_nothing_until_the_main_thread_takes_the_change_in(tmp_path):
    registry = Registry([], [], mcp_servers=servers(tmp_path, "new"), mcp_log_dir=tmp_path / "mcp")
    try:
        assert registry.mcp.wait(30)  # listed on the server's own thread, which only posted the change
        assert "mcp__new__echo" not in registry.tools and "mcp:new" not in registry.catalog.groups
        registry.before_turn(View())
        assert "mcp__new__echo" in registry.tools and "mcp__new__echo" in registry.catalog.groups["mcp:new"].tools
    finally:
        registry.close()


def test_a_rebuild_that_fails_keeps_the_previous_catalog_and_is_told_once(tmp_path):
    registry = Registry([], [])
    before = registry.catalog
    registry.file_tools.append(Tool("broken", None, {"type": "object"}, lambda args: "", group="x"))  # a bad tool
    threading.Thread(target=registry.post_change).start()  # as an MCP server's thread does
    view = View()
    registry.take_changes()
    registry.before_turn(view)
    registry.before_turn(view)
    assert registry.catalog is before
    assert len(view.notices) == 1 and view.notices[0].startswith(
        "could not take in the MCP servers' new tool lists (AttributeError: ")


def test_with_every_group_sent_find_tools_is_left_out_and_lists_only_groups_not_loaded():
    def tool(name: str, group: str) -> Tool:
        return Tool(name, f"The {name} tool.", {}, lambda args, ctx=None: "", group=group)

    tools = [tool("read_file", "core"), tool("git_log", "git"), tool("web_fetch", "web")]
    some = Registry(tools, [], core=["git"])
    [finder] = [s for s in some.group_specs("core") if s.name == "find_tools"]
    assert "- web:" in finder.description and "- git:" not in finder.description  # git is sent already
    assert not some.everything_offered()
    every = Registry(tools, [], core=["git", "web", "agents"])  # eager: every group always sent
    assert every.everything_offered()
    assert [s.name for s in every.group_specs("core")] == ["read_file", "skill"]
    some.activation.activate(["web", "agents"])  # everything activated: nothing left to find from now on
    assert some.everything_offered()
    alone = Registry(tools, [], core=["git", "agents"])
    alone.activation.activate(["web_fetch"])  # the web group's one tool, loaded alone by a search
    assert alone.everything_offered()
