"""Word wrapping for streamed prose: a line breaks at a space before the terminal's edge, not inside a word."""

import unicodedata

TAB = 8


def columns(char: str) -> int:
    """How many terminal columns a character takes: 2 for wide ones, 0 for combining marks."""
    if unicodedata.combining(char) or unicodedata.category(char) == "Cf":
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


class WordWrap:
    """Holds back each word until it ends, then shows it on the next line if it would cross the edge.

    Only the breaks change: a space at the edge becomes a newline, and a newline goes before a word that
    would not fit. A word longer than a line (a long URL, say) is passed on as it comes and left to the
    terminal, so copying it from the screen gives it whole.
    """

    def __init__(self, width: int):
        self.width = max(width, 1)
        self.column = 0  # where the cursor is on its screen line (width: the line is full)
        self.word = ""  # the word being received
        self.word_columns = 0
        self.unbroken = False  # inside a word longer than a line

    def feed(self, text: str) -> str:
        """What to show for a piece of one line's text (no newlines); the last word may be held back."""
        out: list[str] = []
        for char in text:
            if char in " \t":
                out.append(self.flush())
                self.unbroken = False
                if self.column >= self.width:  # a space here would open the next line
                    out.append("\n")
                    self.column = 0
                else:
                    out.append(char)
                    self._advance(TAB - self.column % TAB if char == "\t" else 1)
            elif self.unbroken:
                out.append(char)
                self._advance(columns(char))
            else:
                self.word += char
                self.word_columns += columns(char)
                if self.word_columns >= self.width:
                    out.append(self.flush())
                    self.unbroken = True
        return "".join(out)

    def flush(self) -> str:
        """The held-back word, after a newline if it would cross the edge."""
        word, size = self.word, self.word_columns
        self.word, self.word_columns = "", 0
        if not word:
            return ""
        if self.column and self.column + size > self.width:
            word, self.column = "\n" + word, 0
        self._advance(size)
        return word

    def end_line(self) -> str:
        """The held-back word at the end of a line; the next text starts a fresh line."""
        word = self.flush()
        self.column, self.unbroken = 0, False
        return word

    def _advance(self, size: int) -> None:
        total = self.column + size
        self.column = (total - 1) % self.width + 1 if total > self.width else total
