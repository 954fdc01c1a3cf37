"""Security: approvals remember narrowly, settings' deny rules win, and a patch shows every change it makes."""

import json
import os
import subprocess

from ankit.records import ToolCall
from ankit.safety.policy import Policy
from ankit.tooling.toolbox import ToolContext, run_call
from tests.test_approval import BY_NAME, approver
from tests.test_oneshot import ankit
from tests.test_policy import git_repository


def shell(command: str, call_id: str = "c1") -> ToolCall:
    return ToolCall(call_id, "run_command", json.dumps({"command": command}))


def test_always_for_one_shell_command_covers_its_program_and_subcommand_only(tmp_path):
    approve, ask, out = approver("a", "n", "n", "n", "n")
    approve.policy = Policy(cwd=git_repository(tmp_path))  # git: only in the session's own repository
    ctx, tool = ToolContext(cwd=tmp_path), BY_NAME["run_command"]
    assert not run_call(shell("git status"), tool, ctx, approve, policy=approve.policy).is_error  # answered "a"
    assert "approved for the rest of this session: run_command: git status" in out.getvalue()
    assert not run_call(shell("git status --short"), tool, ctx, approve, policy=approve.policy).is_error  # covered: not asked
    for command in ("touch PWNED", "git status; touch PWNED", "git status && touch PWNED", "git push"):
        assert run_call(shell(command), tool, ctx, approve, policy=approve.policy).is_error  # each one asked, and declined
    assert len(ask.questions) == 5 and not (tmp_path / "PWNED").exists()


def test_always_never_covers_interpreters_running_inline_code(tmp_path):
    approve, ask, _ = approver("a", "n")
    ctx, tool = ToolContext(cwd=tmp_path), BY_NAME["run_command"]
    run_call(shell("python3 -c 'print(1)'"), tool, ctx, approve, policy=approve.policy)
    result = run_call(shell("python3 -c 'open(\"PWNED\", \"w\")'"), tool, ctx, approve, policy=approve.policy)
    assert result.is_error and len(ask.questions) == 2 and not (tmp_path / "PWNED").exists()


def write_config(tmp_path, text: str) -> None:
    folder = tmp_path / "config" / "ankit"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text)


