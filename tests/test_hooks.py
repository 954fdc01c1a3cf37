"""Hooks: real hook commands in real processes, Claude Code's protocol on stdin/stdout/exit code, and ankit -p
blocking a call with a PreToolUse hook against the loopback provider."""

import json
import shutil
import sys
from pathlib import Path

import pytest

from ankit.records import ToolCall
from ankit.hooks.config import from_claude_settings, from_config, listing, load_hooks
from ankit.hooks.events import Hook, Hooks
from ankit.tooling.toolbox import Runner, Tool, ToolContext
from tests.test_oneshot import ankit
from tests.test_repl import home, run, session_lines, sessions  # noqa: F401  (pytest fixtures)

PY = sys.executable
GUARDS = Path(__file__).parent / "fixtures" / "claude_hooks"  # real Claude Code hooks (MIT, see its README.md)
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="the real guard hooks are Node scripts")


def script(tmp_path: Path, name: str, body: str) -> str:
    """A hook command running a Python script written here."""
    path = tmp_path / f"{name}.py"
    path.write_text("import json, sys\nevent = json.load(sys.stdin)\n" + body)
    return f"{PY} {path}"


def echo_tool(ran: list) -> Tool:
    return Tool("run_command", "Run.", {"type": "object", "properties": {"command": {"type": "string"}}},
                lambda args: ran.append(args) or f"ran {args['command']}", group="shell", needs_approval=True)


def runner(hooks: Hooks, ran: list, approve=lambda tool, args, preview: True) -> Runner:
    return Runner({"run_command": echo_tool(ran)}, ToolContext(cwd=hooks.cwd), approve, hooks=hooks)


def test_exit_2_blocks_the_call_and_its_stderr_is_the_reason(tmp_path):
    seen = tmp_path / "seen.json"
    command = script(tmp_path, "deny", f"open({str(seen)!r}, 'w').write(json.dumps(event))\n"
                                       "sys.stderr.write('no rm -rf here'); sys.exit(2)\n")
    hooks = Hooks([Hook("PreToolUse", command, "run_command|write_file")], tmp_path)
    hooks.bind("20261201-120000-abcd")
    ran = []
    result = runner(hooks, ran).run(ToolCall("c1", "run_command", '{"command": "rm -rf /"}'))
    assert ran == [] and result.is_error
    assert result.content == "Error: blocked by a PreToolUse hook: no rm -rf here"
    event = json.loads(seen.read_text())
    assert event["hook_event_name"] == "PreToolUse" and event["tool_name"] == "Bash"
    assert event["tool_input"] == {"command": "rm -rf /"} and event["session_id"] == "20261201-120000-abcd"
    assert event["cwd"] == str(tmp_path) and event["tool_use_id"] == "c1"


def test_a_hook_whose_matcher_misses_does_not_run(tmp_path):
    hooks = Hooks([Hook("PreToolUse", "exit 2", "write_file")], tmp_path)
    ran = []
    assert not runner(hooks, ran).run(ToolCall("c1", "run_command", '{"command": "ls"}')).is_error
    assert ran == [{"command": "ls"}]


def test_claude_code_tool_names_match_ankit_tools(tmp_path):
    assert Hook("PreToolUse", "x", "Bash").matches("run_command")
    assert Hook("PreToolUse", "x", "Edit|Write").matches("write_file")
    assert not Hook("PreToolUse", "x", "Edit|Write").matches("run_command")
    assert Hook("PreToolUse", "x", "*").matches("anything") and Hook("PreToolUse", "x", "[bad").matches("x") is False


def test_json_deny_allow_and_updated_input(tmp_path):
    deny = script(tmp_path, "deny", 'print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", '
                                    '"permissionDecision": "deny", "permissionDecisionReason": "use git instead"}}))\n')
    ran = []
    result = runner(Hooks([Hook("PreToolUse", deny)], tmp_path), ran).run(ToolCall("c1", "run_command", '{"command": "x"}'))
    assert result.content.endswith("use git instead") and ran == []
    allow = script(tmp_path, "allow", 'print(json.dumps({"hookSpecificOutput": {"permissionDecision": "allow", '
                                      '"updatedInput": {"command": "ls -la"}}}))\n')
    asked = []
    refuse = lambda tool, args, preview: asked.append(args) or False
    result = runner(Hooks([Hook("PreToolUse", allow)], tmp_path), ran, refuse).run(
        ToolCall("c1", "run_command", '{"command": "ls"}'))
    assert asked == [] and ran == [{"command": "ls -la"}] and result.content == "ran ls -la"


