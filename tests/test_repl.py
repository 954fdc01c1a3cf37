"""The real REPL in a pseudo-terminal (`python -m ankit` on a pty) against the loopback provider server."""

import codecs
import fcntl
import json
import os
import re
import select
import signal
import struct
import sys
import shutil
import tempfile
import termios
import time
import unicodedata
from pathlib import Path

import pytest

from ankit.safety.sandbox import support
from ankit.terminal.keys import QUIET
from ankit.terminal.render import ERASE_LINE
from conftest import anthropic_sse, fixture_parts, openai_sse, responses_sse
from tests.helpers import local_model_server
from tests.pty_spawn import spawn_on_pty

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b(\[[0-9;?]*[A-Za-z]|[=>]|\][^\x07]*\x07)|[\x01\x02\r]")
ERASES = re.compile(r"\r\x1b\[(?:K|(\d+)A\x1b\[J)")  # ERASE_LINE, or ERASE_UP with its count of lines
# the start of an erase or escape sequence at the end of a read: the pty may split one write between two reads
UNFINISHED = re.compile(r"(?:\r(?:\x1b(?:\[(?:\d+(?:A(?:\x1b\[?)?)?)?)?)?|\x1b(?:\[[0-9;?]*)?)\Z")
ROWS, COLUMNS = 50, 200  # the pty's size (tests/pty_spawn.py)
# what is drawn below the output without moving it (Live's footer): between DECSC and DECRC, and the IND/RI pairs
# that make room for it
OVERLAY = re.compile(r"\x1b7(.*?)\x1b8", re.S)
ROOM = re.compile(r"\x1b[DM]")
WAIT = 60.0  # seconds an expected text may take before the test fails (an upper bound on a loaded machine, never a timing assertion)
USAGE = {"prompt_tokens": 1234, "completion_tokens": 56, "total_tokens": 1290,
         "prompt_tokens_details": {"cached_tokens": 1024}}


class Terminal:
    """`python -m ankit` on a pty: type into it and read what it shows, each wait bounded."""

    def __init__(self, argv: list[str], env: dict, cwd: Path, cols: int = COLUMNS):
        self.process, self.fd = spawn_on_pty([sys.executable, "-m", "ankit", *argv], env, cwd, cols=cols)
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.held = ""  # an unfinished sequence at the end of the last read, kept for the next one
        self.raw = b""  # everything shown, as sent
        self.seen = ""  # everything shown, escapes removed
        self.at = 0  # where the next expect starts looking
        self.footer: list[str] = []  # the lines drawn below the output now
        self.footers: list[list[str]] = []  # every footer drawn, in order
        self.typed_at = 0  # how much had been shown when keys were last sent
        self.code: int | None = None

    def resize(self, columns: int, rows: int = 50) -> None:
        """Change the window size, as dragging the window's edge does (the kernel sends SIGWINCH)."""
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # the child exited and the pty closed
            return False
        if not data:
            return False
        self.raw += data
        self._show(self.decoder.decode(data))
        return True

    def _show(self, text: str, final: bool = False) -> None:
        """Add shown text to `seen`, erasing what the erase sequences erase."""
        text, self.held = self.held + text, ""
        if not final and "\x1b7" in text and "\x1b8" not in text[text.rindex("\x1b7"):]:
            text, self.held = text[:text.rindex("\x1b7")], text[text.rindex("\x1b7"):]
        if not final and (unfinished := UNFINISHED.search(text)):
            text, self.held = text[:unfinished.start()], unfinished.group() + self.held
        text = ROOM.sub("", OVERLAY.sub(self._overlay, text))
        pieces = ERASES.split(text)
        self.seen += ANSI.sub("", pieces[0])
        for up, piece in zip(pieces[1::2], pieces[2::2]):  # the live lines are erased, as on a screen
            cut = len(self.seen)
            for _ in range(int(up or 0) + 1):
                cut = self.seen.rfind("\n", 0, cut)
            self.seen = self.seen[: cut + 1]
            self.at, self.typed_at = min(self.at, len(self.seen)), min(self.typed_at, len(self.seen))
            self.seen += ANSI.sub("", piece)

    def _overlay(self, match: re.Match) -> str:
        """Keep a footer drawn below the output apart from the output (a footer erase leaves none)."""
        lines = [ANSI.sub("", re.sub(r"\x1b\[[KJ]", "", line)) for line in match.group(1).split("\x1bD")[1:]]
        self.footer = [line for line in lines if line]
        self.footers.append(self.footer)
        return ""

    def footer_is(self, lines: list[str], timeout: float = WAIT) -> None:
        """Wait until the footer shows these lines."""
        deadline = time.monotonic() + timeout
        while self.footer != lines:
            if time.monotonic() > deadline or (not self._read(0.2) and self._exited()):
                pytest.fail(f"the footer shows {self.footer!r}, not {lines!r}; the screen ends with:\n{self.seen[-1500:]}")

    def expect(self, text: str, timeout: float = WAIT) -> str:
        """Wait until text appears after the previous match; return what came before it."""
        deadline = time.monotonic() + timeout
        while text not in self.seen[self.at:]:
            left = deadline - time.monotonic()
            if left <= 0 or (not self._read(min(left, 0.2)) and self._exited()):
                if text in self.seen[self.at:]:
                    break
                pytest.fail(f"did not see {text!r}; the screen ends with:\n{self.seen[-1500:]}")
        start = self.seen.index(text, self.at)
        before, self.at = self.seen[self.at:start], start + len(text)
        return before

    def screen(self, rows: int = ROWS, columns: int = COLUMNS) -> list[str]:
        """The rows a terminal of this size shows now: the last `rows` rows of what was shown, each line wrapped
        at the width (wide characters take two columns, those that render as nothing none)."""
        shown = []
        for line in self.seen.split("\n"):
            row, used = "", 0
            for char in line:
                size = 0 if unicodedata.category(char) in ("Mn", "Me", "Cf") or "\ufe00" <= char <= "\ufe0f" else (
                    2 if unicodedata.east_asian_width(char) in "WF" else 1)
                if used + size > columns:
                    shown.append(row)
                    row, used = "", 0
                row, used = row + char, used + size
            shown.append(row)
        return shown[-rows:]

    def _exited(self) -> bool:
        if self.code is None:
            self.code = self.process.poll()
        return self.code is not None

    def type(self, text: str) -> None:
        """Send keys as typed."""
        self.typed_at = len(self.seen)
        data = text.encode()
        while data:  # in pieces, reading what the program echoes between them: a long line written at once
            if select.select([], [self.fd], [], 0.2)[1]:  # fills the pty both ways and neither side reads
                data = data[os.write(self.fd, data[:512]):]
            while self._read(0):
                pass

    def answer(self, key: str) -> None:
        """Press one key for the question on screen, as a person does: after a pause (terminal/keys.py takes no
        key that comes within QUIET of the question or of another key)."""
        time.sleep(QUIET + 0.1)
        self.type(key)

    def prompt(self, prompt: str = "> ", timeout: float = WAIT) -> None:
        """Wait until ankit waits for input: the screen ends with a prompt shown since the last keys."""
        deadline = time.monotonic() + timeout
        while not (self.seen.endswith(prompt) and len(self.seen) - len(prompt) >= self.typed_at):
            if time.monotonic() > deadline or (not self._read(0.2) and self._exited()):
                pytest.fail(f"no {prompt!r} prompt; the screen ends with:\n{self.seen[-1500:]}")
        self.at = max(self.at, len(self.seen))

    def interrupt_at_prompt(self) -> None:
        """Ctrl-C at the prompt, until a fresh prompt shows.

        CPython's readline loop checks for signals only when its select() is interrupted, so a Ctrl-C that
        lands while it is still handling the previous key waits for the next key. A person never types that
        fast; a test does, so it presses Ctrl-C again, as a person would when nothing happened.
        """
        for _ in range(5):
            self.type("\x03")
            deadline = time.monotonic() + 5  # a loaded machine may take seconds to show the prompt again
            while time.monotonic() < deadline:
                if self.seen.endswith("> ") and len(self.seen) - 2 >= self.typed_at:
                    return
                self._read(0.1)
        pytest.fail(f"Ctrl-C gave no fresh prompt; the screen ends with:\n{self.seen[-1500:]}")

    def line(self, text: str, prompt: str = "> ") -> None:
        """Wait for the prompt, then type a line and Enter."""
        self.prompt(prompt)
        self.type(text + "\r")

    def finish(self) -> int:
        """Ctrl-D at the prompt; return the exit code."""
        self.prompt()
        self.type("\x04")
        return self.wait()

    def wait(self, timeout: float = WAIT) -> int:
        """Wait for the exit (killing the child after the timeout) and return its code."""
        deadline = time.monotonic() + timeout
        while not self._exited() and time.monotonic() < deadline:
            self._read(0.1)
        if self.code is None:
            self.process.kill()
            self.process.wait()
            pytest.fail(f"ankit did not exit; the screen ends with:\n{self.seen[-1500:]}")
        while self._read(0.05):
            pass
        self._show("", final=True)
        os.close(self.fd)
        self.fd = -1
        return self.code

    def kill(self) -> None:
        """Stop the child if it still runs and close the pty (used when a test fails midway)."""
        if not self._exited():
            self.process.kill()
            self.code = self.process.wait()
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


