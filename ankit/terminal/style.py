"""Terminal styles: the escape codes, whether a stream is a terminal that takes them, and text painted in one.

Apart from render.py so that the keys of a question (keys.py) and the listings load no reply rendering.
"""

import os
from typing import TextIO

RESET = "\033[0m"
BOLD = "\033[1m"
DIM = "\033[2m"
RED = "\033[31m"
GREEN = "\033[32m"
YELLOW = "\033[33m"
CYAN = "\033[36m"
HEADING = "\033[1;35m"
CODE = CYAN


def animated(stream: TextIO, environ=os.environ) -> bool:
    """Whether the stream is a terminal that can redraw a line (not piped, not TERM=dumb)."""
    try:
        return stream.isatty() and environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):
        return False


def use_colour(stream: TextIO, environ=os.environ) -> bool:
    """Colour only on a terminal, never with NO_COLOR set, when piped, or on a dumb terminal."""
    return not environ.get("NO_COLOR") and animated(stream, environ)


def paint(text: str, style: str, colour: bool) -> str:
    """Text in a style when colour is on."""
    return f"{style}{text}{RESET}" if colour and style else text


def prompt_paint(text: str, style: str, colour: bool) -> str:
    """Text for a readline prompt: escapes wrapped in \\001 and \\002 so the cursor column stays right."""
    return f"\001{style}\002{text}\001{RESET}\002" if colour and style else text
