"""One [mcp.servers.NAME] table of the config, checked."""

import os
from dataclasses import dataclass, field

from ankit.errors import ConfigError
from ankit.mcp.jsonrpc import McpError
from ankit.safety.sandbox import server_command
from ankit.claude.mcp import expand


@dataclass
class ServerConfig:
    """One [mcp.servers.NAME] table."""

    name: str
    command: str
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    core: bool = False
    timeout: float = 60.0  # seconds for one tools/call
    startup_timeout: float = 30.0  # seconds the server has for initialize and tools/list (a late answer still counts)
    start_timeout: float = 5.0  # seconds anything waits for a starting server; past it the server is "not answering"
    url: str | None = None  # a Streamable HTTP server's address instead of a command
    headers: dict[str, str] = field(default_factory=dict)  # sent with each HTTP request; ${NAME} from the environment
    oauth_client_id: str = ""  # for an authorization server without dynamic registration (ankit mcp login)
    oauth_scope: str = ""  # the scopes to ask for at login (default: those the server names)
    sandbox: bool = False  # start the stdio server inside ankit's sandbox: writes in its cwd and the temp folder
    network: bool = True  # with sandbox: whether it may reach the network
    trust_annotations: bool = False  # the user's own config trusts its readOnlyHint (settings/layers.py keeps it so)


def server_config(name: str, raw, env=None) -> ServerConfig:
    """Check one server table, ${VAR} and ${VAR:-default} filled from env (the environment); raise ConfigError
    with one line saying what to fix."""
    where = f"[mcp.servers.{name}]"
    if not isinstance(raw, dict):
        raise ConfigError(f"{where} must be a table with command = \"program\"")
    raw = _expanded(where, raw, os.environ if env is None else env)
    url, headers = _http(where, raw)
    command = raw.get("command", "" if url else None)
    if url and command:
        raise ConfigError(f"{where} has both command and url; keep command for a local server, url for one over HTTP")
    if not url and (not isinstance(command, str) or not command.strip()):
        raise ConfigError(f"{where} needs command = \"program\" (the server's executable) or url = \"http://...\"")
    args, env = raw.get("args", []), raw.get("env", {})
    if not isinstance(args, list) or not all(isinstance(a, (str, int, float)) for a in args):
        raise ConfigError(f"{where} args must be a list of strings, e.g. args = [\"--flag\", \"value\"]")
    if not isinstance(env, dict) or not all(isinstance(v, (str, int, float)) for v in env.values()):
        raise ConfigError(f"{where} env must be a table of strings, e.g. env = {{ TOKEN = \"...\" }}")
    if raw.get("cwd") is not None and not isinstance(raw.get("cwd"), str):
        raise ConfigError(f"{where} cwd must be a folder path (a string)")
    numbers = {}
    for key, default in (("timeout", 60.0), ("startup_timeout", 30.0), ("start_timeout", 5.0)):
        value = raw.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise ConfigError(f"{where} {key} must be a number of seconds above 0")
        numbers[key] = float(value)
    oauth = {key: raw.get(key, "") for key in ("oauth_client_id", "oauth_scope")}
    if not all(isinstance(v, str) for v in oauth.values()):
        raise ConfigError(f"{where} oauth_client_id and oauth_scope must be strings")
    for key in ("sandbox", "network", "trust_annotations"):
        if not isinstance(raw.get(key, True), bool):
            raise ConfigError(f"{where} {key} must be true or false")
    return ServerConfig(name, command, [str(a) for a in args], {str(k): str(v) for k, v in env.items()},
                        raw.get("cwd"), bool(raw.get("core", False)), **numbers, url=url, headers=headers, **oauth,
                        sandbox=raw.get("sandbox", False), network=raw.get("network", True),
                        trust_annotations=raw.get("trust_annotations", False) is True)


def launch(cfg: ServerConfig) -> tuple[str, list[str]]:
    """The program and arguments that start a stdio server: inside the sandbox when its table says sandbox = true
    (McpError where this machine has none: it is never started unconfined)."""
    if not cfg.sandbox or cfg.url:
        return cfg.command, cfg.args
    cwd = os.path.expanduser(cfg.cwd) if cfg.cwd else os.getcwd()
    try:
        argv = server_command([os.path.expanduser(cfg.command), *cfg.args], cwd, cfg.network)
    except ConfigError as exc:
        raise McpError(f"MCP server {cfg.name!r}: {exc}; set sandbox = false in [mcp.servers.{cfg.name}] to run it as is") from None
    return argv[0], argv[1:]


def _http(where: str, raw: dict) -> tuple[str | None, dict[str, str]]:
    """The url and headers of a server over Streamable HTTP, checked."""
    url, headers = raw.get("url"), raw.get("headers", {})
    if url is not None and (not isinstance(url, str) or not url.startswith(("http://", "https://"))):
        raise ConfigError(f"{where} url must be an http:// or https:// address, e.g. url = \"http://127.0.0.1:8000/mcp\"")
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        raise ConfigError(f"{where} headers must be a table of strings, e.g. headers = {{ Authorization = \"Bearer ${{TOKEN}}\" }}")
    return url, {str(k): v for k, v in headers.items()}


def _expanded(where: str, raw: dict, env) -> dict:
    """The table with ${VAR} and ${VAR:-default} filled in its command, args, env values, cwd and url (headers are
    filled as each request is sent); a variable that is unset and has no default is a ConfigError."""
    missing: list[str] = []

    def fill(value):
        return expand(value, env, missing) if isinstance(value, str) else value
    out = dict(raw)
    for key in ("command", "cwd", "url"):
        if key in raw:
            out[key] = fill(raw[key])
    if isinstance(raw.get("args"), list):
        out["args"] = [fill(a) for a in raw["args"]]
    if isinstance(raw.get("env"), dict):
        out["env"] = {k: fill(v) for k, v in raw["env"].items()}
    if missing:
        names = ", ".join(dict.fromkeys(missing))
        raise ConfigError(f"{where} uses ${{{missing[0]}}}, which is not set ({names}); set it, or write "
                          f"${{{missing[0]}:-default}} for a default")
    return out
