"""Workspace trust: what a folder's .ankit/ may change before the user has said they trust that folder.

A cloned repository is data until trusted. Its .ankit/config.toml can only set the keys in SAFE_KEYS (limits,
the model name, deny rules), and a limit only to something stricter than the user's own (TIGHTEN_ONLY: a
repository must not lift the user's max_cost or max_rounds); every other key (provider, base_url, core, MCP
servers, web_search_url, github_api_url, allow rules, prices, which would make max_cost count nothing, and any
key added later) could run code, send the user's keys elsewhere or lift a cap, so it waits for trust, as do the
tool modules in .ankit/tools/. Plain text (skills, commands, AGENTS.md) needs none.
The trust list is a JSON list of folders in $XDG_CONFIG_HOME/ankit/trusted.json, kept through ankit's state-file
layer (safety/statefiles.py): a list another user owns or could have written trusts nothing.
"""

import json
from pathlib import Path

from ankit.safety import statefiles

SAFE_KEYS = frozenset({
    "model", "max_rounds", "retries", "idle_timeout", "output_cap", "max_tokens", "context_window",
    "catalog_mode", "cache_ttl", "max_cost", "deferred", "preload", "deny", "tool_timeout", "memory_fts",
})
TIGHTEN_ONLY = frozenset({"max_rounds", "retries", "idle_timeout", "output_cap", "max_tokens", "max_cost",
                          "tool_timeout"})
TRUST_FILE = "trusted.json"


def split(values: dict, current: dict | None = None) -> tuple[dict, dict]:
    """A project file's values as (safe to apply anywhere, held back until the folder is trusted); current holds
    the limits in force so far (defaults and the user's file), which an untrusted folder may only lower."""
    safe = {k: v for k, v in values.items() if k in SAFE_KEYS}
    held = {k: v for k, v in values.items() if k not in SAFE_KEYS}
    for key in TIGHTEN_ONLY & safe.keys():
        if not _stricter(key, safe[key], (current or {}).get(key)):
            held[key] = safe.pop(key)
    return safe, held


def _stricter(key: str, value, now) -> bool:
    """Whether a project's limit is at most the one in force (for max_cost, 0 means no cap: never stricter)."""
    try:
        value, now = float(value), float(now)
    except (TypeError, ValueError):
        return False
    if key == "max_cost":
        return value > 0 and (now == 0 or value <= now)
    return value <= now


def project_tools(cwd: Path) -> list[Path]:
    """The tool modules a folder's .ankit/tools/ holds."""
    folder = cwd / ".ankit" / "tools"
    if not folder.is_dir():
        return []
    found = [*folder.glob("*.py"), *folder.glob("*/*.py")]
    return sorted(p for p in found if not p.name.startswith(("_", "test_")))


def _key(cwd: Path) -> str:
    return str(Path(cwd).resolve())


def _read(config_home: Path) -> list[str]:
    try:
        data = json.loads(statefiles.read_cache(config_home / TRUST_FILE) or "[]")
    except (ValueError, RecursionError):
        return []
    return [str(p) for p in data] if isinstance(data, list) else []


def is_trusted(cwd: Path, config_home: Path) -> bool:
    """Whether the user trusted this folder before."""
    return _key(cwd) in _read(config_home)


def remember(cwd: Path, config_home: Path) -> None:
    """Add the folder to the trust list (written whole, atomically, readable by the user only)."""
    folders = [*_read(config_home), _key(cwd)]
    statefiles.write(config_home / TRUST_FILE, json.dumps(sorted(set(folders)), indent=1))


def describe(held: dict, tools: list[Path], cwd: Path) -> list[str]:
    """What the folder would add, one line each, for the trust question and the -p notice."""
    lines = []
    servers = (held.get("mcp") or {}).get("servers") if isinstance(held.get("mcp"), dict) else None
    for name, server in (servers or {}).items():
        command = server.get("command", "?") if isinstance(server, dict) else "?"
        args = " ".join(map(str, server.get("args") or [])) if isinstance(server, dict) else ""
        lines.append(f"start the MCP server {name}: {command} {args}".rstrip())
    for key, value in held.items():
        if key != "mcp":
            lines.append(f"set {key} = {json.dumps(value, ensure_ascii=False)}")
    lines += [f"load the tool module {p.relative_to(cwd)}" for p in tools]
    return lines
