"""`ankit routine run-due`: each due routine once, through the one-shot path, its answer kept as a session."""

import difflib
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from ankit.cli.oneshot import PrintView
from ankit.errors import AnkitError
from ankit.records import Message, ToolCall
from ankit.routines.store import Routine
from ankit.safety import statefiles
from ankit.safety.policy import Rule
from ankit.settings.layers import load_config
from ankit import paths
from ankit.settings.config import Config
from ankit.storage.sessions import SessionData, new_session_id
from ankit.tooling.tool import Tool, ToolContext
from ankit.tooling.toolbox import run_call
from ankit.turn.app import build_app
from ankit.turn.admin import routines

WATCH_LINES = 200  # lines of a watch's diff shown at most


class RoutineApprover:
    """Asked only for what the routine's --allow list (applied as allow rules) does not cover: refuses it with a
    line on stderr. An allowed tool still reaches here for a path outside the routine's folder, and is refused."""

    def __init__(self, routine: Routine):
        self.routine = routine

    def __call__(self, tool: Tool, args: dict, preview: str) -> bool:
        """False, after saying how to allow it (or that the path is outside the routine's folder)."""
        why = (f"{tool.name} touches a path outside {self.routine.cwd}" if tool.name in self.routine.allow else
               f"{tool.name} needs approval")
        print(f"ankit: routine #{self.routine.id}: {why}; refused (add the routine again with --allow {tool.name} "
              "to let it run in its folder)", file=sys.stderr)
        return False


def run_due(argv: list[str], config: Config) -> int:
    """Run every routine that is due now (or at --now); 0 when all that ran answered."""
    now = _now(argv)
    store = routines()
    due = store.due(now)
    if not due:
        print(f"no routine is due at {now.isoformat(' ', 'minutes')} ({len(store.load())} routines; see ankit routine list)")
        return 0
    failed = 0
    for routine in due:
        print(f"== routine #{routine.id} ({routine.schedule}) in {routine.cwd}")
        try:
            session_id, result = run_one(routine, config, now)
        except AnkitError as exc:
            session_id, result = "", f"failed: {exc}"
            failed += 1
            print(f"ankit: routine #{routine.id} {result}", file=sys.stderr)
        store.record(routine.id, now, session_id, result)
        if session_id:
            print(f"(saved as session {session_id}; ankit --resume {session_id} goes on with it)")
    return 1 if failed else 0


def _now(argv: list[str]) -> datetime:
    if not argv:
        return datetime.now()
    if len(argv) == 2 and argv[0] == "--now":
        try:
            return datetime.fromisoformat(argv[1]).replace(tzinfo=None)
        except ValueError:
            pass
    raise AnkitError("usage: ankit routine run-due [--now YYYY-MM-DDTHH:MM]")


def run_one(routine: Routine, config: Config, now: datetime) -> tuple[str, str]:
    """Run one routine in its folder; return the session id holding the answer and a short result."""
    cwd = Path(routine.cwd)
    if not cwd.is_dir():
        raise AnkitError(f"its folder {cwd} is gone; remove it with ankit routine remove {routine.id}")
    flags = {"provider": config.provider or None, "model": config.model or None, "base_url": config.base_url or None,
             "sandbox": "off"}  # unattended: only the routine's own allow list lets a command run, as before
    folder = load_config(flags, config.env, cwd, paths.config_home())
    with settings_env(folder.claude_env):  # its folder's settings env (once trusted), for this routine alone
        return _run_in(routine, build_app(folder, cwd), cwd)


@contextmanager
def settings_env(values: dict) -> Iterator[None]:
    """The settings files' merged env set while inside, the environment as it was after (routines of other
    folders run next in the same process)."""
    before = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _run_in(routine: Routine, app, cwd: Path) -> tuple[str, str]:
    """The routine's turn on its folder's app (closed after)."""
    try:
        prompt = routine.prompt
        if routine.watch:
            report, changed = watch(app, routine, cwd)
            if not prompt or not changed:
                return _keep(app, routine, report), report.splitlines()[0]
            prompt = f"{prompt}\n\n{report}"
        app.policy.allow += [Rule.parse(name) for name in routine.allow]  # never outside its folder: see safety/policy.py
        session = app.session(PrintView(), RoutineApprover(routine))
        if session.provider is None:
            raise AnkitError(app.setup_error.splitlines()[0])
        session.save(f"routine #{routine.id}: {routine.prompt or routine.watch}"[:60])  # titled from the first line
        answer = session.turn(prompt)
        return session.id, answer or "(no answer)"
    finally:
        app.close()


def watch(app, routine: Routine, cwd: Path) -> tuple[str, bool]:
    """Fetch the watched page with web_fetch; the report of what changed since the last run, and whether it did."""
    tool = app.lookup("web_fetch")
    if tool is None:
        raise AnkitError("the web_fetch tool is not loaded, so the page cannot be watched")
    ctx = ToolContext(cwd=cwd, config=app.config.raw, data_dir=paths.data_home())
    call = ToolCall("watch", "web_fetch", json.dumps({"url": routine.watch, "max_chars": 60_000}))
    result = run_call(call, tool, ctx, lambda *a: True)  # the user named this address when adding the watch
    if result.is_error:
        raise AnkitError(f"could not fetch {routine.watch}: {result.content.removeprefix('Error: ')}")
    snapshot = paths.data_home() / "routines" / f"watch-{routine.id}.txt"
    try:
        old = statefiles.read_text(snapshot)
        statefiles.write(snapshot, result.content)
    except OSError as exc:
        raise AnkitError(f"cannot keep the watched page in {snapshot} ({exc.strerror or exc})") from None
    if old is None:
        return f"first look at {routine.watch} ({len(result.content)} characters); later runs report what changed", False
    if old == result.content:
        return f"no change at {routine.watch} since {routine.last_run[:16].replace('T', ' ')}", False
    lines = list(difflib.unified_diff(old.splitlines(), result.content.splitlines(), "before", "now", n=1, lineterm=""))
    cut = f"\n[... {len(lines) - WATCH_LINES} more lines of changes]" if len(lines) > WATCH_LINES else ""
    return f"{routine.watch} changed since {routine.last_run[:16].replace('T', ' ')}:\n" + "\n".join(lines[:WATCH_LINES]) + cut, True


def _keep(app, routine: Routine, report: str) -> str:
    """Save a watch report as a session of its own (no model involved); print it; return the session id."""
    print(report)
    data = SessionData(new_session_id(), datetime.now().isoformat(timespec="seconds"), routine.cwd, "", "",
                       [Message("user", f"watch {routine.watch}"), Message("assistant", report)],
                       title=f"routine #{routine.id}: watch {routine.watch}"[:60])
    app.store().save(data)
    return data.id
