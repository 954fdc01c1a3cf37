"""Custom slash commands: Markdown prompt templates from .ankit/commands/, the user's and .claude/commands/."""

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from ankit import paths
from ankit.skills.frontmatter import read_frontmatter

NAME = re.compile(r"[A-Za-z0-9][\w.-]*")
PLACEHOLDER = re.compile(r"\$(ARGUMENTS|[1-9])")
COMMAND_CAP = 100_000  # characters of one command file read


@dataclass
class CustomCommand:
    """One /name command read from NAME.md."""

    name: str
    body: str
    description: str
    hint: str  # argument-hint
    source: Path


def command_dirs(cwd: Path, config_home: Path) -> list[Path]:
    """Where custom commands are looked for, first one winning on a name clash."""
    return [cwd / ".ankit" / "commands", config_home / "commands", cwd / ".claude" / "commands"]


def load_commands(folders: list[Path], builtin: set[str],
                  root: Path | None = None) -> tuple[dict[str, CustomCommand], list[str]]:
    """Read every NAME.md in the folders; clashes and unreadable files are told in one line each. A file in a
    folder under root (the working folder) must lie in root itself: a link out of a cloned repository is skipped."""
    found: dict[str, CustomCommand] = {}
    problems: list[str] = []
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.md")):
            name = path.stem
            if not NAME.fullmatch(name):
                problems.append(f"custom command {path} skipped: use letters, digits, '-', '_' in its name")
            elif name in builtin:
                problems.append(f"custom command {path} skipped: /{name} is a built-in command; rename the file")
            elif name in found:
                problems.append(f"custom command {path} skipped: /{name} is already defined by {found[name].source}")
            elif root is not None and paths.lies_in(folder, root) and not paths.lies_in(path, root):
                problems.append(f"custom command {path} skipped: it links to a file outside {root}")
            else:
                command, problem = _read(path, name)
                if command:
                    found[name] = command
                else:
                    problems.append(problem)
    return found, problems


def _read(path: Path, name: str) -> tuple[CustomCommand | None, str]:
    try:
        text = paths.read_head(path, COMMAND_CAP)
    except OSError as exc:
        return None, f"custom command {path} skipped: {exc.strerror or exc}"
    fields, body = {}, text
    if text.lstrip("\ufeff").startswith("---"):
        try:
            fields, body = read_frontmatter(text)
        except ValueError as exc:
            return None, f"custom command {path} skipped: {exc}"
    description = _line(fields.get("description")) or _first_line(body) or f"prompt from {path.name}"
    return CustomCommand(name, body.strip(), description, _line(fields.get("argument-hint")), path), ""


def _line(value) -> str:
    return " ".join(str(value).split()) if isinstance(value, (str, int, float)) else ""


def _first_line(body: str) -> str:
    line = next((part.strip() for part in body.splitlines() if part.strip()), "")
    return line.lstrip("# ")[:80]


def expand_template(body: str, arguments: str) -> str:
    """Fill $ARGUMENTS with the whole argument text and $1..$9 with its words (quotes group words).

    A template that uses no placeholder gets the arguments appended, so they are never lost.
    """
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

    if arguments and not PLACEHOLDER.search(body):
        return f"{body}\n\n{arguments}"
    return PLACEHOLDER.sub(fill, body)
