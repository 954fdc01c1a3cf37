"""Markdown for the terminal, rendered as the reply streams: block by block, each line as it arrives.

A line's start is held back only until it is clear what the line is (a heading, a list item, a quote, a
fence, a table row, a rule); prose then shows character by character with inline styles (inline.py) and is
word-wrapped to the width read when the line starts, continued lines of a list item or quote hanging under
its text. Code lines are shown when complete, highlighted (highlight.py) and never wrapped or changed; a
table is held until it ends, then drawn to fit (tables.py). Layout and colour are apart: NO_COLOR keeps the
layout and drops the colour; without layout (pipes, TERM=dumb) the output is exactly the text.
"""

import re
from collections.abc import Callable

from ankit.terminal.highlight import Highlighter
from ankit.terminal.inline import Inline
from ankit.terminal.tables import render_table
from ankit.terminal.wordwrap import WordWrap

RESET = "\033[0m"
DIM = "\033[2m"
HEADINGS = {1: "\033[1;4;35m", 2: "\033[1;35m"}  # deeper levels as level 2
BULLETS = "•◦▪"
QUOTE = "\033[3m"  # italic

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_MAYBE_FENCE = re.compile(r" {0,3}(`{0,2}|~{0,2})")
_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+|$)")
_HEADING_OPEN = re.compile(r" {0,3}#{1,6}[ \t]")
_LIST = re.compile(r"( *)([-*+]|\d{1,9}[.)])[ \t]+")
_QUOTE = re.compile(r" {0,3}>[ \t]?")
_RULE = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*")
_TABLE = re.compile(r" {0,3}\|")
_UNDECIDED = re.compile(r" {0,3}(?:#{0,6}|`{0,2}|~{0,2}|>)| *(?:\d{1,9}[.)]?|[-*+])?|"
                        r" {0,3}(?P<mark>[-*_])(?:[ \t]*(?P=mark))*[ \t]*")


