"""Security: a hostile repository's .git/config names programs (fsmonitor, external diff, textconv, filters,
signature checks, a pager); the read-only git tools never run them (a real repository, the real tools)."""

import json
import os
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



def test_an_approved_commit_runs_no_ssh_key_command_the_repository_names(hostile_repo):
    """gpg.ssh.defaultKeyCommand is run to find the signing key when user.signingKey is unset."""
    repo, marker = hostile_repo
    finder = repo.parent / "finder.sh"
    finder.write_text(f"#!/bin/sh\necho finder >> {marker}\necho 'key::ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB'\n")
    finder.chmod(0o755)
    for key, value in [("commit.gpgSign", "true"), ("gpg.format", "ssh"), ("gpg.ssh.defaultKeyCommand", str(finder)),
                       ("core.hooksPath", str(repo / "no-hooks"))]:
        git(repo, "config", key, value)
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


def _repo_with_submodule(tmp_path):
    """A repository whose submodule lib has a filter (and other programs) named only in .git/modules/lib/config."""
    upstream, repo = tmp_path / "upstream", tmp_path / "repo"
    for folder in (upstream, repo):
        folder.mkdir()
        git(folder, "init", "-q")
        git(folder, "config", "user.email", "a@example.com")
        git(folder, "config", "user.name", "A")
    (upstream / ".gitattributes").write_text("*.txt filter=subevil diff=subevil\n")
    (upstream / "lib.txt").write_text("one\n")
    git(upstream, "add", "-A")
    git(upstream, "commit", "-qm", "lib")
    subprocess.run(["git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream), "lib"],
                   cwd=repo, check=True, capture_output=True)
    git(repo, "commit", "-qm", "with lib")
    marker = tmp_path / "PWNED"
    evil = f"sh -c 'echo $0 >> {marker}; cat'"
    module_config = repo / ".git" / "modules" / "lib" / "config"
    for key, value in [("filter.subevil.clean", evil), ("filter.subevil.smudge", evil),
                       ("filter.subevil.process", evil), ("diff.subevil.textconv", evil),
                       ("diff.subevil.command", evil), ("core.fsmonitor", f"echo fsmonitor >> {marker}; false")]:
        subprocess.run(["git", "config", "--file", str(module_config), key, value], check=True)
    touched = repo / "lib" / "lib.txt"  # same size, new time: status must hash it again, through the clean filter
    os.utime(touched, (touched.stat().st_atime, touched.stat().st_mtime + 5))
    return repo, marker


@pytest.mark.parametrize("tool, args", [("git_status", {}), ("git_diff", {}), ("git_log", {"patch": True}),
                                        ("git_show", {})])
def test_a_submodules_own_config_runs_no_program_either(tmp_path, tool, args):
    repo, marker = _repo_with_submodule(tmp_path)
    if "patch" in args and "patch" not in BY_NAME[tool].parameters["properties"]:
        args = {}
    result = run_call(ToolCall("c1", tool, json.dumps(args)), BY_NAME[tool], ToolContext(cwd=repo), lambda *a: False)
    assert not result.is_error, result.content
    assert not marker.exists(), marker.read_text()


@pytest.mark.parametrize("tool, args", [("git_status", {}), ("git_diff", {}), ("git_log", {"patch": True})])
def test_a_submodule_filter_from_an_included_file_and_a_submodule_diff_setting_run_nothing(tmp_path, tool, args):
    repo, marker = _repo_with_submodule(tmp_path)
    module_config = repo / ".git" / "modules" / "lib" / "config"
    text = module_config.read_text()
    included = module_config.with_name("more.cfg")  # the same programs, reached through include.path only
    included.write_text(text[text.index('[filter "subevil"]'):].replace("subevil", "other"))
    (repo / "lib" / ".gitattributes").write_text("*.txt filter=other diff=other\n")
    subprocess.run(["git", "config", "--file", str(module_config), "include.path", "more.cfg"], check=True)
    git(repo, "config", "diff.submodule", "diff")
    git(repo, "config", "status.submoduleSummary", "true")
    if "patch" in args and "patch" not in BY_NAME[tool].parameters["properties"]:
        args = {}
    result = run_call(ToolCall("c1", tool, json.dumps(args)), BY_NAME[tool], ToolContext(cwd=repo), lambda *a: False)
    assert not result.is_error, result.content
    assert not marker.exists(), marker.read_text()