@pytest.fixture
def home(tmp_path):
    """Temp XDG folders and a working folder."""
    for name in ("config", "state", "data", "work"):
        (tmp_path / name).mkdir()
    return tmp_path


@pytest.fixture
def run(home, provider_server):
    """Start ankit on a pty against the loopback server: run(*argv, colour=False, **env changes)."""
    started: list[Terminal] = []

    def start(*argv: str, colour: bool = False, server: bool = True, cwd: Path | None = None, cols: int = COLUMNS,
              **changes: str) -> Terminal:
        env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm",
               "XDG_CONFIG_HOME": str(home / "config"), "XDG_STATE_HOME": str(home / "state"),
               "XDG_DATA_HOME": str(home / "data"), "LANG": "C.UTF-8",
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        if not colour:
            env["NO_COLOR"] = "1"
        if server:
            env.update(ANKIT_PROVIDER="local", ANKIT_BASE_URL=provider_server.url + "/v1", ANKIT_MODEL="gpt-4o")
        env.update(changes)
        terminal = Terminal(list(argv), env, cwd or home / "work", cols)
        started.append(terminal)
        return terminal

    yield start
    for terminal in started:
        terminal.kill()


def sessions(home: Path) -> list[Path]:
    return sorted((home / "state" / "ankit" / "sessions").glob("*.jsonl"))


def session_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def roles(request) -> list[str]:
    return [m["role"] for m in request.json["messages"]]


def test_a_typed_line_streams_the_reply_then_the_status_line_and_usage_matches(run, provider_server, home):
    provider_server.push_openai(text="Hello from the loopback server.", usage=USAGE, model="gpt-4o")
    term = run()
    term.expect("ankit ")
    term.line("say hello")
    term.expect("Hello from the loopback server.")
    status = term.expect("\n> ")
    assert "gpt-4o · 1.2k in (83% cached) · 56 out" in status
    term.type("/usage\r")
    usage = term.expect("\n> ")
    assert re.search(r"input tokens\s+1,234\s+1,234", usage)  # last turn, session
    assert re.search(r"cached \(read\)\s+1,024\s+1,024", usage)
    assert re.search(r"output tokens\s+56\s+56", usage)
    assert re.search(r"1\.1\s+1,234\s+1,024\s+0\s+56", usage)  # the round row
    assert term.finish() == 0
    [record] = [line for line in session_lines(sessions(home)[0]) if line["type"] == "round"]
    assert record["usage"] == {"input_tokens": 1234, "cached_tokens": 1024, "cache_write_tokens": 0,
                               "output_tokens": 56, "reported": True}


def test_usage_shows_anthropic_cache_reads_and_writes(run, provider_server):
    usage = {"input_tokens": 10, "cache_read_input_tokens": 2000, "cache_creation_input_tokens": 300,
             "output_tokens": 1}
    provider_server.push_anthropic(text="Cached hello.", usage=usage)
    term = run(ANKIT_PROVIDER="anthropic", ANTHROPIC_API_KEY="sk-ant-test-0123456789", ANKIT_MODEL="claude-test")
    term.line("hi")
    term.expect("Cached hello.")
    assert "2.3k in (87% cached, 300 written) · 10 out" in term.expect("\n> ")
    term.type("/usage\r")
    shown = term.expect("\n> ")
    assert re.search(r"input tokens\s+2,310\s+2,310", shown)
    assert re.search(r"cached \(read\)\s+2,000\s+2,000", shown)
    assert re.search(r"cache writes\s+300\s+300", shown)
    assert re.search(r"output tokens\s+10\s+10", shown)
    assert term.finish() == 0


def test_ctrl_c_mid_stream_cancels_the_turn_and_the_next_request_is_valid(run, provider_server, home):
    parts = fixture_parts(openai_sse(text="The first half, then the rest"))
    provider_server.push(parts[:2] + ["stall"])  # the role chunk and "The first half", then silence
    provider_server.push_openai(text="Going on.")
    term = run()
    term.line("tell me a long story")
    term.expect("The first half")
    term.type("\x03")
    term.expect("cancelled")
    term.line("go on")
    term.expect("Going on.")
    assert term.finish() == 0
    messages = provider_server.requests[1].json["messages"]
    assert [(m["role"], m["content"]) for m in messages[1:]] == [
        ("user", "tell me a long story"), ("assistant", "The first half"), ("user", "go on")]
    stored = [line for line in session_lines(sessions(home)[0]) if line["type"] == "message"]
    assert stored[1]["text"] == "The first half" and stored[1]["cut"] is True


def test_ctrl_c_at_the_prompt_marks_the_dropped_line_keeps_it_in_history_and_ctrl_d_exits(run):
    term = run()
    term.prompt()
    term.type("/help model")
    term.expect("/help model")
    term.interrupt_at_prompt()
    assert "> /help model^C\n> " in term.seen
    term.line("/usage")
    term.expect("No rounds yet in this session.")
    assert "unknown command" not in term.seen
    term.prompt()
    term.type("\x1b[A\x1b[A\r")  # Up twice: the dropped line, then Enter
    term.expect("show the model, or switch")  # /help model ran
    assert term.finish() == 0


def test_history_persists_across_two_runs(run, home):
    first = run()
    first.line("/model")
    first.expect("local · gpt-4o")
    assert first.finish() == 0
    history = home / "state" / "ankit" / "history"
    assert "/model" in history.read_text().splitlines()
    assert history.stat().st_mode & 0o777 == 0o600
    second = run()
    second.prompt()
    second.type("\x1b[A\r")  # Up arrow, Enter: the previous run's line again
    second.expect("local · gpt-4o")
    assert second.finish() == 0


def test_a_multi_line_entry_comes_back_whole_after_a_restart(run, provider_server, home):
    provider_server.push_openai(text="One.")
    provider_server.push_openai(text="Two.")
    provider_server.push_openai(text="Three.")
    first = run()
    first.line("first line \\")
    first.line("second line", prompt=". ")
    first.expect("One.")
    first.prompt()
    first.type("\x1b[200~pasted one\rpasted two\x1b[201~\r")
    first.expect("Two.")
    assert first.finish() == 0
    second = run()
    second.prompt()
    second.type("\x1b[A\x1b[A\r")  # Up twice: the continued message, whole
    second.expect("Three.")
    assert second.finish() == 0
    assert provider_server.requests[2].json["messages"][-1]["content"] == "first line \nsecond line"
    lines = (home / "state" / "ankit" / "history").read_text().splitlines()
    assert lines == ['"first line \\nsecond line"', '"pasted one\\npasted two"', '"first line \\nsecond line"']


