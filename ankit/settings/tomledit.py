"""Edit one table of a TOML file in place: render it, replace or append it, remove it; the rest stays as written."""

import re
import tomllib
from pathlib import Path

from ankit.errors import ConfigError
from ankit.safety import statefiles

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_HEADER = re.compile(r"^\s*\[(?!\[)(.*)\]\s*(#.*)?$")  # [table], not [[array]]
_ANY_HEADER = re.compile(r"^\s*\[")


def key(name: str) -> str:
    """A TOML key: bare when it can be, else a quoted string."""
    return name if _BARE.fullmatch(name) else string(name)


def string(text: str) -> str:
    """A TOML basic string with quotes, backslashes and control characters escaped."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(char, f"\\u{ord(char):04x}"))
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def value(item) -> str:
    """A TOML value for a string, number, boolean, list of those, or a table of strings (inline)."""
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, (int, float)):
        return repr(item)
    if isinstance(item, str):
        return string(item)
    if isinstance(item, list):
        return "[" + ", ".join(value(v) for v in item) + "]"
    if isinstance(item, dict):
        return "{ " + ", ".join(f"{key(k)} = {value(v)}" for k, v in item.items()) + " }" if item else "{}"
    raise TypeError(f"cannot write {type(item).__name__} to TOML")


def render(path: list[str], values: dict) -> str:
    """The text of a table: its header line, then one key = value line per entry."""
    lines = ["[" + ".".join(key(p) for p in path) + "]"]
    lines += [f"{key(k)} = {value(v)}" for k, v in values.items()]
    return "\n".join(lines) + "\n"


def _header_path(inside: str) -> list[str] | None:
    """The dotted key of a header's inside, or None when it is not one ankit can read."""
    try:
        parsed = tomllib.loads(f"[{inside}]\n")
    except tomllib.TOMLDecodeError:
        return None
    path = []
    while isinstance(parsed, dict) and len(parsed) == 1:
        name, parsed = next(iter(parsed.items()))
        path.append(name)
    return path


def replace_table(text: str, path: list[str], block: str | None) -> str:
    """The text with the table at path (and its sub-tables) replaced by block, appended, or removed (None)."""
    lines = text.splitlines(keepends=True)
    kept, at, skipping = [], None, False
    for line in lines:
        header = _HEADER.match(line)
        if header or _ANY_HEADER.match(line):
            found = _header_path(header.group(1)) if header else None
            skipping = found is not None and found[: len(path)] == path
            if skipping and at is None:
                at = len(kept)
        if not skipping:
            kept.append(line)
    if block is None:
        while at is not None and at == len(kept) and kept and not kept[-1].strip():
            kept.pop()  # the blank line that set the removed table apart from the one before
        return "".join(kept)
    if at is None:
        if kept and not kept[-1].endswith("\n"):
            kept[-1] += "\n"
        if kept and kept[-1].strip():
            kept.append("\n")
        at = len(kept)
    elif at < len(kept):
        block += "\n"  # keep a blank line before the next table
    kept.insert(at, block)
    return "".join(kept)


def read(path: Path) -> tuple[str, dict]:
    """A config file's text and parsed tables ('' and {} when it does not exist)."""
    if not path.exists():
        return "", {}
    try:
        text = path.read_text(encoding="utf-8")
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}; fix that file first") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None


def write(path: Path, text: str) -> None:
    """Replace the file atomically, readable by the user only (a config may hold tokens): statefiles.write."""
    try:
        statefiles.write(path, text)
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None
