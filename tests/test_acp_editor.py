"""The editor's files and terminals under `ankit acp`: a client offering fs/* and terminal/* gets the reads, the
writes and the commands, after the same approvals; a real subprocess against the loopback provider server."""

import subprocess
import threading
from pathlib import Path

import pytest

from tests.acp_client import AcpClient, acp
from tests.helpers import RUN_TAG, sleeps_left, wait_for

ALLOW = {"outcome": {"outcome": "selected", "optionId": "allow_once"}}


class Terminals:
    """The client's terminals: each terminal/create runs its command as a real process, as an editor would."""

    def __init__(self):
        self.procs: dict[str, subprocess.Popen] = {}
        self.calls: list[str] = []

    def install(self, client: AcpClient) -> None:
        for method in ("create", "output", "wait_for_exit", "kill", "release"):
            client.handlers[f"terminal/{method}"] = getattr(self, method)

    def create(self, params: dict) -> dict:
        self.calls.append("create")
        tid = f"term-{len(self.procs) + 1}"
        self.procs[tid] = subprocess.Popen([params["command"], *params["args"]], cwd=params["cwd"],
                                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        return {"terminalId": tid}

    def wait_for_exit(self, params: dict) -> dict:
        self.calls.append("wait_for_exit")
        return {"exitCode": self.procs[params["terminalId"]].wait(), "signal": None}

    def output(self, params: dict) -> dict:
        self.calls.append("output")
        proc = self.procs[params["terminalId"]]
        text = proc.stdout.read().decode() if proc.poll() is not None else ""
        return {"output": text, "truncated": False, "exitStatus": {"exitCode": proc.returncode, "signal": None}}

    def kill(self, params: dict) -> dict:
        self.calls.append("kill")
        self.procs[params["terminalId"]].kill()
        return {}

    def release(self, params: dict) -> dict:
        self.calls.append("release")
        proc = self.procs[params["terminalId"]]
        if proc.poll() is None:
            proc.kill()
        return {}


@pytest.fixture
def client(tmp_path, provider_server):
    with acp(tmp_path, provider_server) as started:
        started.handlers["session/request_permission"] = lambda params: ALLOW
        yield started


def test_an_edit_is_written_through_fs_write_text_file(client, provider_server):
    (client.cwd / "app.py").write_text("x = 1\n")
    written = []

    def write(params):
        written.append(params)
        Path(params["path"]).write_text(params["content"])  # the editor saves its buffer
        return None

    client.handlers["fs/write_text_file"] = write
    client.handlers["fs/read_text_file"] = lambda params: {"content": Path(params["path"]).read_text()}
    client.initialize(fs=True)
    provider_server.push_openai(tool_calls=[("c1", "edit_file", '{"path": "app.py", "old_string": "x = 1", '
                                                               '"new_string": "x = 2"}')])
    provider_server.push_openai(text="Changed.")
    sid = client.new_session()
    assert client.prompt(sid, "set x to 2")["result"]["stopReason"] == "end_turn"
    path = str((client.cwd / "app.py").resolve())
    assert written == [{"sessionId": sid, "path": path, "content": "x = 2\n"}]
    diff = client.updates("tool_call_update")[-1]["content"][0]
    assert diff == {"type": "diff", "path": path, "oldText": "x = 1\n", "newText": "x = 2\n"}
    assert client.updates("tool_call")[0]["locations"] == [{"path": path}]


def test_a_read_sees_the_editors_unsaved_buffer(client, provider_server):
    (client.cwd / "notes.txt").write_text("on disk\n")
    client.handlers["fs/read_text_file"] = lambda params: {"content": "in the unsaved buffer\n"}
    client.initialize(fs=True)
    provider_server.push_openai(tool_calls=[("c1", "read_file", '{"path": "notes.txt"}')])
    provider_server.push_openai(text="Read.")
    client.prompt(client.new_session(), "read my notes")
    sent = provider_server.requests[1].json["messages"][-1]["content"]
    assert "in the unsaved buffer" in sent and "on disk" not in sent


def test_without_the_offer_ankit_uses_its_own_files(client, provider_server):
    client.initialize(fs=False)
    provider_server.push_openai(tool_calls=[("c1", "write_file", '{"path": "x.txt", "content": "own\\n"}')])
    provider_server.push_openai(text="Done.")
    client.prompt(client.new_session(), "write x.txt")
    assert (client.cwd / "x.txt").read_text() == "own\n"
    assert [m["method"] for m in client.asked] == ["session/request_permission"]


def test_a_command_runs_in_the_editors_terminal(client, provider_server):
    terminals = Terminals()
    terminals.install(client)
    client.initialize(terminal=True)
    provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "echo hello from $0"}')])
    provider_server.push_openai(text="Ran.")
    sid = client.new_session()
    assert client.prompt(sid, "say hello")["result"]["stopReason"] == "end_turn"
    assert terminals.calls == ["create", "wait_for_exit", "output", "release"]
    result = provider_server.requests[1].json["messages"][-1]["content"]
    assert result.startswith("exit code 0") and "hello from" in result
    shown = [u for u in client.updates("tool_call_update") if any(c["type"] == "terminal" for c in u["content"])]
    assert shown and shown[0]["content"][0] == {"type": "terminal", "terminalId": "term-1"}
    assert client.updates("tool_call")[0]["kind"] == "execute"


def test_cancel_kills_and_releases_the_editors_terminal(client, provider_server):
    terminals = Terminals()
    terminals.install(client)
    client.initialize(terminal=True)
    provider_server.push_openai(tool_calls=[("c1", "run_command", f'{{"command": "sleep {RUN_TAG}7"}}')])
    sid = client.new_session()
    rid = client.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "wait"}]})
    assert wait_for(lambda: "wait_for_exit" in terminals.calls)
    client.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
    assert client.answer(rid, timeout=10)["result"] == {"stopReason": "cancelled"}
    assert wait_for(lambda: "release" in terminals.calls)
    assert "kill" in terminals.calls and wait_for(lambda: not sleeps_left(f"{RUN_TAG}7"))