def test_continue_resumes_the_last_session_and_goes_on(run, provider_server, home):
    provider_server.push_openai(text="First answer.", usage=USAGE)
    first = run()
    first.line("remember the word teal")
    first.expect("First answer.")
    assert first.finish() == 0
    provider_server.push_openai(text="It was teal.", usage=USAGE)
    second = run("--continue")
    second.expect("resumed ")
    second.expect("last reply: First answer.")
    second.line("which word?")
    second.expect("It was teal.")
    second.line("/usage")
    assert re.search(r"rounds\s+1\s+2", second.expect("\n> "))  # the first run's round came back
    assert second.finish() == 0
    assert [(m["role"], m["content"]) for m in provider_server.requests[1].json["messages"][1:]] == [
        ("user", "remember the word teal"), ("assistant", "First answer."), ("user", "which word?")]
    assert len(sessions(home)) == 1


def test_resume_without_an_id_offers_the_newest_sessions_and_one_key_picks(run, provider_server, home):
    for word in ("apple", "pear"):
        provider_server.push_openai(text=f"Noted {word}.")
        first = run()
        first.line(f"the fruit is {word}")
        first.expect(f"Noted {word}.")
        assert first.finish() == 0
    empty = run()  # left before its first message: never offered
    assert empty.finish() == 0
    provider_server.push_openai(text="It was apple.")
    second = run("--resume")
    second.expect("resume which? [1-2] (Enter: 1, Esc: none) ")
    assert "1  " in second.seen and "the fruit is pear" in second.seen.split("1  ", 1)[1].split("\n", 1)[0]
    second.answer("2")
    second.expect("resumed ")
    second.expect("the fruit is apple (1 turn)")
    second.line("which fruit?")
    second.expect("It was apple.")
    second.line("/resume")
    second.expect("resume which? [1-2]")
    second.answer("\x1b")
    second.expect("no session resumed")
    assert second.finish() == 0
    assert [m["content"] for m in provider_server.requests[2].json["messages"][1:]] == [
        "the fruit is apple", "Noted apple.", "which fruit?"]


def test_slash_resume_switches_to_a_saved_session(run, provider_server, home):
    provider_server.push_openai(text="Noted.")
    first = run()
    first.line("the code is 7")
    first.expect("Noted.")
    first.line("/save secret code")
    first.expect("saved session")
    assert first.finish() == 0
    session_id = sessions(home)[0].stem
    provider_server.push_openai(text="The code is 7.")
    second = run()
    second.line("/sessions")
    second.expect("secret code")
    second.line(f"/resume {session_id[:-2]}")
    second.expect(f"resumed {session_id}: secret code (1 turn)")
    second.line("what is the code?")
    second.expect("The code is 7.")
    assert second.finish() == 0
    assert roles(provider_server.requests[1]) == ["system", "user", "assistant", "user"]
    assert len(sessions(home)) == 1  # the resumed session goes on in its own file


def write_call(call_id: str, name: str) -> tuple:
    return (call_id, "write_file", json.dumps({"path": name, "content": "hello\n"}))


QUESTION = "[y]es / [N]o / [a]lways for this session / [q]uit turn / [r]efuse with a reason? "


def test_approval_is_one_key_and_a_no_can_carry_a_reason(run, provider_server, home):
    server = provider_server
    server.push_openai(tool_calls=[write_call("c1", "a.txt")])
    server.push_openai(text="Declined, fine.")
    server.push_openai(tool_calls=[write_call("c2", "b.txt")])
    server.push_openai(tool_calls=[write_call("c3", "b.txt")])
    server.push_openai(text="Wrote b.")
    server.push_openai(tool_calls=[write_call("c4", "c.txt")])
    server.push_openai(tool_calls=[write_call("c5", "d.txt")])
    server.push_openai(text="Wrote c and d.")
    server.push_openai(tool_calls=[("c6", "make_directory", json.dumps({"path": "newdir"}))])
    server.push_openai(text="Stopped, fine.")
    work = home / "work"
    term = run()
    term.line("write a")
    shown = term.expect(QUESTION)
    assert "write_file wants to run:" in shown and "+++ b/a.txt" in shown and "+hello" in shown
    term.answer("n")  # one key: no Enter needed; what follows is the reason, with line editing
    term.expect("no\nwhy not? (told to the model; Enter to skip) ")
    term.type("use a dir\x1b[D\x1b[D\x1b[Dtemp \x1b[F!\r")  # arrows move the cursor: "use a temp dir!"
    term.expect("Declined, fine.")
    assert not (work / "a.txt").exists()
    told = server.requests[1].json["messages"][-1]["content"]
    assert "declined" in told and told.endswith("The user said: use a temp dir!")
    assert "  ✗ declined: use a temp dir!" in term.seen  # the user's line is short and plain

    term.line("write b")
    term.expect(QUESTION)
    term.answer("m")
    term.expect("press y, n, a, q or r (Enter: no)")
    term.expect(QUESTION)
    term.answer("\r")  # Enter: the default, no, at once
    term.expect("  ✗ declined\n")
    term.expect(QUESTION)
    term.answer("y")
    term.expect("Wrote b.")
    assert (work / "b.txt").read_text() == "hello\n"
    assert server.requests[3].json["messages"][-1]["content"] == "Error: the user declined this call; do not retry it, ask the user what to do instead"

    term.line("write c and d")
    term.expect(QUESTION)
    term.answer("a")
    term.expect("Wrote c and d.")
    assert (work / "c.txt").exists() and (work / "d.txt").exists()
    assert term.seen.count(QUESTION) == 5  # d.txt was not asked about

    term.line("make a folder")
    assert "create folder newdir/" in term.expect(QUESTION)  # "always" covered write_file only
    term.answer("q")
    term.expect("cancelled at the approval prompt (never started: make_directory)")
    term.line("never mind")
    term.expect("Stopped, fine.")
    assert term.finish() == 0
    assert not (work / "newdir").exists()
    history = (home / "state" / "ankit" / "history").read_text().splitlines()
    assert history == ["write a", "write b", "write c and d", "make a folder", "never mind"]  # no answers
    last = server.requests[-1].json["messages"]
    assert [m["role"] for m in last[-3:]] == ["assistant", "tool", "user"]
    assert "cancelled by the user" in last[-2]["content"]


def test_on_a_narrow_terminal_the_notes_under_a_question_break_between_words(run, provider_server, home):
    provider_server.push_openai(tool_calls=[write_call("c1", "a.txt")])
    provider_server.push_openai(text="Not written.")
    term = run(cols=60)
    term.line("write a")
    term.expect("[r]efuse")
    term.type("show markdown")
    term.expect("pause a moment, then press one key)")
    term.answer("n")
    term.expect("why not?")
    term.type("\r")
    term.expect("Not written.")
    assert term.finish() == 0
    assert "(keys typed quickly, or as the question appeared, are not\n  answers:" in term.seen


def test_a_sentence_typed_as_the_approval_appears_does_not_answer_it(run, provider_server, home):
    provider_server.push_openai(tool_calls=[write_call("c1", "a.txt")])
    provider_server.push_openai(text="Not written.")
    term = run()
    term.line("write a")
    term.expect(QUESTION)
    term.type("show markdown")  # meant for the next message: its "a" was taken as [a]lways
    term.expect("(keys typed quickly, or as the question appeared, are not answers: pause a moment, then press one key)")
    term.expect(QUESTION)
    term.answer("n")
    term.expect("why not?")
    term.type("\r")
    term.expect("Not written.")
    assert term.finish() == 0
    assert not (home / "work" / "a.txt").exists() and "approved for the rest of this session" not in term.seen


