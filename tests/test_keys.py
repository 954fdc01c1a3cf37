"""Line editing for answers typed mid-turn, and keys read from a real pseudo-terminal."""

import os
import pty
import select
import threading
import time
import tty

import pytest

from ankit.terminal.keys import EOF, QUIET, SETTLE, Keys, edit


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


class Question:
    """Keys.answer asked on a real pseudo-terminal in a thread; the test types into the other end."""

    def __init__(self, valid=("y", "n", "a", "\r", "\n"), question: str = "[y]es / [n]o / [a]lways? "):
        self.master, self.slave = pty.openpty()
        self.out = os.fdopen(os.dup(self.slave), "w")
        self.keys = Keys(self.slave, self.out)
        self.got: list[str] = []
        self.shown = b""
        self.asked = time.monotonic()
        self.thread = threading.Thread(target=lambda: self.got.append(self.keys.answer(question, valid, "press y, n or a")))
        self.thread.start()
        self.read_until(question.encode())

    def read_until(self, text: bytes, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.shown and time.monotonic() < deadline:
            if select.select([self.master], [], [], 0.1)[0]:
                self.shown += os.read(self.master, 4096)
        assert text in self.shown, self.shown

    def type(self, text: str, gap: float = 0.0) -> None:
        for key in text if gap else [text]:
            os.write(self.master, key.encode())
            time.sleep(gap)

    def result(self, timeout: float = 30) -> str | None:
        self.thread.join(timeout)
        return self.got[0] if self.got else None

    def close(self) -> None:
        if self.thread.is_alive():
            os.write(self.master, b"\x04")  # Ctrl-D always ends a question
            self.thread.join(10)
        self.out.close()
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture
def question():
    made: list[Question] = []

    def ask(*args, **kwargs) -> Question:
        made.append(Question(*args, **kwargs))
        return made[-1]

    yield ask
    for one in made:
        one.close()


def test_a_sentence_typed_as_the_question_appears_does_not_answer_it(question):
    asked = question()
    asked.type("show markdown")  # its a would be [a]lways
    asked.read_until(b"are not answers: pause a\r\n  moment, then press one key")  # broken to the 80 columns
    time.sleep(QUIET + 0.2)
    assert asked.got == [] and asked.thread.is_alive()
    asked.type("n")
    assert asked.result() == "n"
    assert asked.shown.count(b"are not answers") == 1  # said once, then the question again


def test_keys_in_a_burst_after_a_pause_are_not_answers_nor_is_a_paste(question):
    asked = question()
    time.sleep(QUIET + 0.2)
    asked.type("always")  # arrives at once, as typed fast or pasted
    asked.type("\x1b[200~yes\r\x1b[201~")
    time.sleep(SETTLE + QUIET + 0.3)
    assert asked.got == []
    asked.type("y")
    assert asked.result() == "y"


def test_typing_that_goes_on_at_a_slow_pace_through_the_question_never_answers_it(question):
    asked = question()
    asked.type("yay, a line", gap=QUIET * 0.6)  # slower than a burst, faster than a pause
    assert asked.got == [] and asked.thread.is_alive()
    time.sleep(QUIET + 0.1)
    asked.type("\r")
    assert asked.result() == "\n"  # the terminal's ICRNL makes Enter a newline


def test_after_a_key_that_is_no_answer_the_next_one_needs_a_pause(question):
    asked = question()
    time.sleep(QUIET + 0.2)
    asked.type("x")
    asked.read_until(b"press y, n or a")
    asked.type("a")  # at once after a wrong key: not taken
    time.sleep(QUIET + 0.3)
    assert asked.got == []
    asked.type("n")
    assert asked.result() == "n"


def test_a_single_key_after_a_pause_answers_and_ctrl_d_always_does(question):
    asked = question()
    time.sleep(QUIET + 0.1)
    asked.type("A")
    assert asked.result() == "a" and b"not answers" not in asked.shown
    at_once = question()
    at_once.type("\x04")  # Ctrl-D: never an approval, so never held back
    assert at_once.result() == EOF


def test_look_alike_letters_are_no_answers(question):
    asked = question()
    for key in ("ａ", "у", "Ａ"):  # a fullwidth a, a Cyrillic u (looks like y), a fullwidth A: each after a pause
        time.sleep(QUIET + 0.1)
        asked.type(key)
        asked.read_until(b"press y, n or a")
        asked.shown = b""
    time.sleep(QUIET + 0.1)
    asked.type("n")
    assert asked.result() == "n"
