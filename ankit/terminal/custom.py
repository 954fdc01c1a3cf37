"""Custom slash commands: Markdown prompt templates from .ankit/commands/, the user's, and Claude Code's
.claude/commands/ and ~/.claude/commands/ (subfolders too, namespaced as Claude Code does)."""

import itertools
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from ankit import paths
from ankit.skills.frontmatter import read_fields

NAME = re.compile(r"[A-Za-z0-9][\w.-]*")
PLACEHOLDER = re.compile(r"\$(ARGUMENTS|[1-9])")
COMMAND_CAP = 100_000  # characters of one command file read
COMMAND_KEYS = frozenset({"description", "argument-hint", "allowed-tools", "model", "disable-model-invocation"})
COUNT_CAP = 500  # command files read from one folder
SNIPPET = re.compile(r"!`([^`\n]+)`")  # Claude Code's !`git status`: run, and its output put in its place


@dataclass
class CustomCommand:
    """One /name command read from NAME.md (in a subfolder: Claude Code's namespace, shown in /help)."""

    name: str
    body: str
    description: str
    hint: str  # argument-hint
    source: Path
    project: bool = False  # from the working folder: its !`command` lines wait for trust
    tools: list[str] = field(default_factory=list)  # allowed-tools, as written
    model: str = ""  # the model field, as written


def command_dirs(cwd: Path, config_home: Path, claude_home: Path | None = None) -> list[Path]:
    """Where custom commands are looked for, first one winning on a name clash; claude_home: Claude Code's user
    folder (paths.claude_home() unless handed in)."""
    return [cwd / ".ankit" / "commands", config_home / "commands", cwd / ".claude" / "commands",
            (claude_home or paths.claude_home()) / "commands"]


def load_commands(folders: list[Path], builtin: set[str], root: Path | None = None,
                  plugins: dict[Path, str] | None = None) -> tuple[dict[str, CustomCommand], list[str]]:
    """Read every NAME.md in the folders and their subfolders (a plugin's folder: its commands are namespaced
    with the plugin's name); clashes and unreadable files are told in one line each. A file in a folder under
    root (the working folder) must lie in root itself: a link out of a cloned repository is skipped."""
    found: dict[str, CustomCommand] = {}
    problems: list[str] = []
    for folder in folders:
        plugin = (plugins or {}).get(folder, "")  # a plugin the user added is the user's, wherever it lies
        project = not plugin and root is not None and paths.lies_in(folder, root)
        for path in _files(folder):
            name, namespace = _name(path, folder, {*found, *builtin}, plugin)
            if not NAME.fullmatch(path.stem):
                problems.append(f"custom command {path} skipped: use letters, digits, '-', '_' in its name")
            elif name in builtin:
                problems.append(f"custom command {path} skipped: /{name} is a built-in command; rename the file")
            elif name in found:
                problems.append(f"custom command {path} skipped: /{name} is already defined by {found[name].source}")
            elif project and not paths.lies_in(path, root):
                problems.append(f"custom command {path} skipped: it links to a file outside {root}")
            else:
                command, problem = _read(path, name, namespace, "plugin" if plugin else "project" if project else "user")
                if command:
                    command.project = project
                    found[name] = command
                else:
                    problems.append(problem)
    return found, problems


def _files(folder: Path) -> list[Path]:
    """The command files of a folder and its subfolders, READMEs left out, at most COUNT_CAP."""
    if not folder.is_dir():
        return []
    found = (p for p in sorted(folder.rglob("*.md")) if p.name.upper() != "README.MD" and p.is_file())
    return list(itertools.islice(found, COUNT_CAP))


def _name(path: Path, folder: Path, taken: set[str], plugin: str = "") -> tuple[str, str]:
    """A file's command name and namespace: ci/build.md is /build "(ci)", or /ci:build when /build is taken; a
    plugin's commands are always /plugin:name (commands_named finds them by the plain name too)."""
    namespace = ":".join([plugin] * bool(plugin) + list(path.relative_to(folder).parent.parts))
    if namespace and (plugin or path.stem in taken):  # a plugin's is always plugin:name, as in Claude Code
        return f"{namespace}:{path.stem}", namespace
    return path.stem, namespace


def _read(path: Path, name: str, namespace: str = "", scope: str = "user") -> tuple[CustomCommand | None, str]:
    try:
        text = paths.read_head(path, COMMAND_CAP)
    except OSError as exc:
        return None, f"custom command {path} skipped: {exc.strerror or exc}"
    fields, body = {}, text.lstrip("\ufeff").replace("\r\n", "\n")
    if body.startswith("---"):
        try:
            fields, body = read_fields(text, COMMAND_KEYS)
        except ValueError as exc:
            return None, f"custom command {path} skipped: {exc}"
    description = _line(fields.get("description")) or _first_line(body) or f"prompt from {path.name}"
    if namespace:
        description += f" ({scope}:{namespace})"
    return CustomCommand(name, body.strip(), description, _line(fields.get("argument-hint")), path, False,
                         _list(fields.get("allowed-tools")), _line(fields.get("model"))), ""


def _list(value) -> list[str]:
    """allowed-tools: "Bash(git add:*), Read" or a list."""
    items = value if isinstance(value, list) else str(value or "").split(",") if isinstance(value, str) else []
    return [str(item).strip() for item in items if str(item).strip()]


def snippets(body: str) -> list[str]:
    """The !`command` parts of a command's text, in order."""
    return [match.group(1) for match in SNIPPET.finditer(body)]


def _line(value) -> str:
    return " ".join(str(value).split()) if isinstance(value, (str, int, float)) else ""


def _first_line(body: str) -> str:
    line = next((part.strip() for part in body.splitlines() if part.strip()), "")
    return line.lstrip("# ")[:80]


def expand_template(body: str, arguments: str) -> str:
    """Fill $ARGUMENTS with the whole argument text and $1..$9 with its words (quotes group words).

    A template that uses no placeholder gets the arguments appended, so they are never lost.
    """
    if arguments and not PLACEHOLDER.search(body):
        return f"{body}\n\n{arguments}"
    return _fill(body, arguments)


def expand_command(body: str, arguments: str) -> tuple[list[str], list[str]]:
    """A command's text split around its own !`command` parts: (the text pieces, placeholders filled; the
    commands, filled too). Only the body's snippets are commands: a `!`...`` the arguments bring stays text."""
    pieces, lines = [], []
    start = 0
    for match in SNIPPET.finditer(body):
        pieces.append(body[start:match.start()])
        lines.append(_fill(match.group(1), arguments))
        start = match.end()
    pieces.append(body[start:])
    if arguments and not PLACEHOLDER.search(body):
        pieces[-1] += f"\n\n{arguments}"
        return pieces, lines
    return [_fill(piece, arguments) for piece in pieces], lines


def _fill(text: str, arguments: str) -> str:
    """$ARGUMENTS and $1..$9 in text replaced by the arguments (quotes group words)."""
    try:
        words = shlex.split(arguments)
    except ValueError:  # an unclosed quote: plain words
        words = arguments.split()

    def fill(match: re.Match) -> str:
        key = match.group(1)
        if key == "ARGUMENTS":
            return arguments
        index = int(key) - 1
        return words[index] if index < len(words) else ""

    return PLACEHOLDER.sub(fill, text)