def test_ctrl_c_and_ctrl_d_at_the_approval_prompt_stop_the_turn_and_leave_the_screen_tidy(run, provider_server, home):
    provider_server.push_openai(tool_calls=[write_call("c1", "a.txt")])
    provider_server.push_openai(tool_calls=[write_call("c2", "b.txt")])
    term = run()
    term.line("write a")
    term.expect(QUESTION)
    term.type("\x03")
    assert re.fullmatch(r"(\^C)?\n", term.expect("cancelled"))  # the question stays on the screen
    term.line("write b")
    term.expect(QUESTION)
    term.type("\x04")
    assert term.expect("cancelled") == "quit\n"
    term.line("/model")
    term.expect("local · gpt-4o")
    assert term.finish() == 0
    assert "> /model\nlocal · gpt-4o" in term.seen  # no blank line after each line once Ctrl-D was pressed
    assert "> \nsession saved; ankit --resume " in term.seen  # nor at the end
    assert not (home / "work" / "a.txt").exists() and not (home / "work" / "b.txt").exists()


def test_yes_approves_without_asking(run, provider_server, home):
    provider_server.push_openai(tool_calls=[write_call("c1", "a.txt")])
    provider_server.push_openai(text="Done.")
    term = run("--yes")
    term.line("write a")
    term.expect("Done.")
    assert "[q]uit turn?" not in term.seen
    assert (home / "work" / "a.txt").read_text() == "hello\n"
    assert term.finish() == 0


def test_unknown_command_suggests_the_closest(run):
    term = run()
    term.line("/usge")
    term.expect("unknown command /usge: did you mean /usage?")
    term.line("/zzzz")
    term.expect("unknown command /zzzz: /help lists the commands")
    assert term.finish() == 0


def test_context_and_tools_show_what_the_next_request_carries(run, provider_server):
    term = run()
    term.line("/context")
    shown = term.expect("of 128,000")
    for part in ("system prompt", "of which the skills list", "core, sent", "history (0 messages)",
                 "reply reserve (max_tokens)"):
        assert part in shown
    term.expect("% (# prompt, + reply reserve, . free)")
    term.line("/tools")
    shown = term.expect("/tools GROUP lists")
    assert re.search(r"core \(always sent\)\n\s+core\s+\d+ tools", shown)
    assert re.search(r"available .*\n(.*\n)*\s+edit\s+\d+ tools", shown)
    term.line("/find edit a file")
    term.expect("activated for the next requests: ")
    term.line("/tools")
    assert re.search(r"activated \(sent from now on\)\n\s+edit ", term.expect("/tools GROUP lists"))
    term.line("/context")
    assert re.search(r"\n\s+edit(: [\w, ]+)?\s+[\d,]+\s+[\d,]+\s+activated, sent", term.expect("of 128,000"))
    assert term.finish() == 0


def test_tab_completes_commands_and_model_names(run):
    term = run()
    term.prompt()
    term.type("/mo\tl\r")  # /mode and /model: Tab completes what they share
    term.expect("local · gpt-4o")
    term.line("/model gpt-4.1-mi\t\r")
    term.expect("model for the next turns: gpt-4.1-mini")
    term.line("/mod\tl\tgpt-4o")  # a unique match is completed with a space after it
    term.expect("model for the next turns: gpt-4o")
    assert term.finish() == 0


def test_multi_line_input_with_backslash_and_a_block(run, provider_server):
    provider_server.push_openai(text="One.")
    provider_server.push_openai(text="Two.")
    term = run()
    term.line("first line \\")
    term.line("second line", prompt=". ")
    term.expect("One.")
    term.line('"""')
    for text in ("block a", "", "block c", '"""'):
        term.line(text, prompt=". ")
    term.expect("Two.")
    assert term.finish() == 0
    assert provider_server.requests[0].json["messages"][-1]["content"] == "first line \nsecond line"
    assert provider_server.requests[1].json["messages"][-1]["content"] == "block a\n\nblock c"


def test_retry_clear_and_compact(run, provider_server, home):
    server = provider_server
    server.push_openai(text="Answer one.")
    server.push_openai(text="Answer one, again.")
    server.push_openai(text="- the user asked a question")
    server.push_openai(text="After compaction.")
    server.push_openai(text="After clearing.")
    term = run()
    term.line("question")
    term.expect("Answer one.")
    term.line("/retry")
    term.expect("Answer one, again.")
    term.prompt()
    before = session_lines(sessions(home)[0])
    term.line("/compact")
    term.expect("requests now start from the summary above (2 messages → 2)")
    term.line("next")
    term.expect("After compaction.")
    after_lines = session_lines(sessions(home)[0])
    assert all(line in after_lines for line in before)  # every earlier line is still in the file
    assert [m["text"] for m in after_lines if m["type"] == "message"][:2] == ["question", "Answer one, again."]
    term.line("/clear")
    term.expect("history cleared (6 messages)")
    term.line("fresh")
    term.expect("After clearing.")
    assert term.finish() == 0
    first, retried, compaction, after, cleared = (r.json["messages"] for r in server.requests)
    assert retried == first
    assert compaction[-1]["content"].startswith("[ankit] The conversation is about to be compacted")
    assert after[1]["content"].endswith("- the user asked a question")
    assert [m["role"] for m in after] == ["system", "user", "assistant", "user"]
    assert [m["content"] for m in cleared[1:]] == ["fresh"]


def test_no_provider_prints_the_set_up_lines_and_still_starts(run, home):
    if found := local_model_server():
        pytest.skip(f"a server listens at {found}, where ankit looks for a local model server")
    term = run(server=False)
    term.expect("No provider is configured.")
    term.line("hello")
    term.expect("ankit: no provider is configured")
    term.line("/help")
    term.expect("/usage")
    assert term.finish() == 0
    assert not sessions(home)


def test_colour_on_a_terminal_and_with_no_color_the_layout_without_colour(run, provider_server):
    provider_server.push_openai(text="# Title\nplain")
    provider_server.push_openai(text="# Title\nplain")
    coloured = run(colour=True)
    coloured.line("hi")
    coloured.expect("plain")
    assert coloured.finish() == 0
    assert b"\x1b[1;4;35mTitle\x1b[0m" in coloured.raw and b"\x1b[2m" in coloured.raw  # heading, status line
    plain = run()
    plain.line("hi")
    plain.expect("plain")
    assert plain.finish() == 0
    assert b"Title\r\nplain" in plain.raw and b"# Title" not in plain.raw  # NO_COLOR drops colour, not layout
    assert b"\x1b[1;4;35m" not in plain.raw and b"\x1b[2m" not in plain.raw and b"\x1b[0m" not in plain.raw


def test_provider_errors_are_one_line_and_the_repl_goes_on(run, provider_server, home):
    provider_server.push("openai_401.http")
    provider_server.push("openai_no_done_cut.sse")
    provider_server.push_openai(text="Back again.")
    term = run()
    term.line("first")
    error = term.expect("\n> ")
    assert re.search(r"^ankit: 401 from local", error, re.M) and "Traceback" not in error
    term.line("second")
    term.expect("The first half of an answer")
    assert re.search(r"^ankit: .+", term.expect("\n> "), re.M)
    term.line("third")
    term.expect("Back again.")
    assert term.finish() == 0
    assert [(m["role"], m["content"]) for m in provider_server.requests[2].json["messages"][1:]] == [
        ("user", "first"), ("user", "second"), ("assistant", "The first half of an answer"), ("user", "third")]


def test_a_spinner_shows_while_the_model_is_silent_and_is_erased(run, provider_server):
    silent = provider_server.gate()  # the model stays silent until the spinner has been seen
    provider_server.push(fixture_parts(openai_sse(text="Slow answer.")), delay=silent)
    term = run()
    term.line("take your time")
    term.expect("waiting for gpt-4o")
    silent.set()
    term.expect("Slow answer.")
    assert ERASE_LINE.encode() in term.raw
    line = term.seen[term.seen.rfind("take your time"):]
    assert "waiting for" not in line  # erased before the reply was shown
    assert term.finish() == 0


