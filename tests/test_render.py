"""The terminal view: Markdown styling on streamed deltas, colour rules, tool and status lines."""

import io

import pytest

from ankit.records import ToolCall, ToolResult
from ankit.terminal.render import DIM, ERASE_LINE, RED, RESET, YELLOW, TerminalView, call_summary, clip
from ankit.terminal.live import Live
from tests.helpers import wait_for

def test_an_unclosed_fence_does_not_colour_the_next_reply():
    out = io.StringIO()
    view = TerminalView(out, colour=True)
    view.text("```\ncode without an end")
    view.reply_end()
    view.text("next reply")
    view.reply_end()
    assert out.getvalue().endswith(f"{RESET}\nnext reply\n")


def test_piped_view_writes_no_escape_codes():
    out = io.StringIO()
    view = TerminalView(out)
    assert view.colour is False
    view.text("# Heading\n```\ncode\n```\n")
    view.tool_start(ToolCall("c1", "read_file", '{"path": "a.txt"}'))
    view.tool_end(ToolResult("c1", "read_file", "line 1\nline 2\nline 3"))
    view.tool_end(ToolResult("c2", "edit_file", "Error: no such file\nmore", is_error=True))
    view.notice("the oldest 2 messages no longer fit")
    view.status("1.2s · gpt-4o · 1.2k in (83% cached) · 56 out")
    text = out.getvalue()
    assert "\033" not in text
    assert text == ("# Heading\n```\ncode\n```\n"
                    '· read_file(path="a.txt")\n'
                    "  ⎿ line 1 · 3 lines\n"
                    "  ✗ Error: no such file\n"
                    "    more\n"
                    "ankit: the oldest 2 messages no longer fit\n"
                    "1.2s · gpt-4o · 1.2k in (83% cached) · 56 out\n")


def test_ankit_lines_start_on_a_fresh_line_after_partial_text():
    out = io.StringIO()
    view = TerminalView(out, colour=False)
    view.text("half a line")
    view.notice("stopped")
    view.reply_end()
    assert out.getvalue() == "half a line\nankit: stopped\n"


def test_status_line_is_dim_with_colour():
    out = io.StringIO()
    TerminalView(out, colour=True).status("0.5s · m")
    assert out.getvalue() == f"{DIM}0.5s · m{RESET}\n"


def test_notices_colour_their_label_only_and_errors_are_red():
    out = io.StringIO()
    view = TerminalView(out, colour=True)
    view.notice("the oldest 2 messages no longer fit")
    view.error("401 from local")
    assert out.getvalue() == (f"{YELLOW}ankit:{RESET} the oldest 2 messages no longer fit\n"
                              f"{RED}ankit: 401 from local{RESET}\n")


def test_tool_lines_fit_the_terminal_width(monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    out = io.StringIO()
    view = TerminalView(out, colour=False)
    view.tool_start(ToolCall("c1", "write_file", '{"path": "a/long/path/to/some/file.txt", "content": "x"}'))
    view.tool_end(ToolResult("c1", "write_file", "wrote a/long/path/to/some/file.txt (120 lines)\nmore"))
    lines = out.getvalue().splitlines()
    assert lines == ['· write_file(path="a/long/path/to/some…', "  ⎿ wrote a/long/path/to/so… · 2 lines"]
    assert all(len(line) <= 39 for line in lines)  # the last column kept free: a full line never wraps again


def test_clip():
    assert clip("abcdef", 6) == "abcdef" and clip("abcdef", 5) == "abcd…" and clip("abc", 0) == "…"


@pytest.mark.parametrize("arguments, shown", [
    ('{"path": "a.txt", "limit": 5}', 'read_file(path="a.txt", limit=5)'),
    ("not json", 'read_file("not json")'),
    ('{"content": "' + "x" * 100 + '"}', 'read_file(content="' + "x" * 39 + '…")'),
])
def test_call_summary(arguments, shown):
    assert call_summary(ToolCall("c", "read_file", arguments)) == shown


def test_spinner_draws_then_erases_its_line():
    out = io.StringIO()
    spinner = Live(out, colour=False, delay=0)
    spinner.start("waiting for m")
    assert wait_for(lambda: "waiting for m" in out.getvalue())
    spinner.stop()
    text = out.getvalue()
    assert text.startswith(ERASE_LINE + "⠋ waiting for m 0s") and text.endswith(ERASE_LINE)
    spinner.stop()  # stopping twice is harmless
    assert out.getvalue() == text


def test_the_view_erases_the_spinner_before_any_output_and_brings_it_back_between_rounds():
    out = io.StringIO()
    view = TerminalView(out, colour=False, spinner=True)
    view.live.delay = 0
    view.waiting("waiting for m")
    assert wait_for(lambda: "waiting" in out.getvalue())
    view.text("Hi")
    assert out.getvalue().endswith(ERASE_LINE + "Hi")
    view.reply_end()
    view.tool_start(ToolCall("c1", "read_file", "{}"))
    view.tool_end(ToolResult("c1", "read_file", "ok"))
    assert wait_for(lambda: out.getvalue().count("waiting") >= 2)  # the next round is awaited
    view.done_waiting()
    settled = out.getvalue()
    assert settled.endswith(ERASE_LINE)
    view.tool_end(ToolResult("c2", "read_file", "ok"))  # after the turn: no spinner comes back
    assert view.live._thread is None


def test_no_spinner_when_piped():
    assert TerminalView(io.StringIO()).live is None
