"""Project instructions as Claude Code reads them: ~/.config/ankit/AGENTS.md, ~/.claude/CLAUDE.md, then in each
folder from the repository root down to the working folder AGENTS.md, CLAUDE.md, .claude/CLAUDE.md and
CLAUDE.local.md, each followed by the files it imports (ankit/context/imports.py); within a budget that the
project's files (and what they import) claim first, so a large user-level framework is what gets cut.

Instructions from others' files are not instructions: a file is read only when it and its folder belong to the
user (or to root, for system locations) and nobody else could have put it there (a folder others may write to
without the sticky bit); any other file is skipped and /context says so in one line.
"""

import os
from dataclasses import dataclass, field
from pathlib import Path

from ankit import paths
from ankit.context import imports

CAP = 16_000  # characters of instructions in all: the project's files first, then the user's
LEAST = 200  # a file that would keep fewer characters than this is left out whole
NESTED_CAP = 8_000  # characters of a subfolder's instructions added to a tool's result
NAMES = ("AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")  # in each folder, in this order
USER_CLAUDE = Path(".claude") / "CLAUDE.md"  # under the home folder; ~/.config/ankit/AGENTS.md comes first
HEAD = ("Project instructions from AGENTS.md files (outermost first; a later, more specific file wins "
        "where they disagree):")


@dataclass
class Instructions:
    """The instruction files found and their text as it goes into the system prompt."""

    files: list[Path]
    text: str  # "" when there are none
    cut: int = 0  # characters left out by the cap
    skipped: list[str] = field(default_factory=list)  # one line per file not read, and why
    cuts: list[str] = field(default_factory=list)  # one line per file the cap cut, said at start and in /context


def repository_root(cwd: Path) -> Path | None:
    """The nearest folder at or above cwd holding .git (a folder or a worktree's file)."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return None


def instruction_files(cwd: Path, config_home: Path, skipped: list[str] | None = None,
                      home: Path | None = None) -> list[Path]:
    """The user-level files, then the repository root's down to cwd's: outermost first; files that are not the
    user's (see others_file) are left out, with a line each in `skipped`."""
    kept = []
    for path, _ in _top_files(cwd, config_home, home or Path.home()):
        why = others_file(path)
        if why:
            (skipped if skipped is not None else []).append(f"skipped {paths.shown(path, cwd)}: {why}")
        else:
            kept.append(path)
    return kept


def _top_files(cwd: Path, config_home: Path, home: Path) -> list[tuple[Path, Path | None]]:
    """Each instruction file that exists, with the folder its imports must stay in (None: the user's own)."""
    cwd = cwd.resolve()
    root = repository_root(cwd) or cwd
    folders = [cwd, *cwd.parents]
    folders = list(reversed(folders[: folders.index(root) + 1]))
    found: list[tuple[Path, Path | None]] = [(p, None) for p in (config_home / "AGENTS.md", home / USER_CLAUDE)
                                             if p.is_file()]
    for folder in folders:  # a link out is not the project's
        found += [(folder / n, root) for n in NAMES if (folder / n).is_file() and paths.lies_in(folder / n, root)]
    return found


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


class _Reader:
    """Reads instruction files and what they import, each file once, into sections of text."""

    def __init__(self, home: Path, cap: int, cwd: Path):
        self.home, self.cap, self.cwd = home, cap, cwd
        self.seen: set[str] = set()
        self.sections: list[tuple[Path, str, Path | None, bool]] = []  # (file, text, its importer, the user's own)
        self.skipped: list[str] = []
        self.unread = 0

    def take(self, path: Path, scope: Path | None, importer: Path | None = None, depth: int = 0) -> None:
        """Read one file, then the files it imports (depth hops from a top-level file)."""
        if imports.key(path) in self.seen:
            return
        why = others_file(path)
        if why:
            self.skipped.append(f"skipped {paths.shown(path, self.cwd)}: {why}")
            return
        self.seen.add(imports.key(path))
        try:
            body = paths.read_head(path, 4 * self.cap).strip()  # a huge file is not read whole: its rest is counted
            self.unread += max(0, path.stat().st_size - 16 * self.cap)
        except OSError:
            return
        self.sections.append((path, body, importer, scope is None))
        for word in imports.imported(body):
            self._follow(word, path, scope, depth)

    def _follow(self, word: str, path: Path, scope: Path | None, depth: int) -> None:
        target = imports.resolve(word, path, self.home)
        try:
            if not target.is_file() or imports.key(target) in self.seen:  # not a file: a mention of someone
                return
        except OSError:
            return
        why = imports.allowed(target, scope)
        if not why and depth + 1 > imports.DEPTH:
            why = f"it is more than {imports.DEPTH} imports deep"
        if why:
            self.skipped.append(f"skipped @{word} in {paths.shown(path, self.cwd)}: {why}")
        else:
            self.take(target, scope, path, depth + 1)


