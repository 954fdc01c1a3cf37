"""Configuration layers: how the settings files, the environment and the flags merge into one Config.

`load_config`: defaults < the user's config < the folder's .ankit/config.toml < environment < flags, merged so
that a less trusted layer can only tighten. Deny and ask lists are unions (a project adds rules, never removes
the user's); a project's allow list needs trust; a limit from an untrusted folder applies only when it is
stricter; an untrusted folder cannot change the model, provider, base URL, prices, cache lifetime or anything
else that changes what runs, where keys go or what a cap counts (FREE lists the few keys it may set). Whether
a folder is trusted as it is now is its fingerprint (trust.py) against the one recorded.
"""

import json
from collections.abc import Mapping
from pathlib import Path

from ankit import paths
from ankit.errors import ConfigError
from ankit.claude import settings as claude
from ankit.safety import envnames
from ankit.safety.digests import TooBig
from ankit.settings import config as settings
from ankit.claude import plugins
from ankit.settings import trust
from ankit.claude.mcp import with_project_servers
from ankit.settings.trust import fingerprint

FREE = frozenset({"catalog_mode", "deferred", "preload", "memory_fts"})  # change nothing that runs, goes out or is counted
UNIONS = ("deny", "ask")  # a project adds rules, never removes the user's
LIMITS = frozenset({"max_rounds", "retries", "idle_timeout", "output_cap", "max_tokens", "max_cost", "tool_timeout",
                    "search_timeout", "web_timeout", "web_max_bytes"})


def split(values: dict, current: Mapping) -> tuple[dict, dict]:
    """An untrusted folder's values as (applied now, held until the folder is trusted): free keys and rule
    lists apply, a limit applies only when stricter than `current` (the limits in force so far); everything
    else (model, provider, base_url, prices, allow, MCP servers, any key added later) waits for trust."""
    safe, held = {}, {}
    for key, value in values.items():
        stricter = key in LIMITS and _stricter(key, value, current.get(key))
        (safe if key in FREE or key in UNIONS or stricter else held)[key] = value
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


def _layer(config: settings.Config, values: dict, origin_: str) -> None:
    """Apply one layer: rule lists are added to the ones before, everything else replaces."""
    kept = {key: list(getattr(config, key)) for key in (*UNIONS, "allow")}
    settings.apply_values(config, values, origin_)
    for key, before in kept.items():
        if key in values:
            added = [r for r in getattr(config, key) if r not in before]
            setattr(config, key, before + added)
            config.origins.update({(key, r): origin_ for r in added if (key, r) not in config.origins})
    config.raw = settings.merge_tables(config.raw, values)
    for key in (*UNIONS, "allow"):
        if getattr(config, key):
            config.raw[key] = list(getattr(config, key))


def load_config(flags: dict, env: Mapping, cwd: Path, config_home: Path, claude_home: Path | None = None) -> settings.Config:
    """Merge defaults, the user's and the folder's config files, the environment and the flags, the folder's
    file under the layer rules above (its held part applies only when the folder is trusted as it is now);
    claude_home: Claude Code's user folder (paths.claude_home() unless handed in)."""
    config = settings.Config(env=env)
    user = config_home / "config.toml"
    if user.is_file():
        _layer(config, _read_layer(config, user), str(user))
    trusted = _annotation_trust(config.mcp_servers)
    config.inert_names = [n for n in config.raw.get("env_names") or [] if isinstance(n, str)]  # the user's word only
    _plugin_layer(config, config_home)
    _claude_layer(config, [(claude_home or paths.claude_home()) / "settings.json"], ("allow", "deny", "ask"), own=True)
    _project_layer(config, flags, cwd, config_home)
    _keep_annotation_trust(config, trusted)
    settings.apply_values(config, {f: env[v] for v, f in settings.ENV_KEYS.items() if env.get(v)}, "environment")
    settings.apply_values(config, {k: v for k, v in flags.items() if k in settings.FIELDS}, "flags")
    settings.finish(config, flags)
    check_limits(config)
    return config


def _annotation_trust(servers: dict) -> dict[str, str]:
    """The user's own servers marked `trust_annotations = true`, each with what starts it."""
    return {name: _started_by(table) for name, table in servers.items()
            if isinstance(table, dict) and table.get("trust_annotations") is True}