def test_post_tool_use_sees_the_response_and_a_block_reaches_the_model(tmp_path):
    command = script(tmp_path, "post", 'print(json.dumps({"decision": "block", "reason": "saw " + event["tool_response"]["stdout"]}))\n')
    ran = []
    result = runner(Hooks([Hook("PostToolUse", command)], tmp_path), ran).run(
        ToolCall("c1", "run_command", '{"command": "ls"}'))
    assert result.content == "ran ls\n[PostToolUse hook] saw ran ls"


def test_failures_are_one_line_and_the_call_goes_on(tmp_path):
    notes = []
    hooks = Hooks([Hook("PreToolUse", "echo oops >&2; exit 1"), Hook("PreToolUse", "sleep 30", timeout=0.5),
                   Hook("PreToolUse", f"{tmp_path}/missing-hook")], tmp_path)
    ran = []
    result = runner(hooks, ran).run(ToolCall("c1", "run_command", '{"command": "ls"}'), notes.append)
    assert not result.is_error and ran == [{"command": "ls"}]
    assert notes[0] == "ankit: PreToolUse hook 'echo oops >&2; exit 1' exited with 1: oops; going on\n"
    assert notes[1] == "ankit: PreToolUse hook 'sleep 30': stopped after 0.5 s (its timeout); going on\n"
    assert "exited with 127" in notes[2]


def test_a_timed_out_hook_dies_with_its_children(tmp_path):
    marker = tmp_path / "child-alive"
    hooks = Hooks([Hook("Stop", f"(sleep 1.5; touch {marker}) & sleep 30", timeout=0.3)], tmp_path)
    assert hooks.run("Stop", {}).notes
    import time
    time.sleep(2)
    assert not marker.exists()


def test_user_prompt_context_and_continue_false(tmp_path):
    hooks = Hooks([Hook("UserPromptSubmit", "echo 'the build is red'")], tmp_path)
    assert hooks.run("UserPromptSubmit", {"prompt": "hi"}).context == ["the build is red"]
    stop = script(tmp_path, "stop", 'print(json.dumps({"continue": False, "stopReason": "quota reached"}))\n')
    assert Hooks([Hook("Stop", stop)], tmp_path).run("Stop", {}).stop == "quota reached"


def test_config_tables_and_claude_settings_json(tmp_path):
    hooks, problems = from_config({"PreToolUse": [{"matcher": "run_command", "command": "check", "timeout": 5}],
                                   "Nope": [{"command": "x"}], "Stop": [{"matcher": "x"}]}, "config.toml")
    assert hooks == [Hook("PreToolUse", "check", "run_command", 5.0, "config.toml")]
    assert len(problems) == 2 and "unknown hook event 'Nope'" in problems[0]
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "guard.sh", "timeout": 30}]}], "PermissionRequest": []}}))
    assert from_claude_settings(settings)[0] == [Hook("PreToolUse", "guard.sh", "Bash", 30.0, str(settings))]
    settings.write_text("{not json")
    assert from_claude_settings(settings)[1] == [f"{settings}: not read (JSONDecodeError); its hooks and permissions are off"]
    loaded = load_hooks({"Stop": [{"command": "say done"}]}, "config.toml", [tmp_path / "none.json"], tmp_path)
    assert listing(loaded) == "Stop  say done  (timeout 60 s; config.toml)"
    assert listing(Hooks()).startswith("no hooks are active")


