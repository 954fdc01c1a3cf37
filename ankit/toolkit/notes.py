"""Project notes and decisions: one JSON file per project under $XDG_DATA_HOME/ankit/projects/, locked while changed."""

__all__ = ["Note", "load", "changing", "search", "project_root", "KINDS", "MAX_TEXT"]

import contextlib
import hashlib
import json
import os
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ankit.errors import ToolError
from ankit.safety import statefiles

KINDS = ("note", "decision")
MAX_TEXT = 4000


@dataclass
class Note:
    """One note or decision of a project."""

    id: int
    kind: str
    text: str
    created: float

    def line(self) -> str:
        """#id [kind] text (date)."""
        return f"#{self.id} [{self.kind}] {self.text} ({time.strftime('%Y-%m-%d', time.localtime(self.created))})"


def project_root(ctx) -> Path:
    """The project a session works in: the enclosing git repository's root, else the working folder."""
    start = Path(ctx.cwd).expanduser().resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def store_path(ctx) -> Path:
    """The notes file of this project: projects/<folder name>-<hash of its path>.json under the data folder."""
    base = Path(ctx.data_dir) if getattr(ctx, "data_dir", None) else (
        Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "ankit")
    root = project_root(ctx)
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", root.name)[:40] or "root"
    return base / "projects" / f"{slug}-{hashlib.sha256(str(root).encode()).hexdigest()[:10]}.json"


def load(ctx) -> list[Note]:
    """The project's notes, oldest first (none when the file does not exist yet)."""
    return _read(store_path(ctx))


def _read(path: Path) -> list[Note]:
    try:
        text = statefiles.read_text(path)  # ankit's state-file layer: no symlink, the user's own file
        if text is None:
            return []
        data = json.loads(text)
        return [Note(int(n["id"]), str(n["kind"]), str(n["text"]), float(n["created"])) for n in data["notes"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ToolError(f"cannot read the project notes at {path} ({type(exc).__name__}); fix or move that file") from None


@contextlib.contextmanager
def changing(ctx):
    """Yield the notes list under an exclusive lock; what it holds afterwards is written atomically."""
    path = store_path(ctx)
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(statefiles.locked(path.with_suffix(".lock")))
        except OSError as exc:
            raise ToolError(f"cannot write project notes in {path.parent} ({exc.strerror or exc}); check the data folder") from None
        notes = _read(path)
        yield notes
        body = {"project": str(project_root(ctx)), "notes": [asdict(n) for n in notes]}
        statefiles.write(path, json.dumps(body, ensure_ascii=False, indent=1))  # atomic, 0600


def search(notes: list[Note], query: str) -> list[Note]:
    """Notes containing any word of the query, those with the most words first, newest first among equals."""
    words = re.findall(r"\w+", query.lower())
    scored = [(sum(w in n.text.lower() for w in words), n) for n in notes]
    hits = [(score, n) for score, n in scored if score]
    hits.sort(key=lambda pair: (-pair[0], -pair[1].created))
    return [n for _, n in hits]
