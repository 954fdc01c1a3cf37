"""Inline Markdown as it streams in, one character at a time: **bold**, *italic*, `code` and [links](url).

The markers are hidden and the text styled; a marker run is held back only until the next character says
whether it opens, closes or is just a character ("2 * 3", snake_case), and a link's text until its `](url)`
shows it is one. Styles end with their line, so an unclosed marker never colours what follows.
"""

import re

RESET = "\033[0m"
BOLD = "\033[1m"
ITALIC = "\033[3m"
UNDERLINE = "\033[4m"
DIM = "\033[2m"
CODE = "\033[36m"
LINK_LIMIT = 400  # characters of a would-be link held back at most
ESCAPABLE = set("\\`*_{}[]()#+-.!|>~<")
_MARKERS = re.compile(r"\*\*|__|\*|_|`")


class Inline:
    """Turns a line's characters into pieces: text to show, and style codes (which start with ESC)."""

    def __init__(self, base: str = ""):
        self.base = base  # the style of the whole line (a heading's colour)
        self.bold = self.italic = False
        self.code = 0  # the length of the backtick run that opened the code span, 0 outside code
        self.held = ""  # a marker run (or a backslash) waiting for the next character
        self.prev = " "  # the last character shown, for deciding whether a marker opens or closes
        self.link: list[str] | None = None  # [text, url, stage] while a link is being read

    def feed(self, char: str) -> list[str]:
        """The pieces to show for one more character of the line."""
        if self.link is not None:
            return self._link(char)
        if self.held == "\\":  # an escaped marker is shown as the character, without the backslash
            self.held, self.prev = "", char if char in ESCAPABLE else "\\"
            return [char] if char in ESCAPABLE else ["\\", *self.feed(char)]
        if self.held and (char != self.held[-1] or len(self.held) == 3):
            return self._decide(char) + self.feed(char)
        if char in "*_`" or (char == "\\" and not self.code):
            self.held += char
            return []
        if char == "[" and not self.code:
            self.link = ["", "", "text"]
            return []
        self.prev = char
        return [char]

    def end(self) -> list[str]:
        """The line ended: what was held is shown as typed, and every style is closed."""
        out = self._decide(" ") if self.held else []
        while self.link is not None:  # a "[" inside an unfinished link opens another: never drop text
            out += self._literal_link()
        styled = self.bold or self.italic or self.code
        self.bold = self.italic = False
        self.code = 0
        return out + ([RESET] if styled else [])

    def _decide(self, following: str) -> list[str]:
        run, self.held = self.held, ""
        if run == "\\":
            return [run]
        if run[0] == "`":
            return self._backticks(run)
        if self.code:
            self.prev = run[-1]
            return [run]
        return self._emphasis(run, following)

    def _backticks(self, run: str) -> list[str]:
        if self.code and len(run) == self.code:
            self.code = 0
            return [self._style()]
        if self.code:
            return [run]
        self.code = len(run)
        return [self._style()]

    def _emphasis(self, run: str, following: str) -> list[str]:
        char = run[0]
        opens = not following.isspace() and (char == "*" or not self.prev.isalnum())
        closes = not self.prev.isspace() and (char == "*" or not following.isalnum())
        wants = {1: ("italic",), 2: ("bold",), 3: ("bold", "italic")}[len(run)]
        if all(getattr(self, w) for w in wants) and closes:
            for name in wants:
                setattr(self, name, False)
        elif not any(getattr(self, w) for w in wants) and opens:
            for name in wants:
                setattr(self, name, True)
        else:
            self.prev = char
            return [run]
        return [self._style()]

    def _style(self) -> str:
        """The codes for the styles in force now, from a reset."""
        return (RESET + self.base + (BOLD if self.bold else "") + (ITALIC if self.italic else "")
                + (CODE if self.code else ""))

    def _link(self, char: str) -> list[str]:
        text, url, stage = self.link
        if stage == "text" and char == "]":
            self.link[2] = "close"
        elif stage == "text":
            self.link[0] += char
        elif stage == "close" and char == "(":
            self.link[2] = "url"
        elif stage == "url" and char == ")":
            self.link = None
            return self._shown_link(text, url)
        elif stage == "url" and not char.isspace():
            self.link[1] += char
        else:  # "[x] " or a space inside the url: not a link after all
            return self._literal_link() + self.feed(char)
        if len(self.link[0]) + len(self.link[1]) > LINK_LIMIT:
            return self._literal_link()
        return []

    def _literal_link(self) -> list[str]:
        text, url, stage = self.link
        self.link = None
        typed = "[" + text + ("]" if stage != "text" else "") + ("(" + url if stage == "url" else "")
        out: list[str] = []
        for index, char in enumerate(typed):
            out += [char] if index == 0 else self.feed(char)
        self.prev = typed[-1]
        return out

    def _shown_link(self, text: str, url: str) -> list[str]:
        label = _MARKERS.sub("", text) or url
        self.prev = ")"
        shown = [UNDERLINE, label, self._style()]
        if url and url != label and not url.startswith("#"):
            shown += [DIM, f" ({url})", self._style()]
        return shown


def strip_inline(text: str) -> str:
    """A line's text without its inline markers (table cells): **a** `b` [c](d) -> a b c."""
    text = re.sub(r"\[([^\]]*)\]\(([^)\s]*)\)", r"\1", text)
    text = re.sub(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", r"\2", text)
    text = re.sub(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?!\*)", r"\1", text)
    text = re.sub(r"(?<!\w)_(?=\S)(.+?)(?<=\S)_(?!\w)", r"\1", text)
    return re.sub(r"`([^`]*)`", r"\1", text)
