"""An MCP server's question as a REPL form (terminal/elicit.py), and the same question in -p (declined)."""

import io
import json
import sys
from pathlib import Path

from ankit.mcp.asks import Asks
from ankit.mcp.client import McpClient
from ankit.terminal.elicit import FormElicitor, field_value
from ankit.terminal.render import TerminalView

FAKE = str(Path(__file__).with_name("mcp_fake_server.py"))
SCHEMA = {"type": "object", "required": ["date"], "properties": {
    "date": {"type": "string", "title": "Date", "description": "YYYY-MM-DD"},
    "guests": {"type": "integer", "default": 2},
    "room": {"type": "string", "enum": ["inside", "terrace"]},
    "vegan": {"type": "boolean"}}}


def form(answers: list[str]):
    out, asked = io.StringIO(), []

    def ask(question: str) -> str:
        asked.append(question)
        return answers.pop(0)

    return FormElicitor(TerminalView(out, colour=False, spinner=False), ask), out, asked


def test_a_form_names_the_server_and_types_each_answer():
    elicit, out, asked = form(["", "", "2026-12-24", "four", "4", "3", "terrace", "y"])
    result = elicit("booking", "When\x1b[2J should we come?", SCHEMA)
    assert result == {"action": "accept", "content": {"date": "2026-12-24", "guests": 4, "room": "terrace",
                                                      "vegan": True}}
    shown = out.getvalue()
    assert shown.startswith("MCP server booking asks: When") and "\x1b" not in shown  # controls made visible
    assert "this one is needed" in shown and "a whole number" in shown and "one of: inside, terrace" in shown
    assert asked[1] == "  Date: " and asked[3] == "  guests (optional) [2]: "


def test_declining_or_cancelling_sends_no_content():
    assert form(["n"])[0]("s", "Share your email?", SCHEMA) == {"action": "decline"}
    assert form(["c"])[0]("s", "Share your email?", SCHEMA) == {"action": "cancel"}


def test_ctrl_c_in_a_form_cancels_it():
    def interrupted(question: str) -> str:
        raise KeyboardInterrupt

    elicit = FormElicitor(TerminalView(io.StringIO(), colour=False, spinner=False), interrupted)
    assert elicit("s", "Which date?", SCHEMA) == {"action": "cancel"}


def test_defaults_and_choices_by_number():
    assert field_value("", {"type": "integer", "default": 2}, False) == (2, "")
    assert field_value("", {"type": "string"}, False) == (None, "")
    assert field_value("2", {"enum": ["a", "b"]}, True) == ("b", "")
    assert field_value("1.5", {"type": "number"}, True) == (1.5, "")


def test_a_2026_07_28_server_gets_the_forms_answer_on_its_retry(tmp_path):
    elicit, _, _ = form(["y", "2026-01-02"])
    client = McpClient("fake", sys.executable, [FAKE, "--modern-only"], log_path=tmp_path / "log",
                       asks=Asks("fake", tmp_path, elicit))
    try:
        client.start(10)
        answer = json.loads(client.call_tool("book", {}, 10)["content"][0]["text"])
    finally:
        client.close()
    assert answer == {"action": "accept", "content": {"date": "2026-01-02"}}