def test_history_is_written_line_by_line_so_a_closed_terminal_keeps_it(run, home):
    term = run()
    term.line("/usage")
    term.expect("No rounds yet")
    term.prompt()
    term.process.send_signal(signal.SIGHUP)  # the terminal window was closed
    term.wait()
    assert (home / "state" / "ankit" / "history").read_text().splitlines() == ["/usage"]


def test_a_pasted_text_stays_one_message(run, provider_server):
    provider_server.push_openai(text="Got the paste.")
    provider_server.push_openai(text="Got the block.")
    term = run()
    term.prompt()
    term.type("\x1b[200~pasted one\rpasted two\x1b[201~\r")  # a terminal's bracketed paste, then Enter
    term.expect("Got the paste.")
    term.prompt()
    term.type('\x1b[200~"""\rin a block\r"""\x1b[201~\r')
    term.expect("Got the block.")
    assert term.finish() == 0
    assert provider_server.requests[0].json["messages"][-1]["content"] == "pasted one\npasted two"
    assert provider_server.requests[1].json["messages"][-1]["content"] == "in a block"


def test_ctrl_c_during_compact_leaves_the_history(run, provider_server):
    provider_server.push_openai(text="Answer.")
    provider_server.push(fixture_parts(openai_sse(text="- a summary that never ends"))[:2] + ["stall"])
    provider_server.push_openai(text="Still here.")
    term = run()
    term.line("question")
    term.expect("Answer.")
    term.line("/compact")
    term.expect("• a summary")
    term.type("\x03")
    term.expect("compaction cancelled; the history is unchanged")
    term.line("next")
    term.expect("Still here.")
    assert term.finish() == 0
    assert [(m["role"], m["content"]) for m in provider_server.requests[2].json["messages"][1:]] == [
        ("user", "question"), ("assistant", "Answer."), ("user", "next")]


def test_a_bang_line_runs_without_the_model_and_goes_with_the_next_message(run, provider_server, home):
    provider_server.push_openai(text="Noted.")
    terminal = run()
    terminal.line("!printf 'one\\033[31m\\n'; exit 3")
    terminal.expect("one^[[31m")
    terminal.expect("(exit code 3)")
    assert provider_server.requests == []
    terminal.line("what failed?")
    terminal.expect("Noted.")
    assert terminal.finish() == 0
    user = provider_server.requests[0].json["messages"][-1]["content"]
    assert user == ("what failed?\n\n[ankit] Before this message the user ran a shell command (exit code 3):\n"
                    "$ printf 'one\\033[31m\\n'; exit 3\none\x1b[31m")


def test_custom_commands_expand_list_in_help_complete_and_skip_clashes(run, provider_server, home):
    commands = home / "work" / ".ankit" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("---\ndescription: Review a file\nargument-hint: FILE FOCUS\n---\n"
                                        "Review $1 for $2. All: $ARGUMENTS\n")
    (home / "config" / "ankit" / "commands").mkdir(parents=True)
    (home / "config" / "ankit" / "commands" / "usage.md").write_text("clash\n")
    provider_server.push_openai(text="Reviewed.")
    terminal = run()
    terminal.expect("/usage is a built-in command; rename the file")
    terminal.line("/help")
    terminal.expect("/review FILE FOCUS")
    terminal.expect("Review a file")
    terminal.prompt()
    terminal.type("/rev\t")
    terminal.expect("/review ")
    terminal.type('app.py "error handling"\r')
    terminal.expect("Reviewed.")
    assert terminal.finish() == 0
    user = provider_server.requests[0].json["messages"][-1]["content"]
    assert user == 'Review app.py for error handling. All: app.py "error handling"'


def test_a_custom_command_written_during_the_session_works_at_the_next_prompt(run, provider_server, home):
    provider_server.push_openai(text="Shipped.")
    terminal = run()
    terminal.line("/ship")
    terminal.expect("unknown command /ship")
    terminal.prompt()
    commands = home / "work" / ".ankit" / "commands"
    commands.mkdir(parents=True)
    (commands / "ship.md").write_text("Ship it: $ARGUMENTS\n")
    (commands / "model.md").write_text("clash\n")
    terminal.type("\r")  # the next prompt reads the folder again
    terminal.expect("/model is a built-in command; rename the file")
    terminal.line("/ship v2")
    terminal.expect("Shipped.")
    assert terminal.finish() == 0
    assert provider_server.requests[0].json["messages"][-1]["content"] == "Ship it: v2"
    assert terminal.seen.count("/model is a built-in command") == 1  # told once, not at every prompt


def test_an_agent_written_during_the_session_is_known_at_the_next_prompt(run, provider_server, home):
    term = run()
    term.line("/agents")
    term.expect("no named agents")
    term.prompt()
    agents = home / "config" / "ankit" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text("---\nname: reviewer\ndescription: Reviews a diff for bugs\n---\n"
                                        "You review diffs.\n")
    term.type("/agents\r")
    term.expect("reviewer: Reviews a diff for bugs")
    assert term.finish() == 0


def test_at_mentions_complete_with_tab_and_attach_the_file(run, provider_server, home):
    (home / "work" / "notes.md").write_text("# Notes\nship on Friday\n")
    provider_server.push_openai(text="Friday.")
    terminal = run()
    terminal.prompt()
    terminal.type("when do we ship? @no\t")
    terminal.expect("@notes.md ")
    terminal.type("\r")
    terminal.expect("attached: notes.md")
    terminal.expect("Friday.")
    assert terminal.finish() == 0
    user = provider_server.requests[0].json["messages"][-1]["content"]
    assert '<file path="notes.md">\n# Notes\nship on Friday\n</file>' in user


def test_context_shows_the_project_instructions(run, home):
    (home / "work" / "AGENTS.md").write_text("Use tabs.\n")
    terminal = run()
    terminal.line("/context")
    terminal.expect("of which project instructions")
    terminal.expect("AGENTS.md")
    assert terminal.finish() == 0


def test_undo_restores_the_files_of_the_last_turn_byte_for_byte(run, provider_server, home):
    work = home / "work"
    original = "line one\r\nline two\tno newline at the end ü"
    (work / "app.py").write_bytes(original.encode())
    tools = home / "mytools"
    tools.mkdir()
    (tools / "stamp.py").write_text(  # a tool of the user's own: declaring changes() is all it takes
        "name = 'stamp'\ndescription = 'Stamp a file.'\nneeds_approval = True\n"
        "parameters = {'type': 'object', 'properties': {'path': {'type': 'string'}}, 'required': ['path']}\n"
        "def changes(args, ctx):\n    return [args['path']]\n"
        "def run(args, ctx):\n    (ctx.cwd / args['path']).write_text('stamped')\n    return 'ok'\n")
    provider_server.push_openai(tool_calls=[("c1", "write_file", '{"path": "app.py", "content": "print(1)\\n"}'),
                                            ("c2", "write_file", '{"path": "new.py", "content": "x = 1\\n"}')])
    provider_server.push_openai(text="Rewrote it.")
    provider_server.push_openai(tool_calls=[("c3", "stamp", '{"path": "app.py"}')])
    provider_server.push_openai(text="Stamped.")
    provider_server.push_openai(text="Understood.")
    terminal = run("--yes", "--tools-dir", str(tools))
    terminal.line("rewrite app.py")
    terminal.expect("Rewrote it.")
    terminal.line("stamp it")
    terminal.expect("Stamped.")
    assert (work / "app.py").read_text() == "stamped"
    terminal.line("/undo")
    terminal.expect("undid the file changes of turn 2:")
    assert (work / "app.py").read_text() == "print(1)\n"
    terminal.line("/undo")
    terminal.expect("undid the file changes of turn 1:")
    undone = " ".join(terminal.expect("\n> ").split())  # lines wrap where the temporary folder's length puts them
    assert "restored " in undone and f"removed {work / 'new.py'} (the turn created it)" in undone
    assert f"restored {work / 'new.py'}" not in undone
    assert (work / "app.py").read_bytes() == original.encode() and not (work / "new.py").exists()
    terminal.line("/undo")
    terminal.expect("nothing to undo")
    terminal.line("ok?")
    terminal.expect("Understood.")
    assert terminal.finish() == 0
    told = provider_server.requests[-1].json["messages"][-1]["content"]
    assert told.startswith("ok?\n\n[ankit] The user undid the file changes of turn 2 with /undo")


