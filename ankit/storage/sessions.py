"""Session files: one JSON Lines file per session, written atomically, read back for resume."""

import json
import os
import re
import secrets
import sys
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path

from ankit.errors import AnkitError
from ankit.records import TODO_STATES, Image, Message, SessionData, SubagentRun, Todo, ToolCall, ToolResult, typed
from ankit.safety import statefiles
from ankit.safety.scrub import Scrubber
from ankit.storage import journal
from ankit.usage.ledger import RoundRecord, total


def message_entry(message: Message) -> dict:
    """One message's line as a JSON object."""
    entry = asdict(message)
    if not entry["opaque"]:
        del entry["opaque"]  # most messages carry no provider data: keep their lines as they were
    for result in entry["results"]:
        del result["summary"]  # the user's line about a call is for the screen only
        del result["refused"], result["data"]  # what a run_code program was told: in the content already
        if not result["inner"]:
            del result["inner"]  # only run_code's result lists the calls its program made
    if not entry["images"]:
        del entry["images"]
    if not entry["summary"]:
        del entry["summary"]  # only /compact's summary carries the mark
    if not entry["activated"]:
        del entry["activated"]  # only a batch after which groups were first sent carries them
    if not entry["added"]:
        del entry["added"]  # only a message a hook added to carries it
    return {"type": "message", **entry}


def message_from(entry: dict) -> Message:
    """A Message from its file line; raises ValueError when malformed."""
    if entry.get("role") not in ("user", "assistant", "tool"):
        raise ValueError(f"unknown role {entry.get('role')!r}")
    calls = [ToolCall(str(c["id"]), str(c["name"]), str(c.get("arguments", "{}"))) for c in entry.get("tool_calls", [])]
    results = [ToolResult(str(r["call_id"]), str(r["name"]), str(r.get("content", "")), bool(r.get("is_error", False)),
                          inner=[str(line) for line in r.get("inner") or [] if isinstance(line, str)])
               for r in entry.get("results", [])]  # an older file's "loaded" names: its groups are sent again
    activated = entry.get("activated")
    activated = [str(g) for g in activated if isinstance(g, str)] if isinstance(activated, list) else []
    opaque = entry.get("opaque")
    opaque = {str(k): v for k, v in opaque.items() if isinstance(v, list)} if isinstance(opaque, dict) else {}
    images = [Image(str(i["media_type"]), str(i["data"]), str(i.get("name", ""))) for i in entry.get("images", [])]
    added = entry.get("added")
    added = [str(a) for a in added if isinstance(a, str)] if isinstance(added, list) else []
    return Message(entry["role"], str(entry.get("text", "")), calls, results, bool(entry.get("cut", False)), opaque,
                   images, entry.get("summary") is True, activated, added)


SAFE_ID = re.compile(r"[A-Za-z0-9][\w.-]*")
TITLE_LENGTH = 60
FORMAT_VERSION = 1
HEADER_CAP = 1 << 16  # bytes read for a file's first line


def file_line(entry: dict) -> str:
    """One line of a session file: JSON with every non-ASCII character escaped, so that no line separator a
    reader might split on (U+2028, U+2029, U+0085, \\x1c-\\x1e) is written as itself."""
    return json.dumps(entry, separators=(",", ":"))


def file_lines(text: str) -> list[str]:
    """A session file's lines: split on \\n only (str.splitlines would also split on U+2028 and the others)."""
    return text.split("\n")


@dataclass
class SessionSummary:
    """One line of /sessions."""

    id: str
    created: str
    title: str
    turns: int
    model: str
    tokens: int  # input + output over the rounds that reported usage
    cwd: str = ""  # the folder it was started in


def run_entry(run: SubagentRun) -> dict:
    """A subagent run's file line as a JSON object."""
    return {"type": "subagent", "id": run.id, "turn": run.turn, "description": run.description, "agent": run.agent,
            "answer": run.answer, "messages": [message_entry(m) for m in run.messages],
            "rounds": [r.to_dict() for r in run.rounds]}