def test_a_pre_tool_use_hook_blocks_run_command_under_yes(provider_server, tmp_path):
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True)
    guard = script(tmp_path, "guard", "sys.stderr.write('commands are frozen until 5 pm'); sys.exit(2)\n")
    config.joinpath("config.toml").write_text(
        f'[[hooks.PreToolUse]]\nmatcher = "run_command|write_file"\ncommand = "{guard}"\ntimeout = 30\n')
    provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "touch made.txt"}')])
    provider_server.push_openai(text="The hook refused.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "make a file", "--yes")
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "work" / "made.txt").exists()
    sent = provider_server.requests[1].json["messages"][-1]
    assert sent["role"] == "tool" and sent["content"] == "Error: blocked by a PreToolUse hook: commands are frozen until 5 pm"
    assert done.stdout == "The hook refused.\n"


def test_hooks_of_an_untrusted_project_are_off(provider_server, tmp_path):
    project = tmp_path / "work" / ".claude"
    project.mkdir(parents=True)
    project.joinpath("settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "", "hooks": [
        {"type": "command", "command": "touch hooked; exit 2"}]}]}}))
    provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "touch made.txt"}')])
    provider_server.push_openai(text="done")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "make a file", "--yes")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "work" / "made.txt").exists() and not (tmp_path / "work" / "hooked").exists()
    assert "ignoring this folder's 1 thing(s) it would run (.claude/ hooks, .mcp.json, agents, commands): the folder is not trusted" in done.stderr


def user_config(home: Path, text: str) -> None:
    folder = home / "config" / "ankit"
    folder.mkdir(parents=True, exist_ok=True)
    folder.joinpath("config.toml").write_text(text)


def test_a_stop_hook_exiting_2_is_shown_once_as_feedback_and_bounded(run, provider_server, home):
    nag = script(home, "nag", "sys.stderr.write('run the tests before you stop'); sys.exit(2)\n")
    user_config(home, f'[[hooks.Stop]]\ncommand = "{nag}"\n')
    for _ in range(4):
        provider_server.push_openai(text="All done here.")
    term = run()
    term.expect("ankit ")
    term.line("fix the bug")
    screen = term.expect("\n> ")
    assert screen.count("Stop hook feedback: run the tests before you stop") == 1
    assert screen.count("All done here.") == 2  # sent back once; the same reply again is not sent back again
    assert "the Stop hook sent the model back 1 times; not again (the reply did not change)" in screen
    assert term.finish() == 0
    assert len(provider_server.requests) == 2
    assert provider_server.requests[1].json["messages"][-1] == {"role": "user",
                                                                "content": "[Stop hook] run the tests before you stop"}


def test_user_prompt_submit_context_is_sent_but_never_listed_as_typed(run, provider_server, home):
    user_config(home, '[[hooks.UserPromptSubmit]]\ncommand = "echo branch: main"\n')
    provider_server.push_openai(text="First answer.")
    provider_server.push_openai(text="Second answer.")
    term = run()
    term.expect("ankit ")
    term.line("fix the bug")
    term.expect("First answer.")
    term.line("and the test")
    term.expect("Second answer.")
    assert provider_server.requests[0].json["messages"][-1]["content"] == "fix the bug\n\nbranch: main"
    term.line("/rewind")
    listed = term.expect("rewind to just before which message?")
    assert "1  fix the bug\n" in listed and "2  and the test\n" in listed and "branch" not in listed
    term.type("\r")
    term.expect("\n> ")
    assert term.finish() == 0
    [first, *_] = [line for line in session_lines(sessions(home)[0]) if line.get("role") == "user"]
    assert first["text"] == "fix the bug\n\nbranch: main" and first["added"] == ["branch: main"]


