"""Attacks on the paths the edit tools write: a file or folder swapped for a symbolic link to outside while the
user reads the question (a sandboxed job may write in the working folder unasked) is never written through."""

import json

import pytest

from ankit.records import ToolCall
from ankit.tooling.toolbox import ToolContext, run_call
from tests.test_approval import BY_NAME
from tests.test_sandbox import needs_landlock, places, run  # noqa: F401 (places is a fixture)

SWAPS = [
    ("write_file", {"path": "notes.txt", "content": "PWNED\n"}, "rm notes.txt && ln -s {victim} notes.txt"),
    ("edit_file", {"path": "notes.txt", "old_string": "hello", "new_string": "PWNED"},
     "rm notes.txt && ln -s {victim} notes.txt"),
    ("move_file", {"source": "notes.txt", "destination": "sub/moved.txt"}, "rm -r sub && ln -s {outside} sub"),
    ("make_directory", {"path": "sub/made"}, "rm -r sub && ln -s {outside} sub"),
    ("write_file", {"path": "sub/victim", "content": "PWNED\n"}, "rm -r sub && ln -s {outside} sub"),
]


@pytest.mark.parametrize("tool, args, swap", SWAPS)
@needs_landlock
def test_a_file_swapped_for_a_link_while_the_question_waits_is_not_written_through(places, tool, args, swap):
    work, temp, outside = places
    victim = outside / "victim"
    victim.write_text("hello\n")
    (work / "notes.txt").write_text("hello\n")
    (work / "sub").mkdir()
    (work / "sub" / "victim").write_text("hello\n")

    def approve(*_):  # while the user reads the question, a sandboxed command (it needs none) swaps the path
        done, _ = run(swap.format(victim=victim, outside=outside), work, temp)
        assert "exit code 0" in done.content, done.content
        return True

    result = run_call(ToolCall("c1", tool, json.dumps(args)), BY_NAME[tool], ToolContext(cwd=work), approve)
    assert victim.read_text() == "hello\n" and [p.name for p in outside.iterdir()] == ["victim"], result.content
    assert result.is_error and "symbolic link" in result.content
