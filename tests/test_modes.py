"""Permission modes as Claude Code names them (default, acceptEdits, plan, bypassPermissions) beside ankit's own:
--permission-mode, defaultMode in settings, Shift-Tab, /mode alone, /permissions."""

import json
from pathlib import Path

from tests.test_oneshot import ankit
from tests.test_repl import QUESTION, home, run  # noqa: F401  (fixtures)

# Claude Code's documented settings shape (permissions.defaultMode, allow, deny)
SETTINGS = {"permissions": {"defaultMode": "acceptEdits", "allow": ["Bash(npm run test:*)"],
                            "deny": ["Read(./.env)"]}}


def edits(tmp_path: Path) -> list[tuple[str, str, str]]:
    outside = tmp_path / "outside.txt"
    return [("c1", "write_file", json.dumps({"path": "notes.md", "content": "one\n"})),
            ("c2", "edit_file", json.dumps({"path": "notes.md", "old_string": "one", "new_string": "two"})),
            ("c3", "write_file", json.dumps({"path": str(outside), "content": "no\n"})),
            ("c4", "write_file", json.dumps({"path": ".claude/settings.local.json", "content": "{}"})),
            ("c5", "run_command", json.dumps({"command": "touch made", "sandbox": False, "reason": "test"}))]


def test_accept_edits_in_p_lets_edits_in_the_folder_through_while_the_rest_still_asks(provider_server, tmp_path):
    provider_server.push_openai(tool_calls=edits(tmp_path))
    provider_server.push_openai(text="Done.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--permission-mode", "acceptEdits", "-p", "go")
    assert done.returncode == 0, done.stderr
    results = [m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert (tmp_path / "work" / "notes.md").read_text() == "two\n"
    assert not results[0].startswith("Error") and not results[1].startswith("Error")
    for refused in results[2:]:  # outside the folder, a file programs run later, a command: asked, so refused
        assert refused.startswith("Error: the user declined this call"), refused
    assert not (tmp_path / "outside.txt").exists() and not (tmp_path / "work" / ".claude").exists()
    assert not (tmp_path / "work" / "made").exists()


def test_accept_edits_asks_for_a_file_programs_run_later_in_any_case_or_with_invisible_characters(provider_server,
                                                                                                  tmp_path):
    """On macOS and Windows `.GIT/hooks/pre-commit` is `.git/hooks/pre-commit`; HFS+ drops U+200C from `.g<U+200C>it`."""
    names = [".GIT/hooks/pre-commit", ".Claude/settings.local.json", ".g\u200cit/config", "sub/AGENTS.MD", ".EnvRc"]
    provider_server.push_openai(tool_calls=[(f"c{i}", "write_file", json.dumps({"path": name, "content": "x\n"}))
                                            for i, name in enumerate(names)])
    provider_server.push_openai(text="Done.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--permission-mode", "acceptEdits", "-p", "go")
    assert done.returncode == 0, done.stderr
    results = [m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert len(results) == len(names) and all(r.startswith("Error: the user declined this call") for r in results), results
    assert sorted(p.name for p in (tmp_path / "work").iterdir()) == []


def test_plan_bypass_and_a_wrong_mode(provider_server, tmp_path):
    url = provider_server.url + "/v1"
    provider_server.push_openai(tool_calls=edits(tmp_path)[:1])
    provider_server.push_openai(text="Planned.")
    plan = ankit(tmp_path, "--base-url", url, "--permission-mode", "plan", "-p", "go")
    assert plan.returncode == 0 and "write_file is refused in read-only plan mode" in json.dumps(
        provider_server.requests[1].json["messages"][-1])
    provider_server.push_openai(tool_calls=edits(tmp_path)[:1])
    provider_server.push_openai(text="Wrote.")
    bypass = ankit(tmp_path, "--base-url", url, "--permission-mode", "bypassPermissions", "-p", "go")
    assert bypass.returncode == 0 and (tmp_path / "work" / "notes.md").read_text() == "one\n"
    wrong = ankit(tmp_path, "--base-url", url, "--permission-mode", "yolo", "-p", "go")
    assert wrong.returncode == 2 and len(wrong.stderr.splitlines()) == 1
    assert "--permission-mode takes default, acceptEdits, plan or bypassPermissions" in wrong.stderr
    assert "not 'yolo'" in wrong.stderr and "sandbox must" not in wrong.stderr
    both = ankit(tmp_path, "--permission-mode", "plan", "--sandbox", "off", "-p", "go")
    assert both.returncode == 2 and "name two modes: give one" in both.stderr


def test_default_mode_from_settings_shift_tab_mode_and_permissions_in_the_repl(run, provider_server, home):
    claude = home / ".claude"
    claude.mkdir()
    (claude / "settings.json").write_text(json.dumps(SETTINGS))
    provider_server.push_openai(tool_calls=edits(home)[:2])
    provider_server.push_openai(text="Edited.")
    term = run()
    term.expect("accept edits (Shift-Tab)")
    term.line("/mode")
    term.expect("mode: acceptEdits (file edits in the folder unasked): file edits inside the folder run unasked")
    term.line("/permissions")
    term.expect(f"deny   Read(.env)  ({claude / 'settings.json'})")
    term.expect(f"allow  run_command: npm run test*  ({claude / 'settings.json'})")
    term.line("write the notes")
    term.expect("Edited.")
    assert QUESTION not in term.seen and (home / "work" / "notes.md").read_text() == "two\n"
    term.prompt()
    term.type("\x1b[Z")  # acceptEdits -> plan
    term.expect("mode: plan (read-only)")
    term.line("/mode default")
    term.expect("mode: default (workspace sandbox)")
    term.line("/mode sideways")
    term.expect("no mode 'sideways': /mode takes default, acceptEdits, plan or ask")
    assert term.finish() == 0


def test_a_settings_file_never_sets_bypass_permissions_and_hooks_see_accept_edits(provider_server, tmp_path):
    claude = tmp_path / "home" / ".claude"
    claude.mkdir(parents=True)
    hook = {"type": "command", "command": "cat >> \"$CLAUDE_PROJECT_DIR/../seen.jsonl\"; echo >> \"$CLAUDE_PROJECT_DIR/../seen.jsonl\""}
    (claude / "settings.json").write_text(json.dumps({"permissions": {"defaultMode": "bypassPermissions"},
                                                      "hooks": {"PreToolUse": [{"hooks": [hook]}]}}))
    provider_server.push_openai(tool_calls=edits(tmp_path)[:1])
    provider_server.push_openai(text="Asked.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--permission-mode", "acceptEdits", "-p", "go")
    assert done.returncode == 0, done.stderr
    assert "defaultMode bypassPermissions is not taken from a file; pass --permission-mode bypassPermissions" in done.stderr
    seen = [json.loads(line) for line in (tmp_path / "seen.jsonl").read_text().split("\n") if line.strip()]
    assert seen[0]["permission_mode"] == "acceptEdits" and seen[0]["tool_name"] == "Write"
