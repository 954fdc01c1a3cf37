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

    def feed(self, text: str) -> str:
        """What to show for a piece of one line's text (no newlines)."""
        return "".join(self._space(char) if char in " \t" else self._letter(char) for char in text)

    def _space(self, char: str) -> str:
        self.word, self.unbroken = "", False
        if self.column >= self.edge:  # a space here would open the next line
            self.column = 0
            return "\n"
        self._advance(TAB - self.column % TAB if char == "\t" else 1)
        return char

    def _letter(self, char: str) -> str:
        size = columns(char)
        if self.unbroken or self.column + size <= self.edge:
            self.word += char
            self._advance(size)
            return char
        shown = sum(map(columns, self.word))
        if self.column == shown or shown + size > self.edge:  # no line is wide enough for it
            self.unbroken = True
            self._advance(size)
            return char
        self.word += char
        self.column = shown + size
        return move_down(shown) + self.word

    def end_line(self) -> None:
        """The line ended: the next text starts at the left edge."""
        self.column, self.word, self.unbroken = 0, "", False

    def _advance(self, size: int) -> None:
        total = self.column + size
        self.column = (total - 1) % self.width + 1 if total > self.width else total
