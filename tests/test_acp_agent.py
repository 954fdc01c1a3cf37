"""The agent's sessions under `ankit acp`: the editor's MCP servers join the catalog as a project's .mcp.json would
(only in a trusted folder), each session reads its own folder; a real subprocess, a real MCP server on stdio."""

import sys
from pathlib import Path

from tests.acp_client import acp

FAKE = str(Path(__file__).with_name("mcp_fake_server.py"))
SERVER = {"name": "fake", "command": sys.executable, "args": [FAKE], "env": [{"name": "FAKE_GREETING", "value": "hi"}]}


def test_the_editors_mcp_server_joins_a_trusted_folders_catalog(tmp_path, provider_server):
    with acp(tmp_path, provider_server, "--trust") as client:
        asked = []  # its readOnlyHint is a claim (the user's own config does not trust it): the editor is asked
        client.handlers["session/request_permission"] = lambda params: asked.append(params) or {
            "outcome": {"outcome": "selected", "optionId": "allow_once"}}
        provider_server.push_openai(tool_calls=[("c1", "mcp__fake__echo", '{"text": "from the editor"}')])
        provider_server.push_openai(text="Echoed.")
        sid = client.new_session(servers=[SERVER])
        assert client.prompt(sid, "echo it")["result"]["stopReason"] == "end_turn"
        result = provider_server.requests[1].json["messages"][-1]
        assert result["role"] == "tool" and "from the editor" in result["content"] and len(asked) == 1


def test_in_an_untrusted_folder_the_editors_servers_wait_and_the_session_says_so(tmp_path, provider_server):
    with acp(tmp_path, provider_server) as client:
        provider_server.push_openai(tool_calls=[("c1", "mcp__fake__echo", '{"text": "nope"}')])
        provider_server.push_openai(text="No such tool.")
        sid = client.new_session(servers=[SERVER])
        told = client.wait(lambda: "wait until this folder is trusted" in client.text("agent_thought_chunk"))
        assert told
        client.prompt(sid, "echo it")
        assert "unknown tool" in provider_server.requests[1].json["messages"][-1]["content"]


def test_each_session_reads_its_own_folders_instructions(tmp_path, provider_server):
    one, two = tmp_path / "one", tmp_path / "two"
    for folder, text in ((one, "Answer in French."), (two, "Answer in Welsh.")):
        folder.mkdir()
        (folder / "AGENTS.md").write_text(text + "\n")
    with acp(tmp_path, provider_server) as client:
        provider_server.push_openai(text="Oui.")
        provider_server.push_openai(text="Ie.")
        client.prompt(client.new_session(cwd=one), "hello")
        client.prompt(client.new_session(cwd=two), "hello")
        systems = [str(r.json["messages"][0]["content"]) for r in provider_server.requests]
        assert "French" in systems[0] and "Welsh" not in systems[0]
        assert "Welsh" in systems[1] and "French" not in systems[1]


def test_an_mcp_servers_question_is_the_editors_form(tmp_path, provider_server):
    with acp(tmp_path, provider_server, "--trust", "--yes") as client:
        asked = []
        client.handlers["elicitation/create"] = lambda params: asked.append(params) or {
            "action": "accept", "content": {"when": "2026-12-24"}}
        client.send({"jsonrpc": "2.0", "id": 99, "method": "initialize", "params": {
            "protocolVersion": 1, "clientCapabilities": {"elicitation": {"form": {}}}}})
        client.answer(99)
        provider_server.push_openai(tool_calls=[("c1", "mcp__fake__book", "{}")])
        provider_server.push_openai(text="Booked.")
        sid = client.new_session(servers=[{**SERVER, "args": [FAKE, "--asking"]}])
        assert client.prompt(sid, "book a table")["result"]["stopReason"] == "end_turn"
        assert asked[0]["sessionId"] == sid and asked[0]["mode"] == "form"
        assert asked[0]["message"] == "MCP server fake asks: Which date?" and "properties" in asked[0]["requestedSchema"]
        assert "2026-12-24" in provider_server.requests[1].json["messages"][-1]["content"]


def test_without_forms_the_question_is_declined_with_a_line(tmp_path, provider_server):
    with acp(tmp_path, provider_server, "--trust", "--yes") as client:
        provider_server.push_openai(tool_calls=[("c1", "mcp__fake__book", "{}")])
        provider_server.push_openai(text="Not booked.")
        client.prompt(client.new_session(servers=[{**SERVER, "args": [FAKE, "--asking"]}]), "book a table")
        assert "MCP server 'fake' asked \"Which date?\"; declined" in client.text("agent_thought_chunk")
        assert provider_server.requests[1].json["messages"][-1]["content"] == 'elicitation answered {"action": "decline"}'
