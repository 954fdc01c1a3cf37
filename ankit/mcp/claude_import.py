"""`ankit mcp import`: the MCP servers a user has configured for Claude Desktop (claude_desktop_config.json) or
Claude Code (~/.claude.json: its user servers and this folder's), written as [mcp.servers.NAME] tables."""

import os
from collections.abc import Mapping
from pathlib import Path

from ankit.errors import ConfigError
from ankit.mcp.admin import add_table
from ankit.claude.mcp import USER_FILE_CAP, read_json, servers_of


def claude_files(home: Path, env: Mapping) -> list[tuple[str, Path]]:
    """Claude Desktop's config (macOS, Windows, Linux places) and Claude Code's ~/.claude.json, where they exist."""
    config = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    desktop = [home / "Library" / "Application Support" / "Claude", config / "Claude"]
    desktop += [Path(env["APPDATA"]) / "Claude"] if env.get("APPDATA") else []
    found = [("Claude Desktop", folder / "claude_desktop_config.json") for folder in desktop]
    found.append(("Claude Code", home / ".claude.json"))
    return [(label, path) for label, path in found if path.is_file()]


def claude_servers(home: Path, cwd: Path, env: Mapping) -> tuple[list[tuple[str, dict, str]], list[str]]:
    """Every server found as (name, table, where from), and one line per file or server that cannot be used."""
    found, problems = [], []
    for label, path in claude_files(home, env):
        data, problem = read_json(path, USER_FILE_CAP)
        if problem:
            problems.append(problem)
            continue
        sources = [(data, f"{label}, {path}")]
        projects = data.get("projects") if isinstance(data, dict) else None
        mine = projects.get(str(cwd.resolve())) if isinstance(projects, dict) else None
        sources += [(mine, f"{label}, {path}, this folder's")] if isinstance(mine, dict) else []
        for source, origin in sources:
            tables, lines = servers_of(source, origin)
            found += [(name, table, origin) for name, table in tables.items()]
            problems += lines
    return found, problems


def import_servers(config: Path, home: Path, cwd: Path, env: Mapping = os.environ) -> str:
    """Add each server found that the config does not have yet; one line per server added or skipped."""
    found, lines = claude_servers(home, cwd, env)
    if not found and not lines:
        return ("no MCP servers found in Claude Desktop's claude_desktop_config.json or Claude Code's ~/.claude.json; "
                "add one with ankit mcp add or ankit mcp add-json")
    for name, table, origin in found:
        try:
            lines.append(f"{add_table(config, name, table, cwd)} (from {origin})")
        except ConfigError as exc:
            lines.append(f"skipped {name} (from {origin}): {exc}")
    return "\n".join(lines)
