"""/rewind and /fork: going back to an earlier message of the conversation (and the files, if the user says so),
and going on with a copy of the session under a new id."""

from ankit.errors import AnkitError
from ankit.terminal.keys import confirm
from ankit.terminal.render import DIM, clip
from ankit.safety.visible import visible, visible_line

SHOWN = 20  # earlier messages listed by /rewind


def rewind_listing(points: list[tuple[int, str]], width: int) -> list[str]:
    """The user messages, numbered from 1, oldest first (the last SHOWN of them)."""
    numbered = list(enumerate(points, 1))[-SHOWN:]
    lines = [clip(f"{n:>3}  {visible_line(' '.join(text.split()))}", width) for n, (_, text) in numbered]
    hidden = len(points) - len(numbered)
    return ([f"  … {hidden} earlier" ] if hidden else []) + lines


def cmd_rewind(state, arg: str) -> str | None:
    """Take the conversation back to just before an earlier message; the files too if the user says so."""
    session, view = state.session, state.view
    points = session.conversation.rewind_points()
    if not points:
        raise AnkitError("nothing to rewind: no message sent in this session yet")
    if not arg:
        for line in rewind_listing(points, view.width()):
            view.line(line)
        arg = state.approve.ask("rewind to just before which message? (number; Enter: none) ").strip()
        view.at_line_start = True
        if not arg:
            return "nothing rewound"
    if not arg.isdigit() or not 1 <= int(arg) <= len(points):
        raise AnkitError(f"say which message: /rewind N, N from 1 to {len(points)} (/rewind lists them)")
    at, text = points[int(arg) - 1]
    keeper = session.checkpoints
    files = _ask_files(state, keeper.changed_since(session.id, at) if keeper is not None else [])
    done = session.rewind(at, files)
    kept = len(session.conversation.messages)
    lines = [f"the conversation is back to just before message {arg} ({kept} messages kept)"]
    if done is not None:
        lines += [f"  {visible(line)}" for line in done.lines()]
    view.line(clip("its text was: " + " ".join(text.split()), view.width()), DIM)
    return "\n".join(lines)


def _ask_files(state, changed: list[str]) -> bool:
    """Whether to put back the files changed since (asked only when there are some)."""
    if not changed:
        return False
    shown = ", ".join(visible(p) for p in changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
    question = f"put back the {len(changed)} file(s) changed since then too ({shown})? [y/N] "
    state.view.at_line_start = state.approve.keys is None  # the question is on the line until it is answered
    said = confirm(question, state.approve.keys, state.approve.ask)
    state.view.at_line_start = True
    return said


def cmd_fork(state, arg: str) -> str:
    """Go on with a copy of this session under a new id; the original stays as it was."""
    session = state.session
    if not session.conversation.messages:
        raise AnkitError("nothing to fork yet: send a message first")
    old = session.fork()
    return f"forked: this is session {session.id} now; the original stays as it was (ankit --resume {old})"
