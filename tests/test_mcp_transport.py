"""The stdio transport against a real fake server subprocess: requests, the server's own messages, failures, close."""

import os
import stat
import sys
import threading

import pytest

from ankit.mcp.transport import McpError, StdioTransport
from tests.helpers import wait_for
from tests.test_mcp_client import FAKE, received

INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}


@pytest.fixture
def make(tmp_path):
    transports = []

    def build(*flags, env=None, cwd=None, on_notice=None, command=sys.executable):
        args = [FAKE, *flags, "--record", str(tmp_path / "record.jsonl")]
        transport = StdioTransport("fake", command, args, env, cwd, tmp_path / "fake.log", on_notice)
        transports.append(transport)
        return transport

    yield build
    for transport in transports:
        transport.close()


@pytest.fixture
def start(make):
    """A transport past the handshake the fake server insists on."""

    def started(*flags, **options) -> StdioTransport:
        transport = make(*flags, **options)
        transport.spawn()
        transport.request("initialize", INIT, 10)
        transport.notify("notifications/initialized")
        return transport

    return started


def call(transport: StdioTransport, name: str, arguments: dict, timeout: float = 10) -> dict:
    return transport.request("tools/call", {"name": name, "arguments": arguments}, timeout)


def test_a_slow_call_times_out_is_cancelled_and_the_server_goes_on(start, tmp_path):
    transport = start()
    with pytest.raises(McpError, match=r"did not answer tools/call within 0.3s"):
        call(transport, "slow", {"seconds": 30}, 0.3)
    slow_id = next(m["id"] for m in received(tmp_path) if m.get("params", {}).get("name") == "slow")
    assert wait_for(lambda: any(m.get("method") == "notifications/cancelled" and m["params"]["requestId"] == slow_id
                                for m in received(tmp_path)))
    assert transport.alive
    assert call(transport, "echo", {"text": "still here"})["content"][0]["text"] == "still here"
    assert wait_for(lambda: f"request {slow_id} cancelled" in (tmp_path / "fake.log").read_text())


def test_answers_are_matched_to_requests_by_id(start):
    transport = start()
    slow: list = []
    thread = threading.Thread(target=lambda: slow.append(call(transport, "slow", {"seconds": 0.5})))
    thread.start()
    assert call(transport, "echo", {"text": "first"})["content"][0]["text"] == "first"
    thread.join()
    assert slow[0]["content"][0]["text"] == "slept"


def test_server_requests_are_answered(start):
    text = call(start(), "talk", {})["content"][0]["text"]
    assert text == "ping answered {}; roots/list answered error -32601"


def test_notifications_reach_the_callback_and_the_log(start, tmp_path):
    seen: list[str] = []
    changed = threading.Event()

    def notice(method, params):
        seen.append(method)
        if method == "notifications/tools/list_changed":
            changed.set()

    call(start(on_notice=notice), "grow", {})
    assert changed.wait(30)
    assert "notifications/message" not in seen  # log messages go to the log only
    assert 'log info: "fake server initialized"' in (tmp_path / "fake.log").read_text()


def test_server_stderr_goes_to_the_log_not_the_screen(start, tmp_path, capfd):
    start().close()
    assert "fake server: started" in (tmp_path / "fake.log").read_text()
    assert "fake server" not in capfd.readouterr().err


def test_the_log_is_readable_by_the_user_only(make, tmp_path):
    (tmp_path / "fake.log").write_text("an older log\n")
    os.chmod(tmp_path / "fake.log", 0o644)
    make().spawn()
    assert stat.S_IMODE((tmp_path / "fake.log").stat().st_mode) == 0o600
    assert (tmp_path / "fake.log").read_text().startswith("an older log\n[ankit] starting ")


def test_env_and_cwd_reach_the_server(start, tmp_path):
    folder = tmp_path / "work"
    folder.mkdir()
    text = call(start(env={"FAKE_GREETING": "hello"}, cwd=str(folder)), "whereami", {})["content"][0]["text"]
    assert text == f"{os.path.realpath(folder)} hello"


def test_a_crash_fails_the_call_in_one_line_and_later_requests_at_once(start):
    transport = start()
    with pytest.raises(McpError) as caught:
        call(transport, "crash", {})
    assert "exited with code 1: fake server: crashing on request" in str(caught.value)
    assert not transport.alive and "exited with code 1" in transport.failure
    with pytest.raises(McpError, match="exited with code 1"):
        call(transport, "echo", {"text": "x"})


