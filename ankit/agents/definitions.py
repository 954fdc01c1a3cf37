"""Subagent definitions: NAME.md files with frontmatter (name, description, tools, model) whose body is the
subagent's system prompt, as Claude Code writes them.

Looked for in ~/.config/ankit/agents/, ~/.claude/agents/, then the project's .claude/agents/ and .ankit/agents/
(a later folder wins a name). A project's file is data from a repository: until the folder is trusted its
`model` is ignored and its tools are limited to read-only ones (it may narrow what a subagent gets, never widen it).
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

from ankit import paths
from ankit.skills.frontmatter import read_frontmatter
from ankit.tooling.hooks import CLAUDE_NAMES

NAME = re.compile(r"[A-Za-z0-9][\w.-]{0,63}")
AGENT_CAP = 100_000  # characters of one definition read
COUNT_CAP = 200  # definitions read from one folder


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


def agent_dirs(cwd: Path, config_home: Path, home: Path) -> list[tuple[Path, bool]]:
    """Where definitions are looked for, lowest precedence first, each with whether it is the project's."""
    return [(config_home / "agents", False), (home / ".claude" / "agents", False),
            (cwd / ".claude" / "agents", True), (cwd / ".ankit" / "agents", True)]


def load_agents(folders: list[tuple[Path, bool]], trusted: bool,
                root: Path | None = None) -> tuple[dict[str, AgentSpec], list[str]]:
    """Every definition by name (a later folder wins), and one line per file skipped. A project file that links
    outside root (the working folder) is skipped."""
    found: dict[str, AgentSpec] = {}
    problems: list[str] = []
    for folder, project in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.md"))[:COUNT_CAP]:
            if project and root is not None and not paths.lies_in(path, root):
                problems.append(f"agent {path} skipped: it links to a file outside {root}")
                continue
            spec, problem = read_agent(path, project, trusted)
            if spec is None:
                problems.append(problem)
            else:
                found[spec.name] = spec
    return found, problems


def read_agent(path: Path, project: bool = False, trusted: bool = True) -> tuple[AgentSpec | None, str]:
    """One definition file, or None and the line saying why it was skipped."""
    try:
        text = paths.read_head(path, AGENT_CAP)
        fields, body = read_frontmatter(text)
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
    spec = AgentSpec(name, description, body.strip(), _tools(fields.get("tools")), _line(fields.get("model")),
                     path, project)
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


def _tools(value) -> list[str] | None:
    """The tools field: "Read, Grep" or a list; Claude Code's names become ankit's; empty or "*": every tool."""
    items = value if isinstance(value, list) else str(value or "").split(",")
    names = [str(item).strip() for item in items if str(item).strip()]
    if not names or "*" in names:
        return None
    return list(dict.fromkeys(CLAUDE_NAMES.get(n, n) for n in names))


def _line(value) -> str:
    return " ".join(str(value).split()) if isinstance(value, (str, int, float)) else ""


def agents_listing(agents: dict[str, AgentSpec]) -> str:
    """The named agents the task tool offers, one line each (its description's list)."""
    return "\n".join(f"- {a.name}: {a.description}" for a in agents.values())


def agents_text(agents: dict[str, AgentSpec]) -> str:
    """/agents: each named agent, its tools and model, and its file."""
    if not agents:
        return ("no named agents: write one as ~/.config/ankit/agents/NAME.md or .ankit/agents/NAME.md "
                "(see ankit help subagents); the task tool runs a general subagent meanwhile")
    lines = []
    for spec in agents.values():
        tools = ", ".join(spec.tools) if spec.tools is not None else "all tools"
        tools = "read-only tools" if spec.read_only and spec.tools is None else tools
        lines.append(f"{spec.name}: {spec.description}\n  {tools} · model {spec.model or 'inherited'} · {spec.source}")
    return "\n".join(lines)
