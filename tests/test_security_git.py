"""Security: a hostile repository's .git/config names programs (fsmonitor, external diff, textconv, filters,
signature checks, a pager); the read-only git tools never run them (a real repository, the real tools)."""

import json
import subprocess

import pytest

from ankit.records import ToolCall
from ankit.tooling.toolbox import ToolContext, run_call
from tests.test_approval import BY_NAME


def git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def hostile_repo(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "a@example.com")
    git(repo, "config", "user.name", "A")
    (repo / ".gitattributes").write_text("*.txt filter=evil diff=evil\n")
    (repo / "notes.txt").write_text("one\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "first")
    (repo / "notes.txt").write_text("one\ntwo\n")
    marker = tmp_path / "PWNED"
    evil = f"sh -c 'echo $0 >> {marker}; cat'"
    for key, value in [("core.fsmonitor", f"echo fsmonitor >> {marker}; false"), ("diff.external", evil),
                       ("diff.evil.textconv", evil), ("diff.evil.command", evil), ("filter.evil.clean", evil),
                       ("filter.evil.smudge", evil), ("filter.evil.process", evil), ("log.showSignature", "true"),
                       ("gpg.program", evil), ("core.pager", evil), ("core.hooksPath", str(tmp_path))]:
        git(repo, "config", key, value)
    return repo, marker


@pytest.mark.parametrize("tool, args", [
    ("git_status", {}), ("git_diff", {}), ("git_log", {}), ("git_show", {}), ("git_branch", {}),
    ("git_log", {"patch": True}),
])
def test_read_only_git_tools_run_no_program_the_repository_names(hostile_repo, tool, args):
    repo, marker = hostile_repo
    if "patch" in args and "patch" not in BY_NAME[tool].parameters["properties"]:
        args = {}
    result = run_call(ToolCall("c1", tool, json.dumps(args)), BY_NAME[tool], ToolContext(cwd=repo), lambda *a: False)
    assert not result.is_error, result.content
    assert not marker.exists(), marker.read_text()


def test_an_approved_commit_runs_no_signing_program_the_repository_names(hostile_repo):
    repo, marker = hostile_repo
    signer = repo.parent / "signer.sh"  # git runs gpg.program as a program, not through a shell
    signer.write_text(f"#!/bin/sh\necho signer >> {marker}\nexit 1\n")
    signer.chmod(0o755)
    git(repo, "config", "gpg.program", str(signer))
    git(repo, "config", "commit.gpgSign", "true")
    git(repo, "config", "core.hooksPath", str(repo / "no-hooks"))  # hooks are the user's to approve: not this test
    call = ToolCall("c1", "git_commit", json.dumps({"message": "two", "all": True}))
    run_call(call, BY_NAME["git_commit"], ToolContext(cwd=repo), lambda *a: True)  # the user said yes to the commit
    assert not marker.exists(), marker.read_text()


def test_a_worktree_the_repository_points_elsewhere_is_refused(tmp_path):
    repo, home = tmp_path / "repo", tmp_path / "home"
    repo.mkdir()
    home.mkdir()
    (home / "id_rsa").write_text("KEY\n")
    git(repo, "init", "-q")
    git(repo, "config", "core.worktree", "../../home")
    for tool in ("git_status", "git_commit"):
        args = {"message": "steal", "all": True} if tool == "git_commit" else {}
        result = run_call(ToolCall("c1", tool, json.dumps(args)), BY_NAME[tool], ToolContext(cwd=repo), lambda *a: True)
        assert result.is_error and "sets core.worktree to ../../home" in result.content, result.content
        assert "id_rsa" not in result.content