def _started_by(table) -> str:
    return json.dumps([table.get(k) for k in ("command", "args", "url")] if isinstance(table, dict) else None,
                      default=str)


def _keep_annotation_trust(config: settings.Config, trusted: dict[str, str]) -> None:
    """trust_annotations holds only where the user's own config said it, for the server it described there: a
    project's file saying it, or starting another program under that name, trusts nothing."""
    for name, table in config.mcp_servers.items():
        if isinstance(table, dict) and "trust_annotations" in table:
            table.pop("trust_annotations")
        if isinstance(table, dict) and trusted.get(name) == _started_by(table):
            table["trust_annotations"] = True


def _plugin_layer(config: settings.Config, config_home: Path) -> None:
    """The plugins the user added (ankit plugin add): their MCP servers, as the user's own; a changed one is off."""
    config.plugins, problems = plugins.added(config_home)
    values, more = plugins.server_values(config.plugins, config.mcp_servers)
    config.problems += problems + more
    if values:
        _layer(config, values, "plugins")


def _read_layer(config: settings.Config, path: Path) -> dict:
    values = settings.read_toml(path)
    config.problems += settings.unknown_keys(values, path)
    config.files.append(path)
    return values


def _claude_layer(config: settings.Config, files: list[Path], keys: tuple[str, ...], env: bool = True,
                  own: bool = False) -> None:
    """Claude Code's settings files as a layer: their rules (translated, claude/settings.py) and env."""
    layer = claude.read_layer(files)
    config.problems += [line for line in layer.problems if line not in config.problems]
    rules = {key: getattr(layer, key) for key in keys if getattr(layer, key)}
    if rules:
        _layer(config, rules, ", ".join(str(f) for f in files if f.is_file()))
    if layer.mode and "allow" in keys:  # a project's mode waits for trust, as its allow rules do
        _layer(config, {"sandbox": layer.mode}, ", ".join(str(f) for f in files if f.is_file()))
    if layer.status and "allow" in keys:  # a command: the user's own, or a trusted folder's
        config.status_line = layer.status
    if env:
        kept, refused = envnames.passing(layer.env, "settings env", config.inert_names if own else ())
        config.claude_env |= kept
        config.problems += [line for line in refused if line not in config.problems]


def _project_layer(config: settings.Config, flags: dict, cwd: Path, config_home: Path) -> None:
    """The folder's .ankit/, .mcp.json and .claude/: all of it when trusted as it is now, else its safe part (the
    rest held; a .claude/ deny or ask rule applies at once: it only tightens)."""
    path = cwd / ".ankit" / "config.toml"
    tools = trust.project_tools(cwd)
    values = _read_layer(config, path) if path.is_file() else {}
    values, problems = with_project_servers(values, cwd)  # Claude Code's .mcp.json: project servers like these
    config.problems += problems
    config.trusted = bool(flags.get("trust"))  # --trust: a folder holding only agents or commands too
    files = [cwd / ".claude" / name for name in claude.PROJECT_FILES]
    _claude_layer(config, files, UNIONS, env=False)
    safe, held = split(values, {k: getattr(config, k, config.raw.get(k)) for k in LIMITS})
    try:
        runs = trust.runs(cwd)
        print_ = fingerprint(held, tools, cwd, runs) if values or tools or runs else None
    except TooBig as exc:  # not digested in part: refused, --trust or not
        config.trusted = False
        config.problems.append(f"this folder is not trusted: {exc}")
        _layer(config, safe, str(path))
        return
    if print_ is None:
        return
    recorded = trust.recorded(cwd, config_home)
    config.trusted = bool(flags.get("trust")) or (recorded is not None and recorded.digest == print_.digest)
    config.trust_items = print_.items
    if config.trusted:
        _layer(config, values, str(path))
        _claude_layer(config, files, ("allow",))
        return
    config.held, config.held_tools, config.held_claude = held, tools, runs
    config.trust_changes = print_.changes(recorded.items) if recorded is not None else []
    _layer(config, safe, str(path))


def check_limits(config: settings.Config) -> None:
    """A ConfigError for a negative cost cap (kept here so every layer's value is checked once merged)."""
    if config.max_cost < 0:
        raise ConfigError(f"max_cost must be 0 (no cap) or a positive number of USD, not {config.max_cost}")