def run_from(entry: dict) -> SubagentRun:
    """A subagent run from its file line; raises ValueError (or KeyError, TypeError) when malformed."""
    return SubagentRun(str(entry["id"]), int(entry.get("turn", 0)), str(entry.get("description", "")),
                       str(entry.get("agent", "")), [message_from(m) for m in entry.get("messages", [])],
                       [RoundRecord.from_dict(r) for r in entry.get("rounds", [])], str(entry.get("answer", "")))


def new_session_id(now: datetime | None = None) -> str:
    """A sortable, unique id such as 20261130-101500-ab12."""
    return f"{(now or datetime.now()).strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"


def title_of(messages: list[Message]) -> str:
    """The first line of the first user message, shortened."""
    for message in messages:
        if message.role == "user" and isinstance(message.text, str):
            line = next((part.strip() for part in typed(message).splitlines() if part.strip()), "")
            if line:
                return line if len(line) <= TITLE_LENGTH else line[: TITLE_LENGTH - 1] + "…"
    return ""


def _lines(data: SessionData) -> Iterator[dict]:
    """The JSON objects of a session file, in file order."""
    yield _header_entry(data)
    for message in data.messages:
        yield message_entry(message)
    for record in data.rounds:
        yield {"type": "round", **record.to_dict()}
    for run in data.subagents:
        yield run_entry(run)
    yield {"type": "activated", "groups": list(data.activated)}
    if data.todos:
        yield _todos_entry(data)


def _todos_entry(data: SessionData) -> dict:
    """The checklist's line (an empty list after a cleared one)."""
    return {"type": "todos", "items": [{"text": t.text, "status": t.status} for t in data.todos]}


def _mark(data: SessionData, line) -> journal.Mark:
    """Where a file holding exactly this data stands: counts, and its last message, header and activated lines."""
    last = line(message_entry(data.messages[-1])) if data.messages else ""
    return journal.Mark(len(data.messages), last, len(data.rounds), line(_header_entry(data)),
                        line({"type": "activated", "groups": list(data.activated)}),
                        line(_todos_entry(data)) if data.todos else "", len(data.subagents))


def _header_entry(data: SessionData) -> dict:
    """The session's first line: id, folder, provider, model, title."""
    return {"type": "session", "version": FORMAT_VERSION, "id": data.id, "created": data.created,
            "cwd": str(data.cwd), "provider": data.provider, "model": data.model,
            "title": data.title or title_of(data.messages), **({"forked_from": data.forked_from} if data.forked_from else {})}


def _apply(data: SessionData, entry: dict) -> None:
    """Add one parsed line to the session being read."""
    kind = entry.get("type")
    if kind == "session":
        for name in ("created", "cwd", "provider", "model", "title", "forked_from"):
            setattr(data, name, str(entry.get(name, "")))
    elif kind == "message":
        data.messages.append(message_from(entry))
    elif kind == "round":
        data.rounds.append(RoundRecord.from_dict(entry))
    elif kind == "subagent":
        data.subagents.append(run_from(entry))
    elif kind == "activated":
        data.activated = [str(group) for group in entry["groups"]]
    elif kind == "todos":
        data.todos = [Todo(str(item["text"]), item["status"] if item.get("status") in TODO_STATES else "pending")
                      for item in entry["items"]]
    # other types come from newer versions and are skipped quietly


def _header(path: Path) -> dict:
    """The first line of a session file (id, folder, model), or {} when it cannot be read."""
    try:
        entry = json.loads((statefiles.read_text(path, HEADER_CAP) or "").split("\n", 1)[0] or "{}")
    except (OSError, ValueError):
        return {}
    return entry if isinstance(entry, dict) and entry.get("type") == "session" else {}


