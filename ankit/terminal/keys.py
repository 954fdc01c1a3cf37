"""Keys from the terminal for questions asked mid-turn: one key meant for the question, or a line with editing.

A question that offers letters takes one key, and only a key meant for it: keys that arrive in a burst (a
sentence being typed, a paste) or within QUIET of the question appearing are not answers, and after a key that is
not an answer the next one needs a pause of QUIET; the screen says so. Ctrl-D (or a closed terminal) always counts.

The terminal is put in cbreak mode (no echo, no line buffering) only while a question waits, and put back
whatever happens; Ctrl-C still interrupts (ISIG stays on). Readline is not used here on purpose: a Ctrl-D
in it would leave it printing a blank line after every later prompt (GNU readline keeps its end-of-file flag).
While a question owns the keys, the type-ahead reader of a running turn (a KeyShare) lets go of them.
"""

import os
import select
import sys
import termios
import time
from collections.abc import Container
from contextlib import contextmanager, nullcontext, suppress
from typing import TextIO

from ankit.protocols import Asker, KeyShare
from ankit.safety import text as boundary
from ankit.safety.visible import wrap_note
from ankit.terminal.live import terminal_width
from ankit.terminal.style import DIM, paint
from ankit.terminal.wordwrap import columns

ENTER = ("\r", "\n")
EOF = "\x04"
LEFT, RIGHT = ("\x1b[D", "\x1bOD", "\x02"), ("\x1b[C", "\x1bOC", "\x06")
HOME, END = ("\x1b[H", "\x1bOH", "\x1b[1~", "\x01"), ("\x1b[F", "\x1bOF", "\x1b[4~", "\x05")
BACKSPACE, DELETE = ("\x7f", "\x08"), ("\x1b[3~",)
QUIET = 0.5  # seconds without a key before one answers: after the question appears, and after any other key
SETTLE = 0.3  # a key followed by another this soon starts a burst (typing, a paste), not an answer
TOO_SOON = ("(keys typed quickly, or as the question appeared, are not answers: pause a moment, then press one "
            "key)")


def _fitted(note: str) -> str:
    """A note under a question, broken between words to the terminal's width (last column free)."""
    return "\n".join(wrap_note(note, terminal_width() - 1))


