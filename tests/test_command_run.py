"""A custom command's !`command` lines as a user meets them on a pty: run through the tool runner (policy,
sandbox, approval), their output in the message the loopback provider receives; a project's command in an
untrusted folder and a declined command send nothing."""

import subprocess

from tests.test_repl import home, run  # noqa: F401  (fixtures)


def user_command(home, text: str, name: str = "report") -> None:
    folder = home / ".claude" / "commands" / "git"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(text)


def last_user_message(provider_server) -> str:
    return provider_server.requests[-1].json["messages"][-1]["content"]


def test_a_commands_lines_run_and_their_output_is_inlined(run, provider_server, home):
    work = home / "work"
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / "alpha.txt").write_text("a\n")
    user_command(home, "---\ndescription: Report\nargument-hint: FOCUS\n---\n"
                       "Untracked: !`git status --short`\nFocus: $ARGUMENTS\n")
    provider_server.push_openai(text="Reported.")
    term = run("--yes")
    term.line("/help report")
    term.expect("Report (user:git)")
    term.line("/report tests")
    term.expect("Reported.")
    assert term.finish() == 0
    sent = last_user_message(provider_server)
    assert "Untracked: exit code 0" in sent and "?? alpha.txt" in sent and "Focus: tests" in sent and "!`" not in sent


def test_an_untrusted_projects_command_runs_nothing_and_sends_nothing(run, provider_server, home):
    folder = home / "work" / ".claude" / "commands"
    folder.mkdir(parents=True)
    marker = home / "RAN"
    (folder / "setup.md").write_text(f"Set up: !`touch {marker}`\n")
    term = run("--yes")
    term.expect("Trust this folder and apply them? [y/N]")  # its .claude/ files are what trust covers
    term.answer("n")
    term.line("/setup")
    term.expect("/setup runs 1 command(s) (touch")
    shown = " ".join(term.expect("\n> ").split())  # the marker's path: the line wraps where its length says
    assert "and this folder is not trusted: not sent; run ankit here and trust the folder, or pass --trust" in shown
    assert term.finish() == 0
    assert not marker.exists() and provider_server.requests == []


def test_a_declined_command_sends_nothing(run, provider_server, home):
    user_command(home, "Now: !`date`\n", name="now")
    term = run("--sandbox", "ask")
    term.line("/now")
    term.expect("date")
    term.expect("[N]o")
    term.answer("n")
    term.expect("why not?")
    term.type("\r")
    term.expect("/now not sent: its command date was declined")
    assert term.finish() == 0
    assert provider_server.requests == []


def test_a_commands_model_runs_that_turn_only_and_an_alias_maps_to_the_family(run, provider_server, home):
    user_command(home, "---\nmodel: claude-haiku-5-5\n---\nQuick answer: $ARGUMENTS\n", name="quick")
    user_command(home, "---\nmodel: opus\n---\nThink hard.\n", name="deep")
    for text in ("Quick.", "Next.", "Deep."):
        provider_server.push_openai(text=text)
    term = run()  # the session's model is gpt-4o: opus has no counterpart there
    term.line("/quick 2+2?")
    term.expect("/quick runs on claude-haiku-5-5 (its model field); the next turns on gpt-4o")
    term.expect("Quick.")
    term.line("and then?")
    term.expect("Next.")
    term.line("/deep")
    term.expect("/deep: model 'opus' is a Claude family and gpt-4o has none: it runs on the session's model")
    term.expect("Deep.")
    assert term.finish() == 0
    assert [r.json["model"] for r in provider_server.requests] == ["claude-haiku-5-5", "gpt-4o", "gpt-4o"]


def test_trust_lets_a_projects_command_run_its_lines_through_the_runner(run, provider_server, home):
    folder = home / "work" / ".claude" / "commands"
    folder.mkdir(parents=True)
    (folder / "where.md").write_text("Folder: !`pwd`\n")
    provider_server.push_openai(text="Here.")
    term = run("--trust", "--yes")
    term.line("/where")
    term.expect("Here.")
    assert term.finish() == 0
    assert str(home / "work") in last_user_message(provider_server)


def test_allowed_tools_grant_the_commands_lines_and_turn_only(run, provider_server, home):
    work = home / "work"
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    user_command(home, "---\nallowed-tools: Bash(git status:*), Bash(echo:*), Frobnicate(x)\n---\n"
                       "Status: !`git status --short`\nSay it.\n", name="st")
    provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "echo granted"}')])
    provider_server.push_openai(text="Said.")
    provider_server.push_openai(tool_calls=[("c2", "run_command", '{"command": "echo again"}')])
    provider_server.push_openai(text="Asked.")
    term = run("--sandbox", "ask")  # every command asks, but for what a command's allowed-tools grant
    term.line("/st")
    term.expect("/st: allowed-tools ankit cannot read, so not granted: Frobnicate(x)")
    term.expect("Said.")
    term.line("say it again")
    term.expect("[N]o")  # after the command's turn, its grant is gone
    term.answer("n")
    term.expect("why not?")
    term.type("\r")
    term.expect("Asked.")
    assert term.finish() == 0
    ran = [m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert ran[-1].startswith("exit code 0") and "granted" in ran[-1]
    assert "Status: exit code 0" in provider_server.requests[0].json["messages"][-1]["content"]
