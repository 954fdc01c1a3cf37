"""`ankit acp`'s loop: the protocol on stdin and stdout (and nothing else there: what would print goes to the log
file), each request to its method in the main thread, a cancel as Ctrl-C is (a SIGINT to the main thread, acted
on only while a turn runs)."""

import os
import signal
import sys
import threading
import time
from contextlib import contextmanager
from collections.abc import Iterator

from ankit import paths
from ankit.acp.agent import Agent
from ankit.acp.wire import (INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, Connection, Incoming, RpcError)
from ankit.errors import AnkitError, bug_line
from ankit.safety import statefiles
from ankit.safety.text import outside

LOG_NAME = "acp.log"
LOG_CAP = 1024 * 1024  # bytes; the log starts afresh past this
RESIGNAL_EVERY, RESIGNAL_TRIES = 0.1, 50  # a cancel's SIGINT is sent again until the turn took it
METHODS = {"initialize": "initialize", "authenticate": "authenticate", "session/new": "new",
           "session/load": "load", "session/list": "list", "session/prompt": "prompt", "session/set_mode": "set_mode"}


class Interrupts:
    """Cancels reach a running turn as Ctrl-C does: a SIGINT to the main thread, raised there as
    KeyboardInterrupt only while that session's turn runs (a late one is ignored); a cancel for a prompt still
    waiting its turn stops it before it starts."""

    def __init__(self):
        self.running = ""  # the session whose turn runs now
        self.stopping = False  # a cancel of the running turn not yet raised in it
        self.waiting: dict[str, int] = {}  # prompts queued per session
        self.dropped: dict[str, int] = {}  # of those, cancelled before they began
        self.main = threading.main_thread().ident
        self.lock = threading.Lock()

    def install(self) -> None:
        """Take SIGINT in the main thread."""
        signal.signal(signal.SIGINT, self._interrupt)

    def _interrupt(self, signum, frame) -> None:
        if self.running and self.stopping:
            self.stopping = False  # once: what the turn does on its way out is not interrupted again
            raise KeyboardInterrupt

    def queued(self, session_id: str) -> None:
        """A prompt for this session arrived (reader thread)."""
        with self.lock:
            self.waiting[session_id] = self.waiting.get(session_id, 0) + 1

    def cancel(self, session_id: str) -> None:
        """session/cancel (reader thread): the running turn is interrupted, the queued ones dropped."""
        with self.lock:
            self.dropped[session_id] = self.waiting.get(session_id, 0)
            if not session_id or self.running != session_id or self.stopping:
                return
            self.stopping = True
        threading.Thread(target=self._signal, args=(session_id,), name="acp-cancel", daemon=True).start()

    def cancel_running(self) -> None:
        """The client went away: the running turn stops as a cancel stops it."""
        self.cancel(self.running)

    def _signal(self, session_id: str) -> None:
        """SIGINT to the main thread until the turn took it: one that lands just before a blocking read is only
        seen by the next (as a second Ctrl-C would be)."""
        for _ in range(RESIGNAL_TRIES):
            if not self.stopping or self.running != session_id:
                return
            signal.pthread_kill(self.main, signal.SIGINT)
            time.sleep(RESIGNAL_EVERY)

    @contextmanager
    def turn(self, session_id: str) -> Iterator[bool]:
        """Inside, a cancel for this session stops the turn; yields False when it was cancelled before it began."""
        with self.lock:
            self.waiting[session_id] = max(0, self.waiting.get(session_id, 0) - 1)
            if self.dropped.get(session_id, 0) > 0:
                self.dropped[session_id] -= 1
                yield False
                return
            self.running = session_id
        try:
            yield True
        finally:
            self.running, self.stopping = "", False


def log(line: str) -> None:
    """One line in ankit acp's log file (the state folder's acp.log), never on stdout."""
    try:
        statefiles.append(paths.state_home() / LOG_NAME, outside(line, 2000, line=True) + "\n")
    except OSError:
        pass


def _log_fd() -> int:
    """The log file for what would print on stdout (private, started afresh past LOG_CAP); /dev/null if it
    cannot be written."""
    try:
        fd = statefiles.open_private(paths.state_home() / LOG_NAME, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        if os.fstat(fd).st_size > LOG_CAP:
            os.ftruncate(fd, 0)
        return fd
    except OSError:
        return os.open(os.devnull, os.O_WRONLY)


def serve(flags: dict) -> int:
    """Speak ACP on stdin and stdout until the client closes stdin; 0 then."""
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(_log_fd(), sys.stdout.fileno())  # a stray print or a child's output goes to the log, never the protocol
    interrupts = Interrupts()
    interrupts.install()
    conn = Connection(sys.stdin.buffer, protocol_out)
    agent = Agent(conn, flags, interrupts.turn)
    conn.start(partial_urgent(interrupts, agent), interrupts.cancel_running)
    log(f"ankit acp started in {os.getcwd()}")
    try:
        while (incoming := conn.inbox.get()) is not None:
            _handle(agent, conn, incoming)
    finally:
        agent.close()
        conn.close()
    return 0


def partial_urgent(interrupts: Interrupts, agent: Agent):
    """What the reader thread handles itself: session/cancel and session/set_mode at once (the spec lets the mode
    change while a turn runs); a prompt is counted as it queues."""
    def urgent(incoming: Incoming) -> bool:
        session_id = str(incoming.params.get("sessionId") or "")
        if incoming.method == "session/cancel":
            interrupts.cancel(session_id)
            return True
        if incoming.method == "session/set_mode":
            _answer(agent, agent.conn, incoming)
            return True
        if incoming.method == "session/prompt":
            interrupts.queued(session_id)
        return False
    return urgent


def _handle(agent: Agent, conn: Connection, incoming: Incoming) -> None:
    """One request (main thread): its answer, then what waited for the answer."""
    _answer(agent, conn, incoming)
    later, agent.later = agent.later, []
    for step in later:
        step()


def _answer(agent: Agent, conn: Connection, incoming: Incoming) -> None:
    """One request to its method and its answer (a notification gets none)."""
    name = METHODS.get(incoming.method)
    try:
        if name is None:
            raise RpcError(METHOD_NOT_FOUND, f"ankit does not take {outside(incoming.method, 80, line=True)!r}")
        result = getattr(agent, name)(incoming.params)
    except RpcError as exc:
        _answer_error(conn, incoming, exc)
    except AnkitError as exc:
        _answer_error(conn, incoming, RpcError(INVALID_PARAMS, str(exc)))
    except KeyboardInterrupt:  # a cancel that came as the turn ended
        _answer_error(conn, incoming, RpcError(INTERNAL_ERROR, "cancelled"))
    except Exception as exc:  # a bug in ankit: one line to the client and the log; the agent goes on
        log(bug_line(exc))
        _answer_error(conn, incoming, RpcError(INTERNAL_ERROR, bug_line(exc)))
    else:
        if incoming.id is not None:
            conn.reply(incoming.id, result)


def _answer_error(conn: Connection, incoming: Incoming, error: RpcError) -> None:
    if incoming.id is not None:
        conn.error(incoming.id, error)
    else:
        log(f"{incoming.method}: {error.message}")
