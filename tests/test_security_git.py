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
