"""The text boundary (safety/text.py): what enters as text is normalised once, at the edge; each attack through
the real path (a loopback model server, real files and file names, a real shell)."""

import base64
import json
import os
import re
import sys
from urllib.parse import quote

import pytest

from ankit.records import ToolCall
from ankit.safety import text as boundary
from ankit.safety.scrub import Scrubber
from ankit.terminal.bang import run_shell
from ankit.tooling.toolbox import ToolContext, run_call
from tests.helpers import bundled
from tests.test_oneshot import ankit


def sessions(tmp_path) -> list[list[dict]]:
    folder = tmp_path / "state" / "ankit" / "sessions"
    return [[json.loads(line) for line in path.read_bytes().split(b"\n") if line] for path in sorted(folder.glob("*.jsonl"))]


@pytest.mark.parametrize("surrogate", ["\ud800", "\udfff", "\udce9"])
def test_a_lone_surrogate_in_a_model_reply_is_replaced_and_the_reply_kept(provider_server, tmp_path, surrogate):
    provider_server.push_openai(text=f"before {surrogate} after")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "hello")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout.strip() == "before \ufffd after"
    [saved] = sessions(tmp_path)
    assert saved[-3]["text"] == "before \ufffd after" if saved[-3].get("role") == "assistant" else \
        any(line.get("text") == "before \ufffd after" for line in saved)
    provider_server.push_openai(text="second")  # the next turn sends the history: it must encode
    again = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--continue", "-p", "again")
    assert again.returncode == 0, again.stderr
    assert provider_server.requests[-1].json["messages"][-2]["content"] == "before \ufffd after"


def test_a_lone_surrogate_in_tool_call_arguments(provider_server, tmp_path):
    (tmp_path / "work").mkdir()
    provider_server.push_openai(tool_calls=[("c1", "write_file", '{"path": "a\ud800.txt", "content": "x\udfff"}')])
    provider_server.push_openai(text="done")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--yes", "-p", "hello")
    assert done.returncode == 0 and "Traceback" not in done.stderr and "could not save" not in done.stderr, done.stderr
    assert (tmp_path / "work" / "a\ufffd.txt").read_text() == "x\ufffd"
    call = provider_server.requests[1].json["messages"][-2]["tool_calls"][0]["function"]["arguments"]
    assert "\ud800" not in call and "\udfff" not in json.dumps(provider_server.requests[1].json)


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085", "\x1c", "\x1d", "\x1e", "\x0b", "\x0c"])
def test_a_line_separator_in_a_tool_result_survives_continue(provider_server, tmp_path, separator):
    work = tmp_path / "work"
    work.mkdir()
    for name in "abc":
        (work / f"{name}.txt").write_text(f"first{separator}second {name}\n")
    provider_server.push_openai(tool_calls=[(f"c{n}", "read_file", json.dumps({"path": f"{n}.txt"})) for n in "abc"])
    provider_server.push_openai(text="read them")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "read three files")
    assert done.returncode == 0, done.stderr
    provider_server.push_openai(text="next")
    again = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--continue", "-p", "go on")
    assert again.returncode == 0 and "cancelled" not in again.stderr, again.stderr
    results = [m for m in provider_server.requests[-1].json["messages"] if m["role"] == "tool"]
    assert [r["content"].count(f"first{separator}second") for r in results] == [1, 1, 1], results
    raw = next((tmp_path / "state" / "ankit" / "sessions").glob("*.jsonl")).read_bytes()
    assert separator.encode() not in raw  # written escaped: no reader can split a line there


def test_a_file_name_that_is_not_utf8_in_an_at_mention_is_no_crash(provider_server, tmp_path):
    src = tmp_path / "work" / "src"
    src.mkdir(parents=True)
    (src / os.fsdecode(b"caf\xe9.txt")).write_text("x")
    (src / os.fsdecode(b"\xff\xfe.py")).write_text("y")
    provider_server.push_openai(text="seen")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "look at @src")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    sent = provider_server.requests[0].json["messages"][-1]["content"]
    assert "caf\ufffd.txt" in sent and "\ufffd\ufffd.py" in sent


def test_a_prompt_argument_that_is_not_utf8_is_no_crash(provider_server, tmp_path):
    (tmp_path / "work").mkdir()
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", os.fsdecode(b"caf\xe9 @caf\xe9.txt"))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert provider_server.requests[0].json["messages"][-1]["content"].startswith("caf\ufffd")


SECRET = "sk-proj-Zq8Xv3Lm9Tn2Rb6Wc4Yd7Kf1Hg5Js0Pa"


