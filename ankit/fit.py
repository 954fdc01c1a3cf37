"""Text fitted to a terminal's width: a listing line cut with an ellipsis, a note wrapped at spaces.

A width of 0 means no limit (output piped into another program keeps every character).
"""

import textwrap


def clip(line: str, width: int) -> str:
    """A line cut to the width, with an ellipsis when cut."""
    return line if len(line) <= width else line[: max(width - 1, 0)] + "…"


def fit_lines(lines: list[str], width: int) -> list[str]:
    """Each line of a listing cut to the width (none cut when width is 0)."""
    return [clip(line, width) for line in lines] if width else list(lines)


def wrap_note(text: str, width: int, indent: str = "  ") -> list[str]:
    """A sentence of a listing (a footnote, a legend) broken at spaces, continued lines indented."""
    if not width or len(text) <= width:
        return [text]
    return textwrap.wrap(text, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