def claude_settings(folder: Path, event: str, matcher: str, command: str, **more) -> Path:
    """A Claude Code settings.json with one hook, as people write them."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "settings.json"
    path.write_text(json.dumps({"hooks": {event: [{"matcher": matcher, "hooks": [
        {"type": "command", "command": command}]}]}, **more}, indent=2))
    return path


def tool_results(provider_server) -> list[str]:
    """The content of every tool result the model was sent, in order."""
    return [m["content"] for r in provider_server.requests for m in r.json["messages"][-3:] if m["role"] == "tool"]


@needs_node
def test_a_real_guard_hook_stops_rm_rf_and_a_background_job_as_claude_code_would(provider_server, tmp_path):
    claude_settings(tmp_path / "home" / ".claude", "PreToolUse", "Bash",
                    f"node {GUARDS / 'block-dangerous-commands.js'}")
    provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "rm -rf /etc/ankit-nothing"}'),
                                            ("c2", "job_start", '{"command": "rm -rf ~"}'),
                                            ("c3", "run_command", '{"command": "echo fine > ok.txt"}')])
    provider_server.push_openai(text="The guard said no.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "clean up", "--yes")
    assert done.returncode == 0, done.stderr
    sent = [m for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert sent[0]["content"] == ("Error: blocked by a PreToolUse hook: \U0001f6a8 [rm-system] rm targeting "
                                  "system directory")
    assert sent[1]["content"] == "Error: blocked by a PreToolUse hook: \U0001f6a8 [rm-home] rm targeting home directory"
    assert not sent[2]["content"].startswith("Error") and (tmp_path / "work" / "ok.txt").exists()
    assert (tmp_path / "home").is_dir() and done.stdout == "The guard said no.\n"


@needs_node
def test_a_real_secrets_guard_stops_reading_and_deleting_env(provider_server, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / ".env").write_text("API_TOKEN=do-not-read\n")
    (work / "README.md").write_text("hello\n")
    claude_settings(tmp_path / "home" / ".claude", "PreToolUse", "Read|Edit|Write|Bash",
                    f"node {GUARDS / 'protect-secrets.js'}")
    provider_server.push_openai(tool_calls=[("c1", "read_file", '{"path": ".env"}'),
                                            ("c2", "delete_file", '{"path": ".env"}'),
                                            ("c3", "move_file", '{"source": ".env", "destination": "env.txt"}'),
                                            ("c4", "read_file", '{"path": "README.md"}')])
    provider_server.push_openai(text="Not allowed.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "show the secrets", "--yes")
    assert done.returncode == 0, done.stderr
    sent = [m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert sent[0].startswith("Error: blocked by a PreToolUse hook: ") and "Cannot read: .env file" in sent[0]
    assert "[rm-env]" in sent[1] and "[mv-env]" in sent[2] and "do-not-read" not in json.dumps(sent)
    assert sent[3].startswith("1\thello")
    assert (work / ".env").read_text() == "API_TOKEN=do-not-read\n" and not (work / "env.txt").exists()


def test_a_chatty_hook_is_capped_as_it_streams_never_read_whole(tmp_path):
    import resource
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    hooks = Hooks([Hook("PostToolUse", "head -c 300000000 /dev/zero | tr '\\\\0' x; echo done >&2; exit 2")], tmp_path)
    outcome = hooks.run("PostToolUse", {})
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before  # kilobytes on Linux
    assert grown < 100_000, f"reading the hook's output took {grown} kB"
    assert outcome.blocked and outcome.reason == "done"
    assert any("printed more than 65,536 bytes; the rest was dropped" in n for n in outcome.notes)


def test_hook_text_has_escapes_shown_and_secrets_scrubbed(provider_server, tmp_path):
    loud = script(tmp_path, "loud", "import os\nsys.stderr.write('\\x1b[2J\\x1b]0;owned\\x07 key ' + os.environ['DEPLOY_TOKEN'])\n"
                                    "sys.exit(2)\n")
    claude_settings(tmp_path / "home" / ".claude", "PreToolUse", "Bash", loud)
    provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "ls"}')])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "go", "--yes",
                 DEPLOY_TOKEN="dt-4f9a8b7c6d5e4f3a2b1c")
    assert done.returncode == 0, done.stderr
    [sent] = [m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert sent == "Error: blocked by a PreToolUse hook: ^[[2J^[]0;owned^G key [redacted]"


def test_what_a_hook_leaves_running_dies_with_ankit(provider_server, tmp_path):
    pid_file = tmp_path / "left.pid"
    claude_settings(tmp_path / "home" / ".claude", "SessionStart", "",
                    f"sleep 300 > /dev/null 2>&1 < /dev/null & echo $! > {pid_file}")
    provider_server.push_openai(text="hi")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "hello")
    assert done.returncode == 0, done.stderr
    pid = int(pid_file.read_text())
    import os
    import time
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists() and "Z" not in _state(pid):
        time.sleep(0.05)
    assert not Path(f"/proc/{pid}").exists() or "Z" in _state(pid), "the hook's background sleep outlived ankit"
    try:
        os.kill(pid, 9)
    except OSError:
        pass


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return "Z"


def every_event(home: Path, log: Path, answer: str = "") -> None:
    """~/.claude/settings.json with one recorder hook on each of Claude Code's events; it prints `answer`."""
    recorder = script(home.parent, "recorder", f"open({str(log)!r}, 'a').write(json.dumps(event) + '\\n')\n"
                                               f"print({answer!r})\n")
    events = ["PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit",
              "Notification", "Stop", "SubagentStart", "SubagentStop", "PreCompact", "SessionStart", "SessionEnd"]
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps({"hooks": {
        e: [{"hooks": [{"type": "command", "command": recorder}]}] for e in events}}))


