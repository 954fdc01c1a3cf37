"""Pastes at the prompt: a large one is read whole outside readline and shown as one line, never scrolled past.

The terminal marks a paste (bracketed paste, turned on only while the prompt waits). Readline is told to end the
line at the paste's start with a mark (a macro bound to the start sequence); the paste itself is then read
straight from the terminal, and the prompt comes back with what was typed and, in place of a large paste, a
placeholder such as ``[pasted #1: 3,000 lines, 270 KB]`` that stands for it until the message is sent.
"""

import os
import re
import select
import termios
from dataclasses import dataclass, field

from ankit.terminal.live import ERASE_UP
from ankit.terminal.wordwrap import columns

MARK = "\x1f"  # what the macro types at a paste's start (unit separator: nobody types it)
START, END = b"\x1b[200~", b"\x1b[201~"
ON, OFF = "\033[?2004h", "\033[?2004l"
BINDINGS = ("set enable-bracketed-paste off", r'"\e[200~": "\C-e\C-v\C-_\C-m"')
PASTE_CAP = 32 * 1024 * 1024  # bytes of one paste kept; the rest is read and dropped
LARGE_LINES, LARGE_CHARS = 10, 2000  # a paste above either is held as a placeholder
QUIET = 5.0  # seconds without a byte that end a paste whose end mark never comes
PLACEHOLDER = re.compile(r"\[pasted #(\d+): [^\]]*\]")


@dataclass
class Pastes:
    """The large pastes of the message being typed, by number."""

    held: dict[int, str] = field(default_factory=dict)

    def hold(self, text: str) -> str:
        """What the line shows for a paste: the text itself when small, else a placeholder."""
        lines = len(text.splitlines()) or 1  # a paste ending in a newline has no empty last line
        if lines <= LARGE_LINES and len(text) <= LARGE_CHARS:
            return text
        number = len(self.held) + 1
        self.held[number] = text
        size = len(text.encode("utf-8", "replace"))
        kb = f"{size / 1024:,.0f} KB" if size >= 1024 else f"{size} bytes"
        return f"[pasted #{number}: {lines:,} lines, {kb}]"

    def expand(self, line: str) -> str:
        """The line with each placeholder replaced by its paste; the held pastes are let go."""
        expanded = PLACEHOLDER.sub(lambda m: self.held.get(int(m.group(1)), m.group()), line)
        self.held.clear()
        return expanded


def read_paste(fd: int) -> tuple[str, str]:
    """The rest of a paste up to its end mark, read with echo off, and what was typed after it (an Enter that
    came with it, say); line ends made newlines."""
    saved = termios.tcgetattr(fd)
    changed = list(saved)
    changed[3] &= ~(termios.ICANON | termios.ECHO)
    changed[6] = list(saved[6])
    changed[6][termios.VMIN], changed[6][termios.VTIME] = 1, 0
    termios.tcsetattr(fd, termios.TCSANOW, changed)
    data, tail = bytearray(), b""
    try:
        while not tail.endswith(END) and select.select([fd], [], [], QUIET)[0]:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            tail = (tail + chunk)[-len(END):]
            if len(data) < PASTE_CAP:
                data += chunk
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)
    text, _, after = bytes(data).partition(END)
    return _lines(text.decode("utf-8", "replace")), _lines(after.decode("utf-8", "replace"))


def _lines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def echo_rows(shown: str, width: int) -> int:
    """How many terminal rows the prompt and line took (the mark shows as ^_)."""
    rows = 0
    for piece in shown.replace(MARK, "^_").split("\n"):
        rows += max(1, -(-sum(columns(c) for c in piece) // max(width, 1)))
    return rows


def erase_echo(shown: str, width: int) -> str:
    """The escapes that take the cursor back over the echoed prompt and line and clear them."""
    return ERASE_UP.format(echo_rows(shown, width))
