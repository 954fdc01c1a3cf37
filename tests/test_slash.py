"""Slash commands on a real App and Session, talking to the loopback provider server."""

import io
import json
import re
import sys
from pathlib import Path

import pytest

from ankit.records import Message
from ankit.settings.layers import load_config
from ankit.terminal.approval import Approver
from ankit.terminal.render import TerminalView
from ankit.terminal.repl import send
from ankit.terminal.slash import COMMANDS, ReplState, completions, dispatch, is_command, resumed_text, unknown
from ankit.turn.app import build_app


@pytest.fixture
def make_state(xdg_home, provider_server):
    """A ReplState on a real App in a temp folder; make_state(**config flags)."""
    tmp_path = xdg_home
    apps = []

    def make(**flags) -> ReplState:
        flags = {"provider": "local", "base_url": provider_server.url + "/v1", "model": "gpt-4o", **flags}
        config = load_config(flags, {}, tmp_path / "work", tmp_path / "config" / "ankit")
        app = build_app(config, tmp_path / "work")
        apps.append(app)
        view = TerminalView(io.StringIO(), colour=False)
        approve = Approver(view, lambda question: "y")
        state = ReplState(app, None, view, approve, send=lambda text, mentions=True, typed=True: send(state, text, mentions, typed))
        state.session = app.session(view, approve)
        return state

    yield make
    for app in apps:
        app.close()


def run(state: ReplState, line: str) -> str:
    """Dispatch one line and return what it printed."""
    out = state.view.out
    start = len(out.getvalue())
    dispatch(state, line)
    return out.getvalue()[start:]


def test_what_counts_as_a_command():
    assert is_command("/help") and is_command("/model gpt-4o") and is_command("  /usage")
    assert not is_command("/etc/hosts looks wrong") and not is_command("/") and not is_command("hello /help")


@pytest.mark.parametrize("typed, suggested", [("/usge", "/usage"), ("/cotext", "/context"),
                                              ("/quitt", "/exit"), ("/sesions", "/sessions")])
def test_unknown_commands_suggest_the_closest(typed, suggested):
    assert f"did you mean {suggested}?" in unknown(typed)


def test_help_lists_every_command(make_state):
    text = run(make_state(), "/help")
    for name, command in COMMANDS.items():
        assert re.search(rf"^/{name}\b.*{re.escape(command.help)}$", text, re.M), name
    assert '"""' in text
    assert "/model [NAME]\n  show the model" in run(make_state(), "/help model")
    assert max(len(line) for line in text.splitlines()) < 80  # fits a standard terminal


def test_completions(make_state):
    state = make_state()
    assert completions(state, "/mo") == ["/model", "/mode"] and completions(state, "/mode") == ["/model", "/mode"]
    assert completions(state, "/s") == ["/skills", "/save", "/sessions", "/show"]
    assert completions(state, "/model gpt-4.1-m") == ["gpt-4.1-mini"]
    assert "claude-opus-4-7" in completions(state, "/model  claude-op")
    assert completions(state, "/tools e") == ["edit"]
    assert completions(state, "/help us") == ["usage"]
    skills = completions(state, "/skills ")
    assert skills and skills == sorted(s.name for s in state.app.skills)
    assert completions(state, "/usage x") == [] and completions(state, "/model a b") == []


def test_model_switches_the_model_of_the_next_request(make_state, provider_server):
    state = make_state()
    assert "local · gpt-4o · window 128,000 tokens" in run(state, "/model")
    assert "gpt-4.1-mini (window 1,047,576 tokens)" in run(state, "/model gpt-4.1-mini")
    provider_server.push_openai(text="hi")
    send(state, "hello")
    assert provider_server.requests[0].json["model"] == "gpt-4.1-mini"
    assert state.session.ledger.rounds[0].model == "gpt-4.1-mini"


