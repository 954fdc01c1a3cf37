"""The git tools against real repositories made in temp folders."""

import subprocess
from pathlib import Path

import pytest

from ankit.tooling.toolbox import ToolContext
from tests.helpers import Approver, bundled, call, ok

BY_NAME = bundled()[0]


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "user.name", "Ada Test")
    git(tmp_path, "config", "user.email", "ada@example.com")
    (tmp_path / "app.py").write_text("print('v1')\n")
    git(tmp_path, "add", "app.py")
    git(tmp_path, "commit", "-qm", "first commit")
    return tmp_path


def test_status_shows_branch_and_changes(repo):
    assert ok("git_status", {}, repo) == "## main\n(nothing to commit, working tree clean)"
    (repo / "app.py").write_text("print('v2')\n")
    (repo / "new.txt").write_text("n\n")
    assert ok("git_status", {}, repo).splitlines() == ["## main", " M app.py", "?? new.txt"]


def test_diff_staged_and_unstaged(repo):
    (repo / "app.py").write_text("print('v2')\n")
    git(repo, "add", "app.py")
    (repo / "app.py").write_text("print('v3')\n")
    out = ok("git_diff", {}, repo)
    staged, unstaged = out.split("## unstaged changes")
    assert "+print('v2')" in staged and "-print('v1')" in staged
    assert "-print('v2')" in unstaged and "+print('v3')" in unstaged
    only = ok("git_diff", {"which": "staged", "stat": True}, repo)
    assert "app.py | 2 +-" in only and "unstaged" not in only
    assert "+print('v3')" in ok("git_diff", {"ref": "HEAD"}, repo)


def test_log_and_show(repo):
    (repo / "app.py").write_text("print('v2')\n")
    git(repo, "commit", "-qam", "second: bump version")
    log = ok("git_log", {}, repo).splitlines()
    assert len(log) == 2 and log[0].endswith("Ada Test: second: bump version")
    assert ok("git_log", {"grep": "FIRST"}, repo).endswith("first commit")
    assert ok("git_log", {"grep": "nothing like this"}, repo) == "(no commits match)"
    shown = ok("git_show", {}, repo)
    assert "Author: Ada Test <ada@example.com>" in shown and "+print('v2')" in shown
    assert ok("git_show", {"ref": "HEAD~1", "file_at_ref": "app.py"}, repo) == "print('v1')\n"


def test_branch_list_create_switch(repo):
    assert ok("git_branch", {}, repo).startswith("* main")
    previews = []
    created = call("git_branch", {"action": "create", "name": "feature/x"}, repo, Approver(True, previews))
    assert created.content == "now on branch feature/x" and previews[0].startswith("git switch -c feature/x")
    assert ok("git_branch", {"action": "switch", "name": "main"}, repo) == "now on branch main"
    missing = call("git_branch", {"action": "switch", "name": "nope"}, repo)
    assert missing.is_error and "nope" in missing.content
    tool = BY_NAME["git_branch"]
    assert not tool.wants_approval({}, ToolContext(cwd=repo)) and tool.wants_approval({"action": "create"}, ToolContext(cwd=repo))


def test_commit_previews_stages_and_commits(repo):
    (repo / "app.py").write_text("print('v2')\n")
    (repo / "extra.py").write_text("x = 1\n")
    previews = []
    declined = call("git_commit", {"message": "add extra", "paths": ["extra.py"]}, repo, Approver(False, previews))
    assert declined.is_error and "?? extra.py" in git(repo, "status", "--short")
    assert "to be staged (extra.py):\n?? extra.py" in previews[0] and previews[0].endswith("message:\nadd extra")
    out = ok("git_commit", {"message": "add extra", "paths": ["extra.py"]}, repo)
    assert out.startswith("committed ") and "add extra" in out and "extra.py" in out
    assert git(repo, "status", "--short") == " M app.py\n"
    ok("git_commit", {"message": "bump", "all": True}, repo)
    assert git(repo, "log", "-1", "--format=%s").strip() == "bump" and git(repo, "status", "--short") == ""


def test_commit_with_nothing_staged_or_no_message(repo):
    nothing = call("git_commit", {"message": "empty"}, repo)
    assert nothing.is_error and "nothing is staged" in nothing.content
    blank = call("git_commit", {"message": "  ", "all": True}, repo)
    assert blank.is_error and "message is empty" in blank.content


def test_commit_without_identity_says_how_to_set_it(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "none"))
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "user.useConfigOnly")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "true")
    work = tmp_path / "w"
    work.mkdir()
    git(work, "init", "-q")
    (work / "a.txt").write_text("a\n")
    result = call("git_commit", {"message": "first", "paths": ["a.txt"]}, work)
    assert result.is_error and "git config user.email" in result.content


def test_outside_a_repository_is_one_clear_line(tmp_path):
    for name in ("git_status", "git_diff", "git_log", "git_show", "git_branch"):
        result = call(name, {}, tmp_path)
        assert result.is_error and "not inside a git repository" in result.content and "\n" not in result.content


def test_option_like_refs_are_refused_so_reading_tools_write_nothing(repo):
    for name, args in (("git_diff", {"ref": "--output=out1"}), ("git_log", {"ref": "--output=out2"}),
                       ("git_show", {"ref": "--output=out3"}), ("git_branch", {"action": "create", "name": "-D"})):
        result = call(name, args, repo)
        assert result.is_error and "would be read as a git option" in result.content, name
    assert not list(repo.glob("out*"))
    assert ok("git_log", {"ref": "HEAD"}, repo).endswith("first commit")


def test_without_git_installed(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    result = call("git_status", {}, tmp_path)
    assert result.is_error and "git is not installed" in result.content


def test_empty_repository_log(tmp_path):
    git(tmp_path, "init", "-q")
    result = call("git_log", {}, tmp_path)
    assert result.is_error and "no commits yet" in result.content