def test_each_event_gets_claude_codes_fields(provider_server, tmp_path):
    log = tmp_path / "events.jsonl"
    every_event(tmp_path / "home", log)
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("one\ntwo\nthree\n")
    provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "echo hi", "timeout": 5}'),
                                            ("c2", "read_file", '{"path": "notes.txt", "start_line": 2, "end_line": 3}'),
                                            ("c3", "read_file", '{"path": "missing.txt"}'),
                                            ("c4", "task", '{"description": "look", "prompt": "say hi"}')])
    provider_server.push_openai(text="sub answer")
    provider_server.push_openai(text="all done")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "do it", "--yes")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in log.read_text().splitlines()]
    names = [e["hook_event_name"] for e in events]
    assert names[:2] == ["SessionStart", "UserPromptSubmit"] and names[-2:] == ["Stop", "SessionEnd"]
    assert {"SubagentStart", "SubagentStop", "PostToolUseFailure"} <= set(names)
    assert all(e["permission_mode"] == "bypassPermissions" and e["cwd"] == str(tmp_path / "work") for e in events)
    pre = [e for e in events if e["hook_event_name"] == "PreToolUse"]
    assert pre[0]["tool_name"] == "Bash" and pre[0]["tool_input"] == {"command": "echo hi", "timeout": 5000}
    assert pre[1]["tool_name"] == "Read" and pre[1]["tool_input"] == {
        "file_path": str(tmp_path / "work" / "notes.txt"), "offset": 2, "limit": 2}
    assert pre[3]["tool_name"] == "Task" and pre[3]["tool_input"]["prompt"] == "say hi"
    post = [e for e in events if e["hook_event_name"] == "PostToolUse"]
    assert post[0]["tool_response"]["stdout"].startswith("exit code 0") and "hi" in post[0]["tool_response"]["stdout"]
    assert post[1]["tool_response"]["file"]["filePath"] == str(tmp_path / "work" / "notes.txt")
    [failure] = [e for e in events if e["hook_event_name"] == "PostToolUseFailure"]
    assert failure["tool_name"] == "Read" and "missing.txt" in failure["error"] and failure["is_interrupt"] is False
    [start] = [e for e in events if e["hook_event_name"] == "SubagentStart"]
    assert start["agent_type"] == "general" and start["agent_id"]


def test_hooks_of_one_event_run_side_by_side(tmp_path):
    """Each hook waits for the other to have started: run one after the other, the first would time out."""
    wait = "import os, time\nme, other = sys.argv[1], sys.argv[2]\nopen(me, 'w').close()\n" \
           "end = time.time() + 5\nwhile not os.path.exists(other) and time.time() < end: time.sleep(0.02)\n" \
           "sys.exit(0 if os.path.exists(other) else 1)\n"
    both = script(tmp_path, "both", wait)
    hooks = Hooks([Hook("Stop", f"{both} {tmp_path}/a {tmp_path}/b", timeout=4),
                   Hook("Stop", f"{both} {tmp_path}/b {tmp_path}/a", timeout=4)], tmp_path)
    assert hooks.run("Stop", {}).notes == []


