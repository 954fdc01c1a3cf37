"""Typing while a turn runs: one thread reads the keys, the line shows below the output, Enter queues a message.

Only while a turn runs does a reader thread own the terminal, in cbreak mode with echo off (ISIG stays on, so
Ctrl-C still stops the turn); what is typed never reaches the output, it is drawn in the view's footer. A line
ended with Enter is queued: the session takes it at the next round boundary (an Inbox), or, when no round
follows, the prompt gives it as the next message. A line left without Enter comes back in the prompt's input.
A lone Esc stops the turn as Ctrl-C does; a bracketed paste stays one message. While a question asks (an
approval, a tool's question) the reader lets go of the keys (a KeyShare).
"""

import os
import select
import signal
import termios
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

from ankit.safety.visible import clip, visible_line
from ankit.terminal.keys import BACKSPACE, ENTER, EOF, read_key
from ankit.terminal.live import terminal_width
from ankit.terminal.render import DIM, TerminalView, paint
from ankit.wording import count

ESC = "\x1b"
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
PASTE_ON, PASTE_OFF = "\033[?2004h", "\033[?2004l"
MARK = "› "
SHOWN_QUEUED = 3  # queued messages drawn in the footer; the rest are counted
CURSOR, PLAIN_CURSOR = "\033[7m \033[27m", "▏"  # where the next key goes
CLOSED = 100  # end-of-input reads in a row that mean the terminal is gone (a Ctrl-D alone is ignored)


