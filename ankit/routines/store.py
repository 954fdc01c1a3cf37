"""The routines file ($XDG_DATA_HOME/ankit/routines.json): add, list, remove, and record each run; locked and atomic."""

import contextlib
import json
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from pathlib import Path

from ankit.errors import AnkitError, StateFileError
from ankit.routines.schedule import parse
from ankit.safety import statefiles


@dataclass
class Routine:
    """A prompt (or a page watch) run on a schedule in a folder, with the tools the user allowed for it."""

    id: int
    schedule: str
    prompt: str
    cwd: str
    created: str  # ISO local time
    watch: str = ""  # a URL whose changes are reported
    allow: list[str] = field(default_factory=list)  # tools that may run without asking (none: read-only only)
    last_run: str = ""
    last_session: str = ""
    last_result: str = ""

    def since(self) -> datetime:
        """When it last ran, or when it was added."""
        return datetime.fromisoformat(self.last_run or self.created)

    def line(self, now: datetime) -> str:
        """One line for ankit routine list."""
        what = f"watch {self.watch}" + (f" then: {self.prompt}" if self.prompt else "") if self.watch else self.prompt
        allowed = f" [allows {', '.join(self.allow)}]" if self.allow else ""
        last = f"; last {self.last_run[:16].replace('T', ' ')}: {self.last_result}" if self.last_run else ""
        upcoming = parse(self.schedule).following(now, self.since()).isoformat(" ", "minutes")
        return f"#{self.id} {self.schedule} (next {upcoming}) in {self.cwd}: {what}{allowed}{last}"


class RoutineStore:
    """The routines of this user, in one JSON file."""

    def __init__(self, path: Path):
        self.path = Path(path)

    def load(self) -> list[Routine]:
        """Every routine, oldest first."""
        try:
            text = statefiles.read_text(self.path)
            if text is None:
                return []
            data = json.loads(text)
            known = {f.name for f in fields(Routine)}
            return [Routine(**{k: v for k, v in item.items() if k in known}) for item in data["routines"]]
        except StateFileError as exc:
            raise AnkitError(str(exc)) from None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise AnkitError(f"cannot read the routines in {self.path} ({type(exc).__name__}); fix or move that file") from None

    @contextlib.contextmanager
    def changing(self):
        """Yield the routines under an exclusive lock; what the list holds afterwards is written atomically."""
        with contextlib.ExitStack() as stack:
            try:
                stack.enter_context(statefiles.locked(self.path.with_suffix(".lock")))
            except OSError as exc:
                raise AnkitError(f"cannot write routines in {self.path.parent} ({exc.strerror or exc})") from None
            routines = self.load()
            yield routines
            statefiles.write(self.path, json.dumps({"routines": [asdict(r) for r in routines]}, ensure_ascii=False,
                                                   indent=1))

    def add(self, routine: Routine) -> Routine:
        """Store a new routine under the next free id."""
        parse(routine.schedule)  # a schedule that does not parse is never written
        with self.changing() as routines:
            routine.id = max((r.id for r in routines), default=0) + 1
            routines.append(routine)
        return routine

    def remove(self, routine_id: int) -> Routine:
        """Delete a routine by id."""
        with self.changing() as routines:
            found = next((r for r in routines if r.id == routine_id), None)
            if found is None:
                known = ", ".join(f"#{r.id}" for r in routines) or "none yet"
                raise AnkitError(f"there is no routine #{routine_id} (routines: {known}); see ankit routine list")
            routines.remove(found)
        return found

    def record(self, routine_id: int, when: datetime, session: str, result: str) -> None:
        """Note that a routine ran: when, the session that holds its answer, and a short result."""
        with self.changing() as routines:
            for routine in routines:
                if routine.id == routine_id:
                    routine.last_run, routine.last_session = when.isoformat(timespec="seconds"), session
                    routine.last_result = " ".join(result.split())[:120]

    def due(self, now: datetime) -> list[Routine]:
        """The routines due at now."""
        return [r for r in self.load() if parse(r.schedule).due(now, r.since())]