def test_allow_rules_run_without_asking_but_never_an_appended_command(provider_server, tmp_path):
    write_config(tmp_path, 'sandbox = "off"\nallow = ["run_command: echo *"]\n')  # rules, not the sandbox
    provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "echo allowed"}'),
                                            ("c2", "run_command", '{"command": "echo hi; touch PWNED"}'),
                                            ("c3", "run_command", '{"command": "echo $(touch PWNED)"}')])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "go")
    assert done.returncode == 0, done.stderr
    results = {m["tool_call_id"]: m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"}
    assert "allowed" in results["c1"] and "declined" in results["c2"] and "declined" in results["c3"]
    assert not (tmp_path / "work" / "PWNED").exists()


def test_deny_wins_over_allow_and_yes(provider_server, tmp_path):
    write_config(tmp_path, 'allow = ["run_command"]\ndeny = ["run_command: rm *", "write_file: *.env"]\n')
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "keep.txt").write_text("x")
    provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "ls && rm keep.txt"}'),
                                            ("c2", "write_file", '{"path": ".env", "content": "X=1"}')])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--yes", "-p", "go")
    assert done.returncode == 0, done.stderr
    results = [m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert all("refused by the rule" in r for r in results), results
    assert (tmp_path / "work" / "keep.txt").exists() and not (tmp_path / "work" / ".env").exists()


def test_a_patch_preview_shows_renames_and_deletions_and_paths_outside(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "old.py").write_text("a = 1\n")
    (work / "gone.py").write_text("b = 2\n")
    (tmp_path / "outside.txt").write_text("c = 3\n")
    patch = ("--- a/old.py\n+++ b/new.py\n"
             "--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-b = 2\n"
             "--- a/../outside.txt\n+++ b/../outside.txt\n@@ -1 +1 @@\n-c = 3\n+c = 4\n")
    approve, ask, out = approver("n")
    result = run_call(ToolCall("c1", "apply_patch", json.dumps({"patch": patch})), BY_NAME["apply_patch"],
                      ToolContext(cwd=work), approve)
    shown = out.getvalue()
    assert result.is_error and "rename old.py -> new.py" in shown
    assert "delete gone.py" in shown and "-b = 2" in shown
    assert "outside the working folder" in shown and "+c = 4" in shown


def test_allow_rules_never_cover_a_path_leaving_the_folder(provider_server, tmp_path):
    """`docs/*` must not reach ../ through `..` or a symlink in docs/, and a deny rule sees through both."""
    work = tmp_path / "work"
    (work / "docs").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (work / "docs" / "link").symlink_to(tmp_path / "outside")
    (work / "docs" / "config.txt").symlink_to(work / "prod.env")
    write_config(tmp_path, 'sandbox = "off"\nallow = ["write_file: docs/*", "run_command: ls *"]\n'
                           'deny = ["write_file: *.env"]\n')
    provider_server.push_openai(tool_calls=[
        ("c1", "write_file", json.dumps({"path": "docs/../../PWNED", "content": "x"})),
        ("c2", "write_file", json.dumps({"path": "docs/link/PWNED", "content": "x"})),
        ("c3", "write_file", json.dumps({"path": "docs/config.txt", "content": "x"})),
        ("c4", "run_command", json.dumps({"command": "ls", "cwd": str(tmp_path / "outside")})),
        ("c5", "write_file", json.dumps({"path": "docs/ok.md", "content": "fine"}))])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "go")
    assert done.returncode == 0, done.stderr
    results = {m["tool_call_id"]: m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"}
    assert "declined" in results["c1"] and "declined" in results["c4"]
    assert "leads through a symbolic link" in results["c2"]  # never written through: the real path must be named
    assert "refused by the rule 'write_file: *.env'" in results["c3"]
    assert not (tmp_path / "PWNED").exists() and not (tmp_path / "outside" / "PWNED").exists()
    assert not (work / "prod.env").exists() and (work / "docs" / "ok.md").read_text() == "fine"


def test_always_for_a_tool_never_covers_a_later_call_outside_the_folder(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "outside.txt").write_text("c = 3\n")
    approve, ask, _ = approver("a", "n")
    rules = Policy(cwd=work)
    inside = "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+a = 1\n"
    outside = "--- a/../outside.txt\n+++ b/../outside.txt\n@@ -1 +1 @@\n-c = 3\n+c = 4\n"
    for patch in (inside, outside):
        run_call(ToolCall("c1", "apply_patch", json.dumps({"patch": patch})), BY_NAME["apply_patch"],
                 ToolContext(cwd=work), approve, policy=rules)
    assert len(ask.questions) == 2 and (work / "new.py").exists()
    assert (tmp_path / "outside.txt").read_text() == "c = 3\n"


def test_always_for_a_program_never_covers_a_path_where_a_program_runs_it_later(tmp_path):
    """[a]lways for `chmod +x build.sh` covers chmod, but not making a planted .git hook executable by any
    spelling: a glob, a brace, a symlink a sandboxed command made, or the call's cwd; nor `tee` into .envrc."""
    work = tmp_path / "work"
    hooks = work / ".git" / "hooks"
    hooks.mkdir(parents=True)
    for name in ("pre-commit", "post-checkout", "pre-push", "post-merge", "pre-rebase"):
        (hooks / name).write_text("#!/bin/sh\ntouch PWNED\n")  # not executable: git skips them
    (work / "build.sh").write_text("#!/bin/sh\n")
    (work / "lnk").symlink_to(hooks)
    attempts = [{"command": "chmod +x .git/hooks/pre-commit"}, {"command": "chmod +x .gi?/hooks/post-checkout"},
                {"command": "chmod +x .{git,x}/hooks/pre-push"}, {"command": "chmod +x lnk/post-merge"},
                {"command": "chmod +x hooks/pre-rebase", "cwd": ".git"}]
    approve, ask, _ = approver("a", *["n"] * len(attempts))
    approve.policy.cwd = work
    ctx, tool = ToolContext(cwd=work), BY_NAME["run_command"]
    assert not run_call(shell("chmod +x build.sh"), tool, ctx, approve, policy=approve.policy).is_error
    for args in attempts:
        run_call(ToolCall("c1", "run_command", json.dumps(args)), tool, ctx, approve, policy=approve.policy)
    assert len(ask.questions) == 1 + len(attempts)  # each one asked, and declined
    assert not any(os.access(hook, os.X_OK) for hook in hooks.iterdir())


def test_always_for_tee_never_covers_a_file_direnv_runs(tmp_path):
    approve, ask, _ = approver("a", "n")
    approve.policy.cwd = tmp_path
    ctx, tool = ToolContext(cwd=tmp_path), BY_NAME["run_command"]
    run_call(shell("tee log.txt"), tool, ctx, approve, policy=approve.policy)
    run_call(shell("tee log.txt .envrc"), tool, ctx, approve, policy=approve.policy)
    assert len(ask.questions) == 2 and not (tmp_path / ".envrc").exists()


def test_always_on_a_plain_grep_never_covers_one_that_follows_links_out_of_the_folder(tmp_path):
    home, work = tmp_path / "home", tmp_path / "work"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY\n")
    work.mkdir()
    (work / "notes.txt").write_text("TODO one\n")
    (work / "vendor").symlink_to("../home/.ssh")
    approve, ask, out = approver("a", "n")
    approve.policy = Policy(cwd=work)
    ctx, tool = ToolContext(cwd=work), BY_NAME["run_command"]
    assert not run_call(shell("grep -n TODO notes.txt"), tool, ctx, approve, policy=approve.policy).is_error
    assert "notes.txt" in run_call(shell("grep -rn TODO ."), tool, ctx, approve, policy=approve.policy).content
    followed = run_call(shell("grep -R PRIVATE ."), tool, ctx, approve, policy=approve.policy)
    assert followed.is_error and "PRIVATE KEY" not in followed.content and len(ask.questions) == 2


def test_always_on_git_covers_only_the_sessions_own_repository_never_a_shipped_one_with_textconv(tmp_path):
    work = git_repository(tmp_path / "work")
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(work / "vendor.git")], check=True)
    marker = tmp_path / "PWNED"
    with open(work / "vendor.git" / "config", "a") as config:
        config.write(f'[diff "x"]\n\ttextconv = "touch {marker}; cat"\n')
    (work / "vendor.git" / "info").mkdir(exist_ok=True)
    (work / "vendor.git" / "info" / "attributes").write_text("* diff=x\n")
    subprocess.run(["git", "show", "HEAD"], cwd=work / "vendor.git", capture_output=True, check=True)
    assert marker.exists()  # the attack is real: git show there runs the textconv program
    marker.unlink()
    approve, ask, out = approver("a", "n", "n")
    approve.policy = Policy(cwd=work)
    ctx, tool = ToolContext(cwd=work), BY_NAME["run_command"]
    assert not run_call(shell("git show --stat HEAD"), tool, ctx, approve, policy=approve.policy).is_error
    assert "approved for the rest of this session: run_command: git show" in out.getvalue()
    assert not run_call(shell("git show HEAD"), tool, ctx, approve, policy=approve.policy).is_error  # covered
    shipped = ToolCall("c2", "run_command", json.dumps({"command": "git show HEAD", "cwd": "vendor.git"}))
    assert run_call(shipped, tool, ctx, approve, policy=approve.policy).is_error  # asked, and declined
    assert run_call(shell("git show --textconv HEAD"), tool, ctx, approve, policy=approve.policy).is_error
    assert len(ask.questions) == 3 and not marker.exists()


def test_always_on_git_is_that_call_only_when_the_repositorys_own_config_names_a_program(tmp_path):
    work = git_repository(tmp_path / "work")
    with open(work / ".git" / "config", "a") as config:
        config.write('[core]\n\tpager = "touch PWNED; less"\n')
    assert Policy(cwd=work).remember("run_command", {"command": "git log"}) == "this exact run_command call only"


def test_a_command_rule_binds_every_tool_that_runs_a_shell_line(provider_server, tmp_path):
    """`run_command: touch *` in ankit's own settings: job_start of the same line is refused too, under --yes."""
    write_config(tmp_path, 'sandbox = "off"\ndeny = ["run_command: touch *"]\n')
    provider_server.push_openai(tool_calls=[("c1", "job_start", json.dumps({"command": "touch PWNED"})),
                                            ("c2", "run_command", json.dumps({"command": "echo allowed"}))])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "go", "--yes")
    assert done.returncode == 0, done.stderr
    results = {m["tool_call_id"]: m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"}
    assert results["c1"].startswith("Error: refused by the rule 'run_command: touch *'"), results
    assert "allowed" in results["c2"]  # the rest still runs
    assert not (tmp_path / "work" / "PWNED").exists()
