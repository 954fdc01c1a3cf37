"""The status line: Claude Code's `statusLine` command (from the user's settings, or a trusted folder's), run with
the session's data on its stdin as the JSON Claude Code documents (model, workspace, cost, context window, session
id), its first line shown through the text boundary: in the footer while a turn runs, refreshed at most every
300 ms and only when the conversation changed, and above the prompt when the turn is over.

Colour sequences (SGR, `ESC [ ... m`) are dropped, the only escapes known to do nothing but colour; every other
control is made visible. A command that fails, times out or prints nothing shows nothing, as in Claude Code; one
that cannot start is said once. A slow command never holds up the REPL: a turn ends without waiting for its run,
and above the prompt it gets PROMPT_WAIT seconds, after which its last line shows.
"""

import contextlib
import json
import re
import threading
import time
from pathlib import Path

from ankit import __version__, paths
from ankit.hooks import process
from ankit.safety.text import outside
from ankit.safety.visible import clip
from ankit.terminal.live import terminal_width
from ankit.errors import AnkitError
from ankit.usage.budget import spent
from ankit.usage.pricing import load_prices

REFRESH = 0.3  # seconds between two runs at most, as in Claude Code
TIMEOUT = 5.0  # seconds one run may take
PROMPT_WAIT = 1.0  # seconds the prompt waits for a fresh line before showing the last one
CAP = 4096  # bytes of its output read
COLOUR = re.compile(r"\x1b\[[0-9;:]*m")


def payload(session, cwd: Path, prices: dict, started: float) -> dict:
    """What the command reads on stdin: Claude Code's statusLine JSON for this session."""
    rounds = list(session.ledger.rounds)
    model = session.provider.model if session.provider is not None else session.model
    last = rounds[-1].usage if rounds else None
    used = (last.input_tokens + last.output_tokens) if last else 0
    share = round(100 * used / session.window, 1) if session.window else 0
    cost = spent(rounds, prices) or 0.0
    return {
        "hook_event_name": "Status", "session_id": session.id, "cwd": str(cwd), "version": __version__,
        "transcript_path": str(paths.state_home() / "sessions" / f"{session.id}.jsonl"),
        "model": {"id": model, "display_name": model},
        "workspace": {"current_dir": str(cwd), "project_dir": str(cwd)},
        "output_style": {"name": "default"},
        "cost": {"total_cost_usd": round(cost, 6), "total_duration_ms": int((time.monotonic() - started) * 1000),
                 "total_api_duration_ms": int(sum(r.duration for r in rounds) * 1000),
                 "total_lines_added": 0, "total_lines_removed": 0},
        "context_window": {
            "total_input_tokens": sum(r.usage.input_tokens for r in rounds),
            "total_output_tokens": sum(r.usage.output_tokens for r in rounds),
            "context_window_size": session.window, "used_percentage": share,
            "remaining_percentage": round(100 - share, 1),
            "current_usage": None if last is None else {
                "input_tokens": last.input_tokens - last.cached_tokens - last.cache_write_tokens,
                "output_tokens": last.output_tokens, "cache_creation_input_tokens": last.cache_write_tokens,
                "cache_read_input_tokens": last.cached_tokens}},
        "exceeds_200k_tokens": used > 200_000,
    }


def shown(output: str, padding: int = 0, width: int = 0, scrub=None) -> str:
    """The first line of the command's output as the screen shows it: colours dropped, the secrets ankit knows
    hidden, the rest made visible, cut to the width."""
    first = COLOUR.sub("", output.lstrip("\n").split("\n", 1)[0].rstrip("\r"))
    if not first.strip():
        return ""
    return clip(" " * padding + outside(first, 1000, scrub, line=True), (width or terminal_width()) - 1)


class StatusLine:
    """One statusLine command for a session: run now (line), or kept fresh in the footer while a turn runs (watch)."""

    def __init__(self, command: str, cwd: Path, prices: dict, padding: int = 0, note=None, scrub=None):
        self.command, self.cwd, self.prices, self.padding = command, Path(cwd), prices, padding
        self.note, self.scrub = note, scrub  # note says, once, that the command could not start
        self.started = time.monotonic()
        self._noted = False
        self.last = ""  # the last line a run showed

    def line(self, session) -> str:
        """Run the command once with the session's data; its line ("" when it shows nothing)."""
        data = json.dumps(payload(session, self.cwd, self.prices, self.started), ensure_ascii=False).encode()
        done = process.run(self.command, data, self.cwd, process.environment(self.cwd, {}), TIMEOUT, CAP)
        if done.failure.startswith("could not start") and self.note is not None and not self._noted:
            self._noted = True
            self.note(f"the status line command did not run: {done.failure}")
        line = shown(done.out, self.padding, scrub=self.scrub) if done.code == 0 else ""
        self.last = line or self.last
        return line

    def soon(self, session, wait: float = PROMPT_WAIT) -> str:
        """A fresh line if the command answers within wait seconds, else the last one (its run goes on unwaited)."""
        fresh = []
        runner = threading.Thread(target=lambda: fresh.append(self.line(session)), daemon=True,
                                  name="ankit-status-line")
        runner.start()
        runner.join(wait)
        return fresh[0] if fresh else self.last

    def watch(self, session, show) -> "Watch":
        """A thread that, while the turn runs, shows a new line (show(line)) at most every REFRESH seconds."""
        return Watch(self, session, show)


class Watch:
    """The refreshing thread of one turn; a context manager (it stops, and waits for its last run, on exit)."""

    def __init__(self, status: StatusLine, session, show):
        self.status, self.session, self.show = status, session, show
        self.stop, self.lock = threading.Event(), threading.Lock()
        self.thread = threading.Thread(target=self._run, daemon=True, name="ankit-status-line")

    def __enter__(self) -> "Watch":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        with self.lock:  # a run still going ends unwaited and shows nothing (the turn is over)
            self.stop.set()

    def _run(self) -> None:
        seen = None
        while not self.stop.is_set():
            now = (len(self.session.conversation.messages), len(self.session.ledger.rounds))
            if now != seen:  # as in Claude Code: after the conversation changed, never more often than REFRESH
                seen = now
                line = self.status.line(self.session)
                with self.lock:
                    if not self.stop.is_set():
                        self.show(line)
            self.stop.wait(REFRESH)


def for_state(state) -> StatusLine | None:
    """The REPL's status line, when the settings give a command (the user's own, or a trusted folder's)."""
    found = state.app.config.status_line
    if not found or not found.get("command"):
        return None
    try:
        prices = load_prices(state.app.config.prices)
    except AnkitError:  # a malformed [prices] table is told by /usage; the cost shows 0
        prices = {}
    return StatusLine(found["command"], state.app.cwd, prices, int(found.get("padding") or 0), state.view.notice,
                      state.app.scrubber())


def during_turn(state):
    """While a turn runs: the status line in the footer (a terminal only), taken away at its end."""
    if state.status_line is None or state.view.live is None:
        return contextlib.nullcontext()
    return _footer(state)


@contextlib.contextmanager
def _footer(state):
    try:
        with state.status_line.watch(state.session, state.view.status_footer):
            yield
    finally:
        state.view.status_footer("")


def show(state, dim: str) -> None:
    """The status line above the prompt (after the first lines and after each turn)."""
    if state.status_line is not None and state.session is not None:
        line = state.status_line.soon(state.session)
        if line:
            state.view.line(line, dim)