def test_env_values_and_url_passwords_the_server_repeats_are_hidden(start):
    transport = start(env={"FAKE_TOKEN": "tok-0123456789", "FAKE_GREETING": "hi"})
    with pytest.raises(McpError) as unknown:
        call(transport, "nope", {})
    with pytest.raises(McpError) as crashed:
        call(transport, "crash", {})
    for text in (str(unknown.value), str(crashed.value), transport.failure):
        assert "tok-0123456789" not in text and "hunter22" not in text
        assert "(token [redacted], database postgres://me:[redacted]@db/x)" in text
    assert str(unknown.value).startswith("MCP server 'fake': Unknown tool: nope")


def test_a_missing_command_or_folder_is_one_clear_line(make, tmp_path):
    with pytest.raises(McpError, match="could not start 'no-such-mcp-server': command not found"):
        make(command="no-such-mcp-server").spawn()
    with pytest.raises(McpError, match="cwd .* is not a folder"):
        make(cwd=str(tmp_path / "missing")).spawn()


def test_junk_only_output_is_reported(make, tmp_path):
    transport = make("--junk-only")
    transport.spawn()
    with pytest.raises(McpError):  # the server answers junk, possibly late on a loaded machine
        transport.request("initialize", INIT, 0.5)
    assert wait_for(lambda: transport.junk_lines > 0, 20)
    with pytest.raises(McpError) as caught:
        transport.request("initialize", INIT, 0.5)
    assert "did not answer initialize within 0.5s" in str(caught.value)
    assert "not JSON-RPC" in str(caught.value)
    assert "I do not speak JSON" in (tmp_path / "fake.log").read_text()


def test_junk_between_messages_is_skipped(start, tmp_path):
    transport = start("--banner")
    assert call(transport, "junk", {})["content"][0]["text"] == "after junk"
    assert transport.junk_lines == 2
    assert "Fake MCP server ready!" in (tmp_path / "fake.log").read_text()


def test_close_ends_the_process(start):
    transport = start()
    pid = transport.pid
    transport.close()
    assert not transport.alive
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with pytest.raises(McpError, match="was closed"):
        call(transport, "echo", {"text": "x"})


def test_progress_notifications_keep_a_call_alive_past_its_timeout(start, tmp_path):
    transport = start()
    # 2.2 s of work with progress every 0.05 s against a 1 s timeout: only the progress keeps it alive
    result = transport.request("tools/call", {"name": "slow", "arguments": {"seconds": 2.2, "every": 0.05}}, 1.0,
                               progress=True)
    assert result["content"][0]["text"].endswith(" steps")
    sent = [m for m in received(tmp_path) if m.get("method") == "tools/call"][-1]
    assert sent["params"]["_meta"] == {"progressToken": sent["id"]}
    assert transport.alive and transport.request("ping", None, 10) == {}  # a token nobody asked for is ignored


def test_a_call_without_progress_keeps_its_timeout(start):
    transport = start()
    with pytest.raises(McpError, match=r"did not answer tools/call within 0.5s"):
        transport.request("tools/call", {"name": "slow", "arguments": {"seconds": 2, "every": 0.05}}, 0.5)
    assert transport.request("ping", None, 10) == {}


def test_a_log_message_reaches_the_log_through_the_text_boundary(start, tmp_path):
    """A C1 CSI, an OSC title and a bell in a server's log message would act on the terminal of whoever reads
    the log: they are kept as visible text."""
    start("--log-text", "\x9b2Jgone \x1b]0;title\x07 done")
    log = tmp_path / "fake.log"
    assert wait_for(lambda: "done" in log.read_text())
    text = log.read_text()
    assert "\x9b" not in text and "\x1b" not in text and "\x07" not in text
    assert "log info: " in text and "gone" in text


def test_what_a_server_prints_on_stderr_reaches_its_log_scrubbed(start, tmp_path):
    """A server that prints its token and a URL password on stderr: the log keeps neither."""
    token = "fake-token-" + "q7" * 12
    transport = start(env={"FAKE_TOKEN": token})
    with pytest.raises(McpError):
        call(transport, "crash", {})
    log = (tmp_path / "fake.log").read_text()
    assert "fake server: crashing on request (token [redacted]" in log
    assert token not in log and "hunter22" not in log
