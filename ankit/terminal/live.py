"""The live line: a spinner with what ankit waits for and the seconds so far, and a dim tail of a tool's output.

Drawn by one thread only, so output arriving from a tool's reader thread never interleaves with it; erased
before anything else is written. Every drawn line is cut to the width read at that moment and kept off the
last column, so the terminal never wraps one and the erase is exact.

Live owns the bottom of the screen: besides the status line it keeps a footer, lines drawn below the line the
cursor is on (what the user types while a turn runs), even when that line is a reply half written. The footer
is taken away before any output and drawn again after it, under the same lock as the status line. It is drawn
without moving the cursor: IND then RI (ESC D, ESC M) make room below, scrolling if the cursor is on the last
row, and keep the column; DECSC and DECRC (ESC 7, ESC 8) come back to where the output goes on.
"""

import shutil
import threading
import time
from collections import deque
from typing import TextIO

from ankit.safety.visible import clip
from ankit.safety.visible import visible_line

ERASE_LINE = "\r\033[K"
ERASE_UP = "\r\033[{}A\033[J"  # to the start of the line n lines up, and everything below
SAVE, RESTORE, DOWN, UP = "\0337", "\0338", "\033D", "\033M"
FOOTER_ERASE = SAVE + DOWN + "\r\033[J" + RESTORE  # everything below the cursor's line
SPINNER_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
DIM = "\033[2m"
RESET = "\033[0m"
TAIL_LINES = 5


def terminal_width() -> int:
    """The terminal's width in columns now (80 when unknown)."""
    return shutil.get_terminal_size((80, 24)).columns


class Tail:
    """The last few lines of a stream of output; a carriage return starts its line again (progress bars)."""

    def __init__(self, size: int = TAIL_LINES):
        self.lines: deque[str] = deque(maxlen=size)
        self.partial = ""

    def feed(self, text: str) -> None:
        """Add output."""
        pieces = (self.partial + text).split("\n")
        self.lines.extend(_overwritten(line) for line in pieces[:-1])
        self.partial = pieces[-1][-4096:]  # a line without an end stays bounded

    def shown(self) -> list[str]:
        """The lines to draw, the unfinished one last."""
        lines = list(self.lines) + ([_overwritten(self.partial)] if self.partial else [])
        return lines[-self.lines.maxlen:]


def _overwritten(line: str) -> str:
    """What a line shows on a terminal: the text after its last carriage return."""
    return line.rstrip("\r").rsplit("\r", 1)[-1]


def footer_text(lines: list[str]) -> str:
    """The escapes that draw lines below the cursor's line and put the cursor back where it was."""
    rows = len(lines)
    return DOWN * rows + UP * rows + SAVE + "".join(DOWN + ERASE_LINE + line for line in lines) + RESTORE


class Live:
    """A status line redrawn every tenth of a second, with an optional dim tail above it, until stop()."""

    def __init__(self, out: TextIO, colour: bool, delay: float = 0.4):
        self.out, self.colour, self.delay = out, colour, delay
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._drawn = 0  # lines on screen now
        self.tail: Tail | None = None
        self._footer: list[str] = []  # lines kept below the output (drawn already cut to the width)
        self._footer_drawn = False

    def start(self, label: str, tail: Tail | None = None) -> None:
        """Show `label` with a turning wheel and the seconds so far (and the tail's lines), until stop()."""
        self.stop()
        self.tail = tail
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._spin, args=(label, self._stop), daemon=True)
        self._thread.start()

    def _spin(self, label: str, stop: threading.Event) -> None:
        started, frame = time.monotonic(), 0
        if stop.wait(self.delay):
            return
        while True:
            with self._lock:
                if stop.is_set():
                    return
                self._draw(f"{SPINNER_FRAMES[frame % len(SPINNER_FRAMES)]} {label} {int(time.monotonic() - started)}s")
            frame += 1
            if stop.wait(0.1):
                return

    def _draw(self, status: str) -> None:
        width = terminal_width() - 1  # a line in the last column could wrap, and the erase would miss it
        lines = [clip("  " + visible_line(line), width) for line in (self.tail.shown() if self.tail else [])]
        text = "\n".join([*lines, clip(status, width)])
        if self.colour:
            text = DIM + text.replace("\n", RESET + "\n" + DIM) + RESET
        self.out.write(self._hide_footer() + self._erase() + text + self._show_footer())
        self.out.flush()
        self._drawn = len(lines) + 1

    def _erase(self) -> str:
        return ERASE_UP.format(self._drawn - 1) if self._drawn > 1 else ERASE_LINE

    def stop(self) -> None:
        """Stop and erase what was drawn."""
        if self._thread is None:
            return
        self._stop.set()
        with self._lock:
            if self._drawn:
                self.out.write(self._hide_footer() + self._erase() + self._show_footer())
                self.out.flush()
                self._drawn = 0
        self._thread.join()
        self._thread = None

    def write(self, text: str) -> None:
        """Write output (the status line stopped first): the footer, if any, moves down below it."""
        with self._lock:
            self.out.write(self._hide_footer() + text + self._show_footer())
            self.out.flush()

    def footer(self, lines: list[str]) -> None:
        """Keep these lines (each already cut to the width) below the output; [] takes the footer away."""
        with self._lock:
            hidden = self._hide_footer()
            self._footer = list(lines)
            self.out.write(hidden + self._show_footer())
            self.out.flush()

    def _hide_footer(self) -> str:
        drawn, self._footer_drawn = self._footer_drawn, False
        return FOOTER_ERASE if drawn else ""

    def _show_footer(self) -> str:
        self._footer_drawn = bool(self._footer)
        return footer_text(self._footer) if self._footer else ""
