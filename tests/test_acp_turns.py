"""A prompt under `ankit acp` to its stop reason: the slash commands ankit runs itself and the custom ones, the
plan from write_todos, modes, usage, and why a reply stopped short; a real subprocess against the loopback
provider server."""

import pytest

from tests.acp_client import acp


@pytest.fixture
def client(tmp_path, provider_server):
    with acp(tmp_path, provider_server) as started:
        yield started


def test_the_commands_offered_are_ankits_and_the_custom_ones(tmp_path, provider_server):
    commands = tmp_path / "config" / "ankit" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("---\ndescription: review a file\nargument-hint: FILE\n---\nReview $1 closely.\n")
    with acp(tmp_path, provider_server) as client:
        sid = client.new_session()
        offered = {c["name"]: c for c in client.wait(lambda: client.updates("available_commands_update"))[0][
            "availableCommands"]}
        assert {"help", "usage", "compact", "clear", "undo", "mode", "model", "todos", "review"} <= set(offered)
        assert offered["review"]["input"] == {"hint": "FILE"} and offered["review"]["description"] == "review a file"
        provider_server.push_openai(text="Looks fine.")
        assert client.prompt(sid, "/review app.py")["result"]["stopReason"] == "end_turn"
        assert provider_server.requests[0].json["messages"][-1]["content"] == "Review app.py closely."


def test_a_custom_commands_lines_run_through_the_runner_and_its_approval(tmp_path, provider_server):
    commands = tmp_path / "config" / "ankit" / "commands"
    commands.mkdir(parents=True)
    (commands / "status.md").write_text("The folder holds: !`echo one-file`\nSay so.\n")
    with acp(tmp_path, provider_server, "--sandbox", "off") as client:
        client.handlers["session/request_permission"] = lambda p: {"outcome": {"outcome": "selected",
                                                                               "optionId": "allow_once"}}
        provider_server.push_openai(text="It holds one file.")
        assert client.prompt(client.new_session(), "/status")["result"]["stopReason"] == "end_turn"
        assert [m["method"] for m in client.asked] == ["session/request_permission"]
        sent = provider_server.requests[0].json["messages"][-1]["content"]
        assert sent.startswith("The folder holds: exit code 0") and "one-file" in sent
        unknown = client.prompt(client.new_session(), "/nosuch thing")
        assert unknown["result"]["stopReason"] == "end_turn" and "unknown command /nosuch" in client.text()
        assert len(provider_server.requests) == 1


def test_usage_is_a_slash_command_and_an_update_after_each_turn(client, provider_server):
    sid = client.new_session()
    provider_server.push_openai(text="Hi.", usage={"prompt_tokens": 1200, "completion_tokens": 30,
                                                   "total_tokens": 1230})
    client.prompt(sid, "hello")
    usage = client.updates("usage_update")[-1]
    assert usage["used"] == 1230 and usage["size"] > 1230
    before = len(client.updates("agent_message_chunk"))
    assert client.prompt(sid, "/usage")["result"]["stopReason"] == "end_turn"
    shown = "".join(u["content"]["text"] for u in client.updates("agent_message_chunk")[before:])
    assert "1,200" in shown or "1.2" in shown
    assert len(provider_server.requests) == 1  # /usage asked the model nothing


def test_set_mode_switches_the_sandbox_mode_and_says_so(client, provider_server):
    sid = client.new_session()
    assert client.request("session/set_mode", {"sessionId": sid, "modeId": "acceptEdits"})["result"] == {}
    assert client.updates("current_mode_update")[-1]["currentModeId"] == "acceptEdits"
    assert client.request("session/set_mode", {"sessionId": sid, "modeId": "plan"})["result"] == {}
    assert client.updates("current_mode_update")[-1]["currentModeId"] in ("plan", "ask")  # ask: no sandbox here
    bad = client.request("session/set_mode", {"sessionId": sid, "modeId": "yolo"})
    assert bad["error"]["code"] == -32602 and "default, acceptEdits, plan, ask" in bad["error"]["message"]


