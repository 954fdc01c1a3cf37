"""Settings: the Config record and reading config files. Keys are looked up, never printed.

How the layers (defaults < config files < environment < flags) merge, and what a folder's own file may change,
is decided by the policy engine (ankit/settings/layers.py: load_config).
"""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ankit.errors import ConfigError
from ankit.safety import sandbox

@dataclass
class Config:
    """The merged settings ankit runs with."""

    provider: str = ""
    model: str = ""
    base_url: str = ""
    max_rounds: int = 25
    retries: int = 2
    idle_timeout: float = 120.0
    output_cap: int = 64 * 1024
    max_tokens: int = 4096
    context_window: int = 0
    core: list[str] = field(default_factory=lambda: ["core"])
    catalog_mode: str = "first"
    cache_ttl: str = "5m"
    max_cost: float = 0.0  # USD per session; 0: no cap
    system: str = ""  # -s/--system: text appended to the system prompt for this run
    deferred: str = "auto"  # how activated tools reach the model: auto, native or append
    api: str = ""  # the OpenAI wire format: responses or chat ("" = responses on OpenAI's own host)
    preload: bool = True  # send the groups this folder's recent sessions activated from the first request
    allow: list[str] = field(default_factory=list)  # permission rules, e.g. "run_command: pytest *"
    deny: list[str] = field(default_factory=list)  # deny wins over allow, --yes and [a]lways
    ask: list[str] = field(default_factory=list)  # always asked, even when an allow rule or [a]lways covers it
    origins: dict = field(default_factory=dict)  # (allow|deny|ask, rule) -> the file it came from (/permissions)
    tool_timeout: float = 600.0  # seconds a tool's run() may take unless the tool says otherwise
    sandbox: str = "workspace"  # the mode: workspace, accept-edits, read-only or off (ankit/safety/sandbox.py)
    subagent_max_rounds: int = 15  # rounds one subagent may run before it must answer
    code_mode: str = "on"  # run_code: off, on (beside the tools, the default: bench_code_mode.py) or only
    code_mode_catalog: str = "none"  # what the system prompt says of each tool in code mode
    notify: float = 30.0  # a turn longer than this many seconds rings the terminal when it ends (0: never)
    phrases: bool = True  # the model writes MCP tools' search phrases in the background of a REPL session
    phrases_model: str = ""  # the model that writes them ("": the session's)
    search: str = "auto"  # find_tools ranks by words, or by the model's choice among the top tools (decision);
    # auto: decision with a capable model (decision_model named, or a hosted vendor's own API), else words
    decision_model: str = ""  # the model decision mode asks ("": the session's)
    min_probability: float = 0.05  # decision mode drops tools the model gives less than this
    trusted: bool = False  # this folder's .ankit/ settings and tools apply (trust list or --trust)
    untrusted: str = ""  # why this REPL session asks before every command: the folder is not trusted ("": it is)
    held: dict = field(default_factory=dict)  # project settings waiting for trust (see ankit/settings/layers.py)
    trust_items: list[str] = field(default_factory=list)  # what trusting this folder trusts, one line each
    trust_changes: list[str] = field(default_factory=list)  # what changed since the folder was trusted
    held_tools: list[Path] = field(default_factory=list)  # project tool modules waiting for trust
    held_claude: list[str] = field(default_factory=list)  # what the folder's .claude/ would run, waiting for trust
    claude_env: dict = field(default_factory=dict)  # Claude Code settings files' env (a project's once trusted)
    inert_names: list = field(default_factory=list)  # env_names of the user's own config: names of the user's own
    # Claude Code settings env let through (a project's env passes only names known inert: its trust question lists those)
    status_line: dict = field(default_factory=dict)  # Claude Code's statusLine (a project's once trusted)
    yes: bool = False
    tools_dirs: list[Path] = field(default_factory=list)
    skills_dir: Path | None = None
    raw: dict = field(default_factory=dict)  # the merged file tables, for tools (web_search_url, ...)
    files: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # one line each, told at start (unknown keys)
    env: Mapping = field(default_factory=dict, repr=False)
    plugins: list = field(default_factory=list)  # claude.plugins.Plugin: the plugins the user added

    @property
    def mcp_servers(self) -> dict:
        """The [mcp.servers.NAME] tables."""
        return dict((self.raw.get("mcp") or {}).get("servers") or {})

    @property
    def prices(self) -> dict:
        """Price overrides from [prices."model"] tables."""
        return dict(self.raw.get("prices") or {})


