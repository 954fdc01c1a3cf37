"""Claude Code plugins added with `ankit plugin add PATH`: a folder with .claude-plugin/plugin.json and its
commands/, agents/, skills/, hooks/hooks.json and .mcp.json, used as one unit.

Adding a plugin is trusting it as it is: what it would run (its MCP servers, hooks and the digest of every file)
is recorded in $XDG_CONFIG_HOME/ankit/plugins.json through the state-file layer. A plugin whose files changed
since is off, all of it, until it is added again (the same rule as a folder's trust and its digest).
"""

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ankit.errors import ConfigError
from ankit.safety import statefiles
from ankit.safety.digests import TooBig, folder_digest
from ankit.claude.hooksjson import hook_entries
from ankit.claude.mcp import read_json, servers_of
from ankit.wording import count

PLUGINS_FILE = "plugins.json"
MANIFEST = Path(".claude-plugin") / "plugin.json"
MARKETPLACE = Path(".claude-plugin") / "marketplace.json"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
ROOT_VARIABLE = "${CLAUDE_PLUGIN_ROOT}"


@dataclass
class Plugin:
    """One plugin: its name, folder and manifest, and whether it is as it was when added."""

    name: str
    root: Path
    description: str = ""
    version: str = ""
    manifest: dict = field(default_factory=dict)
    current: bool = True  # its files are as they were when it was added

    def folders(self, kind: str) -> list[Path]:
        """Its commands/ or agents/ folders: the default one, and any the manifest names (a path or a list)."""
        named = self.manifest.get(kind)
        extra = named if isinstance(named, list) else [named] if isinstance(named, str) else []
        found = [self.root / kind, *(self.root / str(p) for p in extra)]
        return [p for p in dict.fromkeys(found) if p.is_dir() and _inside(p, self.root)]

    def hook_files(self) -> list[Path]:
        """Its hooks files: hooks/hooks.json, and one the manifest names (a path inside the plugin)."""
        named = self.manifest.get("hooks")
        found = [self.root / "hooks" / "hooks.json", *([self.root / named] if isinstance(named, str) else [])]
        return [p for p in dict.fromkeys(found) if p.is_file() and _inside(p, self.root)]

    def servers(self) -> tuple[dict, list[str]]:
        """Its .mcp.json servers (${CLAUDE_PLUGIN_ROOT} filled), and one line per server left out."""
        path = self.root / ".mcp.json"
        if not path.is_file():
            return {}, []
        data, problem = read_json(path)
        if problem:
            return {}, [problem]
        text = json.dumps(data).replace(ROOT_VARIABLE, str(self.root).replace("\\", "\\\\").replace('"', '\\"'))
        return servers_of(json.loads(text), f"plugin {self.name}, {path}")


def _inside(path: Path, root: Path) -> bool:
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, ValueError):
        return False


def in_marketplace(root: Path, name: str | None) -> Path:
    """The folder of a marketplace's plugin by name (its source a folder inside the marketplace); ConfigError
    naming the plugins it lists when no name is given or the name is not there."""
    data, problem = read_json(root / MARKETPLACE)
    listed = data.get("plugins") if isinstance(data, dict) else None
    entries = {str(p.get("name")): p.get("source") for p in listed or [] if isinstance(p, dict)}
    if problem or not entries:
        raise ConfigError(problem or f"{root / MARKETPLACE} lists no plugins")
    shown = ", ".join(list(entries)[:5]) + (", ..." if len(entries) > 5 else "")
    if name not in entries:
        what = f"lists no plugin {name!r}" if name else f"is a marketplace of {len(entries)} plugins"
        raise ConfigError(f"{root} {what} ({shown}): add one by name, e.g. ankit plugin add {root} {next(iter(entries))}")
    source = entries[name]
    folder = (root / source).resolve() if isinstance(source, str) and source.startswith(".") else None
    if folder is None or not folder.is_relative_to(root):
        raise ConfigError(f"the plugin {name} is not a folder of this marketplace ({json.dumps(source)}): clone it and "
                          "add its folder with ankit plugin add PATH")
    return folder


def read_plugin(root: Path) -> Plugin:
    """The plugin in a folder; ConfigError with one line when it is none."""
    root = Path(root).expanduser().resolve()
    if not (root / MANIFEST).is_file() and (root / MARKETPLACE).is_file():
        in_marketplace(root, None)  # says which plugins it lists
    if not (root / MANIFEST).is_file():
        raise ConfigError(f"{root} has no {MANIFEST}: give the folder of a Claude Code plugin")
    data, problem = read_json(root / MANIFEST)
    if problem or not isinstance(data, dict):
        raise ConfigError(problem or f"{root / MANIFEST} must be a JSON object with \"name\"")
    name = str(data.get("name") or root.name).strip()
    if not NAME.fullmatch(name):
        raise ConfigError(f"the plugin's name {name!r} needs letters, digits, '-', '_' or '.'; fix {root / MANIFEST}")
    return Plugin(name, root, " ".join(str(data.get("description") or "").split()), str(data.get("version") or ""),
                  data)


