"""Project instructions: AGENTS.md (or CLAUDE.md) files from the user's config and the repository, capped."""

from dataclasses import dataclass
from pathlib import Path

from ankit.settings import paths

CAP = 16_000  # characters of instructions in all; the head is kept
NAMES = ("AGENTS.md", "CLAUDE.md")  # CLAUDE.md only where a folder has no AGENTS.md
HEAD = ("Project instructions from AGENTS.md files (outermost first; a later, more specific file wins "
        "where they disagree):")


@dataclass
class Instructions:
    """The instruction files found and their text as it goes into the system prompt."""

    files: list[Path]
    text: str  # "" when there are none
    cut: int = 0  # characters left out by the cap


def repository_root(cwd: Path) -> Path | None:
    """The nearest folder at or above cwd holding .git (a folder or a worktree's file)."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return None


def instruction_files(cwd: Path, config_home: Path) -> list[Path]:
    """The user-level file, then the repository root's down to cwd's: outermost first."""
    cwd = cwd.resolve()
    root = repository_root(cwd) or cwd
    folders = [cwd, *cwd.parents]
    folders = list(reversed(folders[: folders.index(root) + 1]))
    found = [p for p in (_in(config_home),) if p]
    return found + [p for p in map(_in, folders) if p and paths.lies_in(p, root)]  # a link out is not the project's


def _in(folder: Path) -> Path | None:
    for name in NAMES:
        path = folder / name
        if path.is_file():
            return path
    return None


def load_instructions(cwd: Path, config_home: Path, cap: int = CAP) -> Instructions:
    """Read the instruction files into one text of at most `cap` characters, saying what was cut."""
    files, parts, unread = [], [], 0
    for path in instruction_files(cwd, config_home):
        try:
            body = paths.read_head(path, 4 * cap).strip()  # a huge file is not read whole: its rest is counted
            unread += max(0, path.stat().st_size - 16 * cap)
        except OSError:
            continue
        if body:
            files.append(path)
            parts.append(f"## {_shown(path, cwd)}\n{body}")
    if not parts:
        return Instructions([], "")
    text = "\n\n".join(parts)
    cut = max(0, len(text) - cap) + unread
    if cut:
        text = text[:cap] + f"\n[ankit: {cut:,} more characters of instructions were cut (cap {cap:,})]"
    return Instructions(files, f"{HEAD}\n\n{text}", cut)


def _shown(path: Path, cwd: Path) -> str:
    """The path relative to the working folder when it is inside it, else as it is."""
    try:
        return str(path.relative_to(cwd.resolve()))
    except ValueError:
        return str(path)
