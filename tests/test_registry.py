"""The registry: every known tool, and when MCP servers start (real fake servers over stdio)."""

import sys
from pathlib import Path

from ankit.mcp.cache import ToolCache
from ankit.mcp.servers import McpManager
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


def test_deferred_servers_listed_before_start_at_the_first_turn(tmp_path):
    config = servers(tmp_path, "known")
    listed_before(tmp_path, config)
    config.update(servers(tmp_path, "new"))
    registry = Registry([], [], mcp_servers=config, mcp_log_dir=tmp_path / "mcp", mcp_start="deferred")
    try:
        assert any(t.name.startswith("mcp__known__") for t in registry.tools.values())  # from the cache at once
        assert "mcp:known" in registry.catalog.groups
        assert registry.mcp.status_lines()[0].startswith("known: ") and "not started" in registry.mcp.status_lines()[0]
        registry.before_turn(View())  # waits for 'new' (never listed), then starts 'known' in the background
        assert any(t.name.startswith("mcp__new__") for t in registry.tools.values())
        assert registry.mcp.wait(30)
        assert "running" in registry.mcp.status_lines()[0]
        registry.before_turn(View())  # the second turn starts nothing more
        assert (tmp_path / "record-known.jsonl").read_text().count('"initialize"') == 1
        assert (tmp_path / "record-new.jsonl").read_text().count('"initialize"') == 1
    finally:
        registry.close()


def test_all_starts_every_server_including_those_listed_before(tmp_path):
    config = servers(tmp_path, "a", "b", "c")
    listed_before(tmp_path, config)
    config.update(servers(tmp_path, "d"))
    registry = Registry([], [], mcp_servers=config, mcp_log_dir=tmp_path / "mcp", mcp_start="all")
    try:
        assert registry.mcp.wait(60)  # the cached ones start a few at a time, and all of them start
        assert all("running" in line for line in registry.mcp.status_lines() if not line.startswith(" "))
        for name in "abcd":
            assert (tmp_path / f"record-{name}.jsonl").read_text().count('"initialize"') == 1
    finally:
        registry.close()


def test_uncached_leaves_servers_listed_before_off(tmp_path):
    config = servers(tmp_path, "known")
    listed_before(tmp_path, config)
    registry = Registry([], [], mcp_servers=config, mcp_log_dir=tmp_path / "mcp", mcp_start="uncached")
    try:
        registry.before_turn(View())
        assert registry.mcp.wait(30) and "not started" in registry.mcp.status_lines()[0]
        assert not (tmp_path / "record-known.jsonl").exists()
    finally:
        registry.close()
