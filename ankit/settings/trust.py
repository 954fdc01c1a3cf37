"""Workspace trust, as stored: the trust list of folders and what was trusted in each, and what a folder holds.

Which keys of a folder's .ankit/config.toml wait for trust is decided by the layers (layers.py). Trusting a
folder records a digest of what was trusted (`Fingerprint`: the held keys and their values, the MCP commands, the
tool files' contents); when any of it changes (a `git pull`), the folder is untrusted again and the question says
what changed. The trust list lives in $XDG_CONFIG_HOME/ankit/trusted.json as
{"version": 2, "folders": {FOLDER: {"digest": SHA256, "items": [LINE, ...]}}}, kept through ankit's state-file
layer (safety/statefiles.py): a list another user owns or could have written trusts nothing. An older plain list
of folders records nothing about what was trusted, so those folders are asked again.
"""

import hashlib
import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from ankit.safety import statefiles
from ankit.safety.digests import file_digest, folder_digest, named_files
from ankit.claude import settings as claude

TRUST_FILE = "trusted.json"
SHELL_LINE = re.compile(r"!`([^`\n]+)`|^[ \t]*!(.+)$", re.M)  # inline !`cmd`, or a line starting with !


@dataclass
class Recorded:
    """What the user trusted in one folder: its fingerprint's digest and lines (None for an old entry)."""

    digest: str | None
    items: list[str] | None


def project_tools(cwd: Path) -> list[Path]:
    """The tool modules a folder's .ankit/tools/ holds."""
    folder = cwd / ".ankit" / "tools"
    if not folder.is_dir():
        return []
    found = [*folder.glob("*.py"), *folder.glob("*/*.py")]
    return sorted(p for p in found if not p.name.startswith(("_", "test_")))


def _key(cwd: Path) -> str:
    return str(Path(cwd).resolve())


def _read(config_home: Path) -> dict[str, Recorded]:
    """The trust list: {folder: what was trusted}; an old plain list of folders records nothing about them."""
    try:
        data = json.loads(statefiles.read_cache(config_home / TRUST_FILE) or "[]")
    except (ValueError, RecursionError):
        return {}
    if isinstance(data, list):
        return {str(p): Recorded(None, None) for p in data}
    folders = data.get("folders") if isinstance(data, dict) else None
    if not isinstance(folders, dict):
        return {}
    found = {}
    for folder, entry in folders.items():
        if isinstance(entry, dict) and isinstance(entry.get("digest"), str) and isinstance(entry.get("items"), list):
            found[str(folder)] = Recorded(entry["digest"], [str(i) for i in entry["items"]])
    return found


def recorded(cwd: Path, config_home: Path) -> Recorded | None:
    """What the user trusted in this folder, or None when they never did."""
    return _read(config_home).get(_key(cwd))


def remember(cwd: Path, config_home: Path, digest: str, items: list[str]) -> None:
    """Record the folder as trusted with what was trusted (written whole, atomically, readable by the user only)."""
    folders = {k: {"digest": v.digest, "items": v.items} for k, v in _read(config_home).items() if v.digest}
    folders[_key(cwd)] = {"digest": digest, "items": list(items)}
    text = json.dumps({"version": 2, "folders": folders}, indent=1, ensure_ascii=False)
    statefiles.write(config_home / TRUST_FILE, text)


def describe(held: dict, tools: list[Path], cwd: Path) -> list[str]:
    """What the folder would add, one line each, for the trust question and the -p notice."""
    lines = []
    mcp = held.get("mcp") if isinstance(held.get("mcp"), dict) else {}
    servers = mcp.get("servers") if isinstance(mcp.get("servers"), dict) else {}
    for name, server in servers.items():
        server = server if isinstance(server, dict) else {"?": server}
        named = []
        if "url" in server and "command" not in server:
            line = f"connect to the MCP server {name} at {server['url']}"
        else:
            words = [str(server.get("command", "?")), *map(str, server.get("args") or [] if isinstance(
                server.get("args"), list) else [])]
            line = f"start the MCP server {name}: {' '.join(words)}".rstrip()
            named = _named(name, words, cwd)
        rest = {k: v for k, v in server.items() if k not in ("command", "args", "url")}
        lines.append(line + (f" with {json.dumps(rest, ensure_ascii=False, sort_keys=True)}" if rest else ""))
        lines += named
    lines += [f"set mcp.{key} = {json.dumps(value, ensure_ascii=False)}" for key, value in mcp.items() if key != "servers"]
    for key, value in held.items():
        if key != "mcp":
            lines.append(f"set {key} = {json.dumps(value, ensure_ascii=False)}")
    lines += [f"load the tool module {p.relative_to(cwd)}" for p in tools]
    return lines


