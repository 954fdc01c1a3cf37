"""`ankit mcp add/remove/get`: one [mcp.servers.NAME] table written to or read from a config file."""

import json
import os
import re
import shlex
import shutil
import tomllib
from pathlib import Path

from ankit.errors import ConfigError
from ankit.mcp import projectjson
from ankit.mcp.settings import server_config
from ankit.settings import tomledit
from ankit.claude.mcp import project_servers, server_table

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")
ENV_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def servers_in(tables: dict) -> dict:
    """The [mcp.servers] tables of a parsed config."""
    found = (tables.get("mcp") or {}).get("servers") if isinstance(tables.get("mcp"), dict) else None
    return found if isinstance(found, dict) else {}


def check_name(name: str) -> str:
    """The name, or a ConfigError saying which names work."""
    if not NAME.fullmatch(name or ""):
        raise ConfigError(f"{name!r} cannot name an MCP server: use letters, digits, '-' and '_' (up to 40)")
    return name


def parse_env(pairs: list[str]) -> dict[str, str]:
    """KEY=VALUE pairs as a table; a pair without '=' or with a bad key is a ConfigError."""
    env = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not ENV_KEY.fullmatch(key):
            raise ConfigError(f"--env takes KEY=VALUE with KEY a variable name, not {pair!r}")
        env[key] = value
    return env


def find_program(command: str, cwd: Path) -> str | None:
    """Where the server's program is: a path (relative to cwd) or a name on PATH; None when there is none."""
    if "/" in command:
        path = Path(os.path.expanduser(command))
        path = path if path.is_absolute() else cwd / path
        return str(path) if path.is_file() and os.access(path, os.X_OK) else None
    return shutil.which(command)


def command_line(table: dict) -> str:
    """The server's command line as a shell would show it (a server over HTTP: its address)."""
    if table.get("url") and not table.get("command"):
        return f"{table['url']} (Streamable HTTP)"
    return shlex.join([str(table.get("command", "")), *[str(a) for a in table.get("args") or []]])


def add(path: Path, name: str, command: str, args: list[str], env: dict[str, str], cwd: Path) -> str:
    """Write [mcp.servers.NAME] into the config at path; nothing is written when anything is wrong."""
    check_name(name)
    if not command.strip():
        raise ConfigError("give the server's command after --, e.g. ankit mcp add files -- npx -y @modelcontextprotocol/server-filesystem .")
    table = {"command": command, **({"args": args} if args else {}), **({"env": env} if env else {})}
    return add_table(path, name, table, cwd)


def add_table(path: Path, name: str, table: dict, cwd: Path) -> str:
    """Write one server table (checked as ankit checks it when it starts the server) into the config at path."""
    check_name(name)
    command = str(table.get("command") or "")
    if command and "${" not in command and find_program(command, cwd) is None:
        raise ConfigError(f"no program {command!r} found (on PATH or as a file); install it or give its full path")
    if "${" not in json.dumps(table):  # with ${VAR} it is checked when it starts, the variables filled
        server_config(name, table)  # the same checks ankit makes when it starts the server
    if path.name == ".mcp.json":
        projectjson.add(path, name, table)
        return f"added MCP server {name} to {path}: {command_line(table)}"
    text, tables = tomledit.read(path)
    if name in servers_in(tables):
        raise ConfigError(f"an MCP server named {name!r} is already in {path}; ankit mcp remove {name} first")
    _save(path, text, tables, name, table)
    return f"added MCP server {name} to {path}: {command_line(table)}"


def add_json(path: Path, name: str, text: str, cwd: Path) -> str:
    """`ankit mcp add-json NAME JSON`: one server as Claude Code's JSON ({"command", "args", "env"} or
    {"type": "http", "url", "headers"})."""
    try:
        entry = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ConfigError(f"the server's JSON is not valid ({exc}); quote it for the shell: "
                          "ankit mcp add-json NAME '{\"command\": \"npx\", \"args\": [\"-y\", \"pkg\"]}'") from None
    return add_table(path, name, server_table(name, entry), cwd)


def remove(path: Path, name: str, elsewhere: list[Path] = ()) -> str:
    """Delete server NAME from the config at path (a .mcp.json: its mcpServers entry)."""
    check_name(name)
    if path.name == ".mcp.json" and projectjson.remove(path, name):
        return f"removed MCP server {name} from {path}"
    text, tables = tomledit.read(path) if path.name != ".mcp.json" else ("", {})
    if name not in servers_in(tables):
        found = [other for other in elsewhere if name in _servers(other)]
        hint = f"; it is in {found[0]} (add -s {scope_of(found[0])})" if found else ""
        raise ConfigError(f"no MCP server named {name!r} in {path}{hint}")
    _save(path, text, tables, name, None)
    return f"removed MCP server {name} from {path}"


def scope_of(path: Path) -> str:
    """The scope a servers file belongs to, as -s names it."""
    return "project" if path.name == ".mcp.json" else "local" if path.parent.name == ".ankit" else "user"


def _servers(path: Path) -> dict:
    """The servers a config file or a .mcp.json lists (as ankit tables)."""
    if path.name == ".mcp.json":
        return project_servers(path.parent)[0]
    return servers_in(tomledit.read(path)[1])


def _save(path: Path, text: str, tables: dict, name: str, table: dict | None) -> None:
    """Replace or remove the one table; refuse when the result would not be exactly the intended config."""
    new = tomledit.replace_table(text, ["mcp", "servers", name], None if table is None else tomledit.render(
        ["mcp", "servers", name], table))
    expected = tomllib.loads(text) if text else {}
    servers = expected.setdefault("mcp", {}).setdefault("servers", {})
    if table is None:
        servers.pop(name, None)
    else:
        servers[name] = table
    try:
        result = tomllib.loads(new)
    except tomllib.TOMLDecodeError:
        result = None
    if result != expected and not (table is None and _empty_mcp(expected) == result):
        raise ConfigError(f"{name!r} is written in {path} in a form ankit cannot edit (an inline table or "
                          "dotted keys); change that file by hand")
    tomledit.write(path, new)


def _empty_mcp(expected: dict) -> dict:
    """The config without the [mcp] and [mcp.servers] tables that removing the last server leaves empty."""
    trimmed = dict(expected)
    mcp = dict(trimmed.get("mcp") or {})
    if not mcp.get("servers"):
        mcp.pop("servers", None)
    if mcp:
        trimmed["mcp"] = mcp
    else:
        trimmed.pop("mcp", None)
    return trimmed


def describe(name: str, files: list[Path]) -> str:
    """Where server NAME is set (the first of files listing it) and what it runs; env and header values are never
    shown."""
    check_name(name)
    for path in files:
        table = _servers(path).get(name)
        if isinstance(table, dict):
            lines = [f"{name} (in {path}, scope {scope_of(path)})", f"  command: {command_line(table)}"]
            for key in ("env", "headers"):
                if table.get(key):
                    lines.append(f"  {key}: {', '.join(f'{k}=…' for k in table[key])} (values not shown)")
            lines += [f"  {k}: {table[k]}" for k in ("cwd", "core", "timeout", "startup_timeout", "start_timeout") if k in table]
            return "\n".join(lines)
    where = " or ".join(str(path) for path in files)
    raise ConfigError(f"no MCP server named {name!r} in {where}; see ankit mcp list")
