"""JSON-RPC over newline-delimited pipes (acp/wire.py): real OS pipes, each end a Connection or raw bytes."""

import json
import os
import threading

import pytest

from ankit.acp.wire import LINE_CAP, Closed, Connection, RpcError


class Pipes:
    """A Connection whose other end the test writes and reads as bytes."""

    def __init__(self, urgent=lambda m: False, line_cap: int = LINE_CAP):
        to_agent_r, self.to_agent = os.pipe()
        self.from_agent, from_agent_w = os.pipe()
        self.conn = Connection(os.fdopen(to_agent_r, "rb"), os.fdopen(from_agent_w, "wb"), line_cap).start(urgent)
        self.reader = os.fdopen(self.from_agent, "rb")

    def write(self, data: bytes) -> None:
        os.write(self.to_agent, data)

    def read(self) -> dict:
        return json.loads(self.reader.readline())

    def close(self) -> None:
        if self.to_agent >= 0:
            os.close(self.to_agent)
            self.to_agent = -1


@pytest.fixture
def pipes():
    made = Pipes()
    try:
        yield made
    finally:
        made.close()


def test_requests_and_notifications_reach_the_inbox_in_order(pipes):
    pipes.write(b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}\n'
                b'{"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}}\n')
    first, second = pipes.conn.inbox.get(timeout=5), pipes.conn.inbox.get(timeout=5)
    assert (first.method, first.id, first.params) == ("initialize", 1, {"protocolVersion": 1})
    assert (second.method, second.id) == ("session/cancel", None)
    pipes.conn.reply(1, {"ok": True})
    assert pipes.read() == {"jsonrpc": "2.0", "id": 1, "result": {"ok": True}}


def test_each_bad_line_gets_its_error_and_the_reading_goes_on(pipes):
    pipes.write(b"{not json\n" + b'"just a string"\n' + b'{"jsonrpc": "2.0", "id": 4, "method": 7}\n'
                + b'{"jsonrpc": "1.0", "id": 5, "method": "x"}\n' + b"\xff\xfe garbage\n"
                + b'{"jsonrpc": "2.0", "id": 6, "method": "ok"}\n')
    errors = [pipes.read() for _ in range(5)]
    assert [e["error"]["code"] for e in errors] == [-32700, -32600, -32600, -32600, -32700]
    assert [e["id"] for e in errors] == [None, None, 4, 5, None]
    assert pipes.conn.inbox.get(timeout=5).method == "ok"


def test_a_line_over_the_cap_is_refused_without_being_kept():
    pipes = Pipes(line_cap=4096)
    try:
        big = b'{"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"a": "' + b"a" * 3_000_000 + b'"}}\n'
        writer = threading.Thread(target=pipes.write, args=(big + b'{"jsonrpc": "2.0", "id": 2, "method": "y"}\n',))
        writer.start()
        error = pipes.read()
        writer.join()
        assert error["error"]["code"] == -32600 and "longer than 4,096 bytes" in error["error"]["message"]
        assert pipes.conn.inbox.get(timeout=10).method == "y"
    finally:
        pipes.close()


def test_a_request_to_the_client_waits_for_its_answer_or_its_error(pipes):
    answers = []
    asking = threading.Thread(target=lambda: answers.append(pipes.conn.request("fs/read_text_file", {"path": "/a"})))
    asking.start()
    sent = pipes.read()
    assert sent["method"] == "fs/read_text_file" and sent["params"] == {"path": "/a"}
    pipes.write(json.dumps({"jsonrpc": "2.0", "id": sent["id"], "result": {"content": "text"}}).encode() + b"\n")
    asking.join(5)
    assert answers == [{"content": "text"}]
    failing = threading.Thread(target=lambda: answers.append(_error_of(pipes.conn, "fs/write_text_file")))
    failing.start()
    sent = pipes.read()
    pipes.write(json.dumps({"jsonrpc": "2.0", "id": sent["id"], "error": {"code": -32002, "message": "gone"}}).encode()
                + b"\n")
    failing.join(5)
    assert answers[-1] == (-32002, "gone")


def _error_of(conn: Connection, method: str):
    try:
        conn.request(method, {})
    except RpcError as exc:
        return exc.code, exc.message


def test_urgent_messages_are_handled_on_the_reader_thread():
    seen = []
    pipes = Pipes(urgent=lambda m: seen.append(m.method) or m.method == "session/cancel")
    try:
        pipes.write(b'{"jsonrpc": "2.0", "method": "session/cancel", "params": {}}\n'
                    b'{"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {}}\n')
        assert pipes.conn.inbox.get(timeout=5).method == "session/prompt"
        assert seen == ["session/cancel", "session/prompt"]
    finally:
        pipes.close()


def test_the_end_of_input_ends_the_inbox_and_fails_waiting_requests(pipes):
    waiting = []
    asking = threading.Thread(target=lambda: waiting.append(_closed(pipes.conn)))
    asking.start()
    pipes.read()
    pipes.close()
    assert pipes.conn.inbox.get(timeout=5) is None
    asking.join(5)
    assert waiting == ["closed"]


def _closed(conn: Connection) -> str:
    try:
        conn.request("session/request_permission", {})
    except Closed:
        return "closed"
    return "answered"
