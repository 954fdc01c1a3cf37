"""Terminal styles: colour only on a terminal that takes it, and prompt escapes readline can measure."""

import io
import os
import pty

from ankit.terminal.style import DIM, RESET, paint, prompt_paint, use_colour


def test_colour_only_on_a_terminal_without_no_color():
    assert not use_colour(io.StringIO(), {})
    master, slave = pty.openpty()
    try:
        with os.fdopen(slave, "w", closefd=False) as tty:
            assert use_colour(tty, {"TERM": "xterm"})
            assert not use_colour(tty, {"TERM": "xterm", "NO_COLOR": "1"})
            assert not use_colour(tty, {"TERM": "dumb"})
    finally:
        os.close(master)
        os.close(slave)


def test_prompt_escapes_are_marked_invisible_for_readline():
    assert prompt_paint("> ", DIM, True) == f"\001{DIM}\002> \001{RESET}\002"
    assert prompt_paint("> ", DIM, False) == "> "


def test_paint_styles_only_with_colour():
    assert paint("x", DIM, True) == f"{DIM}x{RESET}"
    assert paint("x", DIM, False) == "x" and paint("x", "", True) == "x"
