"""Text from outside ankit made safe to print: control and invisible characters shown, never obeyed.

Whatever a model, a file, a tool or a server wrote reaches the terminal through visible(): ESC shows as ^[,
the other C0 controls and DEL in caret notation (^M, ^H, ^?), C1 controls, bidi overrides and the other
invisible format characters as <U+XXXX>, so no escape sequence, carriage return, backspace or reordering can
hide or rewrite what the user reads. Newline and tab are kept; CR LF counts as a newline.

Also text fitted to a terminal's width: a listing line cut with an ellipsis, a note wrapped at spaces. A width
of 0 means no limit (output piped into another program keeps every character).
"""

import re
import textwrap

# Format (Cf) and other invisible code points that can hide, reorder or smuggle text. ZWJ and ZWNJ (U+200C,
# U+200D) are handled apart: they are needed inside emoji and several scripts, and shown only next to ASCII.
_INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b\u200e\u200f\u2028-\u202e\u2060-\u206f"
    "\u3164\ufeff\uffa0\ufff9-\ufffb\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef"
)
_UNSAFE = re.compile(
    "\r\n"  # a Windows line end is a newline, not a carriage return worth showing
    "|[\x00-\x08\x0b-\x1f\x7f-\x9f" + _INVISIBLE + "\ud800-\udfff]"
    "|(?<![^\x00-\x7f])[\u200c\u200d]|[\u200c\u200d](?![^\x00-\x7f])"
)


def _show(match: re.Match) -> str:
    char = match.group()
    if char == "\r\n":
        return "\n"
    code = ord(char)
    if code < 0x20:
        return "^" + chr(code + 0x40)  # ESC -> ^[, CR -> ^M, BS -> ^H
    if code == 0x7F:
        return "^?"
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, carried as a lone surrogate
        return f"\\x{code - 0xDC00:02x}"
    return f"<U+{code:04X}>"


def visible(text: str) -> str:
    """text with every control or invisible character made visible; newline and tab kept."""
    text = text if isinstance(text, str) else str(text)
    if text.isascii() and text.isprintable():
        return text
    return _UNSAFE.sub(_show, text)


def visible_line(text: str) -> str:
    """visible(text) on one line: newlines and tabs shown too (for names, titles and one-line messages)."""
    return visible(text).replace("\n", "^J").replace("\t", "^I")


class VisibleStream:
    """A text stream that shows controls visibly in everything written to it (for output bound for a terminal)."""

    def __init__(self, inner):
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write(visible(text))
        return len(text)

    def __getattr__(self, name: str):
        return getattr(self.inner, name)


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