def test_undo_refuses_a_file_changed_since(run, provider_server, home):
    (home / "work" / "a.txt").write_text("before")
    provider_server.push_openai(tool_calls=[("c1", "write_file", '{"path": "a.txt", "content": "model"}')])
    provider_server.push_openai(text="Done.")
    terminal = run("--yes")
    terminal.line("write a.txt")
    terminal.expect("Done.")
    (home / "work" / "a.txt").write_text("mine now")
    terminal.line("/undo")
    shown = " ".join(terminal.expect("left as it is").split())  # the path before it: wrapped where its length says
    assert shown.endswith("a.txt: changed outside ankit since;")
    assert terminal.finish() == 0
    assert (home / "work" / "a.txt").read_text() == "mine now"


def test_model_lists_the_servers_models_and_tab_completes_them(run, provider_server):
    provider_server.models = ["qwen3-coder:30b", "qwen3:8b", "llama3.2:3b"]
    terminal = run()
    terminal.line("/model")
    terminal.expect("3 models on this server:")
    terminal.expect("llama3.2:3b, qwen3-coder:30b, qwen3:8b")
    terminal.prompt()
    terminal.type("/model qwen3-c\t\r")
    terminal.expect("model for the next turns: qwen3-coder:30b")
    assert terminal.finish() == 0
    assert len(provider_server.model_requests) == 2  # asked once for /model, once for the window it shows


def test_edit_and_ctrl_x_ctrl_e_compose_the_message_in_the_editor(run, provider_server, home):
    editor = home / "editor.sh"  # an editor that appends a line to what it was given
    editor.write_text('#!/bin/sh\nprintf "%s\\nfrom the editor\\n" "$(cat "$1")" > "$1"\n')
    editor.chmod(0o755)
    empty = home / "empty.sh"
    empty.write_text('#!/bin/sh\n: > "$1"\n')
    empty.chmod(0o755)
    provider_server.push_openai(text="Got one.")
    provider_server.push_openai(text="Got two.")
    terminal = run(EDITOR=str(editor))
    terminal.line("/edit first draft")
    terminal.expect("Got one.")
    terminal.prompt()
    terminal.type("typed so far\x18\x05")
    terminal.expect("Got two.")
    assert terminal.finish() == 0
    assert [r.json["messages"][-1]["content"] for r in provider_server.requests] == [
        "first draft\nfrom the editor", "typed so far\nfrom the editor"]
    nothing = run(EDITOR=str(empty))
    nothing.line("/edit")
    nothing.expect("nothing sent: the editor left an empty message")
    assert nothing.finish() == 0 and len(provider_server.requests) == 2


def test_init_asks_for_agents_md_and_the_next_request_carries_it(run, provider_server, home):
    content = json.dumps({"path": "AGENTS.md", "content": "Run the tests with make test.\n"})
    provider_server.push_openai(tool_calls=[("c1", "write_file", content)])
    provider_server.push_openai(text="Wrote AGENTS.md.")
    provider_server.push_openai(text="Hello.")
    terminal = run("--yes")
    terminal.line("/init")
    terminal.expect("Wrote AGENTS.md.")
    terminal.expect("project instructions for the next requests:")
    terminal.line("hi")
    terminal.expect("Hello.")
    assert terminal.finish() == 0
    first, _, after = (r.json["messages"] for r in provider_server.requests)
    assert first[-1]["content"].startswith("[ankit /init] Look at this project") and "AGENTS.md" not in first[0]["content"]
    assert "## AGENTS.md\nRun the tests with make test." in after[0]["content"]


