"""Claude Code's settings files as a layer (ankit/claude/settings.py): its rule syntax translated into ankit's,
env, what a folder's .claude/ would run; and real `ankit -p` runs where those rules refuse calls."""

import json
from pathlib import Path

from ankit.claude.settings import read_layer, translate, trust_lines
from ankit.settings.layers import load_config
from tests.test_oneshot import ankit


def test_rules_in_claude_codes_syntax_become_ankits():
    assert translate("Bash(npm run test:*)", False) == ["run_command: npm run test*", "job_start: npm run test*"]
    assert translate("Bash", True) == ["run_command", "job_start"]
    assert translate("Read(./.env)", True) == ["Read(.env)", "Read(*/.env)"]  # every tool's declared reads
    assert translate("Read(**/.env)", True) == ["Read(.env)", "Read(*/.env)"]
    assert translate("Edit(src/**)", False) == ["Edit(src/*)"] == translate("Write(src/**)", False)
    assert translate("Grep(secrets/**)", True) == ["search_text: secrets/*"]
    assert translate("WebFetch(domain:example.com)", False) == ["web_fetch: https://example.com/*",
                                                                "web_fetch: http://example.com/*"]
    assert "http_request: https://example.com/*" in translate("WebFetch(domain:example.com)", True)
    assert translate("mcp__github__create_issue", True) == ["mcp__github__create_issue"]
    assert translate("mcp__github", True) == ["mcp__github"] and translate("mcp__github__*", False) == ["mcp__github__*"]
    assert translate("NotebookEdit", True) is None and translate("mcp__", True) is None
    assert translate("Bash(rm -rf", True) is None


def test_what_cannot_be_applied_is_said_and_env_is_read(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"permissions": {"deny": ["NotebookEdit", "Read(./.env)"], "defaultMode": "plan"},
                                "env": {"BUILD_MODE": "ci", "DEBUG": True, "bad name": "x", "LIST": [1]}}))
    layer = read_layer([path])
    assert "Read(.env)" in layer.deny
    assert layer.problems == [f"{path}: ankit cannot apply the deny rule 'NotebookEdit'; it is ignored"]
    assert layer.mode == "plan"
    assert layer.env == {"BUILD_MODE": "ci", "DEBUG": "true"}


def test_a_project_deny_applies_untrusted_its_allow_and_env_wait_for_trust(tmp_path):
    work = tmp_path / "work"
    (work / ".claude").mkdir(parents=True)
    (work / ".claude" / "settings.json").write_text(json.dumps({"permissions": {
        "deny": ["Bash(curl:*)"], "allow": ["Bash(npm run test:*)"]}, "env": {"PATH": "/evil", "TZ": "UTC"}}))
    config = load_config({}, {}, work, tmp_path / "config")
    assert "run_command: curl*" in config.deny and config.allow == [] and config.claude_env == {}
    assert "allow without asking: Bash(npm run test:*)" in config.held_claude
    assert "set the environment variable TZ=UTC" in config.held_claude
    assert not any("PATH" in line for line in config.held_claude)  # never set: the question does not promise it
    (work / ".ankit").mkdir()
    (work / ".ankit" / "config.toml").write_text('env_names = ["PATH"]\n')  # a project's word lets nothing through
    config = load_config({"trust": True}, {}, work, tmp_path / "config")
    assert "run_command: npm run test*" in config.allow and config.claude_env == {"TZ": "UTC"}  # PATH runs programs
    assert any(line.startswith("settings env: not set: PATH (only a name known not") for line in config.problems)
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.toml").write_text('env_names = ["PATH"]\n')  # the user's own word: for the user's
    assert "PATH" not in load_config({"trust": True}, {}, work, tmp_path / "config").claude_env  # own file only
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "settings.json").write_text(json.dumps({"env": {"PATH": "/mine"}}))
    mine = load_config({"trust": True}, {}, work, tmp_path / "config", claude_home=tmp_path / "home")
    assert mine.claude_env["PATH"] == "/mine"


def test_nothing_to_trust_in_a_folder_without_claude_files(tmp_path):
    assert trust_lines(tmp_path) == []
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text('{"permissions": {"deny": ["Bash(curl:*)"]}}')
    assert trust_lines(tmp_path) == []  # a deny rule only tightens: nothing to trust


def test_the_users_claude_settings_refuse_reading_env_and_set_the_environment(provider_server, tmp_path):
    home = tmp_path / "home" / ".claude"
    home.mkdir(parents=True)
    (home / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Read(./.env)", "Bash(curl:*)"]},
                                                    "env": {"NODE_ENV": "nightly", "BASH_ENV": "x.sh"}}))
    work = tmp_path / "work"
    work.mkdir()
    (work / ".env").write_text("TOKEN=abc\n")
    provider_server.push_openai(tool_calls=[("c1", "read_file", '{"path": ".env"}'),
                                            ("c2", "run_command", '{"command": "ls; curl http://x"}'),
                                            ("c3", "run_command", '{"command": "echo flavour=$NODE_ENV"}')])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "go", "--yes")
    assert done.returncode == 0, done.stderr
    sent = [m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert sent[0].startswith("Error: refused by the rule 'Read(.env)' in the settings (it reads .env)")
    assert sent[1].startswith("Error: refused by the rule 'run_command: curl*'")
    assert "flavour=nightly" in sent[2]
    assert "settings env: not set: BASH_ENV (only a name known not to make a program run code passes" in done.stderr


def test_env_of_every_settings_file_is_merged_once_for_commands_hooks_and_mcp_servers(provider_server, tmp_path):
    """Claude Code's documented merge: settings.local.json over .claude/settings.json over ~/.claude/settings.json,
    the same for everything the session runs (a hook no longer gets only its own file's env)."""
    import shlex
    import sys
    user = tmp_path / "home" / ".claude"
    user.mkdir(parents=True)
    show = "$NODE_ENV $RAILS_ENV $APP_ENV"
    hook = {"type": "command", "command": f"echo \"hook: {show}\" >> \"$CLAUDE_PROJECT_DIR/seen.txt\""}
    (user / "settings.json").write_text(json.dumps({
        "env": {"NODE_ENV": "user", "RAILS_ENV": "user", "APP_ENV": "user"},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}))
    project = tmp_path / "work" / ".claude"
    project.mkdir(parents=True)
    (project / "settings.json").write_text(json.dumps({"env": {"NODE_ENV": "project", "RAILS_ENV": "project"}}))
    (project / "settings.local.json").write_text(json.dumps({"env": {"NODE_ENV": "local"}}))
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True)
    fake, seen = Path(__file__).resolve().parent / "mcp_fake_server.py", tmp_path / "seen-mcp.txt"
    start = f"echo \"mcp: {show}\" > {shlex.quote(str(seen))}; exec {shlex.quote(sys.executable)} {shlex.quote(str(fake))}"
    (config / "config.toml").write_text(f"[mcp.servers.fake]\ncommand = \"sh\"\nargs = {json.dumps(['-c', start])}\n"
                                        "core = true\n")
    provider_server.push_openai(tool_calls=[("c1", "run_command", json.dumps({"command": f"echo \"command: {show}\""})),
                                            ("c2", "mcp__fake__whereami", "{}")])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "go", "--yes", "--trust")
    assert done.returncode == 0, done.stderr
    sent = [m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert "command: local project user" in sent[0]
    assert seen.read_text() == "mcp: local project user\n"
    assert (tmp_path / "work" / "seen.txt").read_text() == "hook: local project user\n"