def _named(name: str, words: list[str], cwd: Path) -> list[str]:
    """One line per project file an MCP server's command names (`python3 srv.py`, `node ./dist/index.js`), with
    its digest: a `git pull` that changes the server's code asks again, as one that changes its command does."""
    root = cwd.resolve()
    return [f"run {p.relative_to(root)}, which the MCP server {name} names (sha256 {file_digest(p)})"
            for p in named_files(shlex.join(words), root)]


def runs(cwd: Path) -> list[str]:
    """What else the folder would have ankit run, one line each: its .claude/ (hooks, allow rules, env, files;
    claude/settings.py), its agent files and the custom commands with shell lines."""
    lines = claude.trust_lines(cwd)  # .mcp.json's servers are held as the folder's own (claude/mcp.py)
    agents = sorted((cwd / ".ankit" / "agents").glob("*.md"))
    commands = [p for p in sorted((cwd / ".ankit" / "commands").rglob("*.md")) if _runs_shell(p)]
    lines += [f"use the agent {p.relative_to(cwd)} (sha256 {file_digest(p)})" for p in agents]
    lines += [f"offer the command {p.relative_to(cwd)}, which runs shell lines (sha256 {file_digest(p)})"
              for p in commands]
    return lines + _named_by_commands(cwd, commands + sorted((cwd / ".claude" / "commands").rglob("*.md")))


def _named_by_commands(cwd: Path, commands: list[Path]) -> list[str]:
    """One line per project file outside .claude/ a custom command's shell line names (`!`sh scripts/deploy.sh``),
    with its digest: a pull that changes the script asks again, as one that changes the command does."""
    root = cwd.resolve()
    named = dict.fromkeys(p for path in commands for line in _shell_lines(path) for p in named_files(line, root))
    return [f"run {p.relative_to(root)}, which a custom command's shell line names (sha256 {file_digest(p)})"
            for p in named if not p.is_relative_to(root / ".claude")]


def _runs_shell(path: Path) -> bool:
    """Whether a custom command's file has a shell line (`!` at a line's start, or !`...` inline); an unreadable
    file is taken to have one."""
    return _shell_lines(path) != []


def _shell_lines(path: Path) -> list[str]:
    """A custom command file's shell lines (["?"] when it cannot be read)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")[:1 << 20]
    except OSError:
        return ["?"]
    return [inline or whole for inline, whole in SHELL_LINE.findall(text)]


@dataclass
class Fingerprint:
    """What trusting a folder would trust: one line per held key, MCP command and tool file, and their digest."""

    items: list[str]

    @property
    def digest(self) -> str:
        return hashlib.sha256("\n".join(sorted(self.items)).encode("utf-8", "replace")).hexdigest()

    def changes(self, before: list[str] | None) -> list[str]:
        """What differs from the items trusted before, one line each ("now: ...", "was: ...")."""
        if before is None:
            return ["(ankit did not record what was trusted before; here is what the folder holds now)"]
        now = [f"now: {line}" for line in self.items if line not in before]
        was = [f"was: {line}" for line in before if line not in self.items]
        return now + was


def fingerprint(held: dict, tools: list[Path], cwd: Path, runs: list[str] = ()) -> Fingerprint:
    """The trust fingerprint of a folder's held settings, tool modules (their contents hashed) and what else it
    would run (`runs`: its .claude/ hooks, allow rules, env and files; claude/settings.py)."""
    items = describe(held, [], cwd) + list(runs)
    items += [f"load the tool module {path.relative_to(cwd)} (sha256 {file_digest(path)})" for path in tools]
    folder = cwd / ".ankit" / "tools"
    others = folder_digest(folder, str(folder), leave_out=tuple(tools)) if tools else None
    if others and others.files:  # helpers the modules import (_common.py, data files): a change to them is a change too
        items.append(f"with {others.files} other files under .ankit/tools (sha256 {others.sha})")
    return Fingerprint(items + claude.named_lines(_hook_commands(held.get("hooks")), cwd))


def _hook_commands(tables) -> list[str]:
    """The command lines of a config.toml's [[hooks.EVENT]] tables."""
    tables = tables if isinstance(tables, dict) else {}
    entries = [e for group in tables.values() for e in (group if isinstance(group, list) else [group])]
    return [e["command"] for e in entries if isinstance(e, dict) and isinstance(e.get("command"), str)]