def test_model_name_is_checked_against_the_servers_list(make_state, provider_server):
    provider_server.models = ["qwen3-8b", "llama-3.2-3b"]
    state = make_state()
    shown = run(state, "/model qwen3-7b")
    assert "this server lists no model 'qwen3-7b': did you mean qwen3-8b? /model lists the 2 it has" in shown
    assert state.session.provider.model == "gpt-4o"  # unchanged
    assert "model for the next turns: llama-3.2-3b" in run(state, "/model llama-3.2-3b")


def test_an_overflow_in_the_repl_takes_the_message_out_so_the_next_one_goes_through(make_state, provider_server):
    state = make_state()
    provider_server.push({"error": {"message": "the request exceeds the available context size, try increasing it",
                                    "type": "exceed_context_size_error", "n_ctx": 2048}}, status=400)
    provider_server.push_openai(text="Hi.")
    start = len(state.view.out.getvalue())
    send(state, "a message the server finds too long")
    shown = state.view.out.getvalue()[start:]
    assert "does not fit the model's context window" in shown
    assert "· that message was taken out of the conversation, so the next one goes through" in " ".join(shown.split())
    send(state, "hello")
    assert [m["content"] for m in provider_server.requests[1].json["messages"][1:]] == ["hello"]


def test_find_activates_and_clear_keeps_the_activated_set(make_state, provider_server):
    state = make_state()
    shown = run(state, "/find edit a file")
    assert "activated for the next requests:" in shown and "edit_file" in state.app.activation.active
    provider_server.push_openai(text="one")
    provider_server.push_openai(text="two")
    send(state, "first")
    old_id = state.session.id
    cleared = run(state, "/clear")
    kept = ", ".join(state.app.activation.active)
    assert f"history cleared (2 messages); activated groups kept: {kept}\n" in cleared and "edit_file" in kept
    assert f"the earlier conversation stays saved: /resume {old_id}\n" in cleared
    assert state.session.id != old_id and state.session.ledger.rounds == []
    assert [m.text for m in state.app.store().load(old_id).messages] == ["first", "one"]
    send(state, "second")
    request = provider_server.requests[1].json
    assert [m["content"] for m in request["messages"][1:]] == ["second"]
    assert "edit_file" in [t["function"]["name"] for t in request["tools"]]


def test_find_needs_a_query(make_state):
    assert "ankit: say what to look for" in run(make_state(), "/find")


def test_context_counts_what_the_request_carries(make_state):
    state = make_state(context_window=2500, max_tokens=1000)
    state.app.activation.activate(["web"])
    state.session.conversation.messages.append(Message("user", "x" * 400))
    text = run(state, "/context")
    request, tools = state.session.request()
    assert tools.held_back == ["web"]
    assert re.search(r"\n\s+web\s+[\d,]+\s+[\d,]+\s+held back: no room this round", text)
    assert re.search(rf"tools \({len(request.tools)} sent\)\s+{tools.schema_bytes:,}", text)
    assert re.search(r"history \(1 message\)\s+416\s+104", text)
    assert "note on held-back groups" in text and "of 2,500" in text


def test_save_titles_the_session_and_resume_brings_it_back(make_state, provider_server, monkeypatch):
    monkeypatch.setenv("COLUMNS", "140")  # the listing is cut to the width; this one has a long folder
    state = make_state()
    provider_server.push_openai(text="Noted.")
    send(state, "remember teal")
    state.app.activation.activate(["git"])
    assert "as 'colour talk'" in run(state, "/save colour talk")
    first_id = state.session.id
    other = make_state()
    assert re.search(rf"\s{first_id}\s.*colour talk", run(other, "/sessions"))
    shown = run(other, f"/resume {first_id}")
    assert f"resumed {first_id}: colour talk (1 turn)" in shown and "last reply: Noted." in shown
    assert other.session.id == first_id and other.app.activation.active == ["git"]
    assert [m.text for m in other.session.conversation.messages] == ["remember teal", "Noted."]
    assert len(other.session.ledger.rounds) == 1


