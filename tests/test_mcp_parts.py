"""MCP in the REPL beyond tools, on a real pty: a server's prompt as a slash command (in /help, completed with Tab),
its resource as an @server:uri mention (completed with Tab), and its question (elicitation) as a short form."""

import json
import sys
from pathlib import Path

from tests.test_repl import home, run  # noqa: F401 (fixtures)

FAKE = Path(__file__).with_name("mcp_fake_server.py")


def configure(home: Path) -> None:
    (home / "config" / "ankit").mkdir(parents=True, exist_ok=True)
    (home / "config" / "ankit" / "config.toml").write_text(  # phrases: no request but the test's own
        f"phrases = false\n[mcp.servers.fake]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(FAKE))}, \"--prompts\", \"--asking\"]\nstart_timeout = 60\n")


def test_prompts_are_slash_commands_and_resources_are_mentions(run, provider_server, home):  # noqa: F811
    configure(home)
    provider_server.push_openai(text="Looks fine.")
    provider_server.push_openai(text="Milk it is.")
    terminal = run()
    terminal.line("/mcp refresh")  # lists the server's prompts and resources (it has never been listed)
    terminal.expect("fake: ready")
    terminal.line("/help")
    terminal.expect("MCP prompts")
    terminal.expect("/mcp__fake__review code [language]  Review a piece of code.")
    terminal.line("/mcp fake")
    terminal.expect("@fake:notes://today  Today's notes")
    terminal.prompt()
    terminal.type("/mcp__fake__rev\t")
    terminal.expect("/mcp__fake__review ")
    terminal.type('code="x = 1" language=go\r')
    terminal.expect("Looks fine.")
    terminal.prompt()
    terminal.type("what is on @fake:no\t")
    terminal.expect("@fake:notes://today ")
    terminal.type("\r")
    terminal.expect("attached: fake:notes://today")
    terminal.expect("Milk it is.")
    assert terminal.finish() == 0
    assert provider_server.requests[0].json["messages"][-1]["content"] == "Please review this go code:\nx = 1"
    user = provider_server.requests[1].json["messages"][-1]["content"]
    assert user.startswith("what is on fake:notes://today")
    assert '<resource server="fake" uri="notes://today">\n[resource notes://today (text/plain)]\nbuy milk\n</resource>' in user


def test_a_servers_question_is_a_short_form(run, provider_server, home):  # noqa: F811
    configure(home)
    provider_server.push_openai(tool_calls=[("c1", "mcp__fake__book", "{}")])
    provider_server.push_openai(text="Booked.")
    terminal = run("--yes")
    terminal.line("book a table")
    terminal.expect("MCP server fake asks: Which date?")
    terminal.expect("[c]ancel: ")
    terminal.answer("y")  # one key, as at every question offering letters: no Enter to forget before the date
    terminal.expect("accept\n")
    terminal.expect("YYYY-MM-DD")
    terminal.line("2026-12-24", prompt="date: ")
    terminal.expect("Booked.")
    assert terminal.finish() == 0
    result = provider_server.requests[1].json["messages"][-1]["content"]
    assert result == 'elicitation answered {"action": "accept", "content": {"date": "2026-12-24"}}'


def test_with_phrases_off_a_session_says_at_start_which_servers_have_none_and_the_model_writes_them(run, provider_server,
                                                                                                  home):  # noqa: F811
    configure(home)
    first = run()
    first.line("/mcp refresh")  # lists the server's tools, which the next session finds in the cache
    first.expect("fake: ready")
    first.line("/exit")
    first.wait()
    provider_server.push_openai(text=json.dumps({"echo": ["parrot my words"], "add": ["what is 17 plus 25"]}))
    second = run()
    second.expect("ankit: no search phrases yet for fake: `ankit mcp phrases` (or /mcp phrases) asks the model, "
                  "once per tool list, for the words users type for each tool")
    second.line("/mcp phrases")
    second.expect("fake: 2 phrases for 2 of ")
    second.line("/find parrot my words")
    second.expect("activated for the next requests: mcp__fake__echo")  # the tool its phrase names, alone