def load_instructions(cwd: Path, config_home: Path, cap: int = CAP, home: Path | None = None) -> Instructions:
    """Read the instruction files and their imports into one text of at most `cap` characters (the project's
    files claim it first, the user-level ones get the rest), saying what was cut; /context lists every file."""
    reader = _Reader(home or Path.home(), cap, cwd)
    for path, scope in _top_files(cwd, config_home, reader.home):
        reader.take(path, scope)
    sections = [(f"## {paths.shown(path, cwd)}" + (f" (imported by {paths.shown(by, cwd)})" if by else "") + f"\n{body}", path, user)
                for path, body, by, user in reader.sections if body]
    if not sections:
        return Instructions([], "", skipped=reader.skipped)
    room = _budget(sections, cap)
    parts, cuts = [], []
    for (text, path, user), kept in zip(sections, room):
        if kept < len(text):
            cuts.append(f"instructions cut: {paths.shown(path, cwd)} keeps {kept:,} of {len(text):,} characters (cap "
                        f"{cap:,}; {'user-level files are cut first' if user else 'the project files alone fill it'})")
        if kept:
            parts.append(text[:kept] + (f"\n[ankit: {len(text) - kept:,} more characters of this file were cut]"
                                        if kept < len(text) else ""))
    cut = sum(len(text) - kept for (text, _, _), kept in zip(sections, room)) + reader.unread
    return Instructions([path for _, path, _ in sections], f"{HEAD}\n\n" + "\n\n".join(parts), cut, reader.skipped,
                        cuts)


def _budget(sections: list[tuple[str, Path, bool]], cap: int) -> list[int]:
    """The characters each section keeps (in their order): the project's sections claim the cap first, the
    user-level ones (user=True) get what is left; a section that would keep fewer than LEAST is left out whole."""
    room, left = [0] * len(sections), cap
    for index in sorted(range(len(sections)), key=lambda i: sections[i][2]):  # stable: the project's first
        fits = min(len(sections[index][0]), left)
        room[index] = fits if fits == len(sections[index][0]) or fits >= LEAST else 0
        left -= room[index]
    return room


def nested_instructions(target: Path, cwd: Path, seen: set[str], home: Path | None = None,
                        cap: int = NESTED_CAP) -> Instructions:
    """The instruction files of the folders below cwd down to target's (a file the model reads there), each
    not in seen (which they join), with their imports: Claude Code's subfolder CLAUDE.md."""
    cwd = cwd.resolve()
    folder = (cwd / target).resolve()
    folder = folder if folder.is_dir() else folder.parent
    if folder == cwd or not folder.is_relative_to(cwd):
        return Instructions([], "")
    root = repository_root(cwd) or cwd
    reader = _Reader(home or Path.home(), cap, cwd)
    reader.seen = seen
    for step in reversed([folder, *folder.parents][: len(folder.parts) - len(cwd.parts)]):
        for name in NAMES:
            if (step / name).is_file() and paths.lies_in(step / name, root):
                reader.take(step / name, root)
    sections = [(p, body, by) for p, body, by, _ in reader.sections if body]
    text = "\n\n".join(f"## {paths.shown(p, cwd)}" + (f" (imported by {paths.shown(by, cwd)})" if by else "") + f"\n{body}"
                         for p, body, by in sections)
    cut = max(0, len(text) - cap)
    text = text[:cap] + (f"\n[ankit: {cut:,} more characters of instructions were cut]" if cut else "")
    return Instructions([p for p, _, _ in sections], text, cut, reader.skipped)