class SessionStore:
    """The sessions folder: save after every turn, load by id or unique prefix, list, latest."""

    def __init__(self, folder: Path, warn: Callable[[str], None] | None = None, scrubber: Scrubber | None = None):
        self.folder = Path(folder)
        self.warn = warn or (lambda text: print(f"ankit: {text}", file=sys.stderr))
        self.scrubber = scrubber  # None: the environment's secrets as they are at each save
        self.marks: dict[str, journal.Mark] = {}  # what each session's file holds, as last read or written here
        self.progress = journal.Progress()  # the turns under way here, kept apart until they end

    def save(self, data: SessionData) -> Path:
        """Append what is new since the last save (or write the whole file atomically when the history was
        changed in place), under the session's lock; mode 0600 in a 0700 folder."""
        if not SAFE_ID.fullmatch(data.id):
            raise AnkitError(f"cannot save session {data.id!r}: ids use letters, digits, '-', '_' and '.'")
        path = self.folder / f"{data.id}.jsonl"
        try:
            statefiles.folder(self.folder)
        except OSError as error:
            raise AnkitError(f"cannot save session {data.id}: {error.strerror or error}; check {self.folder}") from None
        try:
            with journal.locked(path):
                return self._save(data, path)
        except (OSError, TypeError, ValueError, RecursionError) as error:
            raise AnkitError(f"could not save session {data.id} ({error}); the previous copy is kept") from None

    def save_progress(self, data: SessionData) -> None:
        """Mid-turn: what a save would add now, kept beside the session file until the turn's save (a session
        not yet on disk, or whose history changed in place, is saved as usual)."""
        path = self.folder / f"{data.id}.jsonl"
        line = self._liner()
        mark = self.marks.get(data.id)
        try:
            if mark is None or not path.is_file() or not path.stat().st_size or not self._extends(mark, data, line):
                self.save(data)
                return
            self.progress.keep(path, self._tail(data, mark, _mark(data, line), line))
        except (OSError, TypeError, ValueError, RecursionError) as error:
            raise AnkitError(f"could not keep session {data.id}'s turn so far ({error})") from None

    def _save(self, data: SessionData, path: Path) -> Path:
        line = self._liner()
        mark, new = self.marks.get(data.id), _mark(data, line)
        self.progress.drop(path)
        if mark is None or not path.stat().st_size or not self._extends(mark, data, line):
            self._rewrite(data, path)
        else:
            lines = self._tail(data, mark, new, line)
            if lines:
                journal.append(path, lines)
        self.marks[data.id] = new
        return path

    @staticmethod
    def _tail(data: SessionData, mark: journal.Mark, new: journal.Mark, line) -> list[str]:
        """The lines that bring the file from mark to data."""
        lines = [new.header] if new.header != mark.header else []
        lines += [line(message_entry(m)) for m in data.messages[mark.messages:]]
        lines += [line({"type": "round", **r.to_dict()}) for r in data.rounds[mark.rounds:]]
        lines += [line(run_entry(run)) for run in data.subagents[mark.subagents:]]
        lines += [new.activated] if new.activated != mark.activated else []
        lines += [new.todos or line(_todos_entry(data))] if new.todos != mark.todos else []
        return lines

    def _liner(self):
        """One file line for a JSON object, scrubbed."""
        scrub = self.scrubber or Scrubber()
        return lambda entry: file_line(scrub(entry))

    def _extends(self, mark: journal.Mark, data: SessionData, line) -> bool:
        """Whether the history only grew since the mark (then appending its tail is enough)."""
        if len(data.messages) < mark.messages or len(data.rounds) < mark.rounds or len(data.subagents) < mark.subagents:
            return False
        return mark.messages == 0 or line(message_entry(data.messages[mark.messages - 1])) == mark.last

    def _rewrite(self, data: SessionData, path: Path) -> None:
        """Write the whole session atomically (statefiles.write): a crash leaves the old copy or the new one."""
        line = self._liner()
        statefiles.write(path, "".join(line(entry) + "\n" for entry in _lines(data)))

    def _paths(self) -> list[Path]:
        """Session files, most recently saved first."""
        if not self.folder.is_dir():
            return []
        journal.recover(self.folder)  # the turns of runs killed mid-turn join their sessions
        paths = [p for p in self.folder.glob("*.jsonl") if not p.name.startswith(".")]
        return sorted(paths, key=lambda p: (p.stat().st_mtime_ns, p.stem), reverse=True)

    def load(self, session_id: str) -> SessionData:
        """The session with this id or unique id prefix."""
        ids = [p.stem for p in self._paths()]
        matches = [session_id] if session_id in ids else [i for i in ids if session_id and i.startswith(session_id)]
        if not matches:
            raise AnkitError(f"no session '{session_id}': see ankit sessions or /sessions")
        if len(matches) > 1:
            shown = ", ".join(sorted(matches)[:4]) + (", …" if len(matches) > 4 else "")
            raise AnkitError(f"session '{session_id}' is ambiguous ({shown}): give more of its id")
        return self._resume(self.folder / f"{matches[0]}.jsonl")

    def _read(self, path: Path) -> SessionData:
        """Parse one session file, skipping (with a warning) any line that cannot be read."""
        try:
            text = statefiles.read_text(path) or ""
        except OSError as error:
            raise AnkitError(f"cannot read session {path.stem}: {error.strerror or error}") from None
        data = SessionData(path.stem, "", "", "", "")
        for number, line in enumerate(file_lines(text), 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                if not isinstance(entry, dict):
                    raise ValueError("not a JSON object")
                _apply(data, entry)
            except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as error:
                self.warn(f"session {path.stem}: skipped unreadable line {number} ({type(error).__name__})")
        return data

    def _resume(self, path: Path) -> SessionData:
        """A session to go on with: read under its lock, its place in the file marked for appending, and calls
        left without results (a crash mid-turn) answered as cancelled so the history can be sent again."""
        with journal.locked(path):
            data = self._read(path)
        self.marks[data.id] = _mark(data, self._liner())
        repaired = journal.repair(data.messages)
        if repaired:
            self.warn(f"session {data.id}: {repaired} tool call(s) left without a result were answered as cancelled")
        return data

    def latest(self, cwd: Path | None = None) -> SessionData | None:
        """The most recently saved session (started in `cwd`, when given), if any."""
        wanted = os.path.realpath(cwd) if cwd is not None else None
        for path in self._paths():
            if wanted is None or os.path.realpath(_header(path).get("cwd") or "/nonexistent") == wanted:
                return self._resume(path)
        return None

    def remove(self, session_id: str) -> str:
        """Delete the session with this id or unique id prefix; return its full id."""
        data = self.load(session_id)
        try:
            (self.folder / f"{data.id}.jsonl").unlink()
        except OSError as error:
            raise AnkitError(f"cannot remove session {data.id}: {error.strerror or error}") from None
        return data.id

    def recent(self, cwd: str, count: int, scan: int = 50) -> list[SessionData]:
        """The newest `count` sessions started in this folder (looking at the newest `scan` files at most)."""
        found = []
        for path in self._paths()[:scan]:
            data = self._read(path)
            if data.cwd == cwd:
                found.append(data)
            if len(found) == count:
                break
        return found

    def load_all(self) -> list[SessionData]:
        """Every saved session, most recently saved first."""
        return [self._read(path) for path in self._paths()]

    def list(self) -> list[SessionSummary]:
        """Summaries of every saved session, most recently saved first."""
        summaries = []
        for data in self.load_all():
            usage = total([r for r in data.rounds if r.usage.reported])
            model = data.rounds[-1].model if data.rounds else data.model
            turns = sum(1 for m in data.messages if m.role == "user" and not m.summary)
            title = data.title or title_of(data.messages)
            summaries.append(SessionSummary(data.id, data.created, title, turns, model,
                                            usage.input_tokens + usage.output_tokens, data.cwd))
        return summaries