# Every key a config.toml may hold, with its type: a key missing here is reported as unknown, so a new
# setting is one line here (and a Config field when ankit itself reads it; tools read theirs from ctx.config).
KEYS: dict[str, type] = {
    "provider": str, "model": str, "base_url": str, "max_rounds": int, "retries": int,
    "idle_timeout": float, "output_cap": int, "max_tokens": int, "context_window": int,
    "core": list, "catalog_mode": str, "cache_ttl": str, "max_cost": float, "deferred": str, "api": str,
    "preload": bool, "allow": list, "deny": list, "ask": list, "tool_timeout": float, "search_timeout": float,
    "prices": dict,  # [prices."MODEL"] tables
    "mcp": dict,  # [mcp.servers.NAME] tables and start_timeout
    "web_search_url": str, "web_search_backend": str, "web_timeout": int, "web_max_bytes": int,
    "github_api_url": str, "memory_fts": bool, "sandbox": str,
    "hooks": dict,  # [[hooks.EVENT]] tables (ankit.hooks.events)
    "notify": float, "subagent_max_rounds": int, "phrases": bool, "phrases_model": str,
    "search": str, "decision_model": str, "min_probability": float,  # seconds a turn takes before its end rings the terminal (0: never)
    "code_mode": str, "code_mode_catalog": str, "code_mode_timeout": float, "code_mode_max_calls": int,
    "code_mode_output_cap": int, "code_mode_memory_mb": int,  # run_code's limits (ankit.codemode.bridge)
    "env_names": list,  # settings env names the user lets through (read from the user's own file only)
}
FIELDS = {key: kind for key, kind in KEYS.items() if key in Config.__dataclass_fields__}
CHOICES = {"deferred": ("auto", "native", "append"), "api": ("", "responses", "chat"),
           "catalog_mode": ("names", "first", "full"), "sandbox": sandbox.MODES,
           "search": ("auto", "words", "decision"), "code_mode": ("off", "on", "only"),
           "code_mode_catalog": ("none", "first-sentence", "full")}
ALIASES = {"sandbox": sandbox.ALIASES}  # /mode's names (ask, plan) are the setting's too
ENV_KEYS = {"ANKIT_PROVIDER": "provider", "ANKIT_MODEL": "model", "ANKIT_BASE_URL": "base_url"}


def read_toml(path: Path) -> dict:
    """Read one config file; a malformed one is a ConfigError naming the file and line."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}; fix or remove that file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None


def unknown_keys(values: dict, path: Path) -> list[str]:
    """One line per key the file sets that ankit does not know, with the closest known key when there is one."""
    lines = []
    for key in values:
        if key not in KEYS:
            close = difflib.get_close_matches(key, KEYS, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else "; it is ignored (see ankit help providers)"
            lines.append(f"unknown key {key!r} in {path}{hint}")
    return lines


def apply_values(config: Config, values: dict, origin: str) -> None:
    """Set the Config fields a layer names, each checked against its type."""
    for key, kind in FIELDS.items():
        if key not in values or values[key] is None:
            continue
        value = values[key]
        if kind is bool and not isinstance(value, bool):
            raise ConfigError(f"{origin}: {key} should be true or false, got {value!r}")
        try:
            value = list(value) if kind is list else kind(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{origin}: {key} should be a {kind.__name__}, got {value!r}") from None
        setattr(config, key, value)


def merge_tables(base: dict, extra: dict) -> dict:
    """Two config tables merged, nested tables key by key."""
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_tables(merged[key], value)
        else:
            merged[key] = value
    return merged


def finish(config: Config, flags: dict) -> None:
    """What the flags alone decide, and the checks on the merged values (the layers are merged by
    ankit/settings/layers.py: load_config, which decides what each layer may change)."""
    config.yes = bool(flags.get("yes"))
    config.system = str(flags.get("system") or "")
    config.tools_dirs = [Path(p) for p in flags.get("tools_dirs") or []]
    config.skills_dir = Path(flags["skills_dir"]) if flags.get("skills_dir") else None
    for key, allowed in CHOICES.items():
        value = getattr(config, key)
        setattr(config, key, ALIASES.get(key, {}).get(str(value).strip().lower(), value))
        if getattr(config, key) not in allowed:
            shown = " or ".join(a for a in allowed if a)
            raise ConfigError(f"{key} must be {shown}, not {getattr(config, key)!r}")
