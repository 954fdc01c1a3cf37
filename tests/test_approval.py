"""Approvals with the real bundled tools: the preview, and the answers y / n / a / q."""

import io
from pathlib import Path

import pytest

from ankit.safety.policy import Grant
from ankit.terminal.approval import Approver, preview_lines
from ankit.errors import Cancelled
from ankit.records import ToolCall
from ankit.terminal.render import BOLD, GREEN, RED, RESET, YELLOW, TerminalView
from ankit.tooling.toolbox import ToolContext, run_call
from tests.helpers import bundled

BY_NAME = bundled()[0]


class Answers:
    """A scripted user: each question takes the next answer; running out fails the test."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.questions = []

    def __call__(self, question: str) -> str:
        self.questions.append(question)
        if not self.answers:
            raise AssertionError(f"asked once too often: {question!r}")
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer


def approver(*answers, colour=False, yes=False):
    out = io.StringIO()
    ask = Answers(*answers)
    return Approver(TerminalView(out, colour=colour), ask, yes=yes), ask, out


def edit(tmp_path: Path, call_id: str = "c1"):
    (tmp_path / "notes.txt").write_text("hello\n")
    arguments = '{"path": "notes.txt", "old_string": "hello", "new_string": "hello world"}'
    return ToolCall(call_id, "edit_file", arguments), BY_NAME["edit_file"], ToolContext(cwd=tmp_path)


def test_no_declines_and_tells_the_model_not_to_retry(tmp_path):
    approve, ask, out = approver("n")
    call, tool, ctx = edit(tmp_path)
    result = run_call(call, tool, ctx, approve)
    assert result.is_error and "declined" in result.content and "do not retry" in result.content
    assert (tmp_path / "notes.txt").read_text() == "hello\n"
    shown = out.getvalue()
    assert "edit_file wants to run:" in shown
    assert "  --- a/notes.txt\n  +++ b/notes.txt\n  @@ -1 +1 @@\n  -hello\n  +hello world\n" in shown
    assert ask.questions == ["[y]es / [N]o / [a]lways for this session / [q]uit turn /\n[r]efuse with a reason? "]


@pytest.mark.parametrize("answers, told", [(["n because the tests are slow"], "because the tests are slow"),
                                           (["r", "use -x"], "use -x"), (["r", ""], ""), (["e", "old key"], "old key"), ([""], "")])
def test_a_typed_no_can_carry_the_users_reason_to_the_model(tmp_path, answers, told):
    approve, ask, out = approver(*answers)
    call, tool, ctx = edit(tmp_path)
    result = run_call(call, tool, ctx, approve)
    assert result.is_error and (tmp_path / "notes.txt").read_text() == "hello\n"
    assert result.content.endswith(f". The user said: {told}") if told else result.content.endswith("instead")
    assert result.summary == (f"declined: {told}" if told else "declined")


def test_yes_runs_the_call(tmp_path):
    approve, _, _ = approver("y")
    call, tool, ctx = edit(tmp_path)
    result = run_call(call, tool, ctx, approve)
    assert not result.is_error
    assert (tmp_path / "notes.txt").read_text() == "hello world\n"


def test_always_is_remembered_for_that_tool_only(tmp_path):
    approve, ask, _ = approver("a", "n")
    call, tool, ctx = edit(tmp_path)
    rules = approve.policy  # the runner applies the [a]lways answers the approver remembers
    assert not run_call(call, tool, ctx, approve, policy=rules).is_error
    again = ToolCall("c2", "edit_file", '{"path": "notes.txt", "old_string": "world", "new_string": "there"}')
    assert not run_call(again, tool, ctx, approve, policy=rules).is_error  # not asked: the answers would run out
    assert (tmp_path / "notes.txt").read_text() == "hello there\n"
    other = ToolCall("c3", "write_file", '{"path": "new.txt", "content": "x"}')
    assert run_call(other, BY_NAME["write_file"], ctx, approve, policy=rules).is_error  # another tool is asked
    assert len(ask.questions) == 2 and approve.policy.always == [Grant("edit_file", "tool")]


def test_quit_stops_the_turn(tmp_path):
    approve, _, _ = approver("q")
    call, tool, ctx = edit(tmp_path)
    with pytest.raises(Cancelled):
        run_call(call, tool, ctx, approve)
    assert (tmp_path / "notes.txt").read_text() == "hello\n"


def test_end_of_input_at_the_question_stops_the_turn(tmp_path):
    approve, _, _ = approver(EOFError())
    call, tool, ctx = edit(tmp_path)
    with pytest.raises(Cancelled):
        run_call(call, tool, ctx, approve)


def test_an_unclear_answer_asks_again(tmp_path):
    approve, ask, out = approver("maybe", "yes please", "YES")  # Enter alone is the default, no
    call, tool, ctx = edit(tmp_path)
    assert not run_call(call, tool, ctx, approve).is_error
    assert len(ask.questions) == 3
    assert out.getvalue().count("answer y, n, a, q or r") == 2


def test_yes_flag_approves_everything_without_asking(tmp_path):
    approve, ask, out = approver(yes=True)
    call, tool, ctx = edit(tmp_path)
    assert not run_call(call, tool, ctx, approve).is_error
    assert ask.questions == [] and out.getvalue() == ""


def test_read_only_tools_never_ask(tmp_path):
    approve, ask, _ = approver()
    (tmp_path / "a.txt").write_text("content\n")
    result = run_call(ToolCall("c1", "read_file", '{"path": "a.txt"}'), BY_NAME["read_file"], ToolContext(cwd=tmp_path), approve)
    assert "content" in result.content and ask.questions == []


def test_a_shell_command_shows_the_command_and_its_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # the temp folder's path, however long, on one line
    approve, _, out = approver("n")
    call = ToolCall("c1", "run_command", '{"command": "rm -rf build"}')
    run_call(call, BY_NAME["run_command"], ToolContext(cwd=tmp_path), approve)
    shown = out.getvalue()
    assert "run_command wants to run:\n  $ rm -rf build\n" in shown
    assert f"(in {tmp_path}" in shown


def test_the_diff_is_coloured_on_a_terminal(tmp_path):
    approve, _, out = approver("n", colour=True)
    call, tool, ctx = edit(tmp_path)
    run_call(call, tool, ctx, approve)
    shown = out.getvalue()
    assert f"{GREEN}+hello world" in shown and f"{RED}-hello" in shown and f"{BOLD}+++ b/notes.txt" in shown


def test_without_a_preview_the_arguments_are_shown():
    lines = preview_lines(BY_NAME["write_file"], {"path": "x", "content": "y"}, "", colour=False)
    assert lines[0] == "write_file wants to run:"
    assert lines[1:] == ['  {', '    "path": "x",', '    "content": "y"', '  }']


def test_a_note_colours_its_label_only_and_the_question_carries_no_readline_markers(tmp_path):
    approve, ask, out = approver("n", colour=True)
    call = ToolCall("c1", "write_file", '{"path": "../outside.txt", "content": "x"}')
    run_call(call, BY_NAME["write_file"], ToolContext(cwd=tmp_path / "work"), approve)
    assert f"  {YELLOW}NOTE:{RESET} outside the working folder" in out.getvalue()
    assert ask.questions == [f"{BOLD}[y]es / [N]o / [a]lways for this session / [q]uit turn /\n[r]efuse with a reason? {RESET}"]
