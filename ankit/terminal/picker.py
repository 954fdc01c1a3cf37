"""Choosing a saved session: /resume and --resume without an id offer this folder's newest (every folder's with
--all), and a session that ran in another folder says where and offers to work there."""

import os
import sys
from pathlib import Path

from ankit import paths
from ankit.errors import AnkitError, Cancelled
from ankit.safety.visible import visible_line
from ankit.storage.sessions import SessionStore
from ankit.terminal.keys import Keys
from ankit.terminal.overview import session_row
from ankit.terminal.render import TerminalView

CHOICES = 9  # one key each


def same_folder(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name one folder (links followed)."""
    return bool(a) and bool(b) and os.path.realpath(a) == os.path.realpath(b)


def ask_line(question: str) -> str:
    """A question answered by a line of standard input (no terminal to read keys from); EOFError at its end."""
    sys.stdout.write(question)
    sys.stdout.flush()
    answer = sys.stdin.readline()
    if not answer:
        print()
        raise EOFError
    return answer.rstrip("\n")


def pick_session(store, keys, ask, view, cwd: Path | None = None) -> str:
    """The id of the session the user picks from the newest ones with a turn, started in `cwd` (in any folder
    when None); Cancelled when none is picked."""
    rows = [s for s in store.list() if s.turns and (cwd is None or same_folder(s.cwd, cwd))][:CHOICES]
    if not rows and cwd is not None:
        raise AnkitError(f"no saved session with a message in this folder ({visible_line(str(cwd))}): "
                         "--resume --all (in the REPL, /resume --all) offers every folder's")
    if not rows:
        raise AnkitError("no saved session with a message yet: start one with ankit")
    width = view.width()
    view.line("sessions started in this folder (--all: every folder's)" if cwd is not None else
              "sessions of every folder")
    for number, summary in enumerate(rows, 1):
        view.line(f"{number}  " + session_row(summary, max(width - 4, 0) if width else 0))  # a column spare
    question = f"resume which? [1-{len(rows)}] (Enter: 1, Esc: none) "
    if keys is None:
        answer = ask(question).strip() or "1"
    else:  # one key meant for the question (keys.answer: none in a burst or as it appears)
        valid = [str(n) for n in range(1, len(rows) + 1)] + ["\r", "\n", "\x1b", "q"]
        answer = keys.answer(question, valid, f"press 1 to {len(rows)} (Enter: 1, Esc: none)")
        answer = "1" if answer in ("\r", "\n") else answer
        view.write((answer if answer.isdigit() else "none") + "\n")
    if not (answer.isdigit() and 1 <= int(answer) <= len(rows)):
        raise Cancelled("no session resumed")
    return rows[int(answer) - 1].id


def elsewhere(ran_in: str, cwd: Path) -> str:
    """The line for a session resumed outside the folder it ran in ("" when it ran here)."""
    if not ran_in or same_folder(ran_in, cwd):
        return ""
    return (f"this session ran in {visible_line(ran_in)}; it goes on here, in {visible_line(str(cwd))}, "
            "where its commands now run")


def offer_folder(ran_in: str, cwd: Path, keys, ask) -> bool:
    """Ask whether to work in the folder a resumed session ran in (Enter: yes); False when it is gone."""
    if not os.path.isdir(ran_in):
        return False
    print(f"this session ran in {visible_line(ran_in)}, not here.")  # its own line: a long path wraps before the keys
    question = "work there? [Y/n] "
    if keys is None:
        answer = ask(question).strip().lower()[:1]
    else:
        answer = keys.answer(question, ["y", "n", "\r", "\n", "\x1b", "q"], "press y to work there, n to stay here")
        print("no" if answer in ("n", "\x1b", "q") else "yes")
    return answer in ("", "y", "\r", "\n")


def resume_where(args) -> None:
    """--resume in the REPL, before the folder's settings are read (and its trust asked): pick a session when no id
    was given (this folder's, every folder's with --all), and move to the folder it ran in when the user says so."""
    store, view, ask, cwd = SessionStore(paths.state_home() / "sessions"), TerminalView(sys.stdout), ask_line, Path.cwd()
    keys = Keys(sys.stdin.fileno(), sys.stdout) if sys.stdin.isatty() and sys.stdout.isatty() else None
    if args.resume == "":
        try:
            args.resume = pick_session(store, keys, ask, view, None if args.all_folders else cwd)
        except Cancelled as exc:
            view.line(f"{exc}: a new session starts")
            args.resume = None
            return
    ran_in = store.load(args.resume).cwd
    if elsewhere(ran_in, cwd) and offer_folder(ran_in, cwd, keys, ask):
        os.chdir(ran_in)