def test_write_todos_becomes_the_plan(client, provider_server):
    todos = '{"todos": [{"text": "read the code", "status": "done"}, {"text": "fix it", "status": "in_progress"}]}'
    provider_server.push_openai(tool_calls=[("c1", "write_todos", todos)])
    provider_server.push_openai(text="Planned.")
    client.prompt(client.new_session(), "plan it")
    assert client.updates("plan")[-1]["entries"] == [
        {"content": "read the code", "priority": "medium", "status": "completed"},
        {"content": "fix it", "priority": "medium", "status": "in_progress"}]
    assert client.updates("tool_call")[0]["kind"] == "think"


def test_a_reply_cut_at_max_tokens_stops_with_max_tokens(client, provider_server):
    provider_server.push_openai(text="This reply was cu", finish="length")
    reply = client.prompt(client.new_session(), "write a lot")
    assert reply["result"]["stopReason"] == "max_tokens"
    assert "max_tokens" in client.text("agent_thought_chunk")


def test_a_refusal_stops_with_refusal(client, provider_server):
    provider_server.push_openai(text="", finish="content_filter")
    assert client.prompt(client.new_session(), "something bad")["result"]["stopReason"] == "refusal"


def test_max_rounds_stops_with_max_turn_requests(tmp_path, provider_server):
    (tmp_path / "config" / "ankit").mkdir(parents=True)
    (tmp_path / "config" / "ankit" / "config.toml").write_text("max_rounds = 2\n")
    with acp(tmp_path, provider_server) as client:
        for number in (1, 2):
            provider_server.push_openai(tool_calls=[(f"c{number}", "get_time", "{}")])
        assert client.prompt(client.new_session(), "loop")["result"]["stopReason"] == "max_turn_requests"


def test_images_and_embedded_files_reach_the_model(client, provider_server, tmp_path):
    (client.cwd / "linked.py").write_text("print('linked')\n")
    provider_server.push_openai(text="Seen.")
    sid = client.new_session()
    client.prompt(sid, "look at", {"type": "resource_link", "uri": (client.cwd / "linked.py").as_uri(),
                                   "name": "linked.py"},
                  {"type": "resource", "resource": {"uri": (client.cwd / "buffer.py").as_uri(),
                                                    "text": "print('unsaved')\n"}})
    sent = provider_server.requests[0].json["messages"][-1]["content"]
    assert '<file path="linked.py">\nprint(\'linked\')\n</file>' in sent
    assert '<file path="buffer.py">\nprint(\'unsaved\')\n</file>' in sent


def test_a_provider_failure_is_the_prompts_error_in_one_line_and_the_session_goes_on(client, provider_server):
    provider_server.push({"error": {"message": "model not found"}}, status=404)
    sid = client.new_session()
    failed = client.prompt(sid, "hello")
    assert failed["error"]["code"] == -32603 and "check the model name" in failed["error"]["message"]
    assert "\n" not in failed["error"]["message"] and "Traceback" not in failed["error"]["message"]
    provider_server.push_openai(text="Fine now.")
    assert client.prompt(sid, "again")["result"]["stopReason"] == "end_turn"


def test_the_mode_changes_while_a_turn_runs(client, provider_server):
    gate = provider_server.gate()
    provider_server.push([b'data: {"choices":[{"index":0,"delta":{"content":"Working"}}]}\n\n', gate,
                          b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'])
    sid = client.new_session()
    rid = client.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "work"}]})
    client.wait(lambda: client.updates("agent_message_chunk"))
    changed = client.request("session/set_mode", {"sessionId": sid, "modeId": "acceptEdits"}, timeout=10)
    assert changed["result"] == {} and "id" not in client.answers.get(rid, {})  # answered while the turn runs
    assert client.updates("current_mode_update")[-1]["currentModeId"] == "acceptEdits"
    gate.set()
    assert client.answer(rid)["result"]["stopReason"] == "end_turn"
