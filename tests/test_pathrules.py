"""Path rules over what a call declares it reads and changes: Claude Code's Read(...) and Edit(...) deny rules
bind search, listing, patching, moving and deleting as they bind read_file and write_file, through `ankit -p
--yes` against the loopback provider, with real files and links."""

import json
import os
import subprocess
from pathlib import Path

from ankit.records import Touches
from ankit.safety.pathrules import forms
from ankit.safety.policy import Policy
from tests.test_oneshot import ankit


def claude_deny(tmp_path: Path, *rules: str) -> Path:
    """The user's ~/.claude/settings.json denying these rules; the working folder, made."""
    home = tmp_path / "home" / ".claude"
    home.mkdir(parents=True)
    (home / "settings.json").write_text(json.dumps({"permissions": {"deny": list(rules)}}))
    work = tmp_path / "work"
    work.mkdir()
    return work


def results(provider_server) -> list[str]:
    return [m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]


def secrets_folder(work: Path) -> None:
    (work / ".env").write_text("SECRET=one\n")
    (work / ".env.local").write_text("SECRET=two\n")
    (work / "secrets").mkdir()
    (work / "secrets" / "key.txt").write_text("SECRET=three\n")
    (work / "docs").mkdir()
    (work / "docs" / "link").symlink_to("../.env")
    (work / "app.py").write_text("SECRET = read_from_env()\n")


def test_search_and_listing_leave_out_what_a_read_deny_names_and_say_so(provider_server, tmp_path):
    work = claude_deny(tmp_path, "Read(./.env)", "Read(./.env.*)", "Read(./secrets/**)")
    secrets_folder(work)
    provider_server.push_openai(tool_calls=[
        ("c1", "search_text", '{"pattern": "SECRET"}'),
        ("c2", "find_files", '{"pattern": "*", "include_ignored": true}'),
        ("c3", "list_directory", '{"path": ".", "depth": 3}'),
        ("c4", "search_text", '{"pattern": "SECRET", "path": "docs/link"}')])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "find secrets", "--yes")
    assert done.returncode == 0, done.stderr
    found, names, listing, linked = results(provider_server)
    assert "app.py:1: SECRET = read_from_env()" in found and "SECRET=" not in found  # .env also through docs/link
    assert "[4 files left out: the settings' rules deny reading them]" in found
    assert "app.py" in names and ".env" not in names and "key.txt" not in names and "docs/link" not in names
    assert "left out" in names and "key.txt" not in listing and ".env" not in listing and "left out" in listing
    assert "SECRET=" not in linked and "1 files left out" in linked


def test_an_edit_deny_refuses_patching_moving_and_deleting_onto_it_under_yes(provider_server, tmp_path):
    work = claude_deny(tmp_path, "Edit(./.env)", "Write(./secrets/**)")
    secrets_folder(work)
    (work / "new.env").write_text("SECRET=evil\n")
    patch = "--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-SECRET=one\n+SECRET=evil\n"
    provider_server.push_openai(tool_calls=[
        ("c1", "apply_patch", json.dumps({"patch": patch})),
        ("c2", "move_file", json.dumps({"source": "new.env", "destination": ".env", "overwrite": True})),
        ("c3", "delete_file", json.dumps({"path": "secrets", "recursive": True})),
        ("c4", "move_file", json.dumps({"source": "secrets", "destination": "public"})),
        ("c5", "write_file", json.dumps({"path": "notes.txt", "content": "fine\n"}))])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "change them", "--yes")
    assert done.returncode == 0, done.stderr
    patched, moved, deleted, hidden, wrote = results(provider_server)
    assert patched.startswith("Error: refused by the rule 'Edit(.env)' in the settings (it changes .env)")
    assert moved.startswith("Error: refused by the rule 'Edit(.env)'")
    assert deleted.startswith("Error: refused by the rule 'Edit(secrets/*)' in the settings (it changes secrets/")
    assert hidden.startswith("Error: refused by the rule 'Edit(secrets/*)'")
    assert (work / ".env").read_text() == "SECRET=one\n" and (work / "secrets" / "key.txt").exists()
    assert not wrote.startswith("Error") and (work / "notes.txt").read_text() == "fine\n"


def test_a_path_is_matched_as_written_as_it_really_is_and_by_its_folders(tmp_path):
    (tmp_path / "secrets").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "link").symlink_to("../secrets")
    assert forms(str(tmp_path / "docs" / "link" / "key"), tmp_path) == ["docs/link/key", "docs/link", "docs",
                                                                       "secrets/key", "secrets"]
    assert forms("/etc/passwd", tmp_path) == ["/etc/passwd", "/etc"]


