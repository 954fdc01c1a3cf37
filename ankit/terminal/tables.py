"""Markdown tables drawn for the terminal: columns aligned to their widest cell, fitted to the width, cells
wrapped at spaces when the table is too wide (a word longer than its column is cut across lines)."""

import re

from ankit.terminal.inline import strip_inline
from ankit.terminal.wordwrap import columns

BOLD = "\033[1m"
DIM = "\033[2m"
RESET = "\033[0m"
SEPARATOR = " │ "
_DELIMITER = re.compile(r" *:?-+:? *")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
MIN_COLUMN = 3


def cells(row: str) -> list[str]:
    """The cells of one table row, markers removed: `| a | **b** |` -> ["a", "b"]."""
    text = row.strip()
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") and not text.endswith("\\|") else text
    return [strip_inline(cell.strip()).replace("\\|", "|") for cell in _CELL_SPLIT.split(text)]


def width_of(text: str) -> int:
    """Columns a text takes on the terminal."""
    return sum(columns(char) for char in text)


def render_table(rows: list[str], width: int, colour: bool) -> list[str] | None:
    """The table's lines, or None when the rows are not a table (no delimiter row under the header)."""
    if len(rows) < 2 or not all(_DELIMITER.fullmatch(c) for c in rows[1].strip().strip("|").split("|")):
        return None
    aligns = [_align(c) for c in rows[1].strip().strip("|").split("|")]
    header, body = cells(rows[0]), [cells(r) for r in rows[2:]]
    count = len(header)
    body = [(r + [""] * count)[:count] for r in body]
    aligns = (aligns + ["left"] * count)[:count]
    widths = fit([max(width_of(r[i]) for r in [header, *body]) for i in range(count)], width - 1)
    separator = _paint(SEPARATOR, DIM, colour)
    lines = [separator.join(parts).rstrip() for parts in _row(header, widths, aligns, BOLD if colour else "")]
    lines.append(_paint("─┼─".join("─" * w for w in widths), DIM, colour))
    for row in body:
        lines += [separator.join(parts).rstrip() for parts in _row(row, widths, aligns, "")]
    return lines


def _paint(text: str, style: str, colour: bool) -> str:
    return f"{style}{text}{RESET}" if colour and style else text


def _align(delimiter: str) -> str:
    cell = delimiter.strip()
    if cell.startswith(":") and cell.endswith(":"):
        return "center"
    return "right" if cell.endswith(":") else "left"


def fit(widths: list[int], room: int) -> list[int]:
    """Column widths that fit `room` columns with separators: the widest columns give way first."""
    widths = [max(w, 1) for w in widths]
    room -= len(SEPARATOR) * (len(widths) - 1)
    while sum(widths) > room and max(widths) > MIN_COLUMN:
        widest = widths.index(max(widths))
        widths[widest] -= 1
    return widths


def wrap_cell(text: str, width: int) -> list[str]:
    """A cell's text in lines of at most `width` columns, broken at spaces where it can be."""
    lines, line = [], ""
    for word in text.split():
        while width_of(word) > width:  # a word longer than the column is cut
            if line:
                lines.append(line)
                line = ""
            cut = _prefix(word, width)
            lines.append(word[:cut])
            word = word[cut:]
        if not line:
            line = word
        elif width_of(line) + 1 + width_of(word) <= width:
            line += " " + word
        else:
            lines.append(line)
            line = word
    return lines + [line] if line or not lines else lines


def _prefix(word: str, width: int) -> int:
    used = 0
    for index, char in enumerate(word):
        used += columns(char)
        if used > width:
            return max(index, 1)
    return len(word)


def _row(row: list[str], widths: list[int], aligns: list[str], style: str) -> list[list[str]]:
    """One table row as screen lines (a wrapped cell makes its row taller)."""
    wrapped = [wrap_cell(text, w) for text, w in zip(row, widths)]
    height = max(len(c) for c in wrapped)
    lines = []
    for index in range(height):
        parts = []
        for cell, w, align in zip(wrapped, widths, aligns):
            text = cell[index] if index < len(cell) else ""
            pad = w - width_of(text)
            left = pad // 2 if align == "center" else pad if align == "right" else 0
            shown = " " * left + text + " " * (pad - left)
            parts.append(f"{style}{shown}{RESET}" if style else shown)
        lines.append(parts)
    return lines