def test_a_secret_across_a_4k_read_boundary_of_a_bang_command_is_scrubbed(tmp_path):
    shown: list[str] = []
    command = f"printf '%4090s%s\\ntail\\n' '' '{SECRET}'"  # one write: the first 4096-byte read ends inside it
    output, code = run_shell(command, tmp_path, shown.append, Scrubber({"MY_API_KEY": SECRET}))
    assert code == 0 and "tail" in output
    for text in (output, "".join(shown)):
        assert SECRET not in text and SECRET[:12] not in text and SECRET[-12:] not in text and "[redacted]" in text


@pytest.mark.parametrize("encode", [
    "base64", "base64 with newline", "base64 after two bytes", "urlsafe base64", "hex", "HEX", "url-encoded",
    "url-encoded lower-case",
])
def test_encoded_forms_of_a_known_secret_never_reach_the_model(tmp_path, encode):
    secret = "hunter2-pa$$/word+key=value"
    data = secret.encode()
    produced = {
        "base64": base64.b64encode(data).decode(), "base64 with newline": base64.b64encode(data + b"\n").decode(),
        "base64 after two bytes": base64.b64encode(b"k=" + data).decode(),
        "urlsafe base64": base64.urlsafe_b64encode(b"x" + data).decode(), "hex": data.hex(),
        "HEX": data.hex().upper(), "url-encoded": "pa%s" % quote(secret, safe=""),
        "url-encoded lower-case": re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), quote(secret, safe="")),
    }[encode]
    command = f"printf '%s\\n' '{produced}'"
    result = run_call(ToolCall("c1", "run_command", json.dumps({"command": command})), bundled()[0]["run_command"],
                      ToolContext(cwd=tmp_path), lambda *a: True, scrub=Scrubber({"DB_PASSWORD": secret}))
    assert "[redacted]" in result.content, result.content
    middle = produced[len(produced) // 2 - 4: len(produced) // 2 + 4]
    assert middle not in result.content


def test_a_private_key_block_split_across_reads_is_hidden_whole(tmp_path):
    body = "\n".join("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC" + str(i) for i in range(200))
    key = f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n"
    file = tmp_path / "key.pem"
    file.write_text(key)
    shown: list[str] = []
    output, _ = run_shell(f"cat {file}", tmp_path, shown.append, Scrubber({}))
    assert "MIIEvQIBADAN" not in output and "MIIEvQIBADAN" not in "".join(shown)


def test_loads_and_clean():
    assert boundary.loads('{"a": "x\\ud800y", "\\udfff": ["\\ud83d\\ude00"]}') == {"a": "x\ufffdy", "\ufffd": ["😀"]}
    assert boundary.loads(b'{"a": "\xff"}') == {"a": "\ufffd"}
    assert boundary.clean("fine \u2028 text") == "fine \u2028 text"
    assert boundary.name(os.fsdecode(b"caf\xe9")) == "caf\ufffd"


@pytest.mark.parametrize("kind", ["anthropic", "responses"])
def test_a_lone_surrogate_in_the_other_wire_formats_is_replaced(provider_server, kind):
    from conftest import stream_round, text_of
    getattr(provider_server, f"push_{kind}")(text="left \udbff right")
    events, error = stream_round(provider_server, kind=kind)
    assert error is None
    assert text_of(events) == "left \ufffd right"


def test_a_provider_error_body_with_invalid_utf8_and_a_surrogate_is_one_clean_line(provider_server, tmp_path):
    provider_server.push(b'{"error": {"message": "bad \\ud800 key \xff\xfe here", "type": "invalid"}}', status=400,
                         headers={"content-type": "application/json"})
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "hello")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert "bad \ufffd key \ufffd\ufffd here" in line


SURROGATE_SERVER = r'''
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method, result = message["method"], {}
    if method == "initialize":
        result = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "s", "version": "1"}, "instructions": "use \ud800 well"}
    elif method == "tools/list":
        result = {"tools": [{"name": "say", "description": "Say \udfff.", "inputSchema": {"type": "object"}}]}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "odd \ud800 text \udc80"}]}
    else:
        result = None
    answer = {"result": result} if result is not None else {"error": {"code": -32601, "message": "no such method"}}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], **answer}) + "\n")
    sys.stdout.flush()
'''


def test_lone_surrogates_from_an_mcp_server_are_replaced_where_they_enter(tmp_path):
    from ankit.mcp.servers import McpManager
    server = tmp_path / "server.py"
    server.write_text(SURROGATE_SERVER)
    manager = McpManager({"s": {"command": sys.executable, "args": [str(server)]}}, tmp_path / "logs", None)
    try:
        manager.start()
        assert manager.wait(20)
        [tool] = manager.catalog.tools()
        assert tool.description == "Say \ufffd."
        result = run_call(ToolCall("c1", tool.name, "{}"), tool, ToolContext(cwd=tmp_path), lambda *a: True)
        assert result.content == "odd \ufffd text \ufffd"
        json.dumps(result.content, ensure_ascii=False).encode()  # nothing left that cannot be written
    finally:
        manager.close()
