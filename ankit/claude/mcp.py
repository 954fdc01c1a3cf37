"""Claude Code's MCP server lists (a project's .mcp.json, `claude mcp add-json`'s JSON, Claude Desktop's and
Claude Code's own files) as ankit's [mcp.servers.NAME] tables.

`${VAR}` and `${VAR:-default}` stay as written in the tables (the trust question shows them so, and no value of
the environment is recorded in the trust list); they are filled when a server starts (ankit/mcp/settings.py).
"""

import json
import re
from pathlib import Path

from ankit.errors import ConfigError

FILE_CAP = 1_000_000  # bytes of one JSON file read
USER_FILE_CAP = 64_000_000  # Claude Code's ~/.claude.json keeps each project's history and grows large
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")
VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
STDIO_KEYS = ("command", "args", "env", "cwd")


def expand(text: str, env, missing: list[str] | None = None) -> str:
    """${VAR} and ${VAR:-default} filled from env; a variable that is unset and has no default is noted in
    missing and left empty."""
    def fill(match: re.Match) -> str:
        value = env.get(match[1])
        if value:
            return value
        if match[2] is not None:
            return match[2]
        if missing is not None:
            missing.append(match[1])
        return ""
    return VARIABLE.sub(fill, text)


def server_table(name: str, entry) -> dict:
    """One server of Claude's JSON ({"command", "args", "env"} or {"type": "http", "url", "headers"}) as an
    ankit table; ConfigError with one line when ankit cannot run it."""
    where = f"MCP server {name!r}"
    if not NAME.fullmatch(name):
        raise ConfigError(f"{where}: ankit names servers with letters, digits, '-' and '_' (up to 40); rename it")
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: expected an object with \"command\" or \"url\"")
    kind = str(entry.get("type") or ("http" if entry.get("url") and not entry.get("command") else "stdio")).lower()
    if kind == "sse":
        raise ConfigError(f"{where} uses the SSE transport, which ankit does not speak (Streamable HTTP: "
                          "\"type\": \"http\"); skipped")
    if kind in ("http", "streamable-http", "streamable_http"):
        table = {"url": entry.get("url")}
        table.update({"headers": entry["headers"]} if entry.get("headers") else {})
    elif kind == "stdio":
        table = {key: entry[key] for key in STDIO_KEYS if entry.get(key) not in (None, [], {}, "")}
    else:
        raise ConfigError(f"{where} has \"type\": {json.dumps(kind)}; ankit runs stdio and http servers")
    from_ankit = {k: entry[k] for k in ("timeout", "core") if k in entry}  # ankit's own keys, when a file has them
    return table | from_ankit


def servers_of(data, origin: str) -> tuple[dict, list[str]]:
    """The mcpServers object of a parsed file as {name: table}, and one line per server left out."""
    listed = data.get("mcpServers") if isinstance(data, dict) else None
    if listed is None:
        return {}, []
    if not isinstance(listed, dict):
        return {}, [f"{origin}: \"mcpServers\" must be an object of servers by name; ignored"]
    tables, problems = {}, []
    for name, entry in listed.items():
        try:
            tables[str(name)] = server_table(str(name), entry)
        except ConfigError as exc:
            problems.append(f"{origin}: {exc}")
    return tables, problems


def read_json(path: Path, cap: int = FILE_CAP) -> tuple[object, str]:
    """A JSON file read with a size cap (a BOM allowed), or None and the line saying why not."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(cap + 1)
    except OSError as exc:
        return None, f"{path}: {exc.strerror or exc}"
    if len(raw) > cap:
        return None, f"{path}: larger than {cap:,} bytes; not read"
    try:
        return json.loads(raw.decode("utf-8-sig", errors="replace")), ""
    except (ValueError, RecursionError) as exc:
        return None, f"{path} is not valid JSON ({exc}); fix it to use its servers"


def project_servers(cwd: Path) -> tuple[dict, list[str]]:
    """The servers of the folder's .mcp.json (none when it has none), and one line per problem."""
    path = cwd / ".mcp.json"
    if not path.is_file():
        return {}, []
    data, problem = read_json(path)
    if problem:
        return {}, [problem]
    return servers_of(data, str(path))


def with_project_servers(values: dict, cwd: Path) -> tuple[dict, list[str]]:
    """A folder's config values with its .mcp.json servers added under mcp.servers (.ankit/config.toml wins a
    name), and the problems found; held until the folder is trusted like any project server."""
    found, problems = project_servers(cwd)
    if not found:
        return values, problems
    mcp = dict(values.get("mcp") or {}) if isinstance(values.get("mcp"), dict) else {}
    servers = dict(mcp.get("servers") or {}) if isinstance(mcp.get("servers"), dict) else {}
    mcp["servers"] = found | servers
    return {**values, "mcp": mcp}, problems
