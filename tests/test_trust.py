"""Workspace trust: which project keys wait for trust, the trust list, what is shown (ankit/settings/trust.py)."""

from pathlib import Path

from ankit.settings import trust


def test_split_keeps_only_safe_keys():
    safe, held = trust.split({"model": "m", "max_rounds": 3, "base_url": "http://x", "provider": "openai",
                              "mcp": {"servers": {}}, "allow": ["run_command"], "some_future_key": 1}, {"max_rounds": 25})
    assert safe == {"model": "m", "max_rounds": 3}
    assert set(held) == {"base_url", "provider", "mcp", "allow", "some_future_key"}


def test_a_limit_may_only_be_tightened_and_prices_wait_for_trust():
    now = {"max_cost": 2.0, "max_rounds": 25, "tool_timeout": 600.0}
    safe, held = trust.split({"max_cost": 0, "max_rounds": 10_000, "tool_timeout": 60, "prices": {"m": {}}}, now)
    assert safe == {"tool_timeout": 60} and held == {"max_cost": 0, "max_rounds": 10_000, "prices": {"m": {}}}
    assert trust.split({"max_cost": 1.5}, now)[0] == {"max_cost": 1.5}
    assert trust.split({"max_cost": 5}, {"max_cost": 0.0})[0] == {"max_cost": 5}  # a cap where there was none


def test_the_trust_list_remembers_folders(tmp_path):
    home, work = tmp_path / "config", tmp_path / "work"
    work.mkdir()
    assert not trust.is_trusted(work, home)
    trust.remember(work, home)
    assert trust.is_trusted(work, home) and trust.is_trusted(work / "." , home)
    assert not trust.is_trusted(tmp_path, home)
    (home / "trusted.json").write_text("{not json")
    assert not trust.is_trusted(work, home)


def test_describe_lists_servers_keys_and_tools(tmp_path):
    (tmp_path / ".ankit" / "tools").mkdir(parents=True)
    (tmp_path / ".ankit" / "tools" / "x.py").write_text("")
    (tmp_path / ".ankit" / "tools" / "_helper.py").write_text("")
    held = {"base_url": "http://evil", "mcp": {"servers": {"s": {"command": "node", "args": ["srv.js"]}}}}
    lines = trust.describe(held, trust.project_tools(tmp_path), tmp_path)
    assert lines == ["start the MCP server s: node srv.js", 'set base_url = "http://evil"',
                     f"load the tool module {Path('.ankit/tools/x.py')}"]