class TypeAhead:
    """The keys of a running turn: read by one thread, drawn in the footer, queued as messages."""

    def __init__(self, fd: int, view: TerminalView, held: Callable[[str], bool] | None = None):
        self.fd, self.view = fd, view
        self.held = held  # which lines wait for the turn's end (commands): they are no message to the model
        self.queued: list[str] = []
        self.buffer: list[str] = []  # the line being typed
        self._cond = threading.Condition()
        self._paused = 0
        self._parked = threading.Event()
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._wake: tuple[int, int] | None = None
        self._saved: list | None = None

    @contextmanager
    def turn(self) -> Iterator[None]:
        """While inside, typed keys are read, shown in the footer and queued; the terminal is put back after."""
        self._start()
        try:
            yield
        finally:
            self._stop()

    def _start(self) -> None:
        self._saved = termios.tcgetattr(self.fd)
        changed = list(self._saved)
        changed[3] &= ~(termios.ICANON | termios.ECHO)
        changed[6] = list(self._saved[6])
        changed[6][termios.VMIN], changed[6][termios.VTIME] = 1, 0
        termios.tcsetattr(self.fd, termios.TCSANOW, changed)
        self.view.control(PASTE_ON)  # a paste comes marked, so it stays one message
        self._stopping, self._paused = False, 0
        self._wake = os.pipe()
        self._thread = threading.Thread(target=self._read, name="ankit-typeahead", daemon=True)
        self._thread.start()
        self._draw()

    def _stop(self) -> None:
        """Stop the reader and put the terminal back, all of it even when a Ctrl-C or an Esc lands meanwhile
        (that one is raised after)."""
        interrupt = None
        while self._thread is not None or self._saved is not None:
            try:
                self._wind_down()
            except KeyboardInterrupt as exc:
                interrupt = exc
        if interrupt is not None:
            raise interrupt

    def _wind_down(self) -> None:
        """Each step once, so it can be run again after an interruption."""
        if self._thread is not None:
            with self._cond:
                self._stopping = True
                self._cond.notify_all()
            os.write(self._wake[1], b"s")
            self._thread.join()
            self._thread = None
        if self._wake is not None:
            wake, self._wake = self._wake, None
            for end in wake:
                os.close(end)
        if self._saved is not None:
            with suppress(termios.error):  # a closed terminal: nothing left to put back
                termios.tcsetattr(self.fd, termios.TCSANOW, self._saved)
            self._saved = None
            self.view.footer([])
            self.view.control(PASTE_OFF)

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Inside, the keys are a question's alone: the reader waits and the footer is away."""
        thread = self._thread
        if thread is None:
            yield
            return
        with self._cond:
            self._paused += 1
        os.write(self._wake[1], b"p")
        while not self._parked.wait(0.1) and thread.is_alive():
            pass
        self.view.footer([])
        try:
            yield
        finally:
            with self._cond:
                self._paused -= 1
                if not self._paused:
                    self._parked.clear()
                    self._cond.notify_all()
            self._draw()

    def take(self) -> list[str]:
        """The queued messages up to the first command (which waits for the turn's end), each shown in the
        output where it joins the conversation."""
        with self._cond:
            count = next((i for i, text in enumerate(self.queued) if self.held is not None and self.held(text)),
                         len(self.queued))
            taken, self.queued = self.queued[:count], self.queued[count:]
        for text in taken:
            self.view.line(MARK + text)
        if taken:
            self._draw()
            self.view.waiting()  # the spinner again, until the model answers
        return taken

    def next_queued(self) -> str | None:
        """The oldest queued line once the turn is over (None when there is none)."""
        with self._cond:
            return self.queued.pop(0) if self.queued else None

    def unfinished(self) -> str:
        """The line typed without Enter (taken: it goes back into the prompt's input)."""
        with self._cond:
            text, self.buffer = "".join(self.buffer), []
        return text

    def _read(self) -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGWINCH})  # they are the main thread's
        try:
            self._keys()
        except OSError:  # the terminal is gone: nothing more to read
            pass
        finally:
            self._parked.set()

    def _keys(self) -> None:
        ends = 0
        while True:
            with self._cond:
                while self._paused and not self._stopping:
                    self._parked.set()
                    self._cond.wait()
                if self._stopping:
                    return
            if self._wake[0] in select.select([self.fd, self._wake[0]], [], [])[0]:
                os.read(self._wake[0], 64)
                continue
            key = read_key(self.fd)
            ends = ends + 1 if key == EOF else 0
            if ends >= CLOSED:
                return
            if key == PASTE_START:
                self._insert(self._paste())
            elif key == ESC:
                self._interrupt()
            else:
                self._key(key)

    def _paste(self) -> str:
        """The rest of a bracketed paste, up to its end mark, with line ends made newlines."""
        data = []
        while not "".join(data[-len(PASTE_END):]).endswith(PASTE_END):
            if not select.select([self.fd], [], [], 5.0)[0]:
                break  # the end mark never came
            data.append(os.read(self.fd, 4096).decode("utf-8", "replace"))
        text = "".join(data).partition(PASTE_END)[0]
        return text.replace("\r\n", "\n").replace("\r", "\n")

    def _interrupt(self) -> None:
        """Esc stops the turn as Ctrl-C does (a SIGINT to ankit), unless the turn is ending anyway."""
        with self._cond:
            if not self._stopping:
                os.kill(os.getpid(), signal.SIGINT)

    def _key(self, key: str) -> None:
        """One typed key: Enter queues the line; Backspace, Ctrl-U and Ctrl-W edit it; other keys are ignored."""
        with self._cond:
            if key in ENTER:
                line = "".join(self.buffer)
                if line.strip():
                    self.queued.append(line)
                self.buffer = []
            elif key in BACKSPACE:
                self.buffer = self.buffer[:-1]
            elif key == "\x15":  # Ctrl-U: the whole line
                self.buffer = []
            elif key == "\x17":  # Ctrl-W: the word before the cursor
                text = "".join(self.buffer).rstrip(" ")
                self.buffer = list(text[: text.rfind(" ") + 1])
            elif key.isprintable():
                self.buffer += list(key)
            else:
                return  # arrows and other keys: the footer's line has no cursor to move
        self._draw()

    def _insert(self, text: str) -> None:
        """A pasted text joins the line whole, line ends and all: Enter sends it as one message."""
        with self._cond:
            self.buffer += list(text)
        self._draw()

    def _draw(self) -> None:
        """The footer: the queued messages, dim, then the line being typed."""
        width = terminal_width() - 1
        with self._cond:
            queued, typed = list(self.queued), "".join(self.buffer)
        colour = self.view.colour
        lines = [paint(clip(MARK + one_line(text), width), DIM, colour) for text in queued[:SHOWN_QUEUED]]
        if len(queued) > SHOWN_QUEUED:
            lines.append(paint(f"  … {len(queued) - SHOWN_QUEUED} more queued", DIM, colour))
        if typed:
            shown = one_line(typed)
            room = max(width - len(MARK) - 1, 8)
            lines.append(MARK + (shown if len(shown) <= room else "…" + shown[-room + 1:]) + (CURSOR if colour else PLAIN_CURSOR))
        self.view.footer(lines)


def one_line(text: str) -> str:
    """A message on one footer line: controls made visible, a pasted text's further lines counted."""
    first, *rest = text.split("\n")
    return visible_line(first) + (f" [+{count(len(rest), 'line')}]" if rest else "")