def test_read_and_edit_allow_rules_cover_a_declared_call_only_when_every_path_is_covered(tmp_path):
    policy = Policy.from_rules(["Edit(src/*)", "Read(docs/*)"], [], cwd=tmp_path)
    inside = Touches(reads=(str(tmp_path / "src" / "a.py"),), changes=(str(tmp_path / "src" / "a.py"),))
    assert policy.decide("apply_patch", {}, touched=inside).decision == "allow"
    wider = Touches(changes=(str(tmp_path / "src" / "a.py"), str(tmp_path / "setup.py")))
    assert policy.decide("apply_patch", {}, touched=wider).decision == "ask"
    running = Touches(reads=(str(tmp_path / "docs" / "x"),), runs=("sh",))
    assert policy.decide("some_tool", {}, touched=running).decision == "ask"
    undeclared = Touches(reads=(str(tmp_path / "docs" / "x"),), declared=False)
    assert policy.decide("some_tool", {}, touched=undeclared).decision == "ask"


def test_a_path_rule_under_the_home_folder_binds_the_absolute_path(tmp_path):
    policy = Policy.from_rules([], ["Read(~/.ssh/*)"], cwd=tmp_path)
    verdict = policy.decide("read_file", {"path": os.path.expanduser("~/.ssh/id_rsa")})
    assert verdict.decision == "deny" and verdict.rule == f"Read({os.path.expanduser('~/.ssh/*')})"


def test_a_tool_that_declares_nothing_is_bound_by_the_paths_its_arguments_name(tmp_path):
    policy = Policy.from_rules([], ["Read(.env)"], cwd=tmp_path)
    verdict = policy.decide("third_party_reader", {"file": ".env"})
    assert (verdict.decision, verdict.rule, verdict.why) == ("deny", "Read(.env)", "it reads .env")
    withholding = Touches(reads=(str(tmp_path / ".env"), str(tmp_path / "a")), withholds=True)
    verdict = policy.decide("search_text", {"pattern": "x"}, touched=withholding)
    assert verdict.decision == "ask" and verdict.withheld == (str(tmp_path / ".env"),)


def test_a_read_deny_binds_the_file_git_show_would_print_from_a_commit(tmp_path):
    from ankit.records import ToolCall
    from ankit.tooling.toolbox import ToolContext, run_call
    from tests.test_approval import BY_NAME
    from tests.test_policy import git_repository
    work = git_repository(tmp_path / "work")
    (work / "secrets").mkdir()
    (work / "secrets" / "key.txt").write_text("SECRET=one\n")
    subprocess.run(["git", "-C", str(work), "add", "."], check=True)
    subprocess.run(["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "key"],
                   check=True)
    policy = Policy.from_rules([], ["Read(secrets/*)"], cwd=work, yes=True)
    call = ToolCall("c1", "git_show", json.dumps({"file_at_ref": "secrets/key.txt"}))
    result = run_call(call, BY_NAME["git_show"], ToolContext(cwd=work), lambda *a: True, policy=policy)
    assert result.is_error and "Read(secrets/*)" in result.content and "SECRET" not in result.content
    shown = run_call(ToolCall("c2", "git_show", json.dumps({"file_at_ref": "notes.txt"})), BY_NAME["git_show"],
                     ToolContext(cwd=work), lambda *a: True, policy=policy)
    assert "TODO one" in shown.content
    (work / "notes.txt").write_text("TODO two\n")
    (work / "secrets" / "key.txt").write_text("SECRET=two\n")
    for tool, args in (("git_show", {}), ("git_diff", {}), ("git_diff", {"ref": "HEAD~1"})):
        result = run_call(ToolCall("c3", tool, json.dumps(args)), BY_NAME[tool], ToolContext(cwd=work),
                          lambda *a: True, policy=policy)
        assert "SECRET" not in result.content and "1 files left out" in result.content, (tool, result.content)
        assert tool == "git_show" or "TODO" in result.content, (tool, result.content)  # HEAD changed the key only


def test_a_read_deny_binds_the_files_a_shell_line_names_as_best_it_can(provider_server, tmp_path):
    work = claude_deny(tmp_path, "Read(./.env)")
    secrets_folder(work)
    provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "cat .env"}'),
                                            ("c2", "run_command", '{"command": "head -n1 docs/link"}'),
                                            ("c3", "run_command", '{"command": "cat app.py"}')])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "show", "--yes")
    assert done.returncode == 0, done.stderr
    direct, linked, plain = results(provider_server)
    assert direct.startswith("Error: refused by the rule 'Read(.env)' in the settings (it reads .env)")
    assert linked.startswith("Error: refused by the rule 'Read(.env)'") and "SECRET=" not in direct + linked
    assert "read_from_env" in plain