class Keys:
    """Reads keys from a terminal's file descriptor and draws the line being edited on `out`."""

    def __init__(self, fd: int = 0, out: TextIO | None = None, share: KeyShare | None = None, colour: bool = False):
        self.fd, self.out, self.colour = fd, out or sys.stdout, colour
        self.share = share  # the turn's type-ahead reader, paused while a question reads keys

    @contextmanager
    def cbreak(self):
        """Keys reach ankit one by one while inside (entered before a question is shown, so none typed after
        it meets the line discipline); the type-ahead reader of a running turn waits meanwhile."""
        with self.share.paused() if self.share is not None else nullcontext(), self._cbreak():
            yield

    @contextmanager
    def _cbreak(self):
        saved = termios.tcgetattr(self.fd)
        changed = list(saved)
        changed[3] &= ~(termios.ICANON | termios.ECHO)
        changed[6] = list(saved[6])
        changed[6][termios.VMIN], changed[6][termios.VTIME] = 1, 0
        termios.tcsetattr(self.fd, termios.TCSANOW, changed)
        try:
            yield
        finally:
            with suppress(termios.error):  # a closed terminal: nothing left to put back
                termios.tcsetattr(self.fd, termios.TCSANOW, saved)

    def key(self) -> str:
        """One key press: a character, or a whole escape sequence such as an arrow key."""
        with self.cbreak():
            return self._read_key()

    def _read_key(self) -> str:
        return read_key(self.fd)

    def answer(self, question: str, valid: Container[str], hint: str) -> str:
        """Show the question and return the first key meant for it, lowercased (EOF for Ctrl-D or a closed
        terminal): a key in a burst or within QUIET of the question or of the last key is not one; a key not in
        `valid` shows `hint` and the question again."""
        with self.cbreak():
            self._say(question)
            last, told = time.monotonic(), False
            while True:
                key = self._read_key()
                since = time.monotonic() - last
                if key == EOF:
                    return EOF
                burst = since < QUIET or bool(select.select([self.fd], [], [], SETTLE)[0])
                last = time.monotonic()
                if burst:
                    if not told:
                        self._say("\n" + paint(_fitted(TOO_SOON), DIM, self.colour) + "\n" + question)
                    told = True
                    continue
                if key.lower() in valid:
                    return key.lower()
                self._say("\n" + paint(_fitted(hint), DIM, self.colour) + "\n" + question)

    def _say(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def line(self, prompt: str, text: str = "", width: int = 0) -> str:
        """A line typed with editing (arrows, Home/End, Backspace, Delete, Ctrl-U, Ctrl-W); Ctrl-D on an empty
        line raises EOFError. The prompt is plain text (its width is counted)."""
        buffer, cursor = list(text), len(text)
        with self.cbreak():
            while True:
                self._draw(prompt, buffer, cursor, width or terminal_width())
                key = self._read_key()
                if key in ENTER:
                    self.out.write("\n")
                    self.out.flush()
                    return "".join(buffer)
                if key == EOF and not buffer:
                    self.out.write("\n")
                    raise EOFError
                buffer, cursor = edit(buffer, cursor, key)

    def _draw(self, prompt: str, buffer: list[str], cursor: int, width: int) -> None:
        room = max(width - 1 - len(prompt), 8)
        start = max(0, cursor - room + 1) if cursor >= room else 0
        shown = "".join(buffer[start:start + room])
        back = sum(columns(c) for c in buffer[cursor:start + room])
        self.out.write("\r" + prompt + shown + "\033[K" + (f"\033[{back}D" if back else ""))
        self.out.flush()


def read_key(fd: int) -> str:
    """One key press from a terminal in cbreak mode: a character, a whole escape sequence, or a lone Esc."""
    try:
        data = os.read(fd, 1)
    except OSError:  # a closed terminal (EIO): no more keys
        return EOF
    if not data:  # end of input (a closed terminal, or a Ctrl-D the line discipline took before cbreak)
        return EOF
    if data == b"\x1b":  # an escape sequence arrives at once; a lone Esc does not
        while select.select([fd], [], [], 0.05)[0]:
            data += os.read(fd, 1)
            if len(data) > 2 and (data[-1:].isalpha() or data[-1:] == b"~"):
                break
    elif data and data[0] >= 0xC0:  # the rest of a UTF-8 character
        need = 1 if data[0] < 0xE0 else 2 if data[0] < 0xF0 else 3
        data += os.read(fd, need)
    return data.decode("utf-8", "replace")


def edit(buffer: list[str], cursor: int, key: str) -> tuple[list[str], int]:
    """The line and cursor after one key."""
    if key in BACKSPACE and cursor:
        return buffer[:cursor - 1] + buffer[cursor:], cursor - 1
    if key in DELETE:
        return buffer[:cursor] + buffer[cursor + 1:], cursor
    if key in LEFT:
        return buffer, max(cursor - 1, 0)
    if key in RIGHT:
        return buffer, min(cursor + 1, len(buffer))
    if key in HOME:
        return buffer, 0
    if key in END:
        return buffer, len(buffer)
    if key == "\x15":  # Ctrl-U: all before the cursor
        return buffer[cursor:], 0
    if key == "\x17":  # Ctrl-W: the word before the cursor
        start = cursor
        while start and buffer[start - 1] == " ":
            start -= 1
        while start and buffer[start - 1] != " ":
            start -= 1
        return buffer[:start] + buffer[cursor:], start
    if len(key) == 1 and key.isprintable():
        return buffer[:cursor] + [key] + buffer[cursor:], cursor + 1
    return buffer, cursor  # other keys and sequences do nothing


def confirm(question: str, keys: Keys | None, ask: Asker) -> bool:
    """A [y/N] question: on a terminal one key meant for it (only y says yes), else a typed line (y or yes)."""
    if keys is None:
        return ask(question).strip().lower() in ("y", "yes")
    said = keys.answer(question, ("y", "n", "\r", "\n"), "press y or n (Enter: no)") == "y"
    keys.out.write(("yes" if said else "no") + "\n")
    keys.out.flush()
    return said


class PastedLines:
    """Lines typed or pasted on standard input while something else waits (a login's redirect), each read within
    a time limit and cut to LINE bytes; None until a whole line is there."""

    LINE = 16 * 1024

    def __init__(self, fd: int):
        self.fd, self.held, self.closed = fd, b"", False

    def __call__(self, seconds: float) -> str | None:
        if self.closed:
            time.sleep(seconds)
            return None
        if b"\n" not in self.held and select.select([self.fd], [], [], seconds)[0]:
            data = os.read(self.fd, 4096)
            self.closed = not data
            self.held = (self.held + (data or b"\n"))[-self.LINE:]
        if b"\n" not in self.held:
            return None
        line, _, self.held = self.held.partition(b"\n")
        return boundary.decode(line).strip()
