"""The edit tools on real files: diffs for approval, exact replacement, unified diffs, moves and deletes."""

import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import Approver, bundled, call, ok

BY_NAME = bundled()[0]

EDIT_TOOLS = ("write_file", "edit_file", "edit_lines", "apply_patch", "make_directory", "move_file", "delete_file")


def test_every_edit_tool_needs_approval_and_previews():
    for name in EDIT_TOOLS:
        tool = BY_NAME[name]
        assert tool.group == "edit" and tool.needs_approval is True and not tool.read_only and tool.preview


# --- write_file -----------------------------------------------------------------------------------------------

def test_write_file_creates_with_a_diff_from_nothing(tmp_path):
    approver = Approver()
    out = ok("write_file", {"path": "pkg/hello.py", "content": "print('hi')\n"}, tmp_path, approver)
    assert out == "created pkg/hello.py (1 lines)"
    assert (tmp_path / "pkg" / "hello.py").read_text() == "print('hi')\n"
    assert approver.previews[0].startswith("--- /dev/null\n+++ b/pkg/hello.py\n")
    assert "+print('hi')" in approver.previews[0]


def test_write_file_overwrite_shows_the_change_and_decline_keeps_the_file(tmp_path):
    (tmp_path / "a.txt").write_text("old line\nsame\n")
    approver = Approver(answer=False)
    result = call("write_file", {"path": "a.txt", "content": "new line\nsame\n"}, tmp_path, approver)
    assert result.is_error and "declined" in result.content
    assert (tmp_path / "a.txt").read_text() == "old line\nsame\n"
    assert "-old line\n+new line\n same\n" in approver.previews[0]
    assert "+1 -1" in ok("write_file", {"path": "a.txt", "content": "new line\nsame\n"}, tmp_path)


