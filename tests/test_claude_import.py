"""`ankit mcp import`: the servers a user configured for Claude Desktop and Claude Code, as a user runs it."""

import json
import sys
import tomllib
from pathlib import Path

from tests.test_oneshot import ankit

FAKE = Path(__file__).resolve().parent / "mcp_fake_server.py"


def test_desktop_and_claude_code_servers_are_added_once_and_what_cannot_run_is_one_line(tmp_path):
    home, work = tmp_path / "home", tmp_path / "work"
    (tmp_path / "config" / "Claude").mkdir(parents=True)
    work.mkdir()
    home.mkdir()
    # XDG_CONFIG_HOME is tmp/config: Claude Desktop's config on Linux is under it
    fake = {"command": sys.executable, "args": [str(FAKE)]}
    (tmp_path / "config" / "Claude" / "claude_desktop_config.json").write_text(json.dumps({"mcpServers": {
        "desktop-fake": fake, "legacy": {"type": "sse", "url": "http://127.0.0.1:9/sse"}}}))
    (home / ".claude.json").write_text("\ufeff" + json.dumps({
        "numStartups": 3, "mcpServers": {"code-fake": {**fake, "type": "stdio"}, "missing": {"command": "no-such-prog"}},
        "projects": {str(work.resolve()): {"mcpServers": {"docs": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}},
                     "/elsewhere": {"mcpServers": {"other": fake}}}}))
    done = ankit(tmp_path, "mcp", "import")
    assert done.returncode == 0, done.stderr
    config = tmp_path / "config" / "ankit" / "config.toml"
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"Claude Desktop, {tmp_path / 'config' / 'Claude' / 'claude_desktop_config.json'}: MCP server "
                               "'legacy' uses the SSE transport")
    assert any(line.startswith(f"added MCP server desktop-fake to {config}") for line in lines)
    assert any(line.startswith("skipped missing (from Claude Code") and "no program 'no-such-prog'" in line
               for line in lines)
    assert sorted(tomllib.loads(config.read_text())["mcp"]["servers"]) == ["code-fake", "desktop-fake", "docs"]
    again = ankit(tmp_path, "mcp", "import")
    assert "skipped desktop-fake" in again.stdout and "already in" in again.stdout
    listed = ankit(tmp_path, "mcp", "list")
    assert "mcp__code_fake__echo" in listed.stdout or "mcp__code-fake__echo" in listed.stdout, listed.stdout


def test_nothing_to_import_says_where_it_looked(tmp_path):
    done = ankit(tmp_path, "mcp", "import")
    assert done.returncode == 0 and done.stdout.startswith("no MCP servers found in Claude Desktop's")


def test_a_claude_json_grown_large_with_history_is_still_read(tmp_path):
    (tmp_path / "home").mkdir()
    (tmp_path / "work").mkdir()
    history = [{"display": "x" * 1000, "pastedContents": {}} for _ in range(3000)]  # about 3 MB
    (tmp_path / "home" / ".claude.json").write_text(json.dumps({
        "projects": {"/old": {"history": history}},
        "mcpServers": {"big-fake": {"command": sys.executable, "args": [str(FAKE)]}}}))
    done = ankit(tmp_path, "mcp", "import")
    assert done.returncode == 0 and "added MCP server big-fake" in done.stdout, done.stdout + done.stderr
