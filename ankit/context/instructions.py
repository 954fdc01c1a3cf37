"""Project instructions: AGENTS.md (or CLAUDE.md) files from the user's config and the repository, capped.

Instructions from others' files are not instructions: a file is read only when it and its folder belong to the
user (or to root, for system locations) and nobody else could have put it there (a folder others may write to
without the sticky bit); any other file is skipped and /context says so in one line.
"""

import os
from dataclasses import dataclass, field
from pathlib import Path

from ankit import paths

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
    skipped: list[str] = field(default_factory=list)  # one line per file not read, and why


def repository_root(cwd: Path) -> Path | None:
    """The nearest folder at or above cwd holding .git (a folder or a worktree's file)."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return None


def instruction_files(cwd: Path, config_home: Path, skipped: list[str] | None = None) -> list[Path]:
    """The user-level file, then the repository root's down to cwd's: outermost first; files that are not the
    user's (see others_file) are left out, with a line each in `skipped`."""
    cwd = cwd.resolve()
    root = repository_root(cwd) or cwd
    folders = [cwd, *cwd.parents]
    folders = list(reversed(folders[: folders.index(root) + 1]))
    found = [p for p in (_in(config_home),) if p]
    found += [p for p in map(_in, folders) if p and paths.lies_in(p, root)]  # a link out is not the project's
    kept = []
    for path in found:
        why = others_file(path)
        if why:
            (skipped if skipped is not None else []).append(f"skipped {path}: {why}")
        else:
            kept.append(path)
    return kept


def others_file(path: Path, uid: int | None = None) -> str:
    """Why a file is not the user's to follow ("" when it is): it, or its folder, belongs to someone other than
    the user or root, or its folder lets others replace it."""
    me = os.getuid() if uid is None else uid
    try:
        link, target, folder = os.lstat(path), os.stat(path), os.stat(path.parent)
    except OSError as exc:
        return f"cannot be checked ({exc.strerror or exc})"
    for what, info in (("it is", link), ("it leads to a file", target), ("its folder is", folder)):
        if info.st_uid not in (me, 0):
            return f"{what} owned by user id {info.st_uid}, not by you"
    if folder.st_mode & 0o022 and not folder.st_mode & 0o1000 and folder.st_uid != me:
        return "its folder may be written by others"
    return ""


def _in(folder: Path) -> Path | None:
    for name in NAMES:
        path = folder / name
        if path.is_file():
            return path
    return None


def load_instructions(cwd: Path, config_home: Path, cap: int = CAP) -> Instructions:
    """Read the instruction files into one text of at most `cap` characters, saying what was cut."""
    files, parts, unread, skipped = [], [], 0, []
    for path in instruction_files(cwd, config_home, skipped):
        try:
            body = paths.read_head(path, 4 * cap).strip()  # a huge file is not read whole: its rest is counted
            unread += max(0, path.stat().st_size - 16 * cap)
        except OSError:
            continue
        if body:
            files.append(path)
            parts.append(f"## {_shown(path, cwd)}\n{body}")
    if not parts:
        return Instructions([], "", skipped=skipped)
    text = "\n\n".join(parts)
    cut = max(0, len(text) - cap) + unread
    if cut:
        text = text[:cap] + f"\n[ankit: {cut:,} more characters of instructions were cut (cap {cap:,})]"
    return Instructions(files, f"{HEAD}\n\n{text}", cut, skipped)


def _shown(path: Path, cwd: Path) -> str:
    """The path relative to the working folder when it is inside it, else as it is."""
    try:
        return str(path.relative_to(cwd.resolve()))
    except ValueError:
        return str(path)