class Markdown:
    """Feed it the reply's text in pieces; it returns what to write. end() closes what is open."""

    def __init__(self, colour: bool, width: int | Callable[[], int] = 0, layout: bool | None = None):
        self.colour = colour
        self.layout = colour if layout is None else layout  # headings, lists, tables drawn; markers taken out
        self.width = width if callable(width) else (lambda: width)
        self.wrap = WordWrap(self.width()) if self.width() else None
        if self.wrap is not None and callable(width):
            self.wrap.measure = width
        self.pending = ""  # the start of a line not yet decided
        self.kind = ""  # what the current line is, once decided
        self.buffer = ""  # a line shown only when complete (code, fence, table row, rule)
        self.code: tuple[str, Highlighter] | None = None  # the open fence and its highlighter
        self.table: list[str] = []  # table rows held until the table ends
        self.inline = Inline()

    def feed(self, text: str) -> str:
        """The output for a piece of text."""
        out: list[str] = []
        for char in text:
            if not self.kind:
                self.pending += char
                kind = self._classify(final=char == "\n")
                if kind:
                    self._start(out, kind)
            elif char == "\n":
                self._end_line(out)
            elif self.kind in ("code", "fence", "table", "rule"):
                self.buffer += char
            else:
                self._prose(out, char)
        return "".join(out)

    def end(self) -> str:
        """Flush what is held back and close any open style."""
        out: list[str] = []
        if self.pending:
            self._start(out, self._classify(final=True))
        if self.kind:
            self._end_line(out, newline=False)
        self._flush_table(out)
        return "".join(out)

    def _classify(self, final: bool) -> str:
        """What the pending line start is, or "" while it could still become something else."""
        line = self.pending.rstrip("\n")
        final = final or self.pending.endswith("\n")
        if _FENCE.match(line):
            return "fence"
        if self.code is not None:
            return "" if not final and _MAYBE_FENCE.fullmatch(line) else "code"
        if self.layout:
            if _TABLE.match(line):
                return "table"
            if _HEADING_OPEN.match(line) or (final and _HEADING.fullmatch(line)):
                return "heading"
            if _RULE.fullmatch(line):
                return "rule" if final else ""
            if _LIST.match(line):
                return "list"
            if _QUOTE.match(line) and (final or len(line) > _QUOTE.match(line).end() or line[-1] in " \t"):
                return "quote"
        if final:
            return "plain"
        return "" if (_UNDECIDED if self.layout else _MAYBE_FENCE).fullmatch(line) else "plain"

    def _start(self, out: list[str], kind: str) -> None:
        if kind != "table":
            self._flush_table(out)
        text, self.pending, self.kind = self.pending, "", kind
        body, newline = (text[:-1], True) if text.endswith("\n") else (text, False)
        if kind in ("code", "fence", "table", "rule"):
            self.buffer = body
        else:
            self._open_prose(out, kind, body)
        if newline:
            self._end_line(out)

    def _open_prose(self, out: list[str], kind: str, body: str) -> None:
        """Start a line of prose: its prefix (bullet, quote bar), its style and its hanging indent."""
        prefix, style, rest, indent = "", "", body, ""
        if kind == "heading":
            match = _HEADING.match(body)
            style = HEADINGS.get(len(match[1]), HEADINGS[2])
            rest = re.sub(r"(^|[ \t]+)#+[ \t]*$", "", body[match.end():])  # a closing run of #s is not text
        elif kind == "list":
            match = _LIST.match(body)
            depth = min(len(match[1]) // 2, 4)
            marker = match[2] if match[2][0].isdigit() else BULLETS[min(depth, len(BULLETS) - 1)]
            prefix, rest = "  " * depth + marker + " ", body[match.end():]
            indent = " " * len(prefix)
        elif kind == "quote":
            prefix, rest, indent, style = "│ ", body[_QUOTE.match(body).end():], "│ ", QUOTE
        style = style if self.colour else ""
        self.inline = Inline(style)
        if self.wrap is not None:
            shown_indent = f"{DIM}{indent}{RESET}{style}" if kind == "quote" and self.colour else indent
            self.wrap.start_line(self.width(), shown_indent, len(indent), len(prefix))
        if prefix:
            out.append(f"{DIM}{prefix}{RESET}" if kind == "quote" and self.colour else prefix)
        if style:
            out.append(style)
        for char in rest:
            self._prose(out, char)

    def _prose(self, out: list[str], char: str) -> None:
        pieces = self.inline.feed(char) if self.layout else [char]
        for piece in pieces:
            if piece.startswith("\033"):
                out.append(piece if self.colour else "")
            else:
                out.append(self.wrap.feed(piece) if self.wrap is not None else piece)

    def _end_line(self, out: list[str], newline: bool = True) -> None:
        kind, line, self.kind, self.buffer = self.kind, self.buffer, "", ""
        if kind in ("plain", "heading", "list", "quote"):
            if self.layout:
                out += [piece for piece in self.inline.end() if self.colour or not piece.startswith("\033")]
                out.append(RESET if self.inline.base and self.colour else "")
            out.append("\n" if newline else "")
        elif kind == "fence":
            self._fence(out, line, newline)
        elif kind == "code":
            out.append(self.code[1].line(line) if self.colour else line)
            out.append("\n" if newline else "")
        elif kind == "rule":
            rule = "─" * max(self.width() - 1, 3) if self.width() else "─" * 40
            out.append((f"{DIM}{rule}{RESET}" if self.colour else rule) + ("\n" if newline else ""))
        elif kind == "table":
            self.table.append(line)

    def _fence(self, out: list[str], line: str, newline: bool) -> None:
        if self.code is None:
            match = _FENCE.match(line)
            self.code = (match[1], Highlighter(match[2]))
        elif line.strip().startswith(self.code[0][0] * len(self.code[0])) and not line.strip().strip(self.code[0][0]):
            self.code = None
        else:  # a shorter or other fence inside a block is code
            out.append(self.code[1].line(line) if self.colour else line)
            out.append("\n" if newline else "")
            return
        out.append((f"{DIM}{line}{RESET}" if self.colour else line) + ("\n" if newline else ""))

    def _flush_table(self, out: list[str]) -> None:
        if not self.table:
            return
        rows, self.table = self.table, []
        lines = render_table(rows, self.width() or 80, self.colour)
        if lines is None:  # not a table after all: the lines as they came
            for row in rows:
                self.kind = "plain"
                self._open_prose(out, "plain", "")
                for char in row:
                    self._prose(out, char)
                self._end_line(out)
            return
        out.append("\n".join(lines) + "\n")
