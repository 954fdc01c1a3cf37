"""The REPL's history file: one entry a line; an entry of several lines is written as a JSON string.

Readline's own file format splits a multi-line entry into one entry per line when it is read back, so the
file is read and written here instead: a line that starts with a double quote and parses as a JSON string
is that string; any other line is itself (so files written before keep working).
"""

import json
import os
from pathlib import Path


def encode(entry: str) -> str:
    """One file line for an entry."""
    return json.dumps(entry, ensure_ascii=False) if "\n" in entry or "\r" in entry or entry.startswith('"') else entry


def decode(line: str) -> str:
    """The entry a file line holds."""
    if line.startswith('"'):
        try:
            value = json.loads(line)
        except ValueError:
            return line
        if isinstance(value, str):
            return value
    return line


def load(path: Path) -> list[str]:
    """The entries in the file, oldest first ([] when there is none)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [decode(line) for line in text.splitlines() if line]


def append(path: Path, entries: list[str]) -> None:
    """Add entries at the end of the file (created readable by the user only)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as handle:
        handle.writelines(encode(entry) + "\n" for entry in entries)


def trim(path: Path, keep: int) -> None:
    """Keep the last `keep` lines once the file holds twice that many (checked once, at start)."""
    lines = path.read_bytes().splitlines(keepends=True)
    if len(lines) > 2 * keep:
        temp = path.with_name(path.name + ".tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.writelines(lines[-keep:])
        os.replace(temp, path)
