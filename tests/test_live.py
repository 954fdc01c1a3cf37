"""The live line: the spinner, a tool's status and its output tail, on a string buffer and in the real REPL."""

import io
import json
import os
import signal
import time

from ankit.records import ToolCall, ToolResult
from ankit.terminal.live import ERASE_LINE, ERASE_UP, Live, Tail
from ankit.terminal.render import TerminalView
from tests.test_repl import home, run, sessions, session_lines  # noqa: F401  (pytest fixtures)


def wait_for(condition, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, "the condition never came true"
        time.sleep(0.01)
    return value


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
    wait_for(lambda: "make" in out.getvalue())
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
    assert out.getvalue() == "· $ seq 3\n  ⎿ exit code 0 (0.0 s) · 3 lines\n"
    assert view.outputs[-1].text() == "1\n2\n3\n" and view.outputs[-1].title == "$ seq 3"


def shell_call(command: str, call_id: str = "c1") -> list:
    return [(call_id, "run_command", json.dumps({"command": command}))]


def alive(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_ctrl_c_stops_a_running_command_and_its_children(run, provider_server, home):
    command = "echo $$ > shell.pid; sleep 60 & echo $! > child.pid; echo ready-$((1+1)); wait"
    provider_server.push_openai(tool_calls=shell_call(command))
    provider_server.push_openai(text="Fine.")
    term = run("--yes")
    term.line("run it")
    term.expect("ready-2")  # the live tail
    term.type("\x03")
    assert "cancelled (stopped: run_command)" in term.expect("\n> ")
    work = home / "work"
    pids = [int((work / name).read_text()) for name in ("shell.pid", "child.pid")]
    assert wait_for(lambda: not any(map(alive, pids)), 5)
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
    assert "tick" not in screen.replace("for i in 1 2 3 4 5 6 7 8; do echo tick", "")  # the tail was erased
    assert term.finish() == 0
