"""Questions laid out under a screen budget: what a question asks about always shows next to it.

Every approval and trust question goes through `fit`: the text it shows is first collapsed (a run of characters
that render as nothing — spaces of every width, zero-width and format characters, variation selectors, default
ignorables, combining marks — becomes "[12,000 blanks]" or "[70 invisible characters]", and a run of lines made
of nothing becomes "[70 invisible lines]"), then wrapped, then cut to the rows the terminal has: the subject
(the command, the program, the MCP server line, the origin) is kept whole up to half the screen, the rest keeps
its head and tail around a "[… N lines not shown …]" count. So nothing the user is asked about can scroll above
the question, whatever the text holds.
"""

import re
import unicodedata

from ankit.wording import count

RUN = 12  # this many invisible characters in a row are counted instead of printed
MAX_LINE = 4000  # characters of one line shown; its middle is counted beyond that
_ASCII_RUN = re.compile(r"[ \t]{%d,}" % RUN)
MIN_ROWS = 10
_NOTHING_CATEGORIES = {"Cf", "Mn", "Me", "Zs", "Zl", "Zp"}
_NOTHING_EXTRA = re.compile("[\t\u115f\u1160\u3164\uffa0\u2800\u180b-\u180f\ufe00-\ufe0f\U000e0000-\U000e0fff]")


def renders_as_nothing(char: str) -> bool:
    """Whether a terminal draws this character as nothing (or as a blank)."""
    return bool(_NOTHING_EXTRA.match(char)) or unicodedata.category(char) in _NOTHING_CATEGORIES


def _spacing(char: str) -> bool:
    """A character that draws as a blank (spaces of every width, the tab, the Braille blank)."""
    return char in "\t\u2800" or unicodedata.category(char) == "Zs"


def _is_blank_line(line: str) -> bool:
    return all(renders_as_nothing(c) for c in line)


def _count(n: int, one: str, many: str) -> str:
    return f"[{count(n, one, many)}]"


def _collapse_line(line: str) -> str:
    """A line with each long run of invisible characters replaced by its count, its middle cut when it is still
    longer than MAX_LINE characters."""
    if line.isascii():
        line = _ASCII_RUN.sub(lambda m: _count(len(m.group()), "blank", "blanks"), line)
    else:
        line = _collapse_runs(line)
    if len(line) > MAX_LINE:
        hidden = len(line) - MAX_LINE
        line = f"{line[:MAX_LINE // 2]}[… {hidden:,} characters not shown …]{line[-MAX_LINE // 2:]}"
    return line


def _collapse_runs(line: str) -> str:
    out, run = [], []
    for char in line + "\n":
        if char != "\n" and renders_as_nothing(char):
            run.append(char)
            continue
        if len(run) >= RUN:
            spaces = all(map(_spacing, run))
            out.append(_count(len(run), "blank", "blanks") if spaces else
                       _count(len(run), "invisible character", "invisible characters"))
        else:
            out.extend(run)
        run = []
        if char != "\n":
            out.append(char)
    return "".join(out)


def collapse(text: str, keep_blank_lines: bool = False) -> list[str]:
    """Text as lines, long invisible runs and runs of three or more empty-looking lines counted."""
    lines, out, index = text.split("\n"), [], 0
    while index < len(lines):
        end = index
        while end < len(lines) and _is_blank_line(lines[end]):
            end += 1
        if end - index >= 3 and not keep_blank_lines:
            invisible = not all(_spacing(c) for i in range(index, end) for c in lines[i])
            out.append(_count(end - index, "invisible line", "invisible lines") if invisible else
                       _count(end - index, "blank line", "blank lines"))
            index = end
            continue
        out.append(_collapse_line(lines[index]))
        index += 1
    return out


def cells(char: str) -> int:
    """The columns a character takes: 2 for wide East Asian ones, 0 for those that render as nothing."""
    if renders_as_nothing(char) and not _spacing(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in "WF" else 1


def wrap(line: str, width: int, indent: str = "  ", more: str = "  ↪ ") -> list[str]:
    """A line cut into rows of the width (wide characters counted twice), continuation rows marked; a row ends
    after its last space or slash when one stands in its second half, so words and path parts stay whole."""
    room = max(width - len(more) - 1, 20)
    pieces, piece, used = [], [], 0
    for char in line:
        size = cells(char) if char != "\t" else 8
        if used + size > room:
            cut = _break_at(piece)
            pieces.append("".join(piece[:cut]))
            piece = piece[cut:]
            used = sum(cells(c) if c != "\t" else 8 for c in piece)
        piece.append(char)
        used += size
    pieces.append("".join(piece))
    return [(indent if n == 0 else more) + piece for n, piece in enumerate(pieces)]


def _break_at(piece: list[str]) -> int:
    """Where a full row ends: after its last space or slash in the second half, else where it is full."""
    for index in range(len(piece) - 1, len(piece) // 2, -1):
        if piece[index] in " /":
            return index + 1
    return len(piece)


def fit(subject: list[str], rest: list[str], rows: int, width: int) -> list[str]:
    """The rows shown above a question: the subject's rows (up to half the budget, its middle counted when
    longer), then the rest's head and tail around a count of what is not shown; `rows` is the budget."""
    rows = max(rows, MIN_ROWS)
    top = [r for line in subject for r in wrap(line, width)]
    top = _middle_cut(top, max(rows // 2, 4), ("row of it", "rows of it"))
    below = [r for line in rest for r in wrap(line, width)]
    return top + _middle_cut(below, rows - len(top), ("line", "lines"))


def _middle_cut(lines: list[str], room: int, what: tuple[str, str]) -> list[str]:
    """Lines cut to `room`, their head and tail kept around "[… N lines not shown …]"."""
    if len(lines) <= room:
        return lines
    if room <= 1:
        return [f"  [… {count(len(lines), *what)} not shown …]"][:max(room, 0)]
    head = (room - 1) - (room - 1) // 3
    tail = room - 1 - head
    hidden = len(lines) - head - tail
    return [*lines[:head], f"  [… {count(hidden, *what)} not shown …]", *(lines[-tail:] if tail else [])]
