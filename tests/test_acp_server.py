"""`ankit acp` as an editor runs it: a real subprocess spoken to by a client written here (tests/acp_client.py),
against the loopback provider server: the handshake, a streamed turn, bad input, cancel, load and list."""

import json

import pytest

from tests.acp_client import AcpClient, acp


@pytest.fixture
def client(tmp_path, provider_server):
    with acp(tmp_path, provider_server) as started:
        yield started


def test_the_handshake_says_version_1_and_what_ankit_takes(client):
    reply = client.initialize()
    result = reply["result"]
    assert result["protocolVersion"] == 1
    assert result["agentCapabilities"]["loadSession"] is True
    assert result["agentCapabilities"]["promptCapabilities"] == {"image": True, "audio": False, "embeddedContext": True}
    assert result["agentCapabilities"]["mcpCapabilities"]["http"] is True
    assert result["agentInfo"]["name"] == "ankit"
    assert result["authMethods"] == []  # a server is named: nothing to sign in to


def test_a_streamed_turn_comes_as_chunks_then_end_turn(client, provider_server):
    provider_server.push_openai(text="Hello from the model.")
    client.initialize()
    sid = client.new_session()
    reply = client.prompt(sid, "hi there")
    assert reply["result"] == {"stopReason": "end_turn"}
    chunks = client.updates("agent_message_chunk")
    assert len(chunks) == 2 and client.text() == "Hello from the model."
    assert provider_server.requests[0].json["messages"][-1] == {"role": "user", "content": "hi there"}
    commands = client.updates("available_commands_update")[0]["availableCommands"]
    assert {"usage", "compact", "mode"} <= {c["name"] for c in commands}
    assert client.close() == 0 and client.junk == []


def test_bad_input_gets_a_json_rpc_error_and_the_agent_goes_on(client, provider_server):
    client.send_raw(b"this is not json\n")
    client.send_raw(b'{"jsonrpc": "2.0", "id": 700, "params": {}}\n')
    client.send_raw(b'[1, 2, 3]\n')
    unknown = client.request("session/fly", {})
    assert unknown["error"]["code"] == -32601
    errors = [m for m in client.messages if "error" in m]
    assert [e["error"]["code"] for e in errors[:3]] == [-32700, -32600, -32600]
    assert errors[1]["id"] == 700 and errors[0]["id"] is None
    missing = client.request("session/prompt", {"sessionId": "nope", "prompt": []})
    assert missing["error"]["code"] == -32602 and "session/new" in missing["error"]["message"]
    bad_cwd = client.request("session/new", {"cwd": "relative/path", "mcpServers": []})
    assert "absolute path" in bad_cwd["error"]["message"]
    client.initialize()
    empty = client.request("session/prompt", {"sessionId": client.new_session(), "prompt": "not a list"})
    assert empty["error"]["code"] == -32602 and "prompt is empty" in empty["error"]["message"]
    assert provider_server.requests == []  # nothing the provider would refuse was sent
    provider_server.push_openai(text="still here")
    client.initialize()
    assert client.prompt(client.new_session(), "ok?")["result"]["stopReason"] == "end_turn"
    assert client.junk == []


def test_cancel_stops_a_stalled_stream_and_the_session_goes_on(client, provider_server):
    provider_server.push([b'data: {"choices":[{"index":0,"delta":{"content":"Thinking"}}]}\n\n', "stall"])
    client.initialize()
    sid = client.new_session()
    rid = client.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "go slowly"}]})
    client.wait(lambda: client.updates("agent_message_chunk"))
    client.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
    assert client.answer(rid, timeout=10)["result"] == {"stopReason": "cancelled"}
    provider_server.push_openai(text="back again")
    assert client.prompt(sid, "and now?")["result"]["stopReason"] == "end_turn"  # the session goes on
    sent = provider_server.requests[1].json["messages"]
    assert sent[-2] == {"role": "assistant", "content": "Thinking"}  # the partial reply was kept, as after Ctrl-C


def test_a_saved_session_loads_in_a_new_process_replaying_its_history(tmp_path, provider_server):
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("the answer is 42\n")
    provider_server.push_openai(tool_calls=[("call_1", "read_file", '{"path": "notes.txt"}')])
    provider_server.push_openai(text="It says 42.")
    first = AcpClient(tmp_path, "--base-url", provider_server.url + "/v1")
    first.initialize()
    sid = first.new_session()
    assert first.prompt(sid, "what do my notes say?")["result"]["stopReason"] == "end_turn"
    assert first.close() == 0
    with acp(tmp_path, provider_server) as second:
        listed = second.request("session/list", {"cwd": str(second.cwd)})["result"]["sessions"]
        assert [s["sessionId"] for s in listed] == [sid]
        loaded = second.request("session/load", {"sessionId": sid, "cwd": str(second.cwd), "mcpServers": []})
        assert loaded["result"]["modes"]["currentModeId"] in ("ask", "default")
        kinds = [u["sessionUpdate"] for u in second.updates() if u["sessionUpdate"] != "available_commands_update"]
        assert kinds == ["user_message_chunk", "tool_call", "agent_message_chunk"]
        call = second.updates("tool_call")[0]
        assert call["kind"] == "read" and call["status"] == "completed" and "the answer is 42" in json.dumps(call)
        provider_server.push_openai(text="Still 42.")
        assert second.prompt(sid, "sure?")["result"]["stopReason"] == "end_turn"
        assert [m["role"] for m in provider_server.requests[-1].json["messages"]][-3:] == ["tool", "assistant", "user"]


def test_loading_a_session_that_does_not_exist_is_one_error(client):
    client.initialize()
    reply = client.request("session/load", {"sessionId": "20990101-000000-zzzz", "cwd": str(client.cwd),
                                            "mcpServers": []})
    assert reply["error"]["code"] == -32002 and "no session" in reply["error"]["message"]


def test_nothing_configured_is_auth_required_naming_the_variable(tmp_path):
    with acp(tmp_path) as client:
        offered = client.initialize()["result"]["authMethods"]
        assert offered and "ANTHROPIC_API_KEY" in offered[0]["description"]
        reply = client.request("session/new", {"cwd": str(client.cwd), "mcpServers": []})
        assert reply["error"]["code"] == -32000
        assert "ANTHROPIC_API_KEY" in reply["error"]["message"] or "local" in reply["error"]["message"]


def test_the_client_going_away_mid_turn_ends_ankit(client, provider_server):
    provider_server.push([b'data: {"choices":[{"index":0,"delta":{"content":"Thinking"}}]}\n\n', "stall"])
    client.initialize()
    sid = client.new_session()
    client.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "go slowly"}]})
    client.wait(lambda: client.updates("agent_message_chunk"))
    assert client.close() == 0  # within close()'s wait, though the model's stream never ends


def test_cancel_stops_a_subagent_whose_model_stalls(client, provider_server):
    task = '{"description": "look around", "prompt": "list what is here"}'
    provider_server.push_openai(tool_calls=[("t1", "task", task)])
    provider_server.push([b'data: {"choices":[{"index":0,"delta":{"content":"Sub"}}]}\n\n', "stall"])
    client.initialize()
    sid = client.new_session()
    rid = client.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "delegate"}]})
    client.wait(lambda: len(provider_server.requests) == 2)  # the subagent's request is streaming
    client.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
    assert client.answer(rid, timeout=10)["result"] == {"stopReason": "cancelled"}
    assert client.updates("tool_call")[0]["title"] == "task look around"
    assert client.updates("tool_call_update")[-1]["status"] == "failed"
