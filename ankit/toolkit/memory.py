"""Remembered facts in SQLite, per project and global; FTS5 search when available, LIKE otherwise."""

__all__ = ["open_memory", "Memory", "Fact", "project_key", "SECRET"]

import os
import re
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from ankit.errors import ToolError
from ankit.safety import statefiles

SECRET = re.compile(
    r"(sk-[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}"
    r"|AKIA[0-9A-Z]{16}|xox[abpr]-[A-Za-z0-9-]{10,}|-----BEGIN [A-Z ]*PRIVATE KEY-----)"
)
TRIGGERS = {
    "facts_ai": "AFTER INSERT ON facts BEGIN INSERT INTO facts_fts(rowid, text) VALUES (new.id, new.text); END",
    "facts_ad": "AFTER DELETE ON facts BEGIN INSERT INTO facts_fts(facts_fts, rowid, text) VALUES ('delete', old.id, old.text); END",
}


@dataclass
class Fact:
    """One remembered fact."""

    id: int
    scope: str
    text: str
    created: float

    def line(self, project: str) -> str:
        """#id [project|global] text (date)."""
        where = "global" if self.scope == "global" else "project" if self.scope == project else self.scope
        return f"#{self.id} [{where}] {self.text} ({time.strftime('%Y-%m-%d', time.localtime(self.created))})"


def db_path(ctx) -> Path:
    """Where the facts live: ctx.data_dir, else $XDG_DATA_HOME/ankit, else ~/.local/share/ankit."""
    if getattr(ctx, "data_dir", None):
        base = Path(ctx.data_dir)
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "ankit"
    return base / "memory.sqlite3"


def project_key(ctx) -> str:
    """The scope name of the current project: its resolved working folder."""
    return str(Path(ctx.cwd).expanduser().resolve())


def fts5_available() -> bool:
    """Whether this SQLite build has the FTS5 module."""
    probe = sqlite3.connect(":memory:")
    try:
        probe.execute("CREATE VIRTUAL TABLE probe USING fts5(x)")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        probe.close()


class Memory:
    """The facts database; use_fts picks full-text search or the LIKE fallback."""

    def __init__(self, path: Path, use_fts: bool):
        self.conn = sqlite3.connect(path, timeout=10)
        self.use_fts = use_fts and fts5_available()
        with self.conn:
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS facts (id INTEGER PRIMARY KEY, scope TEXT NOT NULL, "
                "text TEXT NOT NULL, created REAL NOT NULL)"
            )
            self.conn.execute("CREATE INDEX IF NOT EXISTS facts_scope ON facts(scope)")
            self._prepare_index()

    def _prepare_index(self) -> None:
        """With FTS: make the index and its triggers (rebuilding if they were missing). Without: drop the triggers."""
        existing = {row[0] for row in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
        if not self.use_fts:
            for name in TRIGGERS.keys() & existing:
                self.conn.execute(f"DROP TRIGGER {name}")
            return
        self.conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts USING fts5(text, content='facts', content_rowid='id')")
        if set(TRIGGERS) - existing:
            for name, body in TRIGGERS.items():
                self.conn.execute(f"CREATE TRIGGER IF NOT EXISTS {name} {body}")
            self.conn.execute("INSERT INTO facts_fts(facts_fts) VALUES ('rebuild')")

    def close(self) -> None:
        """Close the database connection."""
        self.conn.close()

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def add(self, scope: str, text: str) -> tuple[int, bool]:
        """Store a fact; return (id, whether it is new). The same fact twice in a scope is kept once."""
        row = self.conn.execute("SELECT id FROM facts WHERE scope = ? AND text = ?", (scope, text)).fetchone()
        if row:
            return row[0], False
        with self.conn:
            cursor = self.conn.execute("INSERT INTO facts (scope, text, created) VALUES (?, ?, ?)", (scope, text, time.time()))
        return cursor.lastrowid, True

    def get(self, fact_id: int) -> Fact | None:
        """The fact with this id, or None."""
        row = self.conn.execute("SELECT id, scope, text, created FROM facts WHERE id = ?", (fact_id,)).fetchone()
        return Fact(*row) if row else None

    def delete(self, fact_id: int) -> None:
        """Remove a fact (the FTS index follows through its trigger)."""
        with self.conn:
            self.conn.execute("DELETE FROM facts WHERE id = ?", (fact_id,))

    def recent(self, scopes: list[str], limit: int) -> list[Fact]:
        """The newest facts in these scopes."""
        marks = ",".join("?" * len(scopes))
        rows = self.conn.execute(
            f"SELECT id, scope, text, created FROM facts WHERE scope IN ({marks}) ORDER BY created DESC, id DESC LIMIT ?",
            (*scopes, limit),
        )
        return [Fact(*row) for row in rows]

    def search(self, query: str, scopes: list[str], limit: int) -> list[Fact]:
        """Facts matching any word of the query, best first."""
        words = re.findall(r"\w+", query.lower())
        if not words:
            return self.recent(scopes, limit)
        return self._fts(words, scopes, limit) if self.use_fts else self._like(words, scopes, limit)

    def _fts(self, words: list[str], scopes: list[str], limit: int) -> list[Fact]:
        match = " OR ".join(f'"{word}"*' for word in words)
        marks = ",".join("?" * len(scopes))
        rows = self.conn.execute(
            f"SELECT f.id, f.scope, f.text, f.created FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid "
            f"WHERE facts_fts MATCH ? AND f.scope IN ({marks}) ORDER BY bm25(facts_fts), f.created DESC LIMIT ?",
            (match, *scopes, limit),
        )
        return [Fact(*row) for row in rows]

    def _like(self, words: list[str], scopes: list[str], limit: int) -> list[Fact]:
        marks = ",".join("?" * len(scopes))
        likes = " OR ".join("lower(text) LIKE ? ESCAPE '\\'" for _ in words)
        patterns = ["%" + w.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%" for w in words]
        rows = self.conn.execute(
            f"SELECT id, scope, text, created FROM facts WHERE scope IN ({marks}) AND ({likes})", (*scopes, *patterns)
        )
        facts = [Fact(*row) for row in rows]
        facts.sort(key=lambda f: (-sum(w in f.text.lower() for w in words), -f.created))
        return facts[:limit]


def open_memory(ctx) -> Memory:
    """The memory for this context, honouring config memory_fts (default true)."""
    use_fts = ctx.config.get("memory_fts", True) not in (False, "false", "no", "off", 0)
    try:
        return Memory(statefiles.database(db_path(ctx)), use_fts)  # 0600 in a 0700 folder, no symlink
    except (sqlite3.Error, OSError) as exc:
        raise ToolError(f"cannot open the memory database at {db_path(ctx)} ({exc}); check data_dir") from None
