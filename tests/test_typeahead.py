"""The type-ahead reader on a real pseudo-terminal: keys queued and edited, let go while a question asks."""

import io
import os
import pty
import re
import termios

from ankit.terminal.keys import Keys
from ankit.terminal.render import TerminalView
from ankit.terminal.typeahead import TypeAhead, one_line
from tests.helpers import wait_for


def reader(held=None) -> tuple[int, int, TypeAhead, io.StringIO]:
    master, slave = pty.openpty()
    out = io.StringIO()
    return master, slave, TypeAhead(slave, TerminalView(out, colour=False, spinner=True), held), out


def test_enter_queues_a_line_editing_keys_work_and_the_rest_waits_for_the_prompt():
    master, slave, typeahead, out = reader()
    before = termios.tcgetattr(slave)
    try:
        with typeahead.turn():
            assert not termios.tcgetattr(slave)[3] & (termios.ECHO | termios.ICANON)  # no echo into the output
            assert termios.tcgetattr(slave)[3] & termios.ISIG  # Ctrl-C still stops the turn
            os.write(master, b"fix tets\x7f\x7fst\r\x1b[Dmore words\x17words\x1b[200~ a\rb\x1b[201~")
            assert wait_for(lambda: typeahead.buffer == list("more words a\nb") and typeahead.queued == ["fix test"])
        assert termios.tcgetattr(slave) == before  # the terminal is put back
        assert "\x1b[?2004h" in out.getvalue() and out.getvalue().endswith("\x1b[?2004l")
        assert typeahead.take() == ["fix test"] and typeahead.take() == []
        assert typeahead.unfinished() == "more words a\nb" and typeahead.unfinished() == ""
    finally:
        os.close(master)
        os.close(slave)


def test_a_question_gets_the_keys_while_it_asks():
    master, slave, typeahead, out = reader()
    keys = Keys(slave, out, typeahead)
    try:
        with typeahead.turn():
            os.write(master, b"before\r")
            assert wait_for(lambda: typeahead.queued == ["before"])
            with keys.cbreak():
                os.write(master, b"y")
                assert keys.key() == "y"  # the approval's answer, never type-ahead
            os.write(master, b"after")
            assert wait_for(lambda: typeahead.buffer == list("after"))
        assert typeahead.queued == ["before"]
    finally:
        os.close(master)
        os.close(slave)


def test_take_stops_at_a_command_which_waits_for_the_end_of_the_turn():
    master, slave, typeahead, out = reader(held=lambda text: text.startswith("/"))
    try:
        with typeahead.turn():
            os.write(master, b"one\rtwo\r/usage\rthree\r")
            assert wait_for(lambda: len(typeahead.queued) == 4)
            assert typeahead.take() == ["one", "two"]
            assert typeahead.take() == []
        shown = re.sub(r"\x1b7.*?\x1b8|\x1b[DM]|\x1b\[\?2004[hl]", "", out.getvalue())  # the footer left out
        assert shown == "› one\n› two\n"  # shown where they join the conversation
        assert [typeahead.next_queued(), typeahead.next_queued(), typeahead.next_queued()] == ["/usage", "three", None]
    finally:
        os.close(master)
        os.close(slave)


def test_a_message_on_one_footer_line():
    assert one_line("a\x1b[31mb\nsecond\nthird") == "a^[[31mb [+2 lines]"
