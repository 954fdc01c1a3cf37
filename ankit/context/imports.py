"""`@path` imports in instruction files, as Claude Code reads them: relative to the importing file, `~/` for the
home folder, at most five hops deep, each file once, never inside a code span or a fenced block.

A project's file imports only text files inside the project, none hidden or sensitive in any segment of its path
as written or as it really is (a cloned repository's `@~/.ssh/id_rsa`, `@.env`, `@.claude/settings.local.json`,
or `@~/.config/gh/hosts.yml` in a home that is itself the repository, is not sent); the user's own files may
import any of the user's files.
"""

import os
import re
from pathlib import Path

from ankit import paths

DEPTH = 5  # hops, as Claude Code allows
TEXT_SUFFIXES = frozenset({".md", ".markdown", ".mdc", ".txt", ".rst", ".json", ".toml", ".yaml", ".yml"})
IMPORT = re.compile(r"(?:(?<=\s)|^)@((?:[^\s\\`]|\\ )+)")
TRAILING = ".,;:!?)]}'\""
FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"`[^`\n]*`")
SENSITIVE = re.compile(r"secret|credential|passw|token|private|^id_(?:rsa|dsa|ecdsa|ed25519)", re.I)


def imported(text: str) -> list[str]:
    """The `@path` words of a Markdown text, in order, outside fenced blocks and code spans."""
    found, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            found += [m.group(1).rstrip(TRAILING).replace("\\ ", " ") for m in IMPORT.finditer(CODE_SPAN.sub(" ", line))]
    return [word for word in found if word]


def resolve(word: str, importer: Path, home: Path) -> Path:
    """Where an import points: `~/x` under home, an absolute path as it is, else beside the importing file."""
    if word == "~" or word.startswith("~/"):
        return home / word[2:]
    path = Path(word)
    return path if path.is_absolute() else importer.parent / path


def allowed(path: Path, scope: Path | None) -> str:
    """Why an import may not be read ("" when it may): a project's file imports only the project's text files
    (Markdown, plain text, JSON, TOML, YAML), never a hidden one such as .env, which would go to the provider."""
    if scope is None:
        return ""
    if not paths.lies_in(path, scope):
        return f"it is outside {scope} (a project's instructions import only the project's files)"
    part = hidden_part(path, scope)
    if part:
        return (f"{part!r} on its way is hidden or sensitive (a project's instructions import no file under such a "
                "folder); attach it with @ in a message if it is meant to be sent")
    if path.suffix.lower() not in TEXT_SUFFIXES:
        return (f"a project's instructions import only text files ({', '.join(sorted(TEXT_SUFFIXES))}), "
                "none hidden; attach it with @ in a message if it is meant to be sent")
    return ""


def hidden_part(path: Path, root: Path) -> str:
    """The first segment of the path below root, as written or as it really is, that is hidden (`.claude`,
    `.config`, `.env`) or names something sensitive (`secrets`, `credentials`, `id_rsa`); "" when none is."""
    for candidate, base in ((Path(os.path.abspath(path)), Path(os.path.abspath(root))),
                            (Path(os.path.realpath(path)), Path(os.path.realpath(root)))):
        try:
            parts = candidate.relative_to(base).parts
        except ValueError:
            parts = candidate.parts[1:]  # outside: every segment counts
        found = next((p for p in parts if p.startswith(".") or SENSITIVE.search(p)), "")
        if found:
            return found
    return ""


def key(path: Path) -> str:
    """One name per file, links followed, so a file reached twice is read once."""
    return os.path.realpath(path)