def test_ctrl_c_reaches_ankit_when_the_test_run_itself_ignores_sigint(run):
    """Ctrl-C reaches the REPL on its pty when pytest was started with SIGINT ignored (nohup, a CI script's
    background job), which a child inherits: the pty setup makes it the default again."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        term = run()  # started as from such a pytest
    finally:
        signal.signal(signal.SIGINT, previous)
    term.prompt()
    term.type("/help model")
    term.expect("/help model")
    term.interrupt_at_prompt()
    assert "> /help model^C\n> " in term.seen
    assert term.finish() == 0


@pytest.mark.skipif(support().kind != "landlock", reason=f"no Linux sandbox here: {support().detail}")
def test_shift_tab_cycles_the_mode_keeps_the_line_and_plan_mode_runs_commands_unasked_writing_nothing(
        run, provider_server, home):
    provider_server.push_openai(tool_calls=[("c1", "run_command", json.dumps({"command": "touch made"}))])
    provider_server.push_openai(text="Planned.", usage=USAGE)
    provider_server.push_openai(tool_calls=[("c2", "run_command", json.dumps({"command": "touch made"}))])
    provider_server.push_openai(text="Asked.")
    term = run()
    term.expect("sandbox: workspace (Shift-Tab)")
    term.prompt()
    term.type("plan the\x1b[Z")  # Shift-Tab with a half-typed line: default -> acceptEdits
    term.expect("mode: acceptEdits (file edits in the folder unasked)")
    term.prompt("> plan the")
    term.type("\x1b[Z")  # acceptEdits -> plan
    term.expect("mode: plan (read-only): nothing changes")
    term.prompt("> plan the")
    term.type(" work\r")
    term.expect("Planned.")
    assert "plan (read-only)" in term.expect("\n> ")  # the status line
    first = provider_server.requests[0].json["messages"]
    assert first[-1]["content"] == "plan the work" and "Plan mode (read-only)" in first[0]["content"]
    told = provider_server.requests[1].json["messages"][-1]["content"]
    assert "the sandbox may have stopped this" in told and not (home / "work" / "made").exists()
    assert QUESTION not in term.seen  # the command ran unasked
    term.type("/mode ask\r")
    term.expect("mode: ask (no sandbox: every command asks): every command and edit asks")
    term.line("touch it")
    term.expect(QUESTION)
    term.answer("n")
    term.expect("why not?")
    term.type("\r")
    term.expect("Asked.")
    assert "Plan mode" not in provider_server.requests[2].json["messages"][0]["content"]
    assert term.finish() == 0


def test_ankits_own_lines_break_at_spaces_never_mid_word(run, provider_server):
    error = {"error": {"message": "This model's maximum context length is 2048 tokens. However, you requested 2301 "
                                  "tokens.", "type": "invalid_request_error", "code": "context_length_exceeded"}}
    provider_server.push(error, status=400)
    term = run()
    term.prompt()
    term.resize(50)
    term.line("a long question")
    shown = term.expect("\n> ")
    lines = shown[shown.index("ankit: 400"):].rstrip("\n").split("\n")
    assert len(lines) > 3 and all(len(line) <= 49 for line in lines), lines
    assert all(line.startswith("  ") for line in lines[1:])  # continued lines are indented
    words = " ".join(line.strip() for line in lines).split(" ")
    assert "(2301" in words and "tokens)" in words and "window" in words and "context_window" in words


def test_a_message_larger_than_a_guessed_window_asks_before_it_is_sent(run, provider_server, home):
    for name in "abc":  # each attached whole up to 40,000 characters, 120,000 in all: about 30,000 tokens
        (home / "work" / f"{name}.txt").write_text("lorem ipsum dolor\n" * 2200)
    typed = "summarize @a.txt @b.txt @c.txt " + "and more " * 1200  # and 2,700 more tokens
    provider_server.push_openai(text="Read them.")
    term = run(ANKIT_MODEL="no-such-family")  # nothing known of it, the server says nothing: 32,000 tokens guessed
    term.line(typed)
    term.expect("more than the context window of no-such-family (32,000 tokens)")
    term.expect("send it anyway? [y/N] ")
    term.answer("n")
    term.expect("not sent; Up brings the message back")
    term.line(typed)
    term.expect("send it anyway? [y/N] ")
    term.answer("y")
    term.expect("Read them.")
    assert term.finish() == 0
    assert len(provider_server.requests) == 1  # the first was kept back


def test_a_message_larger_than_the_window_the_server_says_is_refused_in_one_line(run, provider_server, home):
    provider_server.info["/props"] = {"default_generation_settings": {"n_ctx": 12000}}
    provider_server.push_openai(text="Short one read.")
    term = run()
    term.line("summarize " + "lorem ipsum dolor " * 2700)  # about 12,150 tokens
    term.expect("this message is about 12,")
    term.expect("nothing was sent")
    term.prompt()
    term.line("/model")
    term.expect("window 12,000 tokens")
    term.line("hello")
    term.expect("Short one read.")
    assert term.finish() == 0
    assert [m["content"] for m in provider_server.requests[0].json["messages"][1:]] == ["hello"]
    assert [r.path for r in provider_server.info_requests] == ["/props"]  # asked once


def test_a_large_paste_shows_as_one_line_and_is_sent_whole(run, provider_server):
    provider_server.push_openai(text="Long paste read.")
    pasted = "\r".join(f"line {i} of the paste" for i in range(3000))
    term = run()
    term.prompt()
    term.type("explain this: ")
    term.type("\x1b[200~" + pasted + "\x1b[201~")
    assert len(pasted) == 67_889
    term.expect("> explain this: [pasted #1: 3,000 lines, 66 KB]")
    term.type(" briefly\r")
    term.expect("Long paste read.")
    assert term.finish() == 0
    sent = provider_server.requests[0].json["messages"][-1]["content"]
    assert sent == "explain this: " + pasted.replace("\r", "\n") + " briefly"
    assert b"line 1500 of the paste" not in term.raw  # never drawn on the screen


def test_a_small_paste_is_typed_into_the_line_as_it_is(run, provider_server):
    provider_server.push_openai(text="Two lines.")
    term = run()
    term.prompt()
    term.type("\x1b[200~first line\rsecond line\x1b[201~")
    term.expect("second line")
    term.type("\r")
    term.expect("Two lines.")
    assert term.finish() == 0
    assert provider_server.requests[0].json["messages"][-1]["content"] == "first line\nsecond line"


@pytest.mark.skipif(support().kind != "landlock", reason=f"no Linux sandbox here: {support().detail}")
def test_a_bang_line_runs_outside_the_sandbox_the_models_command_inside(run, provider_server, home):
    try:
        outside = Path(tempfile.mkdtemp(dir="/var/tmp"))  # outside the temporary folder the sandbox allows
    except OSError:
        pytest.skip("no writable /var/tmp to check a write outside the temporary folder")
    provider_server.push_openai(tool_calls=[("c1", "run_command", json.dumps({"command": f"touch {outside}/model"}))])
    provider_server.push_openai(text="Tried.")
    term = run()
    term.line(f"!touch {outside}/user")
    term.line("try it yourself")
    term.expect("Tried.")
    assert term.finish() == 0
    made = sorted(p.name for p in outside.iterdir())
    shutil.rmtree(outside)
    assert made == ["user"]


def held_at(parts: list[bytes], text: bytes, gate) -> list:
    """A reply's parts with a gate after the first part holding `text`: the rest waits for the test."""
    at = next(i for i, part in enumerate(parts) if text in part) + 1
    return parts[:at] + [gate] + parts[at:]


