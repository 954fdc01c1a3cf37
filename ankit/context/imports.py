"""`@path` imports in instruction files, as Claude Code reads them: relative to the importing file, `~/` for the
home folder, at most five hops deep, each file once, never inside a code span or a fenced block.

A project's file imports only text files inside the project, none hidden (a cloned repository's
`@~/.ssh/id_rsa` or `@.env` is not sent); the user's own files may import any of the user's files.
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
    if path.name.startswith(".") or path.suffix.lower() not in TEXT_SUFFIXES:
        return (f"a project's instructions import only text files ({', '.join(sorted(TEXT_SUFFIXES))}), "
                "none hidden; attach it with @ in a message if it is meant to be sent")
    return ""


def key(path: Path) -> str:
    """One name per file, links followed, so a file reached twice is read once."""
    return os.path.realpath(path)
