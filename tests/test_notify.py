"""Notifications: the bell and OSC 9 / OSC 777 when an approval waits (on a real pty) or a long turn ends."""

import io

from ankit.terminal.notify import Notifier, sequence
from ankit.hooks.events import Hook, Hooks
from tests.test_repl import home, run  # noqa: F401  (pytest fixtures)


def test_the_sequence_rings_and_sends_both_notifications_with_controls_made_visible():
    assert sequence("done; ok\x1b]0;x\a") == "\a\033]9;done, ok^[]0,x^G\a\033]777;notify;ankit;done, ok^[]0,x^G\a"


def test_a_long_turn_rings_a_short_one_and_notify_0_do_not(tmp_path):
    out = io.StringIO()
    Notifier(out, 30, terminal=True).turn_done(12)
    assert out.getvalue() == ""
    Notifier(out, 30, terminal=True).turn_done(45)
    assert out.getvalue() == sequence("ankit finished after 45 s")
    quiet = io.StringIO()
    Notifier(quiet, 0, terminal=True).approval("write_file")
    Notifier(quiet, 30, terminal=False).approval("write_file")  # a pipe gets no escape sequences
    assert quiet.getvalue() == ""


def test_notification_hooks_hear_the_message(tmp_path):
    seen = tmp_path / "seen.json"
    Notifier(io.StringIO(), 30, Hooks([Hook("Notification", f"cat > {seen}")], tmp_path)).approval("run_command")
    assert '"message": "ankit needs your approval: run_command"' in seen.read_text()
    assert '"notification_type": "permission_prompt"' in seen.read_text()


def test_an_approval_waiting_rings_the_terminal(run, provider_server):
    provider_server.push_openai(tool_calls=[("c1", "write_file", '{"path": "x.txt", "content": "hi"}')])
    provider_server.push_openai(text="Not written.")
    term = run()
    term.line("write x.txt")
    term.expect("[y]es / [N]o")
    assert b"\a\x1b]9;ankit needs your approval: write_file\a\x1b]777;notify;ankit;" in term.raw
    term.answer("n")
    term.expect("why not?")
    term.type("\r")
    term.expect("Not written.")
    assert term.finish() == 0