def test_a_permission_request_hook_answers_the_question_the_user_would_get(provider_server, tmp_path):
    answer = script(tmp_path, "answer", "command = event['tool_input']['command']\n"
                    "behavior = 'allow' if command.startswith('touch') else 'deny'\n"
                    "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PermissionRequest', "
                    "'decision': {'behavior': behavior, 'message': 'only touch is fine'}}}))\n")
    claude_settings(tmp_path / "home" / ".claude", "PermissionRequest", "Bash", answer)
    provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "touch made.txt"}'),
                                            ("c2", "run_command", '{"command": "rm made.txt"}')])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "go", "--sandbox", "ask")
    assert done.returncode == 0, done.stderr
    sent = [m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert not sent[0].startswith("Error") and (tmp_path / "work" / "made.txt").exists()
    assert sent[1].startswith("Error") and "only touch is fine" in sent[1]


def test_a_session_start_hook_sets_variables_for_later_commands_through_claude_env_file(provider_server, tmp_path):
    claude_settings(tmp_path / "home" / ".claude", "SessionStart", "",
                    "echo 'export NODE_ENV=production' >> \"$CLAUDE_ENV_FILE\"; "
                    "echo 'export EVIL=$(touch pwned)' >> \"$CLAUDE_ENV_FILE\"")
    provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "echo env=$NODE_ENV evil=$EVIL"}')])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "go", "--yes")
    assert done.returncode == 0, done.stderr
    [sent] = [m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert sent.endswith("env=production evil=") and not (tmp_path / "work" / "pwned").exists()
    assert "CLAUDE_ENV_FILE: 1 line(s) were not plain NAME=value assignments and were ignored" in done.stderr


def test_a_hook_cannot_make_later_commands_run_a_prelude_through_bash_env(provider_server, tmp_path):
    prelude = tmp_path / "prelude.sh"
    prelude.write_text(f"touch {tmp_path / 'pwned'}\n")
    claude_settings(tmp_path / "home" / ".claude", "SessionStart", "",
                    f"echo 'export BASH_ENV={prelude}' >> \"$CLAUDE_ENV_FILE\"; "
                    "echo 'export NODE_ENV=production' >> \"$CLAUDE_ENV_FILE\"")
    provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "echo hello $NODE_ENV"}')])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "go", "--yes")
    assert done.returncode == 0, done.stderr
    [sent] = [m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert sent.endswith("hello production") and not (tmp_path / "pwned").exists()
    assert "CLAUDE_ENV_FILE: not set: BASH_ENV (only a name known not to make a program run code" in done.stderr


def test_a_prompt_hook_is_answered_by_the_model(provider_server, tmp_path):
    settings = tmp_path / "home" / ".claude"
    settings.mkdir(parents=True)
    (settings / "settings.json").write_text(json.dumps({"hooks": {"Stop": [{"hooks": [
        {"type": "prompt", "prompt": "Were the tests run? $ARGUMENTS", "timeout": 20}]}]}}))
    provider_server.push_openai(text="Done.")
    provider_server.push_openai(text='{"ok": false, "reason": "run the tests first"}')
    provider_server.push_openai(text="Ran them: all pass.")
    provider_server.push_openai(text='{"ok": true}')
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "fix it")
    assert done.returncode == 0, done.stderr
    asked = provider_server.requests[1].json["messages"]
    assert asked[0]["role"] == "system" and '{"ok": true}' in asked[0]["content"]
    assert asked[-1]["content"].startswith("Were the tests run? {") and '"hook_event_name": "Stop"' in asked[-1]["content"]
    assert provider_server.requests[2].json["messages"][-1]["content"] == "[Stop hook] run the tests first"
    assert "Stop hook feedback: run the tests first" in done.stderr and len(provider_server.requests) == 4
    assert done.stdout.endswith("Ran them: all pass.\n")


def test_max_cost_stops_a_prompt_hooks_question(provider_server, tmp_path):
    settings = tmp_path / "home" / ".claude"
    settings.mkdir(parents=True)
    (settings / "settings.json").write_text(json.dumps({"hooks": {"Stop": [{"hooks": [
        {"type": "prompt", "prompt": "Were the tests run? $ARGUMENTS", "timeout": 20}]}]}}))
    (tmp_path / "config" / "ankit").mkdir(parents=True)
    (tmp_path / "config" / "ankit" / "config.toml").write_text('max_cost = 0.5\n[prices."priced-model"]\ninput = 1\n'
                                                                'output = 0\n')
    provider_server.push_openai(text="Done.", usage={"prompt_tokens": 499_990, "completion_tokens": 1,
                                                     "total_tokens": 499_991})  # $0.49999 of $0.50
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--model", "priced-model", "-p", "fix it")
    assert "the model did not answer (stopped by max_cost $0.5000" in done.stderr
    assert len(provider_server.requests) == 1 and done.stdout == "Done.\n"