def test_the_last_reply_of_a_resumed_session_is_cut_to_the_width(make_state, provider_server):
    state = make_state()
    provider_server.push_openai(text="word " * 100)
    send(state, "talk")
    shown = resumed_text(state.session, width=60)
    assert shown.splitlines()[1] == "last reply: " + "word " * 9 + "wo…"  # 60 characters


def test_resume_of_an_unknown_session_says_so(make_state):
    assert "ankit: no session 'nope'" in run(make_state(), "/resume nope")


def test_retry_resends_the_last_message_without_its_reply(make_state, provider_server):
    state = make_state()
    assert "nothing to retry" in run(state, "/retry")
    provider_server.push_openai(text="A")
    provider_server.push_openai(text="B")
    send(state, "question")
    assert "retrying: question\n" in run(state, "/retry")
    assert provider_server.requests[0].body == provider_server.requests[1].body
    assert [m.text for m in state.session.conversation.messages] == ["question", "B"]


def test_compact_appends_the_summary_and_keeps_the_activated_set(make_state, provider_server):
    state = make_state()
    assert "nothing to compact" in run(state, "/compact")
    provider_server.push_openai(text="one", usage={"prompt_tokens": 100, "completion_tokens": 5})
    provider_server.push_openai(text="- asked one thing", usage={"prompt_tokens": 120, "completion_tokens": 7})
    send(state, "first")
    state.app.activation.activate(["git"])
    shown = run(state, "/compact")
    assert "- asked one thing" in shown and "(2 messages → 2)" in shown
    request = provider_server.requests[1].json
    assert request["tools"] and request["messages"][-1]["content"].startswith("[ankit] The conversation")
    assert [m.text for m in state.session.conversation.messages[:2]] == ["first", "one"]  # kept, and saved
    assert state.session.conversation.live()[0].text.endswith("- asked one thing") and state.session.conversation.live()[0].summary
    assert [m.text for m in state.app.store().load(state.session.id).messages[:2]] == ["first", "one"]
    assert state.app.activation.active == ["git"]
    assert [r.usage.input_tokens for r in state.session.ledger.rounds] == [100, 120]  # the summary is counted
    assert state.app.store().load(state.session.id).title == "first"  # not the summary's heading


def test_compact_without_a_summary_leaves_the_history(make_state, provider_server):
    state = make_state()
    provider_server.push_openai(text="one")
    provider_server.push_openai(tool_calls=[("c1", "read_file", '{"path": "x"}')])
    send(state, "first")
    assert "the model returned no summary; the history is unchanged" in run(state, "/compact")
    assert [m.text for m in state.session.conversation.messages] == ["first", "one"]


def test_usage_and_mcp_and_skills(make_state):
    state = make_state()
    assert "No rounds yet in this session." in run(state, "/usage")
    assert "max_cost: none (set max_cost in the config or --max-cost)" in run(state, "/usage")
    assert "no MCP servers configured" in run(state, "/mcp")
    assert f"{len(state.app.skills)} skill" in run(state, "/skills")
    name = state.app.skills[0].name
    assert f"# Skill: {name}" in run(state, f"/skills {name}")


def test_exit_stops_the_loop(make_state):
    state = make_state()
    run(state, "/exit")
    assert state.running is False


def test_todos_are_shown_when_they_change_listed_by_slash_todos_and_restored_on_resume(make_state, provider_server):
    state = make_state()
    assert "todos: none" in run(state, "/todos")
    plan = {"todos": [{"text": "write the parser", "status": "done"}, {"text": "test it\x1b[2J", "status": "in_progress"},
                      {"text": "update the README"}]}
    provider_server.push_openai(tool_calls=[("c1", "write_todos", json.dumps(plan))])
    provider_server.push_openai(text="Working on it.")
    start = len(state.view.out.getvalue())
    send(state, "plan the work")
    shown = state.view.out.getvalue()[start:]
    listing = ["todos 1/3 done, 1 in progress", "  ✓ write the parser", "  ▸ test it^[[2J", "  ○ update the README"]
    assert "\n".join(listing) in shown  # after the call, control characters made visible
    assert run(state, "/todos").splitlines() == listing
    other = make_state()
    run(other, f"/resume {state.session.id}")
    assert run(other, "/todos").splitlines() == listing
    provider_server.push_openai(tool_calls=[("c2", "write_todos", '{"todos": []}')])
    provider_server.push_openai(text="Cleared.")
    send(other, "drop the plan")
    assert "todos: none" in run(other, "/todos")


