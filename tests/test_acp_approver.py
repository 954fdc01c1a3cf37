"""Approvals under `ankit acp`: session/request_permission answered each of the four ways (and cancelled), mapped
onto ankit's answers; a real subprocess against the loopback provider server."""

import json

import pytest

from tests.acp_client import AcpClient, acp

WRITE = ("write_file", '{"path": "x.txt", "content": "hi\\n"}')


def picked(option: str):
    """A permission handler that picks this option and keeps what it was asked."""
    return lambda params: {"outcome": {"outcome": "selected", "optionId": option}}


@pytest.fixture
def client(tmp_path, provider_server):
    with acp(tmp_path, provider_server) as started:
        yield started


def asked(client: AcpClient) -> list[dict]:
    return [m for m in client.asked if m["method"] == "session/request_permission"]


def test_allow_once_runs_the_call_after_showing_its_diff(client, provider_server):
    client.handlers["session/request_permission"] = picked("allow_once")
    provider_server.push_openai(tool_calls=[("c1", *WRITE)])
    provider_server.push_openai(text="Written.")
    sid = client.new_session()
    assert client.prompt(sid, "write x.txt")["result"]["stopReason"] == "end_turn"
    assert (client.cwd / "x.txt").read_text() == "hi\n"
    question = asked(client)[0]["params"]
    assert question["sessionId"] == sid and question["toolCall"]["toolCallId"] == "c1"
    assert [o["kind"] for o in question["options"]] == ["allow_once", "allow_always", "reject_once", "reject_always"]
    assert "+hi" in question["toolCall"]["content"][0]["content"]["text"]
    statuses = [u.get("status") for u in client.updates() if u.get("toolCallId") == "c1"]
    assert statuses == ["pending", "in_progress", "completed"]
    done = client.updates("tool_call_update")[-1]
    assert done["content"][0] == {"type": "diff", "path": str((client.cwd / "x.txt").resolve()), "oldText": None,
                                  "newText": "hi\n"}
    assert client.updates("tool_call")[0]["kind"] == "edit"


def test_reject_once_declines_and_the_model_is_told(client, provider_server):
    client.handlers["session/request_permission"] = picked("reject_once")
    provider_server.push_openai(tool_calls=[("c1", *WRITE)])
    provider_server.push_openai(text="I did not write it.")
    sid = client.new_session()
    assert client.prompt(sid, "write x.txt")["result"]["stopReason"] == "end_turn"
    assert not (client.cwd / "x.txt").exists()
    assert "declined" in provider_server.requests[1].json["messages"][-1]["content"]
    assert client.updates("tool_call_update")[-1]["status"] == "failed"


def test_allow_always_and_reject_always_are_not_asked_again(client, provider_server):
    client.handlers["session/request_permission"] = picked("allow_always")
    provider_server.push_openai(tool_calls=[("c1", *WRITE)])
    provider_server.push_openai(tool_calls=[("c2", *WRITE)])
    provider_server.push_openai(text="Twice.")
    sid = client.new_session()
    client.prompt(sid, "write x.txt twice")
    assert len(asked(client)) == 1 and [u["status"] for u in client.updates("tool_call_update")] == [
        "in_progress", "completed", "completed"]
    client.handlers["session/request_permission"] = picked("reject_always")
    other = ("write_file", '{"path": "y.txt", "content": "no\\n"}')
    provider_server.push_openai(tool_calls=[("c3", *other)])
    provider_server.push_openai(tool_calls=[("c4", *other)])
    provider_server.push_openai(text="Refused twice.")
    client.prompt(client.new_session(), "write y.txt twice")  # a new session: the always above covered y.txt
    assert len(asked(client)) == 2 and not (client.cwd / "y.txt").exists()
    assert "rest of the session" in provider_server.requests[-1].json["messages"][-1]["content"]


def test_a_cancelled_question_ends_the_turn_as_cancelled(client, provider_server):
    client.handlers["session/request_permission"] = lambda params: {"outcome": {"outcome": "cancelled"}}
    provider_server.push_openai(tool_calls=[("c1", *WRITE)])
    sid = client.new_session()
    assert client.prompt(sid, "write x.txt")["result"]["stopReason"] == "cancelled"
    assert not (client.cwd / "x.txt").exists()
    assert provider_server.pending == 0 and len(provider_server.requests) == 1


def test_a_command_holding_backticks_cannot_close_the_questions_fence(client, provider_server):
    """The question is Markdown in the editor: ``` in a command must not end the code block and let the rest
    render as the question's own words."""
    client.handlers["session/request_permission"] = picked("reject_once")
    command = "rm -rf ~/work\n```\n\n**Allow always covers: nothing; this only lists files**\n\n```sh\nls"
    arguments = json.dumps({"command": command, "sandbox": False, "reason": "x"})
    provider_server.push_openai(tool_calls=[("c1", "run_command", arguments)])
    provider_server.push_openai(text="Declined.")
    sid = client.new_session()
    client.prompt(sid, "clean up")
    text = asked(client)[0]["params"]["toolCall"]["content"][0]["content"]["text"]
    fence = text.split("\n", 1)[0]
    assert fence.startswith("````") and text.count("\n" + fence.rstrip("diff") + "\n") == 1, text
    assert text.index("Allow always covers: nothing") < text.rindex("\n" + fence + "\n"), text
