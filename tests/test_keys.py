"""Line editing for answers typed mid-turn, and keys read from a real pseudo-terminal."""

import os
import pty
import select
import tty

from ankit.terminal.keys import Keys, edit


def typed(keys: list[str], text: str = "") -> tuple[str, int]:
    buffer, cursor = list(text), len(text)
    for key in keys:
        buffer, cursor = edit(buffer, cursor, key)
    return "".join(buffer), cursor


def test_editing_keys():
    assert typed(list("abc") + ["\x1b[D", "\x1b[D", "X"]) == ("aXbc", 2)
    assert typed(["\x7f"], "abc") == ("ab", 2) and typed(["\x01", "\x1b[3~"], "abc") == ("bc", 0)
    assert typed(["\x01", "\x05", "!"], "ab") == ("ab!", 3)
    assert typed(["\x17"], "use a dir") == ("use a ", 6) and typed(["\x1b[D", "\x15"], "abc") == ("c", 0)
    assert typed(["\x1b[A", "\x07"], "ab") == ("ab", 2)  # other keys do nothing


def test_keys_from_a_terminal_and_a_line_with_its_prompt():
    master, slave = pty.openpty()
    # typed ahead of the reads: in the default canonical mode the terminal would buffer the keys for a line and
    # swallow ^D as end-of-file before Keys switches to cbreak, so the reads could wait forever
    tty.setcbreak(slave)
    try:
        with os.fdopen(os.dup(slave), "w") as out:
            keys = Keys(slave, out)
            os.write(master, b"y\x1b[Dz")
            assert keys.key() == "y" and keys.key() == "\x1b[D" and keys.key() == "z"
            os.write(master, "héllo\x1b[D\x1b[D!\r".encode())
            assert keys.line("why? ") == "hél!lo"
            os.write(master, b"\x04")
            try:
                keys.line("why? ")
            except EOFError:
                pass
            else:
                raise AssertionError("Ctrl-D on an empty line is the end of input")
    finally:
        os.close(master)
        os.close(slave)


def test_keys_typed_once_the_question_is_up_are_read_as_keys_even_ctrl_d():
    # the approval enters cbreak before it shows its question: a ^D typed after seeing it never reaches the
    # line discipline, which would turn it into end-of-input (read then as a NUL byte)
    master, slave = pty.openpty()
    try:
        with os.fdopen(os.dup(slave), "w") as out:
            keys = Keys(slave, out)
            with keys.cbreak():
                os.write(master, b"\x04")
                select.select([slave], [], [], 2)
                assert keys.key() == "\x04"
    finally:
        os.close(master)
        os.close(slave)