def test_a_repository_command_attaches_no_file_from_outside_the_folder(make_state, provider_server, xdg_home):
    """A cloned repository's .ankit/commands/ is text: its @mentions reach only files inside the folder."""
    work = xdg_home / "work"
    (work / ".ankit" / "commands").mkdir(parents=True)
    (xdg_home / "id_rsa").write_text("PRIVATE-KEY-MATERIAL\n")
    (work / "notes.txt").write_text("inside notes\n")
    (work / "link.txt").symlink_to(xdg_home / "id_rsa")
    (work / ".ankit" / "commands" / "review.md").write_text(
        f"Review @notes.txt and @{xdg_home / 'id_rsa'} and @../id_rsa and @link.txt\n")
    state = make_state()
    from ankit.terminal.custom import load_commands, command_dirs
    state.custom, _ = load_commands(command_dirs(work, xdg_home / "config" / "ankit"), set(COMMANDS))
    provider_server.push_openai(text="reviewed")
    shown = run(state, "/review")
    sent = provider_server.requests[-1].json["messages"][-1]["content"]
    assert "inside notes" in sent and "PRIVATE-KEY-MATERIAL" not in sent
    assert shown.count("outside the working folder, not attached") == 3


def test_usage_shows_each_subagent_run_on_its_own_line(make_state, provider_server):
    task = json.dumps({"description": "count the notes", "prompt": "count them"})
    provider_server.push_openai(tool_calls=[("c1", "task", task)])
    provider_server.push_openai(text="3 notes.", usage={"prompt_tokens": 40, "completion_tokens": 5, "total_tokens": 45})
    provider_server.push_openai(text="Three.")
    state = make_state()
    state.send("how many notes?")
    shown = run(state, "/usage")
    row = next(line for line in shown.splitlines() if "count the notes" in line)
    assert row.split()[:6] == ["1.", "count", "the", "notes", "1", "40"] and row.split()[6] == "5"


def test_hooks_and_agents_list_what_is_active_and_where_it_comes_from(make_state, xdg_home):
    config = xdg_home / "config" / "ankit"
    (config / "agents").mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('[[hooks.Stop]]\ncommand = "say done"\n')
    (config / "agents" / "helper.md").write_text("---\ndescription: Helps.\ntools: Read\n---\nYou help.\n")
    state = make_state()
    assert run(state, "/hooks").strip() == f"Stop  say done  (timeout 60 s; {config / 'config.toml'})"
    assert run(state, "/agents").splitlines()[:3] == ["helper: Helps.", "  tools: read_file",
                                                     f"  model: {state.session.provider.model} (inherited) · "
                                                     f"{config / 'agents' / 'helper.md'}"]


def test_mcp_phrases_asks_the_model_and_the_listing_tells_which_servers_have_none(make_state, provider_server, xdg_home):
    server = Path(__file__).resolve().parent / "mcp_fake_server.py"
    (xdg_home / "config" / "ankit").mkdir(parents=True, exist_ok=True)
    (xdg_home / "config" / "ankit" / "config.toml").write_text(
        f"[mcp.servers.fake]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(server))}]\n")
    state = make_state()
    state.app.mcp.wait()
    state.app.registry.take_changes()
    assert "no search phrases yet for fake: `ankit mcp phrases` (or /mcp phrases) asks the model" in run(state, "/mcp")
    provider_server.push_openai(text=json.dumps({"echo": ["parrot my words"], "add": ["what is 17 plus 25"]}))
    said = run(state, "/mcp phrases")
    assert said.startswith("asking the model for the words users type") and "fake: 2 phrases for 2 of " in said
    assert "no search phrases yet" not in run(state, "/mcp")
    assert state.app.registry.index.rank_tools("parrot my words", 1)[0][0] == "mcp__fake__echo"
    assert "usage: /mcp phrases [NAME ...] [--again]" in run(state, "/mcp phrases --all")


