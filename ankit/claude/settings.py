"""Claude Code's settings files as one of ankit's layers: ~/.claude/settings.json (the user's), and a folder's
.claude/settings.json and .claude/settings.local.json (the project's).

Read from them: `permissions.allow`, `deny` and `ask` in Claude Code's rule syntax, translated here into ankit's
rules (`Bash(npm run test:*)` -> `run_command: npm run test*` and the same for job_start; `Read(./.env)` ->
`Read(.env)`, binding every path any tool declares it reads; `Edit(src/**)` -> `Edit(src/*)`, every path any tool
changes; `WebFetch(domain:example.com)` -> web_fetch on that host; `mcp__server__tool` as it is, `mcp__server`
every tool of that server; which tools a name binds: claude/toolnames.py), and `env`. The policy engine (safety/policy.py) merges them as any layer: a
project's deny and ask apply at once, its allow and env wait for trust. Hooks are read by hooks/config.py.
What trusting a folder's .claude/ would trust is listed by `trust_lines`. A rule or key ankit cannot translate is
said once, never dropped silently.
"""

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ankit.claude.hooksjson import hook_entries
from ankit.claude.toolnames import path_rule, rule_argument, rule_tools
from ankit.safety.digests import file_digest, folder_digest, named_files
from ankit.safety.envnames import inert

PROJECT_FILES = ("settings.json", "settings.local.json")
RULE = re.compile(r"^(?P<tool>[A-Za-z_][\w-]*)(?:\((?P<arg>.*)\))?$", re.S)


@dataclass
class ClaudeLayer:
    """What Claude Code's settings files add: rules in ankit's syntax, env, and lines about what was not taken."""

    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    ask: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    source: list[str] = field(default_factory=list)  # the Claude Code rules as written (allow), for the trust question
    hooks: list[str] = field(default_factory=list)  # one line per hook command, for the trust question
    mode: str = ""  # permissions.defaultMode (the last file's): acceptEdits or plan ("" for default or none)
    status: dict = field(default_factory=dict)  # statusLine (the last file's): {"command", "padding", "origin"}
    commands: list[str] = field(default_factory=list)  # the hooks' and the status line's command lines


def read_json(path: Path) -> tuple[dict, list[str]]:
    """A settings file as a dict ({} when missing), with a line when it cannot be read."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, []
    except (OSError, ValueError, RecursionError) as exc:
        return {}, [f"{path}: not read ({type(exc).__name__}); its hooks and permissions are off"]
    if not isinstance(data, dict):
        return {}, [f"{path}: not a JSON object; its hooks and permissions are off"]
    return data, []


def env_of(data: dict) -> dict[str, str]:
    """A settings file's "env": {NAME: value}, values that are plain strings, numbers or booleans."""
    env = data.get("env") if isinstance(data.get("env"), dict) else {}
    return {str(k): str(v).lower() if isinstance(v, bool) else str(v)
            for k, v in env.items() if isinstance(v, (str, int, float, bool)) and re.fullmatch(r"[A-Za-z_]\w*", str(k))}


def translate(rule: str, deny: bool) -> list[str] | None:
    """One Claude Code permission rule as ankit rules; None when ankit has nothing it could mean."""
    if re.fullmatch(r"mcp__[\w-]+__\*", rule.strip()):
        return [rule.strip()]  # every tool of that server, as mcp__server
    found = RULE.match(rule.strip())
    if found is None:
        return None
    tool, arg = found["tool"], found["arg"]
    if tool.startswith("mcp__"):
        return [tool] if arg is None and len(tool) > len("mcp__") else None  # mcp__server covers all its tools
    tools, kind = rule_tools(tool), rule_argument(tool)  # the one table of Claude Code's tools (claude/toolnames.py)
    if not tools:
        return None
    if arg is None or arg.strip() in ("", "*"):
        return list(tools)
    if kind == "command":
        return [f"{t}: {_command(arg)}" for t in tools]
    if kind == "domain":
        return _fetch(arg, deny)
    if kind == "path" and path_rule(tool):  # every tool's declared paths (safety/pathrules.py)
        return [f"{path_rule(tool)}({p})" for p in _paths(arg)]
    if kind == "path":
        return [f"{t}: {p}" for t in tools for p in _paths(arg)]
    return None


def _command(arg: str) -> str:
    """Bash(npm run test:*) is a prefix; a * elsewhere is a wildcard, as in ankit's globs."""
    arg = arg.strip()
    return arg[:-2] + "*" if arg.endswith(":*") else arg


def _paths(arg: str) -> list[str]:
    """A gitignore-style path of Claude Code's as ankit globs over a path relative to the working folder (a name
    without a slash matches at any depth)."""
    arg = arg.strip()
    if arg.startswith("./"):
        arg = arg[2:]
    elif arg.startswith("//"):
        arg = arg[1:]  # an absolute path
    elif arg.startswith("/"):
        arg = arg[1:]  # relative to the settings file's folder: the project
    while arg.startswith("**/"):
        arg = arg[3:]
    arg = arg.replace("/**/", "/*/").replace("/**", "/*")
    return [arg] if "/" in arg.rstrip("/") else [arg, f"*/{arg}"]