def test_write_file_outside_is_flagged_in_the_preview(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    approver = Approver(answer=False)
    call("write_file", {"path": "../escape.txt", "content": "x"}, work, approver)
    assert approver.previews[0].startswith("NOTE: outside the working folder")
    assert not (tmp_path / "escape.txt").exists()


# --- edit_file ------------------------------------------------------------------------------------------------

def test_edit_file_replaces_exactly_one_occurrence(tmp_path):
    (tmp_path / "app.py").write_text("PORT = 8000\nHOST = 'x'\n")
    approver = Approver()
    out = ok("edit_file", {"path": "app.py", "old_string": "8000", "new_string": "8080"}, tmp_path, approver)
    assert out == "edited app.py (+1 -1)"
    assert (tmp_path / "app.py").read_text() == "PORT = 8080\nHOST = 'x'\n"
    assert "-PORT = 8000\n+PORT = 8080" in approver.previews[0]


def test_edit_file_refuses_ambiguous_unless_replace_all(tmp_path):
    (tmp_path / "c.py").write_text("count = 0\ncount += 1\nprint(count)\n")
    result = call("edit_file", {"path": "c.py", "old_string": "count", "new_string": "total"}, tmp_path)
    assert result.is_error and "occurs 3 times" in result.content and "lines 1, 2, 3" in result.content
    assert (tmp_path / "c.py").read_text().count("count") == 3
    ok("edit_file", {"path": "c.py", "old_string": "count", "new_string": "total", "replace_all": True}, tmp_path)
    assert (tmp_path / "c.py").read_text() == "total = 0\ntotal += 1\nprint(total)\n"


def test_edit_file_not_found_points_at_the_closest_line(tmp_path):
    (tmp_path / "f.py").write_text("def main():\n    return 1\n")
    result = call("edit_file", {"path": "f.py", "old_string": "def  main():", "new_string": "def run():"}, tmp_path)
    assert result.is_error and "closest line is 1" in result.content
    missing = call("edit_file", {"path": "g.py", "old_string": "a", "new_string": "b"}, tmp_path)
    assert missing.is_error and "write_file" in missing.content
    same = call("edit_file", {"path": "f.py", "old_string": "main", "new_string": "main"}, tmp_path)
    assert same.is_error and "same" in same.content


def test_edit_file_keeps_crlf_line_endings(tmp_path):
    (tmp_path / "win.txt").write_bytes(b"first\r\nsecond\r\nthird\r\n")
    ok("edit_file", {"path": "win.txt", "old_string": "first\nsecond", "new_string": "one\ntwo"}, tmp_path)
    assert (tmp_path / "win.txt").read_bytes() == b"one\r\ntwo\r\nthird\r\n"


def test_edit_file_refuses_binary_and_pipes(tmp_path):
    (tmp_path / "b.bin").write_bytes(b"ab\x00cd")
    result = call("edit_file", {"path": "b.bin", "old_string": "ab", "new_string": "x"}, tmp_path)
    assert result.is_error and "binary" in result.content
    os.mkfifo(tmp_path / "pipe")  # reading it would wait for a writer forever
    for name, args in (("edit_file", {"old_string": "a", "new_string": "b"}), ("write_file", {"content": "b"})):
        result = call(name, {"path": "pipe", **args}, tmp_path)
        assert result.is_error and "not a regular file" in result.content, name


# --- apply_patch ----------------------------------------------------------------------------------------------

def git(cwd: Path, *args: str) -> str:
    env_args = ["-c", "user.name=Test", "-c", "user.email=test@example.com"]
    return subprocess.run(["git", *env_args, *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path):
    git(tmp_path, "init", "-q")
    (tmp_path / "app.py").write_text("".join(f"line {n}\n" for n in range(1, 31)))
    (tmp_path / "old.txt").write_text("goodbye\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "start")
    return tmp_path


def test_apply_patch_applies_a_real_git_diff(repo):
    text = (repo / "app.py").read_text()
    (repo / "app.py").write_text(text.replace("line 5\n", "line five\n").replace("line 25\n", "line 25\nextra\n"))
    (repo / "new.md").write_text("# new\n")
    (repo / "old.txt").unlink()
    git(repo, "add", "-A")
    patch = git(repo, "diff", "--cached")
    wanted = (repo / "app.py").read_text()
    git(repo, "reset", "-q", "--hard")
    approver = Approver()
    out = ok("apply_patch", {"patch": patch}, repo, approver)
    assert (repo / "app.py").read_text() == wanted
    assert (repo / "new.md").read_text() == "# new\n" and not (repo / "old.txt").exists()
    assert out.splitlines() == ["patched app.py (+2 -1)", "created new.md (+1 -0)", "deleted old.txt"]
    assert "+line five" in approver.previews[0] and "+++ b/new.md" in approver.previews[0]


def test_apply_patch_two_files_the_first_without_a_final_newline(repo):
    (repo / "a.txt").write_text("one\ntwo")
    (repo / "b.txt").write_text("x\ny\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "two files")
    (repo / "a.txt").write_text("one\nthree")
    (repo / "b.txt").write_text("x\nz\n")
    patch = git(repo, "diff")
    assert patch.count("\\ No newline at end of file") == 2 and patch.index("a.txt") < patch.index("b.txt")
    git(repo, "reset", "-q", "--hard")
    ok("apply_patch", {"patch": patch}, repo)
    assert (repo / "a.txt").read_text() == "one\nthree" and (repo / "b.txt").read_text() == "x\nz\n"


def test_apply_patch_finds_hunks_that_moved(repo):
    patch = "--- a/app.py\n+++ b/app.py\n@@ -20,3 +20,3 @@\n line 20\n-line 21\n+line twenty-one\n line 22\n"
    (repo / "app.py").write_text("header\nheader\n" + (repo / "app.py").read_text())
    ok("apply_patch", {"patch": patch}, repo)
    assert "line 20\nline twenty-one\nline 22\n" in (repo / "app.py").read_text()


def test_apply_patch_without_line_numbers(repo):
    patch = "--- app.py\n+++ app.py\n@@\n line 2\n-line 3\n+line three\n"
    ok("apply_patch", {"patch": patch}, repo)
    assert (repo / "app.py").read_text().startswith("line 1\nline 2\nline three\nline 4\n")


def test_apply_patch_mismatch_changes_nothing(repo):
    before = (repo / "app.py").read_text()
    patch = (
        "--- /dev/null\n+++ b/created.txt\n@@ -0,0 +1 @@\n+hello\n"
        "--- a/app.py\n+++ b/app.py\n@@ -3,2 +3,2 @@\n line 3\n-line 99\n+line 4\n"
    )
    result = call("apply_patch", {"patch": patch}, repo)
    assert result.is_error
    assert "hunk 1 of 1 for app.py" in result.content and "'line 99'" in result.content
    assert "nothing was changed" in result.content
    assert (repo / "app.py").read_text() == before and not (repo / "created.txt").exists()


def test_apply_patch_no_newline_at_end(tmp_path):
    (tmp_path / "n.txt").write_text("a\nb")
    patch = "--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n"
    ok("apply_patch", {"patch": patch}, tmp_path)
    assert (tmp_path / "n.txt").read_text() == "a\nc\n"


def test_apply_patch_bad_inputs(repo):
    garbage = call("apply_patch", {"patch": "please change line 3"}, repo)
    assert garbage.is_error and "no unified diff" in garbage.content
    missing = call("apply_patch", {"patch": "--- a/nope.py\n+++ b/nope.py\n@@ -1 +1 @@\n-a\n+b\n"}, repo)
    assert missing.is_error and "no such file" in missing.content
    exists = call("apply_patch", {"patch": "--- /dev/null\n+++ b/app.py\n@@ -0,0 +1 @@\n+x\n"}, repo)
    assert exists.is_error and "already exists" in exists.content


# --- make_directory, move_file, delete_file ------------------------------------------------------------------

def test_a_file_where_a_folder_should_be_is_said_as_what_failed_not_as_a_bug(tmp_path):
    (tmp_path / "a.txt").write_text("keep\n")
    calls = {"write_file": {"path": "a.txt/x.txt", "content": "x"}, "make_directory": {"path": "a.txt/sub"},
             "move_file": {"source": "a.txt", "destination": "a.txt/b/c"},
             "apply_patch": {"patch": "--- /dev/null\n+++ b/a.txt/new.txt\n@@ -0,0 +1 @@\n+x\n"}}
    for name, args in calls.items():
        result = call(name, args, tmp_path)
        assert result.is_error and result.content.startswith("Error: cannot ") and "bug" not in result.content, result
    assert "cannot create the folder a.txt/sub: Not a directory" in call("make_directory", calls["make_directory"], tmp_path).content
    assert (tmp_path / "a.txt").read_text() == "keep\n"


def test_make_directory(tmp_path):
    approver = Approver()
    assert ok("make_directory", {"path": "a/b/c"}, tmp_path, approver) == "created a/b/c/"
    assert (tmp_path / "a" / "b" / "c").is_dir() and approver.previews == ["create folder a/b/c/"]
    assert "already exists" in ok("make_directory", {"path": "a/b"}, tmp_path)
    (tmp_path / "file").write_text("")
    assert call("make_directory", {"path": "file"}, tmp_path).is_error


def test_move_file_renames_and_moves_into_folders(tmp_path):
    (tmp_path / "main.py").write_text("x")
    (tmp_path / "lib").mkdir()
    approver = Approver()
    assert ok("move_file", {"source": "main.py", "destination": "app.py"}, tmp_path, approver) == "moved main.py -> app.py"
    assert approver.previews == ["move file main.py -> app.py"]
    ok("move_file", {"source": "app.py", "destination": "lib"}, tmp_path)
    assert (tmp_path / "lib" / "app.py").read_text() == "x"


def test_move_file_moves_a_link_itself(tmp_path):
    (tmp_path / "target.txt").write_text("keep")
    (tmp_path / "link.txt").symlink_to(tmp_path / "target.txt")
    assert ok("move_file", {"source": "link.txt", "destination": "renamed.txt"}, tmp_path) == "moved link.txt -> renamed.txt"
    assert (tmp_path / "renamed.txt").is_symlink() and (tmp_path / "target.txt").read_text() == "keep"


def test_move_file_does_not_overwrite_unless_asked(tmp_path):
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / "b.txt").write_text("b")
    refused = call("move_file", {"source": "a.txt", "destination": "b.txt"}, tmp_path)
    assert refused.is_error and "overwrite" in refused.content and (tmp_path / "b.txt").read_text() == "b"
    ok("move_file", {"source": "a.txt", "destination": "b.txt", "overwrite": True}, tmp_path)
    assert (tmp_path / "b.txt").read_text() == "a" and not (tmp_path / "a.txt").exists()
    assert call("move_file", {"source": "zzz", "destination": "q"}, tmp_path).is_error


def test_delete_file_and_folders(tmp_path):
    (tmp_path / "build" / "x").mkdir(parents=True)
    (tmp_path / "build" / "x" / "o.bin").write_text("1")
    (tmp_path / "temp.log").write_text("12345")
    approver = Approver()
    assert ok("delete_file", {"path": "temp.log"}, tmp_path, approver) == "deleted temp.log"
    assert approver.previews == ["delete file temp.log (5 B)"] and not (tmp_path / "temp.log").exists()
    refused = call("delete_file", {"path": "build"}, tmp_path)
    assert refused.is_error and "recursive" in refused.content and (tmp_path / "build").exists()
    ok("delete_file", {"path": "build", "recursive": True}, tmp_path, approver)
    assert "2 entries" in approver.previews[-1] and not (tmp_path / "build").exists()


def test_delete_file_refuses_the_working_folder_and_removes_links_not_targets(tmp_path):
    assert call("delete_file", {"path": ".", "recursive": True}, tmp_path).is_error
    (tmp_path / "target.txt").write_text("keep")
    (tmp_path / "link.txt").symlink_to(tmp_path / "target.txt")
    ok("delete_file", {"path": "link.txt"}, tmp_path)
    assert (tmp_path / "target.txt").read_text() == "keep" and not (tmp_path / "link.txt").exists()


# --- edit_lines -----------------------------------------------------------------------------------------------

def read_hash(path: Path) -> str:
    """The hash read_file reports for a file, taken from read_file's own output."""
    out = ok("read_file", {"path": path.name}, path.parent)
    return out.rsplit("[file hash ", 1)[1].split(",")[0]


def test_edit_lines_replaces_inserts_and_deletes_by_line_number(tmp_path):
    target = tmp_path / "app.py"
    target.write_text("one\ntwo\nthree\nfour\n")
    approver = Approver()
    out = ok("edit_lines", {"path": "app.py", "file_hash": read_hash(target), "start_line": 2, "end_line": 3,
                            "new_text": "TWO\nTHREE\nTHREE-B"}, tmp_path, approver)
    assert target.read_text() == "one\nTWO\nTHREE\nTHREE-B\nfour\n"
    assert approver.previews[0].startswith("--- a/app.py\n+++ b/app.py\n") and "-two\n" in approver.previews[0]
    assert "+3 -2" in out and "2\tTWO" in out
    digest = out.split("new file hash ")[1].split()[0]
    assert digest == read_hash(target)  # the next edit can go on from the result
    ok("edit_lines", {"path": "app.py", "file_hash": digest, "operation": "insert", "start_line": 1,
                      "new_text": "zero"}, tmp_path)
    ok("edit_lines", {"path": "app.py", "file_hash": read_hash(target), "operation": "delete", "start_line": 5,
                      "end_line": 6}, tmp_path)
    assert target.read_text() == "zero\none\nTWO\nTHREE\n"


def test_edit_lines_keeps_crlf_and_a_missing_final_newline(tmp_path):
    target = tmp_path / "win.txt"
    target.write_bytes(b"a\r\nb\r\nc")
    ok("edit_lines", {"path": "win.txt", "file_hash": read_hash(target), "start_line": 3, "new_text": "C\n"}, tmp_path)
    assert target.read_bytes() == b"a\r\nb\r\nC"
    ok("edit_lines", {"path": "win.txt", "file_hash": read_hash(target), "operation": "insert", "start_line": 4,
                      "new_text": "d"}, tmp_path)
    assert target.read_bytes() == b"a\r\nb\r\nC\r\nd\r\n"


def test_edit_lines_refuses_a_file_changed_since_it_was_read(tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("first\nsecond\n")
    digest = read_hash(target)
    target.write_text("first\nsomeone else's edit\nsecond\n")
    result = call("edit_lines", {"path": "notes.txt", "file_hash": digest, "start_line": 2, "new_text": "x"}, tmp_path)
    assert result.is_error and "changed since it was read" in result.content and "\n" not in result.content
    assert target.read_text() == "first\nsomeone else's edit\nsecond\n"


@pytest.mark.parametrize("args, words", [
    ({"start_line": 3, "end_line": 9}, "lines 3-9 are outside notes.txt, which has 2 lines"),
    ({"start_line": 0}, "lines 0-0 are outside"),
    ({"start_line": 2, "end_line": 1}, "end_line 1 is before start_line 2"),
    ({"start_line": 4, "operation": "insert", "new_text": "x"}, "line 4 is outside notes.txt, which has 2 lines"),
    ({"start_line": 1, "operation": "insert"}, "new_text is empty"),
    ({"start_line": 1, "new_text": "first"}, "nothing to change"),
])
def test_edit_lines_bad_ranges_are_one_line_and_write_nothing(tmp_path, args, words):
    target = tmp_path / "notes.txt"
    target.write_text("first\nsecond\n")
    result = call("edit_lines", {"path": "notes.txt", "file_hash": read_hash(target), **args}, tmp_path)
    assert result.is_error and words in result.content and "\n" not in result.content
    assert target.read_text() == "first\nsecond\n"


def test_edit_lines_declined_writes_nothing(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("x\n")
    result = call("edit_lines", {"path": "a.txt", "file_hash": read_hash(target), "start_line": 1, "new_text": "y"},
                  tmp_path, Approver(False))
    assert result.is_error and target.read_text() == "x\n"
