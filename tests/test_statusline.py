"""Claude Code's statusLine in the REPL: the documented JSON on the command's stdin, its first line through the text
boundary, in the footer while a turn runs (at most every 300 ms) and above the prompt; only from trusted settings."""

import json
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest

from ankit.terminal.statusline import REFRESH, TIMEOUT, StatusLine, shown
from tests.test_repl import USAGE, home, run  # noqa: F401  (fixtures)

RECIPE = Path(__file__).parent / "fixtures" / "claude_code" / "recipes" / "statusline-cost.sh"
# a status command that keeps what it read and prints a colour, a bell and a second line
LOGGER = ("import json, sys, time; data = json.load(sys.stdin); "
          "open(sys.argv[1], 'a').write(json.dumps(data) + '\\n'); "
          "print('\\x1b[32m' + data['model']['display_name'] + '\\x1b[0m ' + str(data['context_window']['used_percentage']) "
          "+ '% \\x07' + chr(10) + 'second line')")


def settings(home: Path, command: str, where: Path | None = None) -> None:
    folder = where or home / ".claude"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps({"statusLine": {"type": "command", "command": command}}))


@pytest.mark.skipif(shutil.which("jq") is None, reason="the recipe's script reads its JSON with jq")
def test_a_public_status_script_shows_model_cost_and_context_above_the_prompt(run, provider_server, home):
    """forest6511/claude-code-recipes' statusline-cost.sh (MIT), as its README installs it."""
    shutil.copy(RECIPE, home / "statusline-cost.sh")
    settings(home, f"bash {home / 'statusline-cost.sh'}")
    provider_server.push_openai(text="Hello.", usage=USAGE)
    term = run()
    term.expect("[gpt-4o] $0.00 | 0% context | 0m ")
    term.line("hi")
    term.expect("Hello.")
    shown_after = term.expect("\n> ")
    assert "[gpt-4o] $0.0" in shown_after and "% context" in shown_after
    assert term.finish() == 0


def test_the_documented_json_reaches_the_command_and_the_footer_shows_its_line_during_a_turn(run, provider_server,
                                                                                           home):
    log = home / "status.jsonl"
    settings(home, f"{sys.executable} -c \"{LOGGER}\" {log}")
    gate = provider_server.gate()
    provider_server.push_openai(tool_calls=[("c1", "get_time", "{}")], usage=USAGE)
    provider_server.push(provider_server_reply(), delay=gate)
    term = run()
    term.expect("gpt-4o 0.0% ^G")  # colour dropped, the bell made visible, the second line left out
    term.line("what time is it?")
    term.footer_is(["gpt-4o 1.0% ^G"])  # the tool call joined the conversation: refreshed under the output
    gate.set()
    term.expect("It is late.")
    assert term.finish() == 0
    first = json.loads(log.read_text().splitlines()[0])
    assert set(first) >= {"session_id", "model", "workspace", "cost", "context_window", "cwd", "transcript_path"}
    assert first["model"] == {"id": "gpt-4o", "display_name": "gpt-4o"}
    assert first["workspace"]["current_dir"] == str(home / "work")
    assert first["context_window"]["context_window_size"] > 0 and first["cost"]["total_cost_usd"] == 0
    last = json.loads(log.read_text().splitlines()[-1])
    assert last["context_window"]["total_input_tokens"] == 2 * USAGE["prompt_tokens"]
    assert last["session_id"] == first["session_id"] and last["session_id"]


def provider_server_reply():
    from conftest import fixture_parts, openai_sse
    return fixture_parts(openai_sse(text="It is late.", usage=USAGE))


def test_an_untrusted_folders_status_line_never_runs(run, home):
    made = home / "ran"
    settings(home, f"touch {made}", where=home / "work" / ".claude")
    term = run()
    shown_question = term.expect("Trust this folder and apply them? [y/N] ").replace("\n  ↪ ", "")  # path-long rows
    assert f"show the status line of .claude/settings.json: touch {made}" in shown_question
    term.answer("n")
    term.prompt()
    term.line("/mode")
    term.expect("mode: ")
    assert term.finish() == 0 and not made.exists()


class Growing:
    """A session whose conversation changes every 20 ms, as a busy turn's does."""

    def __init__(self):
        self.id, self.model, self.provider, self.window = "s1", "m", None, 1000
        self.ledger = type("L", (), {"rounds": []})()
        self.conversation = type("C", (), {"messages": []})()


def test_a_busy_turn_runs_the_command_at_most_every_300_ms(tmp_path):
    log = tmp_path / "runs"
    status = StatusLine(f"echo run >> {log}; echo ok", tmp_path, {})
    session, lines = Growing(), []
    stop = threading.Event()

    def grow():
        while not stop.wait(0.02):
            session.conversation.messages.append(None)

    threading.Thread(target=grow, daemon=True).start()
    started = time.monotonic()
    with status.watch(session, lines.append):
        time.sleep(1.5)
    stop.set()
    took = time.monotonic() - started
    runs = len(log.read_text().splitlines())
    assert lines[0] == "ok" and 2 <= runs <= took / REFRESH + 1


def test_the_line_is_cut_to_the_width_and_padded():
    assert shown("\x1b[1;31mwarn\x1b[0m\x1b]0;title\x07 x\n2nd", padding=2, width=80) == "  warn^[]0;title^G x"
    assert shown("a" * 200, width=50) == "a" * 48 + "…"
    assert shown("\n\n") == ""
    from ankit.safety.scrub import Scrubber
    assert "sk-ant-test-secret-123456" not in shown("key sk-ant-test-secret-123456", scrub=Scrubber({}, ["sk-ant-test-secret-123456"]))


def test_the_status_line_gets_the_merged_settings_env(run, home):
    """The same env as commands, hooks and MCP servers: settings.local.json over settings.json (trusted folder)."""
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps({
        "env": {"NODE_ENV": "user", "TZ": "UTC"},
        "statusLine": {"type": "command", "command": "echo \"env=$NODE_ENV/$TZ\"", "padding": 1}}))
    local = home / "work" / ".claude"
    local.mkdir(parents=True)
    (local / "settings.local.json").write_text(json.dumps({"env": {"NODE_ENV": "local"}}))
    term = run("--trust")
    term.expect(" env=local/UTC")
    assert term.finish() == 0


def test_a_status_command_that_hangs_never_holds_up_the_prompt(run, provider_server, home):
    """Each turn used to wait out the command's timeout twice (the footer's last run, then the line above the
    prompt): a hanging command cost 10 s a turn. The prompt gets its last line instead, or none."""
    log = home / "runs"
    settings(home, f"echo run >> {log}; sleep 60")
    for words in ("One.", "Two."):
        provider_server.push_openai(text=words, usage=USAGE)
    term = run()
    term.prompt()
    for question, words in (("hi", "One."), ("again", "Two.")):
        term.line(question)
        term.expect(words, timeout=TIMEOUT)
        term.expect("\n> ", timeout=TIMEOUT)  # the footer's run and the prompt's line, each well under TIMEOUT
    assert term.finish() == 0 and len(log.read_text().splitlines()) >= 3
