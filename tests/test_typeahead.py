"""The type-ahead reader on a real pseudo-terminal: keys queued and edited, let go while a question asks, a Ctrl-D
and a closed terminal during a turn, and the footer drawn again when a question ends."""

import io
import os
import pty
import re
import termios
import threading

from ankit.terminal.keys import Keys
from ankit.terminal.render import TerminalView
from ankit.terminal.typeahead import TypeAhead, one_line
from conftest import fixture_parts, openai_sse
from tests.helpers import wait_for
from tests.test_repl import QUESTION, held_at, home, run, write_call  # noqa: F401 (fixtures)


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


def test_a_closed_terminal_ends_the_reader_and_the_turn_puts_back_what_it_can():
    master, slave, typeahead, out = reader()
    try:
        with typeahead.turn():
            os.write(master, b"half a li")
            assert wait_for(lambda: typeahead.buffer == list("half a li"))
            os.close(master)  # the terminal window is closed (reads give EIO or end of input from now on)
            master = -1
            assert wait_for(lambda: not any(t.name == "ankit-typeahead" for t in threading.enumerate()))
        assert typeahead.unfinished() == "half a li"  # the turn ended without an error; nothing typed was lost
    finally:
        if master >= 0:
            os.close(master)
        os.close(slave)


def test_ctrl_d_typed_during_a_turn_is_no_end_of_input(run, provider_server):  # noqa: F811
    slow = provider_server.gate()
    provider_server.push(held_at(fixture_parts(openai_sse(text="First answer.")), b"First", slow))
    provider_server.push_openai(text="Got it.")
    term = run()
    term.line("hello")
    term.expect("First")
    term.type("ab\x04")  # Ctrl-D, as if at the prompt: the turn goes on and so does the reader
    term.type("c\r")
    term.footer_is(["› abc"])
    slow.set()
    term.expect("> abc\n")
    term.expect("Got it.")
    assert term.finish() == 0
    assert provider_server.requests[1].json["messages"][-1]["content"] == "abc"


def test_the_footer_comes_back_when_a_question_ends(run, provider_server, home):  # noqa: F811
    slow, later = provider_server.gate(), provider_server.gate()
    call = write_call("c1", "a.txt")
    provider_server.push(held_at(fixture_parts(openai_sse(text="Looking now.", tool_calls=[call])), b"Look", slow))
    provider_server.push(fixture_parts(openai_sse(text="Wrote it.")), delay=later)
    term = run()
    term.line("write a")
    term.expect("Look")
    term.type("note")
    term.footer_is(["› note▏"])
    slow.set()
    term.expect(QUESTION)
    assert term.footer == []  # the question owns the keys and the screen's last lines
    term.answer("y")
    term.footer_is(["› note▏"])  # drawn again as soon as the question is answered, before any key
    term.type("\r")
    term.footer_is(["› note"])
    later.set()
    term.expect("Wrote it.")
    assert term.finish() == 0
    assert (home / "work" / "a.txt").read_text() == "hello\n"
