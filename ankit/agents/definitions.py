"""Subagent definitions: NAME.md files with frontmatter (name, description, tools, model) whose body is the
subagent's system prompt, as Claude Code writes them.

Looked for in ~/.config/ankit/agents/, ~/.claude/agents/, then the project's .claude/agents/ and .ankit/agents/
(a later folder wins a name). A project's file is data from a repository: until the folder is trusted its
`model` is ignored and its tools are limited to read-only ones (it may narrow what a subagent gets, never widen it).
"""

import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path

from ankit import paths
from ankit.names import qualified
from ankit.agents.families import model_shown
from ankit.skills.frontmatter import read_fields
from ankit.claude.toolnames import CLAUDE_NAMES

NAME = re.compile(r"[A-Za-z0-9][\w.-]{0,63}")
AGENT_CAP = 100_000  # characters of one definition read
COUNT_CAP = 200  # definitions read from one folder
AGENT_KEYS = frozenset({"name", "description", "tools", "model", "color", "permissionMode", "skills"})
NOT_AGENTS = {"README.MD", "CHANGELOG.MD", "CONTRIBUTING.MD", "LICENSE.MD"}  # what a collection's folder also holds


@dataclass
class AgentSpec:
    """One named subagent."""

    name: str
    description: str
    system: str  # the file's body: the subagent's system prompt
    tools: list[str] | None = None  # tool names or group ids it may use; None: every tool
    model: str = ""  # "" or "inherit": the main session's model
    source: Path | None = None
    project: bool = False  # from the working folder (not the user's own folders)
    read_only: bool = False  # an untrusted project's agent: read-only tools only
    notes: list[str] = field(default_factory=list)  # what was ignored for want of trust
    asked: list[str] = field(default_factory=list)  # the tools field as written (Claude Code's names)


def agent_dirs(cwd: Path, config_home: Path, claude_home: Path) -> list[tuple[Path, bool]]:
    """Where definitions are looked for, lowest precedence first, each with whether it is the project's;
    claude_home: Claude Code's user folder (~/.claude)."""
    return [(config_home / "agents", False), (claude_home / "agents", False),
            (cwd / ".claude" / "agents", True), (cwd / ".ankit" / "agents", True)]


def load_agents(folders: list[tuple[Path, bool]], trusted: bool, root: Path | None = None,
                plugins: dict[Path, str] | None = None) -> tuple[dict[str, AgentSpec], list[str]]:
    """Every definition by name (a later folder wins; a plugin's folder gives `plugin:name`), and one line per file
    skipped. A project file that links outside root (the working folder) is skipped."""
    found: dict[str, AgentSpec] = {}
    problems: list[str] = []
    for folder, project in folders:
        if not folder.is_dir():
            continue
        for path in agent_files(folder):
            if project and root is not None and not paths.lies_in(path, root):
                problems.append(f"agent {path} skipped: it links to a file outside {root}")
                continue
            spec, problem = read_agent(path, project, trusted)
            if spec is None:
                problems.append(problem)
            else:
                spec.name = qualified((plugins or {}).get(folder, ""), spec.name)
                found[spec.name] = spec
    return found, problems


def agent_files(folder: Path) -> list[Path]:
    """The definitions in a folder and its subfolders (as a collection is copied in), READMEs left out."""
    found = (p for p in sorted(folder.rglob("*.md")) if p.name.upper() not in NOT_AGENTS and p.is_file())
    return list(itertools.islice(found, COUNT_CAP))


def read_agent(path: Path, project: bool = False, trusted: bool = True) -> tuple[AgentSpec | None, str]:
    """One definition file, or None and the line saying why it was skipped."""
    try:
        fields, body = read_fields(paths.read_head(path, AGENT_CAP), AGENT_KEYS)
    except OSError as exc:
        return None, f"agent {path} skipped: {exc.strerror or exc}"
    except ValueError as exc:
        return None, f"agent {path} skipped: {exc}"
    name = _line(fields.get("name")) or path.stem
    if not NAME.fullmatch(name):
        return None, f"agent {path} skipped: its name {name!r} needs letters, digits, '-', '_' or '.'"
    description = _line(fields.get("description"))
    if not description or not body.strip():
        return None, f"agent {path} skipped: it needs a description: line and a system prompt below the frontmatter"
    asked = _names(fields.get("tools"))
    spec = AgentSpec(name, description, body.strip(), _tools(asked), _line(fields.get("model")), path, project,
                     asked=asked)
    if project and not trusted:
        _restrict(spec)
    return spec, ""


def _restrict(spec: AgentSpec) -> None:
    """An untrusted project's agent: no model of its own, read-only tools only."""
    if spec.model and spec.model != "inherit":
        spec.notes.append(f"its model {spec.model!r} is ignored")
        spec.model = ""
    spec.read_only = True
    spec.notes.append("it gets read-only tools only")


def _names(value) -> list[str]:
    """The tools field as written: "Read, Grep" or a list."""
    items = value if isinstance(value, list) else str(value or "").split(",")
    return [str(item).strip() for item in items if str(item).strip()]


def _tools(names: list[str]) -> list[str] | None:
    """The tools an agent asks for as ankit's names (Claude Code's become ankit's); none or "*": every tool."""
    if not names or "*" in names:
        return None
    return list(dict.fromkeys(CLAUDE_NAMES.get(n, n) for n in names))


def unknown_tools(spec: AgentSpec, tools: dict[str, str]) -> list[str]:
    """The names in an agent's tools field that are no tool or group here (tools: name -> group); an MCP
    server's tools (mcp__...) are not told: they are known once the server has listed them."""
    groups = set(tools.values())
    return [n for n in spec.asked if n != "*" and not n.startswith("mcp__")
            and CLAUDE_NAMES.get(n, n) not in tools and CLAUDE_NAMES.get(n, n) not in groups]


def tools_given(spec: AgentSpec, tools: dict[str, str]) -> str:
    """What an agent really gets, as /agents says it."""
    if spec.tools is None:
        return "read-only tools (find_tools finds them)" if spec.read_only else "all tools (find_tools finds them)"
    names = [n for n, group in tools.items() if n != "task" and (n in spec.tools or group in spec.tools)]
    given = ", ".join(names) or "no tools"
    given += " and what find_tools finds" if "find_tools" in spec.tools else ""
    return f"{given}{' (read-only ones only)' if spec.read_only else ''}"


def _line(value) -> str:
    return " ".join(str(value).split()) if isinstance(value, (str, int, float)) else ""


def agents_listing(agents: dict[str, AgentSpec]) -> str:
    """The named agents the task tool offers, one line each (its description's list)."""
    return "\n".join(f"- {a.name}: {a.description}" for a in agents.values())


def agents_text(agents: dict[str, AgentSpec], tools: dict[str, str] | None = None, model: str = "",
                known: list[str] | None = None) -> str:
    """/agents: each named agent, the tools it really gets (tools: name -> group) and its model, and its file."""
    if not agents:
        return ("no named agents: write one as ~/.config/ankit/agents/NAME.md or .ankit/agents/NAME.md "
                "(see ankit help subagents); the task tool runs a general subagent meanwhile")
    lines = []
    for spec in agents.values():
        missing = unknown_tools(spec, tools or {})
        lines.append(f"{spec.name}: {spec.description}\n  tools: {tools_given(spec, tools or {})}"
                     + (f" (not here: {', '.join(missing)})" if missing else "")
                     + f"\n  model: {model_shown(spec.model, model, known or [])} · {spec.source}")
    return "\n".join(lines)