def _fetch(arg: str, deny: bool) -> list[str] | None:
    """WebFetch(domain:host): that host's pages; a deny or ask covers http_request to it too."""
    if not arg.startswith("domain:"):
        return None
    host = arg[len("domain:"):].strip()
    tools = ("web_fetch", "http_request") if deny else ("web_fetch",)
    return [f"{t}: {scheme}://{host}/*" for t in tools for scheme in ("https", "http")]


def read_layer(paths: list[Path]) -> ClaudeLayer:
    """The permissions and env of these settings files (later files add to earlier ones)."""
    layer = ClaudeLayer()
    for path in paths:
        data, problems = read_json(path)
        layer.problems += problems
        layer.env |= env_of(data)
        permissions = data.get("permissions") if isinstance(data.get("permissions"), dict) else {}
        for key in ("allow", "deny", "ask"):
            for rule in permissions.get(key) or [] if isinstance(permissions.get(key), list) else []:
                _take(layer, key, str(rule), path)
        layer.problems += [f"{path}: ankit ignores permissions.{k}" for k in permissions
                           if k not in ("allow", "deny", "ask", "defaultMode")]
        _mode(layer, permissions.get("defaultMode"), path)
        _status(layer, data.get("statusLine"), path)
        lines, commands = _hook_lines(data, path)
        layer.hooks, layer.commands = layer.hooks + lines, layer.commands + commands
    return layer


def _mode(layer: ClaudeLayer, value, path: Path) -> None:
    """permissions.defaultMode: acceptEdits and plan are taken; default changes nothing; bypassPermissions is
    never taken from a file (one line: the flag does it for one run)."""
    if value is None or value == "default":
        return
    if value in ("acceptEdits", "plan"):
        layer.mode = str(value)
    elif value == "bypassPermissions":
        layer.problems.append(f"{path}: defaultMode bypassPermissions is not taken from a file; pass "
                              "--permission-mode bypassPermissions (or --yes) for one run")
    else:
        layer.problems.append(f"{path}: defaultMode {str(value)[:40]!r} is not a mode (default, acceptEdits, plan, "
                              "bypassPermissions); ignored")


def _status(layer: ClaudeLayer, value, path: Path) -> None:
    """statusLine: a command shown under the prompt; another type, or no command, is one line."""
    if value is None:
        return
    command = value.get("command") if isinstance(value, dict) else None
    if not isinstance(value, dict) or value.get("type", "command") != "command" or not isinstance(command, str) \
            or not command.strip():
        layer.problems.append(f"{path}: statusLine needs {{\"type\": \"command\", \"command\": \"...\"}}; ignored")
        return
    padding = value.get("padding", 0)
    layer.status = {"command": command, "padding": padding if isinstance(padding, int) and 0 <= padding <= 20 else 0,
                    "origin": str(path)}


def _take(layer: ClaudeLayer, key: str, rule: str, path: Path) -> None:
    translated = translate(rule, key != "allow")
    if translated is None:
        layer.problems.append(f"{path}: ankit cannot apply the {key} rule {rule!r}; it is ignored")
        return
    getattr(layer, key).extend(r for r in translated if r not in getattr(layer, key))
    if key == "allow":
        layer.source.append(rule)


def _hook_lines(data: dict, path: Path) -> tuple[list[str], list[str]]:
    """One line per hook a settings file configures (event, matcher and command or prompt) and its status line
    command; and the command lines themselves."""
    entries, _ = hook_entries(data, path)
    lines = [f"run the {e.event}{f' [{e.matcher}]' if e.matcher else ''} hook of .claude/{path.name}: {e.text}"
             for e in entries]
    commands = [e.text for e in entries if e.kind == "command"]
    status = data.get("statusLine") if isinstance(data.get("statusLine"), dict) else {}
    if isinstance(status.get("command"), str) and status["command"].strip():
        lines.append(f"show the status line of .claude/{path.name}: {status['command']}")
        commands.append(status["command"])
    return lines, commands


def trust_lines(cwd: Path) -> list[str]:
    """What trusting the folder's .claude/ would trust: its hooks, allow rules and the env it may set, a digest of every other
    file there (hook scripts, agents, commands), and each project file its hooks and status line name, so any
    change to them asks again. TooBig when .claude/ is over the digest's limits."""
    folder = cwd / ".claude"
    if not folder.is_dir():
        return []
    settings = [folder / name for name in PROJECT_FILES]
    layer = read_layer(settings)
    lines = list(layer.hooks) + [f"allow without asking: {rule}" for rule in layer.source]
    lines += [f"set the environment variable {k}={v}" for k, v in sorted(layer.env.items()) if inert(k)]
    lines += [f"start in the permission mode {layer.mode}"] if layer.mode else []
    others = folder_digest(folder, f"{folder}", leave_out=tuple(settings))
    if others.files:
        lines.append(f"use the {others.files} other files under .claude (agents, commands, hook scripts; sha256 "
                     f"{others.sha})")
    return lines + named_lines(layer.commands, cwd)


def named_lines(commands: list[str], cwd: Path) -> list[str]:
    """One line per project file these commands name, with its digest: those outside .claude/, and links there
    (the folder's digest records where a link points, not what it holds)."""
    root = cwd.resolve()
    named = dict.fromkeys(p for command in commands for p in named_files(command, root))
    return [f"run {p.relative_to(root)}, which a hook or the status line names (sha256 {file_digest(p)})"
            for p in named if not p.is_relative_to(root / ".claude") or p.is_symlink()]
