"""Digests of what ankit trusts to run: one file's, a folder's (every file in it, none left out), and the project
files a command names (`sh scripts/x.sh`, `python3 .claude/hooks/x.py`, `"$CLAUDE_PROJECT_DIR"/...`).

A folder's digest hashes every file under it but version control's and Python's caches; a folder over the limits
is not digested in part: `TooBig` says so in one line, and what holds it is refused (not trusted, a plugin off).
The one home of these digests: a folder's trust (settings/trust.py, claude/settings.py) and a plugin's
(claude/plugins.py) read them from here.
"""

import hashlib
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from ankit.errors import ConfigError

MAX_FILES = 20_000  # files of one folder
MAX_BYTES = 256 << 20  # bytes of one folder's files
SKIPPED = (".git", "__pycache__")  # folders left out: version control's and Python's own caches
SCRIPT = re.compile(r"\.(sh|bash|zsh|py|js|mjs|cjs|ts|rb|pl|php|ps1|lua)$")  # a word naming a script by its suffix
PROJECT_VARIABLE = re.compile(r"\$(CLAUDE_PROJECT_DIR\b|\{CLAUDE_PROJECT_DIR\})")
# The file a build runner reads its recipes from (`make hook` runs what the Makefile says): the names it looks for,
# in its order; the first one there is what runs (none there: the first name, so creating it is a change).
RUNNER_FILES = {
    "make": ("GNUmakefile", "makefile", "Makefile"), "just": ("justfile", "Justfile", ".justfile"),
    "npm": ("package.json",), "yarn": ("package.json",), "pnpm": ("package.json",), "bun": ("package.json",),
    "task": ("Taskfile.yml", "Taskfile.yaml"), "rake": ("Rakefile", "rakefile"), "tox": ("tox.ini",),
    "nox": ("noxfile.py",),
}
SEPARATORS = {"&&", "||", ";", "|", "&"}


class TooBig(ConfigError):
    """A folder over the limits: its digest is not taken, and what holds it is not trusted."""


@dataclass(frozen=True)
class Digest:
    """A folder's digest: how many files it covers and the sha256 of their names and contents (16 hex digits)."""

    files: int
    sha: str


def file_digest(path: Path) -> str:
    """The sha256 of a file's contents (16 hex digits); "absent" or "unreadable" when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()[:16]
    except FileNotFoundError:
        return "absent"
    except OSError:
        return "unreadable"


def folder_digest(folder: Path, what: str, leave_out: tuple[Path, ...] = ()) -> Digest:
    """Every file under a folder (links as where they point, not followed into), but `leave_out` and the caches;
    TooBig naming `what` when the folder is over MAX_FILES or MAX_BYTES."""
    entries, size = [], 0
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
        base = Path(root)
        entries += [base / d for d in dirs if (base / d).is_symlink()]
        for name in sorted(n for n in files if not n.endswith(".pyc") and base / n not in leave_out):
            entries.append(base / name)
            size += _size(base / name)
        if len(entries) > MAX_FILES or size > MAX_BYTES:
            raise TooBig(f"{what} holds more than {MAX_FILES:,} files or {MAX_BYTES >> 20} MB, more than ankit "
                         "digests to trust it; remove what it does not need (node_modules, build output)")
    lines = [f"{p.relative_to(folder)} {_entry(p)}" for p in sorted(entries)]
    return Digest(len(entries), hashlib.sha256("\n".join(lines).encode("utf-8", "replace")).hexdigest()[:16])


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _entry(path: Path) -> str:
    """A file's digest; a link's target as written too, so pointing it elsewhere is a change."""
    return f"-> {os.readlink(path)} {file_digest(path)}" if path.is_symlink() else file_digest(path)


def named_files(command: str, cwd: Path) -> list[Path]:
    """The project files a command names as paths (`scripts/x.sh`, `./run`, `"$CLAUDE_PROJECT_DIR"/hooks/x.py`):
    words with a slash or a script's suffix that lead inside the folder, whether or not they exist yet, and
    whether or not a link there leads out of it (its target's contents are what runs)."""
    text = PROJECT_VARIABLE.sub(lambda _: str(cwd).replace("\\", "\\\\"), command)
    try:
        words = shlex.split(text, comments=True)
    except ValueError:
        words = text.split()
    root, found = cwd.resolve(), _runner_files(words, cwd)
    for word in words:
        word = word.split("=", 1)[1] if re.match(r"^-*\w+=", word) else word  # --config=x.py, NAME=x.sh
        if not word or not ("/" in word or SCRIPT.search(word)) or word.startswith(("~", "-")) or "://" in word:
            continue
        path = Path(os.path.normpath(os.path.join(root, word)))
        real = path.resolve() if path.exists() else path
        if (path.is_relative_to(root) or real.is_relative_to(root)) and root not in (path, real) and path not in found:
            found.append(path)
    return found


def _runner_files(words: list[str], cwd: Path) -> list[Path]:
    """The recipe file of each build runner a command starts (`make hook`, `npm run x`), as RUNNER_FILES names it."""
    found = []
    for before, word in zip(["&&", *words], words):
        names = RUNNER_FILES.get(os.path.basename(word)) if before in SEPARATORS or before.endswith(";") else None
        if names:
            there = [cwd / name for name in names if (cwd / name).is_file()]
            path = Path(os.path.normpath(cwd.resolve() / (there[0].name if there else names[0])))
            found += [path] if path not in found else []
    return found