def test_what_ankit_does_not_support_is_said_once_at_start(provider_server, tmp_path):
    settings = tmp_path / "home" / ".claude"
    settings.mkdir(parents=True)
    odd = script(tmp_path, "odd", 'print(json.dumps({"suppressOutput": True, "hookSpecificOutput": '
                                  '{"hookEventName": "PostToolUse", "updatedMCPToolOutput": "x"}, "extra": 1}))\n')
    (settings / "settings.json").write_text(json.dumps({"hooks": {
        "ConfigChange": [{"hooks": [{"type": "command", "command": "true"}]}],
        "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "agent", "prompt": "x"},
                                                      {"type": "command", "command": odd, "async": True}]}]}}))
    provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "echo 1"}')])
    provider_server.push_openai(tool_calls=[("c2", "run_command", '{"command": "echo 2"}')])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "go", "--yes")
    assert done.returncode == 0, done.stderr
    path = settings / "settings.json"
    assert f"ankit: {path}: ankit has no ConfigChange event; those hooks do not run\n" in done.stderr
    assert f"ankit: {path}: a PostToolUse hook of type 'agent' is not supported; skipped\n" in done.stderr
    assert f"ankit: {path}: ankit ignores 'async' in a PostToolUse hook\n" in done.stderr
    assert done.stderr.count("does not support the output field(s) extra, updatedMCPToolOutput") == 1


def test_updated_input_comes_back_in_ankits_terms_and_a_rewritten_delete_is_refused(tmp_path):
    move = script(tmp_path, "move", 'inp = dict(event["tool_input"], file_path=event["cwd"] + "/safe/out.txt")\n'
                                    'print(json.dumps({"hookSpecificOutput": {"updatedInput": inp}}))\n')
    hooks = Hooks([Hook("PreToolUse", move, "Edit|Write")], tmp_path)
    seen = []
    tools = {"write_file": Tool("write_file", "W.", {"type": "object", "properties": {
        "path": {"type": "string"}, "content": {"type": "string"}}}, lambda a: seen.append(a) or "ok", group="edit"),
             "delete_file": Tool("delete_file", "D.", {"type": "object", "properties": {"path": {"type": "string"}}},
                                 lambda a: seen.append(a) or "ok", group="edit")}
    run = Runner(tools, ToolContext(cwd=tmp_path), lambda tool, args, preview: True, hooks=hooks)
    assert run.run(ToolCall("c1", "write_file", '{"path": "a.txt", "content": "x"}')).content == "ok"
    assert seen == [{"path": "safe/out.txt", "content": "x"}]
    refused = run.run(ToolCall("c2", "delete_file", '{"path": "a.txt"}'))
    assert refused.is_error and "changed the Bash input of delete_file in a way ankit cannot apply" in refused.content
    assert len(seen) == 1


