"""A project's .mcp.json written as Claude Code writes it (`claude mcp add -s project`): one mcpServers entry added
or removed, every other key of the file kept as it was."""

import json
from pathlib import Path

from ankit.errors import ConfigError
from ankit.settings import tomledit
from ankit.claude.mcp import read_json


def entry(table: dict) -> dict:
    """An ankit server table as Claude Code's JSON entry."""
    if table.get("url"):
        return {"type": "http", "url": table["url"], **({"headers": table["headers"]} if table.get("headers") else {})}
    return {"type": "stdio", "command": table["command"], "args": list(table.get("args") or []),
            "env": dict(table.get("env") or {})} | {k: table[k] for k in ("cwd", "timeout", "core") if k in table}


def add(path: Path, name: str, table: dict) -> None:
    """Add server NAME to the file (created when missing); nothing is written when it is already there or the file
    is not one ankit can edit."""
    data = _load(path)
    if name in data["mcpServers"]:
        raise ConfigError(f"an MCP server named {name!r} is already in {path}; ankit mcp remove {name} -s project first")
    data["mcpServers"][name] = entry(table)
    _write(path, data)


def remove(path: Path, name: str) -> bool:
    """Remove server NAME from the file; False when the file does not list it."""
    if not path.is_file():
        return False
    data = _load(path)
    if name not in data["mcpServers"]:
        return False
    del data["mcpServers"][name]
    _write(path, data)
    return True


def _load(path: Path) -> dict:
    """The file's object with an mcpServers object in it ({} for a missing file); ConfigError otherwise."""
    if not path.exists():
        return {"mcpServers": {}}
    data, problem = read_json(path)
    if problem:
        raise ConfigError(problem)
    if not isinstance(data, dict) or not isinstance(data.setdefault("mcpServers", {}), dict):
        raise ConfigError(f"{path} is not an object with an \"mcpServers\" object; change that file by hand")
    return data


def _write(path: Path, data: dict) -> None:
    """The file replaced at once, laid out as Claude Code lays it out (two spaces, a final newline)."""
    tomledit.write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