def test_a_line_typed_while_the_reply_streams_shows_below_it_and_is_the_next_message(run, provider_server):
    slow = provider_server.gate()
    reply = "Here are the files with their sizes: a.txt is 3 bytes."
    provider_server.push(held_at(fixture_parts(openai_sse(text=reply)), b"Here", slow))
    provider_server.push_openai(text="Got the follow-up.")
    term = run()
    term.line("list the files")
    term.expect("Here are the")
    term.type("and the sizes")
    term.footer_is(["› and the sizes▏"])  # the line being typed, below the half-written reply
    term.type("\r")
    term.footer_is(["› and the sizes"])  # queued
    slow.set()
    term.expect("3 bytes.")
    term.expect("> and the sizes\n")  # sent when the reply ended, shown as if typed at the prompt
    term.expect("Got the follow-up.")
    assert term.finish() == 0
    assert term.seen.count("and the sizes") == 1  # never inside the reply, never echoed twice
    assert reply in term.seen  # whole, nothing typed inside it
    assert term.footer == []  # taken away when the turn ended
    messages = provider_server.requests[1].json["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[-1]["content"] == "and the sizes"
    assert len(provider_server.requests) == 2


@pytest.mark.parametrize("kind", ["openai", "anthropic", "responses"])
def test_a_line_typed_during_a_tool_round_reaches_the_model_in_the_next_request(run, provider_server, home, kind):
    slow = provider_server.gate()
    call = write_call("c1", "a.txt")
    build = {"openai": openai_sse, "anthropic": anthropic_sse, "responses": responses_sse}[kind]
    provider_server.push(held_at(fixture_parts(build(text="Looking now.", tool_calls=[call])), b"Look", slow))
    provider_server.push(fixture_parts(build(text="Wrote it, tests noted.")))
    env = {"anthropic": dict(ANKIT_PROVIDER="anthropic", ANTHROPIC_API_KEY="sk-ant-test-0123456789",
                             ANKIT_MODEL="claude-test")}.get(kind, {})
    if kind == "responses":
        (home / "config" / "ankit").mkdir(parents=True)
        (home / "config" / "ankit" / "config.toml").write_text('api = "responses"\n')
    term = run(**env)
    term.line("write a")
    term.expect("Look")
    term.type("mind the tests\r")
    term.footer_is(["› mind the tests"])
    slow.set()
    term.expect(QUESTION)  # the approval owns the keys meanwhile: its y is an answer, not type-ahead
    term.answer("y")
    term.expect("› mind the tests\n")  # shown where it joined the conversation
    term.expect("Wrote it, tests noted.")
    assert term.finish() == 0
    assert (home / "work" / "a.txt").read_text() == "hello\n"
    assert len(provider_server.requests) == 2
    body = provider_server.requests[1].json
    if kind == "openai":
        assert [m["role"] for m in body["messages"][-3:]] == ["assistant", "tool", "user"]
        assert body["messages"][-1]["content"] == "mind the tests"
    elif kind == "anthropic":  # a text block after the tool_result, in the same user turn
        last = body["messages"][-1]
        assert last["role"] == "user" and [b["type"] for b in last["content"]] == ["tool_result", "text"]
        assert last["content"][1]["text"] == "mind the tests"
    else:
        items = body["input"]
        assert [i["type"] for i in items[-2:]] == ["function_call_output", "message"]
        assert items[-1]["role"] == "user" and items[-1]["content"][0]["text"] == "mind the tests"


def test_esc_stops_the_turn_and_a_line_typed_without_enter_comes_back_at_the_prompt(run, provider_server):
    parts = fixture_parts(openai_sse(text="The first half, then the rest"))
    provider_server.push(parts[:2] + ["stall"])
    provider_server.push_openai(text="Going on.")
    term = run()
    term.line("tell me a long story")
    term.expect("The first half")
    term.type("shorter ple")
    term.footer_is(["› shorter ple▏"])
    term.type("\x1b")  # a lone Esc
    term.expect("cancelled")
    term.expect("> shorter ple")  # in the prompt's line, to finish
    term.type("ase\r")
    term.expect("Going on.")
    assert term.finish() == 0
    assert provider_server.requests[1].json["messages"][-1]["content"] == "shorter please"


def test_a_paste_during_a_turn_is_one_message_and_a_command_waits_for_the_turns_end(run, provider_server):
    slow = provider_server.gate()
    provider_server.push(held_at(fixture_parts(openai_sse(text="First answer.")), b"First", slow))
    provider_server.push_openai(text="Got the paste.")
    term = run()
    term.line("hello")
    term.expect("First")
    term.type("\x1b[200~line one\rline two\x1b[201~")
    term.footer_is(["› line one [+1 line]▏"])
    term.type("\r/model\r")
    term.footer_is(["› line one [+1 line]", "› /model"])
    slow.set()
    term.expect("Got the paste.")
    term.expect("> /model\n")  # after the turn the paste sent, as if typed then
    term.expect("local · gpt-4o")
    assert term.finish() == 0
    assert provider_server.requests[1].json["messages"][-1]["content"] == "line one\nline two"


def test_a_question_on_the_command_line_is_the_first_message_and_up_brings_it_back(run, provider_server):
    provider_server.push_openai(text="Hello from the first message.")
    provider_server.push_openai(text="Again.")
    term = run("say", "hello")
    term.expect("> say hello")
    term.expect("Hello from the first message.")
    term.prompt()
    term.type("\x1b[A\r")  # Up, Enter: the command line's message is in the history
    term.expect("Again.")
    assert [r.json["messages"][-1]["content"] for r in provider_server.requests] == ["say hello", "say hello"]
    assert term.finish() == 0


def _session_in(run, provider_server, folder: Path, text: str) -> None:
    provider_server.push_openai(text=f"Noted: {text}.")
    first = run(cwd=folder)
    first.line(text)
    first.expect(f"Noted: {text}.")
    assert first.finish() == 0


def test_resume_offers_this_folders_sessions_and_all_every_folders_then_moves_where_one_ran(run, provider_server, home):
    other = home / "other"
    other.mkdir()
    _session_in(run, provider_server, home / "work", "the fruit is apple")
    _session_in(run, provider_server, other, "the fruit is pear")
    here = run("--resume")
    here.expect("resume which? [1-1] (Enter: 1, Esc: none) ")  # only this folder's
    assert "the fruit is apple" in here.seen and "pear" not in here.seen
    here.answer("\x1b")
    here.expect("no session resumed: a new session starts")
    assert here.finish() == 0
    provider_server.push_openai(text="It was pear.")
    every = run("--resume", "--all")
    every.expect("resume which? [1-2]")
    assert "the fruit is pear" in every.seen.split("1  ", 1)[1].split("\n", 1)[0]  # the newest first
    every.answer("1")
    every.expect("not here.\nwork there? [Y/n] ")
    every.answer("\r")
    every.expect("the fruit is pear (1 turn)")
    every.line("which fruit?")
    every.expect("It was pear.")
    assert every.finish() == 0
    system = provider_server.requests[-1].json["messages"][0]["content"]
    assert str(other) in system and str(home / "work") not in system  # it works where the session ran


def test_a_session_from_another_folder_resumed_here_says_where_it_ran(run, provider_server, home):
    other = home / "other"
    other.mkdir()
    _session_in(run, provider_server, other, "the code is 7")
    [path] = sessions(home)
    stay = run("--resume", path.stem)
    stay.expect("work there? [Y/n] ")
    stay.answer("n")
    stay.expect("this session ran in ")
    stay.prompt()
    shown = " ".join(stay.seen.split())  # the line wraps where the temporary folder's length puts it
    assert f"it goes on here, in {home / 'work'}, where its commands now run" in shown
    stay.line("/resume --all")
    stay.expect("resume which? [1-1]")
    stay.answer("1")
    stay.prompt()
    assert f"to work there: /exit, then cd {other} && ankit --resume {path.stem}" in " ".join(stay.seen.split())
    assert stay.finish() == 0


def shown_since(term: Terminal, mark: str) -> list[str]:
    """The lines shown after the last `mark`, escapes removed."""
    return term.seen[term.seen.rindex(mark):].split("\n")[1:]


@pytest.mark.parametrize("cols", [60, 80, 120])
def test_listings_truncate_inside_their_row_and_questions_wrap_between_answers(run, provider_server, cols):
    provider_server.push_openai(tool_calls=[("c1", "write_file", json.dumps(
        {"path": "notes/a-rather-long-folder-name/today.txt", "content": "col1\tcol2\n"}))])
    provider_server.push_openai(text="Not written.")
    term = run(cols=cols)
    term.line("/tools")
    term.expect("/tools GROUP lists a group's tools.")
    listing = shown_since(term, "> /tools")[:-1]
    assert all(len(line) < cols for line in listing), listing
    rows = [line for line in listing if line.startswith("  ") and not line.startswith("  (")]
    assert all(re.match(r"  [a-z_]+ +\d+ tools? ", row) for row in rows), rows  # no row spills a stray piece
    term.line("write it")
    term.expect("[r]efuse with a reason? ")  # the answers' last line, whole
    asked = shown_since(term, "wants to run:")
    assert all(len(line) < cols for line in asked), asked
    asked = [line.replace("\x07", "") for line in asked]  # the bell that rings as it asks
    first = next(i for i, line in enumerate(asked) if line.startswith("[y]es"))
    assert " ".join(asked[first:]) == "[y]es / [N]o / [a]lways for this session / [q]uit turn / [r]efuse with a reason? "
    assert "[a]lways covers: every write_file call inside the working folder" in " ".join(" ".join(asked).split())
    term.answer("n")
    term.expect("why not?")
    term.type("\r")
    term.expect("Not written.")
    assert term.finish() == 0


def test_a_tab_in_output_shows_as_a_space_and_a_run_code_error_once_on_several_lines(run, provider_server, home):
    (home / "config" / "ankit").mkdir(parents=True, exist_ok=True)
    (home / "config" / "ankit" / "config.toml").write_text('code_mode = "on"\n')
    program = "print('a\\tb')\nraise ValueError('bad value')"
    provider_server.push_openai(tool_calls=[("c0", "run_command", json.dumps({"command": "printf 'x\\ty\\n'"})),
                                            ("c1", "run_code", json.dumps({"code": program}))])
    provider_server.push_openai(text="Both ran.")
    term = run("--yes", cols=80)
    term.line("run them")
    term.expect("Both ran.")
    shown = term.seen[term.seen.index("> run them"):]
    assert "    x y\n" in shown and "^I" not in shown
    assert "✗ the program exited with code 1 (0 tool calls); it printed:\n    a b\n    Traceback" in shown
    assert shown.count("ValueError: bad value") == 1 and "^J" not in shown
    assert term.finish() == 0


def test_alt_enter_inserts_a_newline_and_enter_sends_even_as_a_line_feed(run, provider_server):
    """Enter typed before readline holds the terminal reaches it as a line feed (the tty's ICRNL): it sends."""
    provider_server.push_openai(text="Three lines read.")
    provider_server.push_openai(text="Sent.")
    term = run()
    term.prompt()
    term.type("one\x1b\rtwo\x1b\nthree\r")  # Alt-Enter sends ESC CR (or ESC LF)
    term.expect("Three lines read.")
    assert provider_server.requests[0].json["messages"][-1]["content"] == "one\ntwo\nthree"
    term.prompt()
    term.type("next\n")
    term.expect("Sent.")
    assert provider_server.requests[1].json["messages"][-1]["content"] == "next"
    assert term.finish() == 0
