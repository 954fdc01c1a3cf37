"""Security: sessions stay valid. Calls left without results are repaired on load, two processes continuing one
session both keep their turns, saves append, and a torn write loses only its own line (real `ankit -p`)."""

import json
import subprocess
import sys
import time

from ankit.records import Message, ToolCall, ToolResult
from ankit.safety.scrub import Scrubber
from ankit.storage.sessions import SessionData, SessionStore
from tests.test_oneshot import env_for

SID = "20261130-101500-beef"


def sessions(tmp_path):
    return tmp_path / "state" / "ankit" / "sessions"


def start(tmp_path, server, prompt: str) -> subprocess.Popen:
    (tmp_path / "work").mkdir(exist_ok=True)
    return subprocess.Popen([sys.executable, "-m", "ankit", "--base-url", server.url + "/v1", "--continue", "-p", prompt],
                            cwd=tmp_path / "work", env=env_for(tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def saved(tmp_path, messages: list[Message]) -> SessionStore:
    store = SessionStore(sessions(tmp_path), scrubber=Scrubber({}))
    store.save(SessionData(SID, "2026-11-30T10:15:00", str(tmp_path / "work"), "local", "local", messages))
    return store


def test_calls_left_without_results_are_answered_as_cancelled_on_load(provider_server, tmp_path):
    (tmp_path / "work").mkdir()
    crashed = [Message("user", "run two things"),
               Message("assistant", "", [ToolCall("c1", "run_command", "{}"), ToolCall("c2", "read_file", "{}")])]
    saved(tmp_path, crashed)
    provider_server.push_openai(text="ok")
    done = start(tmp_path, provider_server, "go on")
    out, err = done.communicate(timeout=60)
    assert done.returncode == 0 and out == "ok\n", err
    sent = provider_server.requests[0].json["messages"]
    answered = [m["tool_call_id"] for m in sent if m["role"] == "tool"]
    assert answered == ["c1", "c2"] and "cancelled" in sent[-2]["content"]
    assert "answered as cancelled" in err


def test_two_processes_continuing_one_session_both_keep_their_turn(provider_server, tmp_path):
    (tmp_path / "work").mkdir()
    saved(tmp_path, [Message("user", "hello"), Message("assistant", "hi")])
    held = provider_server.gate()
    provider_server.push(provider_server_parts(held, "slow answer"))  # the first process answers last
    provider_server.push_openai(text="quick answer")
    slow = start(tmp_path, provider_server, "first question")
    deadline = time.monotonic() + 30
    while not provider_server.requests and time.monotonic() < deadline:  # the first has loaded and asked
        time.sleep(0.02)
    quick = start(tmp_path, provider_server, "second question")
    assert quick.communicate(timeout=60)[0] == "quick answer\n"
    held.set()
    assert slow.communicate(timeout=60)[0] == "slow answer\n"
    text = (sessions(tmp_path) / f"{SID}.jsonl").read_text()
    for words in ("hello", "first question", "slow answer", "second question", "quick answer"):
        assert words in text
    loaded = SessionStore(sessions(tmp_path)).load(SID)
    assert [m.role for m in loaded.messages] == ["user", "assistant"] * 3


def provider_server_parts(gate, text: str) -> list:
    from tests.conftest import fixture_parts, openai_sse
    return [gate, *fixture_parts(openai_sse(text=text))]


def test_a_save_appends_and_a_torn_line_loses_only_itself(tmp_path):
    messages = [Message("user", "one"), Message("assistant", "two")]
    store = saved(tmp_path, messages)
    path = sessions(tmp_path) / f"{SID}.jsonl"
    before, inode = path.read_bytes(), path.stat().st_ino
    with open(path, "ab") as handle:
        handle.write(b'{"type":"message","role":"user","te')  # a crash in the middle of a line
    data = SessionData(SID, "2026-11-30T10:15:00", str(tmp_path), "local", "local",
                       messages + [Message("user", "three"), Message("assistant", "four")])
    store.save(data)
    after = path.read_bytes()
    assert path.stat().st_ino == inode and after.startswith(before)  # appended, not rewritten
    warnings = []
    loaded = SessionStore(sessions(tmp_path), warn=warnings.append).load(SID)
    assert [m.text for m in loaded.messages] == ["one", "two", "three", "four"]
    assert len(warnings) == 1 and "skipped unreadable line" in warnings[0]
    assert all(json.loads(line) for line in after.decode().splitlines() if not line.endswith('"te'))
