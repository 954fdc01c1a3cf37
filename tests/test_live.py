"""The live line: the spinner, a tool's status and its output tail, on a string buffer and in the real REPL."""

import io
import json
import re
import sys

from ankit.records import ToolCall, ToolResult
from ankit.terminal.live import ERASE_LINE, ERASE_UP, FOOTER_ERASE, Live, Tail, footer_text
from ankit.terminal.render import TerminalView
from conftest import fixture_parts, openai_sse
from tests.test_repl import home, run  # noqa: F401  (pytest fixtures)
from tests.helpers import RUN_TAG, sleeps_left, wait_for


def test_the_tail_keeps_the_last_lines_and_a_carriage_return_restarts_a_line():
    tail = Tail(3)
    tail.feed("one\ntwo\nthr")
    assert tail.shown() == ["one", "two", "thr"]
    tail.feed("ee\nfour\n 10%\r 50%\r")
    assert tail.shown() == ["three", "four", " 50%"]


def test_the_live_line_draws_the_tail_above_the_status_and_erases_all_of_it(monkeypatch):
    monkeypatch.setenv("COLUMNS", "30")
    out, tail = io.StringIO(), Tail(3)
    tail.feed("first line\nsecond \x1b[31mline that is far too long to fit\n")
    live = Live(out, colour=False, delay=0)
    live.start("run_command · make", tail)
    assert wait_for(lambda: "make" in out.getvalue())
    live.stop()
    drawn = out.getvalue()
    assert drawn.startswith(ERASE_LINE + "  first line\n  second ^[[31mline that is …\n⠋ run_command · make 0s")
    assert all(len(line) <= 29 for line in drawn.split(ERASE_UP.format(2))[0].splitlines())
    assert drawn.endswith(ERASE_UP.format(2))  # the three lines are gone


def test_the_view_keeps_each_calls_output_for_show_and_prints_the_summary():
    out = io.StringIO()
    view = TerminalView(out, colour=False)
    view.tool_start(ToolCall("c1", "run_command", json.dumps({"command": "seq  3"})))
    view.tool_output("1\n2\n")
    view.tool_output("3\n")
    view.tool_end(ToolResult("c1", "run_command", "exit code 0\n1\n2\n3", summary="exit code 0 (0.0 s) · 3 lines"))
    assert out.getvalue() == "· $ seq 3\n  ⎿ exit code 0 (0.0 s) · 3 lines\n    1\n    2\n    3\n"
    assert view.outputs[-1].text() == "1\n2\n3\n" and view.outputs[-1].title == "$ seq 3"


def shell_call(command: str, call_id: str = "c1") -> list:
    return [(call_id, "run_command", json.dumps({"command": command}))]


def test_ctrl_c_stops_a_running_command_and_its_children(run, provider_server, home):
    first, second = f"60.5151{RUN_TAG}", f"60.5152{RUN_TAG}"
    command = f"sleep {first} & sleep {second} & echo ready-$((1+1)); wait"  # found by what they run: in the
    # workspace sandbox $$ and $! are numbers of the command's own PID namespace
    provider_server.push_openai(tool_calls=shell_call(command))
    provider_server.push_openai(text="Fine.")
    term = run("--yes")
    term.line("run it")
    term.expect("ready-2")  # the live tail
    term.type("\x03")
    assert "cancelled (stopped: run_command)" in term.expect("\n> ")
    assert wait_for(lambda: not sleeps_left(first) and not sleeps_left(second), 30)
    term.type("and now?\r")
    term.expect("Fine.")
    assert term.finish() == 0
    [tool] = [m for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert tool["content"].startswith("Error: stopped by the user after ") and tool["content"].endswith("ready-2")


def test_the_live_tail_shows_a_commands_output_while_it_runs_then_one_summary_line(run, provider_server):
    command = "for i in 1 2 3 4 5 6 7 8; do echo tick $i; sleep 0.4; done"
    provider_server.push_openai(tool_calls=shell_call(command))
    provider_server.push_openai(text="Counted.")
    term = run("--yes")
    term.line("count")
    term.expect("· $ for i in 1 2 3")
    term.expect("tick 3")  # shown live, above the status line
    term.expect("run_command · for i in 1 2 3")
    after = term.expect("Counted.")
    assert "⎿ exit code 0 (" in after and "· 8 lines" in after
    assert b"tick 3" in term.raw
    screen = term.seen[term.seen.index("· $ for i"):]
    # the tail was erased; the first lines stay under the result line, with how many more /show has
    assert screen.replace("for i in 1 2 3 4 5 6 7 8; do echo tick", "").count("tick") == 4
    assert "    tick 1\n    tick 2\n    tick 3\n    tick 4\n    … 4 more lines (/show)\n" in screen
    assert term.finish() == 0


class Screen:
    """A small terminal emulator for what ankit writes: wraps at the width, moves and erases as a terminal does."""

    CODE = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])|\x1b[=>]|[\x01\x02]")

    def __init__(self, width: int):
        self.width, self.rows, self.row, self.col = width, [[]], 0, 0

    def feed(self, text: str) -> None:
        at = 0
        for match in self.CODE.finditer(text):
            self._chars(text[at:match.start()])
            self._code(match.group(1) or "", match.group(2) or "")
            at = match.end()
        self._chars(text[at:])

    def _chars(self, text: str) -> None:
        for char in text:
            if char == "\n":
                self.row, self.col = self.row + 1, 0
            elif char == "\r":
                self.col = 0
            else:
                if self.col >= self.width:  # a character after the last column wraps
                    self.row, self.col = self.row + 1, 0
                self._line().extend([" "] * (self.col - len(self._line())))
                line = self._line()
                line[self.col:self.col + 1] = [char]
                self.col += 1

    def _code(self, number: str, letter: str) -> None:
        count = int(number) if number.isdigit() else 1
        if letter == "D":
            self.col = max(0, min(self.col, self.width - 1) - count)
        elif letter == "A":
            self.row = max(0, self.row - count)
        elif letter == "K":
            del self._line()[self.col:]
        elif letter == "J":
            del self._line()[self.col:]
            del self.rows[self.row + 1:]

    def _line(self) -> list[str]:
        while len(self.rows) <= self.row:
            self.rows.append([])
        return self.rows[self.row]

    def lines(self) -> list[str]:
        return ["".join(row).rstrip() for row in self.rows]


