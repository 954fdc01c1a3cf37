"""CLAUDE_ENV_FILE: a SessionStart hook may write `export NAME=value` lines to the file this names; the commands
ankit runs afterwards see those variables. The file is read as data, never run: only plain assignments of
literal values are taken (known-safe: no $, backtick, backslash or command), of names known inert
(safety/envnames.py: BASH_ENV and the like would make the next command run a file); the rest is said and ignored."""

import os
import re
import tempfile
from pathlib import Path

from ankit.safety import envnames

READ_CAP = 64 * 1024  # bytes of the file that are read
LINE = re.compile(r"""^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(?:'([^']*)'|"([^"$`\\]*)"|([^\s'"$`\\;&|<>()]*))\s*$""")


def new_file() -> Path:
    """An empty file only this user can read, for the hooks to write into."""
    handle, name = tempfile.mkstemp(prefix="ankit-env-", suffix=".sh")
    os.close(handle)
    return Path(name)


def take(path: Path) -> tuple[dict[str, str], list[str]]:
    """The variables the hooks wrote, and one line per line that was not a plain assignment; the file goes."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(READ_CAP)
    except OSError:
        return {}, []
    finally:
        path.unlink(missing_ok=True)
    found, skipped = {}, 0
    for line in data.decode("utf-8", "replace").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = LINE.match(line.strip())
        if match is None:
            skipped += 1
            continue
        found[match[1]] = next(v for v in match.groups()[1:] if v is not None)
    note = [f"CLAUDE_ENV_FILE: {skipped} line(s) were not plain NAME=value assignments and were ignored"]
    kept, refused = envnames.passing(found, "CLAUDE_ENV_FILE")
    return kept, (note if skipped else []) + refused