@needs_node
def test_the_guards_are_not_sidestepped_by_typing_into_a_job_a_patch_or_a_link(provider_server, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / ".env").write_text("API_TOKEN=do-not-read\n")
    (work / "notes").symlink_to(".env")
    settings = tmp_path / "home" / ".claude"
    settings.mkdir(parents=True)
    (settings / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": f"node {GUARDS / 'block-dangerous-commands.js'}"}]},
        {"matcher": "Read|Edit|Write|Bash", "hooks": [{"type": "command",
                                                        "command": f"node {GUARDS / 'protect-secrets.js'}"}]}]}}))
    patch = "--- /dev/null\n+++ b/config/.env.production\n@@ -0,0 +1 @@\n+API_TOKEN=planted\n"
    provider_server.push_openai(tool_calls=[("c1", "job_input", '{"job_id": "j1", "text": "rm -rf ~"}'),
                                            ("c2", "apply_patch", json.dumps({"patch": patch})),
                                            ("c3", "read_file", '{"path": "notes"}')])
    provider_server.push_openai(text="stopped")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "go", "--yes")
    assert done.returncode == 0, done.stderr
    sent = [m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert "[rm-home]" in sent[0]
    assert "[env-file]" in sent[1] and not (work / "config").exists()
    assert "[env-file]" in sent[2] and "do-not-read" not in json.dumps(sent)



def test_a_subagent_stop_hook_sends_the_subagent_back_once(provider_server, tmp_path):
    flag = tmp_path / "blocked-once"
    claude_settings(tmp_path / "home" / ".claude", "SubagentStop", "",
                    f"if [ -e {flag} ]; then exit 0; fi; touch {flag}; echo 'cite the file' >&2; exit 2")
    provider_server.push_openai(tool_calls=[("c1", "task", '{"description": "look", "prompt": "find it"}')])
    provider_server.push_openai(text="it is somewhere")
    provider_server.push_openai(text="it is in main.py")
    provider_server.push_openai(text="done")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "go", "--yes")
    assert done.returncode == 0, done.stderr
    assert provider_server.requests[2].json["messages"][-1]["content"] == "[SubagentStop hook] cite the file"
    [result] = [m["content"] for m in provider_server.requests[3].json["messages"] if m["role"] == "tool"]
    assert result == "it is in main.py"


@needs_node
def test_a_real_git_guard_stops_ankits_own_commit_tool_on_main(provider_server, tmp_path):
    import subprocess
    work = tmp_path / "work"
    work.mkdir()
    git = ["git", "-C", str(work)]
    subprocess.run(["git", "init", "-q", "-b", "main", str(work)], check=True)
    subprocess.run([*git, "config", "user.name", "t"], check=True)
    subprocess.run([*git, "config", "user.email", "t@example.com"], check=True)
    (work / "a.txt").write_text("one\n")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "first"], check=True)
    (work / "a.txt").write_text("two\n")
    claude_settings(tmp_path / "home" / ".claude", "PreToolUse", "Bash", f"node {GUARDS / 'git-safety.js'}")
    provider_server.push_openai(tool_calls=[("c1", "git_commit", '{"message": "second", "all": true}')])
    provider_server.push_openai(text="not on main")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "commit it", "--yes")
    assert done.returncode == 0, done.stderr
    [sent] = [m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert "[commit-on-protected] Committing directly on main is not allowed" in sent
    log = subprocess.run([*git, "log", "--oneline"], capture_output=True, text=True).stdout
    assert log.count("\n") == 1


@needs_node
def test_a_plugins_hooks_find_their_scripts_through_claude_plugin_root(tmp_path):
    plugin = GUARDS / "plugin"
    found, problems = from_claude_settings(plugin / "hooks" / "hooks.json", plugin_root=plugin)
    assert problems == [] and found[0].matcher == "Bash"
    found[0].env["HOME"] = str(tmp_path)  # the script logs under ~/.claude
    ran = []
    result = runner(Hooks(found, tmp_path), ran).run(ToolCall("c1", "run_command", '{"command": "rm -rf /etc/x"}'))
    assert ran == [] and "[rm-system] rm targeting system directory" in result.content


def test_a_session_start_matcher_takes_the_source_and_disable_all_hooks_is_obeyed(provider_server, tmp_path):
    marker = tmp_path / "resumed"
    settings = claude_settings(tmp_path / "home" / ".claude", "SessionStart", "resume", f"echo x >> {marker}")
    provider_server.push_openai(text="one")
    provider_server.push_openai(text="two")
    assert ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "hi").returncode == 0
    assert not marker.exists()  # a new session's source is startup
    assert ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--continue", "-p", "more").returncode == 0
    assert marker.read_text() == "x\n"
    data = json.loads(settings.read_text())
    settings.write_text(json.dumps({**data, "disableAllHooks": True}))
    provider_server.push_openai(text="three")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--continue", "-p", "again")
    assert marker.read_text() == "x\n" and f"{settings}: disableAllHooks is set; no hook runs" in done.stderr