PARAGRAPH = ("The wrap width is read again at every new line, so a reply that goes on after the window was made "
             "narrower breaks its lines before the new edge and no word is cut or overwritten by the terminal. ")


def test_a_resize_mid_stream_never_garbles_what_follows(run, provider_server):
    first, second, third = PARAGRAPH + "One.\n", PARAGRAPH + "Two.\n", PARAGRAPH + "Three."
    parts = fixture_parts(openai_sse(text=first + second[:60]))
    rest = fixture_parts(openai_sse(text=second[60:] + third))
    resized = provider_server.gate()
    provider_server.push(parts[:-2] + [resized] + rest[1:])  # a pause mid-line: the window shrinks then
    term = run(colour=True)
    term.resize(100)
    term.line("write")
    term.expect("new line")  # the first paragraph is on the screen
    term.resize(60)
    resized.set()
    term.expect("Three.")
    term.prompt()
    screen = Screen(100)
    raw = term.raw.decode()
    screen.feed(raw[: raw.index(PARAGRAPH[-40:]) + 40])  # the first paragraph, at 100 columns
    screen.width = 60
    screen.feed(raw[raw.index(PARAGRAPH[-40:]) + 40:])
    shown = screen.lines()
    start = next(i for i, line in enumerate(shown) if line.startswith("The wrap width"))
    body = shown[start:shown.index(next(line for line in shown if line.endswith("Three."))) + 1]
    assert "".join(body).replace(" ", "") == (first + second + third).replace(" ", "").replace("\n", "")
    third_start = max(i for i, line in enumerate(body) if line.startswith("The wrap width"))
    assert all(len(line) <= 59 for line in body[third_start:])  # whole lines after the resize fit the new width
    assert all(word in " ".join(body[third_start:]).split() for word in third.split())  # no word cut
    assert term.finish() == 0


def test_a_markdown_reply_with_every_element_in_the_real_repl(run, provider_server):
    from tests.test_markdown import EVERYTHING
    provider_server.push(fixture_parts(openai_sse(text=EVERYTHING)))
    term = run(colour=True)
    term.resize(40)
    term.line("show me everything")
    term.expect("done")
    term.prompt()
    screen = Screen(40)
    screen.feed(term.raw.decode())
    shown = screen.lines()
    start = shown.index("Title with bold")
    assert shown[start:start + 27] == [
        "Title with bold", "Some italic, bold, code, a link", "(https://example.com), snake_case_name,",
        "2 * 3 and *stars*.", "", "• a bullet that is long enough to wrap", "  at a narrow width",
        "  ◦ a nested bullet", "1. first", "2) second", "", "│ a quoted line that wraps too at this", "│ width",
        "", "─" * 39, "", "tool      │      what it does      │  n", "──────────┼────────────────────────┼───",
        "read_file │ reads a text file with │  1", "          │        numbers         │",
        "grep      │        searches        │ 20", "", "```sh", "ls -l  # list", "```", "done", shown[start + 26]]
    assert "gpt-4o" in shown[start + 26]  # the status line
    assert b"\x1b[35mls\x1b[0m" not in term.raw and b"\x1b[2;3m# list\x1b[0m" in term.raw  # highlighted comment
    assert term.finish() == 0


def test_show_prints_a_short_output_and_pages_a_long_one(run, provider_server, home):
    paged = home / "paged.txt"
    provider_server.push_openai(tool_calls=shell_call("seq 1 3", "c1"))
    provider_server.push_openai(tool_calls=shell_call("seq 1 500", "c2"))
    provider_server.push_openai(text="Counted twice.")
    pager = f"{sys.executable} -c \"import sys; open('{paged}', 'w').write(sys.stdin.read())\""
    term = run("--yes", PAGER=pager)
    term.line("count")
    term.expect("Counted twice.")
    term.line("/show 2")
    assert term.expect("\n> ").splitlines()[-4:] == ["$ seq 1 3", "1", "2", "3"]
    term.line("/show")
    term.prompt()
    assert paged.read_text().splitlines() == ["$ seq 1 500", *map(str, range(1, 501))]
    term.line("/show 3")
    term.expect("/show N: N from 1 (the last call) to 2")
    assert term.finish() == 0


def test_a_footer_stays_below_the_output_and_is_drawn_without_moving_the_cursor():
    out = io.StringIO()
    live = Live(out, colour=False)
    live.write("half a rep")
    live.footer(["› typed"])
    live.write("ly\n")
    live.footer([])
    drawn = footer_text(["› typed"])
    assert drawn == "\033D\033M\0337\033D" + ERASE_LINE + "› typed\0338"  # room made below, the column kept
    assert out.getvalue() == "half a rep" + drawn + FOOTER_ERASE + "ly\n" + drawn + FOOTER_ERASE