def test_help_names_the_guide_s_topics_and_reads_one(make_state):
    state = make_state()
    listing = run(state, "/help")
    assert "The guide: /help TOPIC, for install, providers," in listing and "development" in listing
    sandbox = run(state, "/help sandbox")
    assert "# Sandbox\n\nWhere the machine has a sandbox" in sandbox  # not a terminal: the exact text
    usage = run(state, "/help usage")  # a command and a topic: the command's line, then the guide
    assert usage.lstrip("\n").startswith("/usage [all]\n  ") and "\n# Usage and cost\n" in usage
    assert "/help TOPIC reads the guide" in run(state, "/help zzz")
    assert "/usage [all]\n  " in run(state, "/help /usage") and "# Usage" not in run(state, "/help /usage")


def test_mode_workspace_in_a_session_started_with_the_sandbox_off_confines_the_next_command(make_state,
                                                                                            provider_server, tmp_path,
                                                                                            monkeypatch):
    """Started with --sandbox off (no sandbox looked for), /mode workspace must find this machine's and use it."""
    import tempfile
    from ankit.safety.sandbox import support
    if support().kind != "landlock":
        pytest.skip(f"no Linux sandbox here: {support().detail}")
    outside, temp = tmp_path / "outside", tmp_path / "temp"  # the system's temporary folder is writable inside
    outside.mkdir()
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))  # as TMPDIR would: /tmp, which holds tmp_path, is not it
    state = make_state(sandbox="off")
    assert state.app.sandbox.label() == "ask"
    assert run(state, "/mode workspace").strip().endswith("mode: default (workspace sandbox): commands run unasked in "
                                                          "the workspace sandbox, edits ask")
    command = f"touch inside && touch {outside}/escaped; echo finished"
    provider_server.push_openai(tool_calls=[("c1", "run_command", json.dumps({"command": command}))])
    provider_server.push_openai(text="Ran it.")
    start = len(state.view.out.getvalue())
    state.send("run it")
    shown = state.view.out.getvalue()[start:]
    assert "Ran it." in shown and "exit code 0" in provider_server.requests[1].json["messages"][-1]["content"]
    assert (state.app.cwd / "inside").exists() and not (outside / "escaped").exists()
    assert "run in a sandbox" in provider_server.requests[0].json["messages"][0]["content"]


def test_usage_shows_decision_mode_s_questions_tokens_and_time_a_search(make_state, provider_server):
    from tests.conftest import fixture_parts, logprobs_sse
    state = make_state(search="decision")
    for _ in range(2):  # the session's first search asks its chunk in two rotations
        provider_server.push(fixture_parts(logprobs_sse({"Z": -0.1, "A": -3.0}, usage={
            "prompt_tokens": 300, "completion_tokens": 2, "total_tokens": 302})))
    provider_server.push(fixture_parts(logprobs_sse({"A": -0.1}, usage={  # the groups question: A
        "prompt_tokens": 400, "completion_tokens": 2, "total_tokens": 402})))
    shown = run(state, "/find who listens on port 8080")
    assert "activated for the next requests:" in shown
    usage = run(state, "/usage")
    assert "find_tools decisions" in usage
    line = next(line for line in usage.splitlines() if line.startswith("decision mode: "))
    assert re.fullmatch(r"decision mode: 1 search, 3\.0 questions, 1,006 tokens, \d+\.\d s a search", line), line
