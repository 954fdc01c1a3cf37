"""What the loop reports, as session/update notifications (acp/view.py): kinds from declared effects, a call's
updates around a real run of a bundled tool, its diff, its output, the plan."""

import json
from dataclasses import replace

from ankit.acp.view import AcpView, kind_of
from ankit.records import TodoList, ToolCall
from ankit.tooling.toolbox import ToolContext, run_call
from tests.helpers import Approver, bundled


def test_kinds_come_from_declared_effects_and_what_ankits_own_tools_do():
    tools = bundled()[0]
    kinds = {name: kind_of(tools[name]) for name in ("read_file", "write_file", "delete_file", "move_file",
                                                     "run_command", "web_fetch", "web_search", "search_text",
                                                     "write_todos", "remember", "get_time")}
    assert kinds == {"read_file": "read", "write_file": "edit", "delete_file": "delete", "move_file": "move",
                     "run_command": "execute", "web_fetch": "fetch", "web_search": "search", "search_text": "search",
                     "write_todos": "think", "remember": "edit", "get_time": "read"}
    elsewhere = replace(tools["delete_file"], source="/home/me/.config/ankit/tools/delete_file.py")
    assert kind_of(elsewhere) == "edit" and kind_of(None) == "other"  # a name alone says nothing


def sent_view(tmp_path):
    sent = []
    view = AcpView(lambda method, params: sent.append(params["update"]), bundled()[0].get, tmp_path)
    view.open("s1")
    return view, sent


def test_a_write_is_a_tool_call_then_its_diff(tmp_path):
    (tmp_path / "a.txt").write_text("old\n")
    view, sent = sent_view(tmp_path)
    call = ToolCall("c1", "write_file", json.dumps({"path": "a.txt", "content": "new\n"}))
    view.tool_start(call)
    result = run_call(call, bundled()[0]["write_file"], ToolContext(cwd=tmp_path), Approver())
    view.tool_end(result)
    start, end = sent
    path = str((tmp_path / "a.txt").resolve())
    assert start == {"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "write_file a.txt", "kind": "edit",
                     "status": "pending", "rawInput": {"path": "a.txt", "content": "new\n"},
                     "locations": [{"path": path}]}
    assert end["status"] == "completed" and end["content"][0] == {"type": "diff", "path": path, "oldText": "old\n",
                                                                  "newText": "new\n"}
    assert end["content"][1]["content"]["text"].startswith("wrote a.txt")


def test_output_streams_as_updates_and_controls_are_shown_not_sent(tmp_path):
    view, sent = sent_view(tmp_path)
    view.tool_start(ToolCall("c1", "run_command", '{"command": "ls"}'))
    view.tool_output("line one\x1b[2J\n")
    view.notice("careful\x07")
    assert sent[1]["status"] == "in_progress" and sent[1]["content"][0]["content"]["text"] == "line one^[[2J\n"
    assert sent[2] == {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "ankit: careful^G\n"}}


def test_updates_wait_until_the_session_is_open(tmp_path):
    sent = []
    view = AcpView(lambda method, params: sent.append(params), bundled()[0].get, tmp_path)
    view.notice("early")
    assert sent == []
    view.open("s9")
    assert sent == [{"sessionId": "s9", "update": {"sessionUpdate": "agent_thought_chunk",
                                                   "content": {"type": "text", "text": "ankit: early\n"}}}]


def test_the_checklist_is_the_whole_plan_each_time(tmp_path):
    view, sent = sent_view(tmp_path)
    todos = TodoList()
    todos.replace([{"text": "one", "status": "done"}, {"text": "two"}])
    view.todos(todos)
    assert sent == [{"sessionUpdate": "plan", "entries": [
        {"content": "one", "priority": "medium", "status": "completed"},
        {"content": "two", "priority": "medium", "status": "pending"}]}]
