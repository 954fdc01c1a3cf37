"""Choosing a saved session from the newest few: /resume and --resume without an id."""

from ankit.errors import AnkitError, Cancelled
from ankit.terminal.overview import session_row

CHOICES = 9  # one key each


def pick_session(store, approve, view) -> str:
    """The id of the session the user picks from the newest ones with a turn; Cancelled when none is picked."""
    rows = [s for s in store.list() if s.turns][:CHOICES]
    if not rows:
        raise AnkitError("no saved session with a message yet: start one with ankit")
    width = view.width()
    for number, summary in enumerate(rows, 1):
        view.line(f"{number}  " + session_row(summary, max(width - 4, 0) if width else 0))  # a column spare
    question = f"resume which? [1-{len(rows)}] (Enter: 1, Esc: none) "
    keys = approve.keys
    if keys is None:
        answer = approve.ask(question).strip() or "1"
    else:  # one key meant for the question (keys.answer: none in a burst or as it appears)
        valid = [str(n) for n in range(1, len(rows) + 1)] + ["\r", "\n", "\x1b", "q"]
        answer = keys.answer(question, valid, f"press 1 to {len(rows)} (Enter: 1, Esc: none)")
        answer = "1" if answer in ("\r", "\n") else answer
        view.write((answer if answer.isdigit() else "none") + "\n")
    if not (answer.isdigit() and 1 <= int(answer) <= len(rows)):
        raise Cancelled("no session resumed")
    return rows[int(answer) - 1].id
