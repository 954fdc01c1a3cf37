"""Word wrapping for streamed prose: a line breaks at a space before the terminal's edge, not inside a word."""

import unicodedata

TAB = 8


def columns(char: str) -> int:
    """How many terminal columns a character takes: 2 for wide ones, 0 for combining marks."""
    if unicodedata.combining(char) or unicodedata.category(char) == "Cf":
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def move_down(shown: int) -> str:
    """Erase the `shown` columns just written on this line and go to the start of the next one."""
    return (f"\033[{shown}D\033[K" if shown else "") + "\n"


class WordWrap:
    """Shows each character as it comes; a word that grows past the edge is erased and written again below.

    Only the breaks change: a space at the edge becomes a newline, and a word that would not fit moves to
    the next line. A word longer than a line (a long URL, say) is left to the terminal, so copying it from
    the screen gives it whole. Prose stays left of the terminal's last column: a cursor there waits to
    wrap, and could not be moved back exactly.
    """

    def __init__(self, width: int):
        self.width = max(width, 2)  # the terminal's
        self.edge = self.width - 1  # the columns prose may use
        self.column = 0  # where the cursor is on its screen line
        self.word = ""  # the word being shown, which may still have to move down
        self.unbroken = False  # inside a word longer than a line
        self.indent, self.indent_width = "", 0  # what starts each continued line (a list item's hanging indent)
        self.measure = None  # reads the terminal's width now: a word moves down only if it has not changed

    def start_line(self, width: int, indent: str = "", indent_width: int = 0, used: int = 0) -> None:
        """A new line of `width` columns; `used` columns are taken already (a bullet); continued lines get `indent`."""
        self.width = max(width, 2)
        self.edge = self.width - 1
        self.column, self.word, self.unbroken = used, "", False
        self.indent, self.indent_width = indent, min(indent_width, self.edge // 2)

    def feed(self, text: str) -> str:
        """What to show for a piece of one line's text (no newlines)."""
        return "".join(self._space(char) if char in " \t" else self._letter(char) for char in text)

    def _space(self, char: str) -> str:
        self.word, self.unbroken = "", False
        if self.column >= self.edge:  # a space here would open the next line
            self.column = self.indent_width
            return "\n" + self.indent
        self._advance(TAB - self.column % TAB if char == "\t" else 1)
        return char

    def _letter(self, char: str) -> str:
        size = columns(char)
        if self.unbroken or self.column + size <= self.edge:
            self.word += char
            self._advance(size)
            return char
        shown = sum(map(columns, self.word))
        room = self.edge - self.indent_width
        if self.column - self.indent_width <= shown or shown + size > room or not self._same_width():
            self.unbroken = True  # no line is wide enough for it, or a resize made the move unsafe
            self._advance(size)
            return char
        self.word += char
        self.column = self.indent_width + shown + size
        return move_down(shown) + self.indent + self.word

    def _same_width(self) -> bool:
        """Whether the terminal is as wide as when the line started (else moving the cursor back could miss)."""
        return self.measure is None or self.measure() == self.width

    def end_line(self) -> None:
        """The line ended: the next text starts at the left edge."""
        self.column, self.word, self.unbroken = 0, "", False

    def _advance(self, size: int) -> None:
        total = self.column + size
        self.column = (total - 1) % self.width + 1 if total > self.width else total
