"""The REPL's history file: one entry a line; an entry of several lines is written as a JSON string.

Readline's own file format splits a multi-line entry into one entry per line when it is read back, so the
file is read and written here instead: a line that starts with a double quote and parses as a JSON string
is that string; any other line is itself (so files written before keep working).
"""

import json
from pathlib import Path

from ankit.safety import statefiles


def encode(entry: str) -> str:
    """One file line for an entry."""
    plain = entry.isprintable() and not entry.startswith('"')  # U+2028 and the like are written escaped
    return entry if plain else json.dumps(entry)


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
    """The entries in the file, oldest first ([] when there is none, or it is not safe to read)."""
    try:
        text = statefiles.read_text(path) or ""
    except OSError:
        return []
    return [decode(line) for line in text.split("\n") if line]


def append(path: Path, entries: list[str]) -> None:
    """Add entries at the end of the file (statefiles: 0600, never through a symlink)."""
    statefiles.append(path, "".join(encode(entry) + "\n" for entry in entries))


def trim(path: Path, keep: int) -> None:
    """Keep the last `keep` lines once the file holds twice that many (checked once, at start)."""
    lines = (statefiles.read(path) or b"").split(b"\n")[:-1]
    if len(lines) > 2 * keep:
        statefiles.write(path, b"".join(line + b"\n" for line in lines[-keep:]))