def trust_items(plugin: Plugin) -> list[str]:
    """What adding the plugin trusts, one line each: the servers it starts, the hooks it runs, its files' digest."""
    servers, _ = plugin.servers()
    lines = [f"start the MCP server {name}: " + " ".join([str(t.get("command", t.get("url", "?"))),
                                                         *map(str, t.get("args") or [])]) for name, t in servers.items()]
    for path in plugin.hook_files():
        data = read_json(path)[0]
        entries, _ = hook_entries(data if isinstance(data, dict) else {}, path)
        lines += [f"run on {e.event}: {e.text}" for e in entries if e.kind == "command"]
    files = folder_digest(plugin.root, f"the plugin {plugin.name} ({plugin.root})")
    return lines + [f"use its {files.files} files (sha256 {files.sha})"]


def _read(config_home: Path) -> dict:
    try:
        data = json.loads(statefiles.read_cache(config_home / PLUGINS_FILE) or "{}")
    except (ValueError, RecursionError):
        return {}
    found = data.get("plugins") if isinstance(data, dict) else None
    return {k: v for k, v in found.items() if isinstance(v, dict) and isinstance(v.get("path"), str)} \
        if isinstance(found, dict) else {}


def _write(config_home: Path, plugins: dict) -> None:
    statefiles.write(config_home / PLUGINS_FILE, json.dumps({"version": 1, "plugins": plugins}, indent=1))


def add(config_home: Path, path: Path) -> str:
    """Record the plugin in a folder as trusted as it is now; what it brings, one line each."""
    plugin = read_plugin(path)
    items = trust_items(plugin)
    plugins = _read(config_home)
    again = plugin.name in plugins
    plugins[plugin.name] = {"path": str(plugin.root), "items": items}
    _write(config_home, plugins)
    head = f"{'updated' if again else 'added'} plugin {plugin.name}" + (f" {plugin.version}" if plugin.version else "")
    return "\n".join([f"{head} from {plugin.root}: " + (plugin.description or "no description"),
                      *(f"  {line}" for line in items + contents(plugin))])


def contents(plugin: Plugin) -> list[str]:
    """What the plugin holds, as counts."""
    held = {kind: sum(1 for f in plugin.folders(kind) for _ in f.rglob("*.md")) for kind in ("commands", "agents")}
    skills = len(list((plugin.root / "skills").glob("*/SKILL.md"))) if (plugin.root / "skills").is_dir() else 0
    return [f"{count(held['commands'], 'command')}, {count(held['agents'], 'agent')}, {count(skills, 'skill')}"]


def remove(config_home: Path, name: str) -> str:
    """Forget a plugin (its folder is left as it is)."""
    plugins = _read(config_home)
    if name not in plugins:
        raise ConfigError(f"no plugin named {name!r}; ankit plugin list shows them")
    path = plugins.pop(name)["path"]
    _write(config_home, plugins)
    return f"removed plugin {name} (its folder {path} is left as it is)"


def added(config_home: Path) -> tuple[list[Plugin], list[str]]:
    """The plugins added, each marked current or not, and one line per plugin that is off and why."""
    found, problems = [], []
    for name, entry in _read(config_home).items():
        try:
            plugin = read_plugin(Path(entry["path"]))
        except ConfigError as exc:
            problems.append(f"plugin {name} is off: {exc}")
            continue
        try:
            plugin.current = trust_items(plugin) == entry.get("items")
        except TooBig as exc:
            plugin.current = False
            problems.append(f"plugin {name} is off: {exc}")
        else:
            if not plugin.current:
                problems.append(f"plugin {name} is off: its files changed since you added it; run ankit plugin "
                                f"add {plugin.root} to trust it as it is now")
        found.append(plugin)
    return found, problems


def listing(config_home: Path) -> str:
    """`ankit plugin list`."""
    plugins, problems = added(config_home)
    if not plugins and not problems:
        return "no plugins; add one with ankit plugin add PATH (a folder holding .claude-plugin/plugin.json)"
    lines = [f"{p.name}{' ' + p.version if p.version else ''}: {p.description or 'no description'} ({p.root}; "
             f"{contents(p)[0]}{'' if p.current else '; off: changed since added'})" for p in plugins]
    return "\n".join(lines + [p for p in problems if "changed since" not in p])


def server_values(plugins: list[Plugin], configured: dict) -> tuple[dict, list[str]]:
    """The current plugins' MCP servers as a config layer ({"mcp": {"servers": ...}}); a name already configured
    (or taken by an earlier plugin) keeps its first definition."""
    servers, problems = {}, []
    for plugin in (p for p in plugins if p.current):
        found, lines = plugin.servers()
        problems += lines
        for name, table in found.items():
            if name in configured or name in servers:
                problems.append(f"plugin {plugin.name}: its MCP server {name} is left out: the name is taken")
            else:
                servers[name] = table
    return ({"mcp": {"servers": servers}} if servers else {}), problems


USAGE = "ankit plugin add PATH | add MARKETPLACE NAME | list | remove NAME"


def plugin_command(argv: list[str], config_home: Path) -> str:
    """`ankit plugin ...`: what it prints; ConfigError with the usage when the words are wrong."""
    action, rest = (argv[0], argv[1:]) if argv else ("list", [])
    if action == "add" and len(rest) == 1:
        return add(config_home, Path(rest[0]))
    if action == "add" and len(rest) == 2:
        return add(config_home, in_marketplace(Path(rest[0]).expanduser().resolve(), rest[1]))
    if action == "remove" and len(rest) == 1:
        return remove(config_home, rest[0])
    if action == "list" and not rest:
        return listing(config_home)
    raise ConfigError(f"usage: {USAGE}")
