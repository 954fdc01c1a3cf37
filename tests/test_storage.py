"""Session files: atomic saves, permissions, lookup by prefix, corrupt lines, and the secret scrub."""

import json
import os
import re
import stat
from datetime import datetime

import pytest

from ankit.errors import AnkitError
from ankit.records import Image, Message, Todo, ToolCall, ToolResult, Usage
from ankit.safety.scrub import Scrubber
from ankit.storage.sessions import SessionData, SessionStore, message_entry, message_from, new_session_id
from ankit.usage.ledger import RoundRecord

SECRET = "sk-ant-test-0123456789abcdef"


def sample(sid="20261130-101500-ab12", text="Fix the failing test\nin tests/test_x.py"):
    messages = [
        Message("user", text),
        Message("assistant", "Looking.", [ToolCall("c1", "read_file", '{"path": "tests/test_x.py"}')]),
        Message("tool", results=[ToolResult("c1", "read_file", "def test_x(): ...", False),
                                 ToolResult("c2", "shell", "boom", True),
                                 ToolResult("c3", "find_tools", "Loaded git.")], activated=["git"]),
        Message("assistant", "The test fails beca", cut=True),
    ]
    rounds = [RoundRecord(1, 1, "anthropic", "claude-sonnet-5-5", Usage(5210, 0, 5000, 120, True), 3412,
                          ["core"], ["git"], 1.25, ["git"], "2026-11-30T10:15:03+01:00"),
              RoundRecord(1, 2, "anthropic", "claude-sonnet-5-5", Usage(), 4100, ["core", "git"], [], 0.5,
                          [], "2026-11-30T10:15:09+01:00")]
    return SessionData(sid, "2026-11-30T10:15:00+01:00", "/home/me/project", "anthropic", "claude-sonnet-5-5",
                       messages, rounds, ["git"])


@pytest.fixture
def folder(tmp_path):
    return tmp_path / "state" / "ankit" / "sessions"


@pytest.fixture
def store(folder):
    return SessionStore(folder, scrubber=Scrubber({}))


def test_save_and_load_round_trip(store, folder):
    data = sample()
    path = store.save(data)
    assert path == folder / "20261130-101500-ab12.jsonl"
    loaded = store.load("20261130-101500-ab12")
    assert loaded == SessionData(**{**data.__dict__, "title": "Fix the failing test"})


def test_file_is_json_lines_in_the_documented_shape(store):
    path = store.save(sample())
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["type"] for line in lines] == ["session"] + ["message"] * 4 + ["round"] * 2 + ["activated"]
    assert lines[0] == {"type": "session", "version": 1, "id": "20261130-101500-ab12",
                        "created": "2026-11-30T10:15:00+01:00", "cwd": "/home/me/project", "provider": "anthropic",
                        "model": "claude-sonnet-5-5", "title": "Fix the failing test"}
    assert lines[3]["results"][1] == {"call_id": "c2", "name": "shell", "content": "boom", "is_error": True}
    assert lines[3]["activated"] == ["git"] and "activated" not in lines[2]
    assert lines[4]["cut"] is True
    assert lines[5]["usage"]["cache_write_tokens"] == 5000 and lines[5]["activated"] == ["git"]
    assert lines[-1] == {"type": "activated", "groups": ["git"]}


def test_permissions_are_user_only(store, folder):
    folder.mkdir(parents=True, mode=0o755)
    os.chmod(folder, 0o755)
    path = store.save(sample())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


class Unserialisable:
    def __repr__(self):
        return "<Unserialisable>"


def test_a_save_that_fails_midway_keeps_the_previous_file(store, folder):
    path = store.save(sample())
    before = path.read_bytes()
    broken = sample()
    broken.messages.append(Message("user", "more"))
    broken.messages[2].results[0].content = Unserialisable()  # fails after the header and two messages
    with pytest.raises(AnkitError) as caught:
        SessionStore(folder, scrubber=Scrubber({})).save(broken)  # a new store: the whole file is rewritten
    assert str(caught.value).startswith("could not save session 20261130-101500-ab12 (")
    assert str(caught.value).endswith("); the previous copy is kept")
    assert path.read_bytes() == before
    broken.messages[2].results[0].content = "fine"
    broken.messages.append(Message("user", Unserialisable()))  # an append that fails writes nothing
    with pytest.raises(AnkitError):
        store.save(broken)
    assert path.read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == ["20261130-101500-ab12.jsonl"]


def test_a_second_save_replaces_the_whole_file(store):
    data = sample()
    store.save(data)
    data.messages.append(Message("user", "and now?"))
    data.activated.append("web")
    store.save(data)
    loaded = store.load(data.id)
    assert loaded.messages[-1].text == "and now?" and loaded.activated == ["git", "web"]


def test_bad_id_is_refused(store):
    with pytest.raises(AnkitError, match="ids use letters, digits"):
        store.save(sample(sid="../escape"))


def test_lookup_by_unique_prefix(store):
    store.save(sample("20261130-101500-ab12"))
    store.save(sample("20261130-101500-cd34"))
    store.save(sample("20261201-090000-ef56"))
    assert store.load("20261201").id == "20261201-090000-ef56"
    assert store.load("20261130-101500-c").id == "20261130-101500-cd34"
    with pytest.raises(AnkitError) as caught:
        store.load("20261130")
    assert str(caught.value) == ("session '20261130' is ambiguous (20261130-101500-ab12, 20261130-101500-cd34): "
                                 "give more of its id")


@pytest.mark.parametrize("wanted", ["zzz", "", "../20261130", "20261130-101500-ab12.jsonl"])
def test_unknown_session_is_one_line(store, wanted):
    store.save(sample())
    with pytest.raises(AnkitError) as caught:
        store.load(wanted)
    assert str(caught.value) == f"no session '{wanted}': see ankit sessions or /sessions"


def test_missing_folder_means_no_sessions(store):
    assert store.latest() is None and store.list() == [] and store.load_all() == []
    with pytest.raises(AnkitError, match="no session 'x'"):
        store.load("x")


def test_corrupt_lines_are_skipped_with_a_warning(folder):
    warnings = []
    store = SessionStore(folder, warn=warnings.append, scrubber=Scrubber({}))
    path = store.save(sample())
    lines = path.read_text().splitlines()
    lines.insert(2, '{"type": "message", "role": "user", "text": "cut off mid-wri')
    lines.insert(3, "[1, 2, 3]")
    lines.insert(4, '{"type": "round", "turn": "one"}')
    lines.insert(5, '{"type": "message", "role": "robot", "text": "?"}')
    lines.insert(6, '{"type": "bookmark", "from": "a newer ankit"}')
    lines.append("\x00\x00garbage")
    path.write_text("\n".join(lines) + "\n")
    loaded = store.load(path.stem)
    assert loaded == store.load(path.stem)  # loading does not change the file
    assert len(loaded.messages) == 4 and len(loaded.rounds) == 2 and loaded.activated == ["git"]
    assert loaded.title == "Fix the failing test"
    skipped = [int(re.search(r"line (\d+)", w).group(1)) for w in warnings]
    assert skipped == [3, 4, 5, 6, 14] * 2  # two loads; the unknown "bookmark" type is skipped quietly
    assert warnings[0] == "session 20261130-101500-ab12: skipped unreadable line 3 (JSONDecodeError)"


def test_a_file_without_its_header_still_loads(folder):
    folder.mkdir(parents=True)
    (folder / "20261130-000000-beef.jsonl").write_text('{"type":"message","role":"user","text":"hi"}\n')
    loaded = SessionStore(folder, warn=lambda text: None).load("2026")
    assert loaded.id == "20261130-000000-beef" and loaded.messages == [Message("user", "hi")]


def test_latest_and_list_are_most_recently_saved_first(store, folder):
    old = store.save(sample("20261201-090000-aaaa", text="x" * 80))
    new = store.save(sample("20261130-101500-bbbb", text="   \n\nsecond session"))
    os.utime(old, (1_000_000, 1_000_000))
    os.utime(new, (2_000_000, 2_000_000))
    assert store.latest().id == "20261130-101500-bbbb"
    summaries = store.list()
    assert [s.id for s in summaries] == ["20261130-101500-bbbb", "20261201-090000-aaaa"]
    first = summaries[0]
    assert (first.title, first.turns, first.model, first.tokens) == ("second session", 1, "claude-sonnet-5-5", 5330)
    assert summaries[1].title == "x" * 59 + "…"


def test_list_names_the_model_of_the_last_round(store):
    data = sample()
    data.rounds.append(RoundRecord(2, 1, "openai", "gpt-4.1-mini", Usage(100, 0, 0, 7, True), 0, [], [], 0.1))
    data.messages.append(Message("user", "switch"))
    store.save(data)
    summary = store.list()[0]
    assert (summary.model, summary.turns, summary.tokens) == ("gpt-4.1-mini", 2, 5437)


def test_secrets_from_the_environment_never_reach_the_file(folder, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_abcdefghijklmnop")
    monkeypatch.setenv("MY_CLIENT_SECRET", "hunter2hunter2")
    monkeypatch.setenv("SHORT_TOKEN", "1")  # too short to be a secret: ordinary "1"s stay
    data = sample(text=f"my key is {SECRET}, use it")
    data.messages[1].tool_calls[0].arguments = '{"url": "https://x", "api_key": "not-from-env-42"}'
    data.messages[2].results[0].content = "GITHUB_TOKEN=ghp_abcdefghijklmnop\nsecret=hunter2hunter2"
    data.cwd = "/home/me/1"
    path = SessionStore(folder).save(data)
    raw = path.read_text()
    for secret in (SECRET, "ghp_abcdefghijklmnop", "hunter2hunter2", "not-from-env-42"):
        assert secret not in raw
    loaded = SessionStore(folder).load(data.id)
    assert loaded.messages[0].text == "my key is [redacted], use it"
    assert loaded.title == "my key is [redacted], use it"
    assert json.loads(loaded.messages[1].tool_calls[0].arguments) == {"url": "https://x", "api_key": "[redacted]"}
    assert loaded.messages[2].results[0].content == "GITHUB_TOKEN=[redacted]\nsecret=[redacted]"
    assert loaded.cwd == "/home/me/1"


def test_the_shortest_secret_is_eight_characters_and_is_scrubbed_from_the_file(folder, monkeypatch):
    monkeypatch.setenv("DEPLOY_TOKEN", "k8s-tk-9")  # exactly MIN_SECRET_LENGTH: a secret
    monkeypatch.setenv("BUILD_TOKEN", "ci-tk-7")  # one shorter: a setting, left alone
    path = SessionStore(folder).save(sample(text="deploy with k8s-tk-9 after ci-tk-7 ran"))
    raw = path.read_text()
    assert "k8s-tk-9" not in raw and "deploy with [redacted] after ci-tk-7 ran" in raw


def test_scrubber_knows_passwords_in_the_environment():
    scrub = Scrubber({"PGPASSWORD": "pg-pass-0042", "DB_PASSWORD": "db-pass-0042", "PASSWORD_HINT": "a-long-hint"})
    assert scrub("psql with pg-pass-0042, db-pass-0042; a-long-hint") == "psql with [redacted], [redacted]; a-long-hint"


def test_scrubber_removes_api_key_fields_and_values():
    scrub = Scrubber({"OPENAI_API_KEY": "sk-proj-abcdefgh", "HOME": "/root", "PATH_KEYS": "x"})
    value = {"api_key": "anything", "API_KEY": 12345, "nested": [{"Api-Key": "v"}, "Bearer sk-proj-abcdefgh"],
             "text": "api_key=plain-value and apikey: 'quoted'", "n": 3, "home": "/root"}
    assert scrub(value) == {"api_key": "[redacted]", "API_KEY": "[redacted]",
                            "nested": [{"Api-Key": "[redacted]"}, "Bearer [redacted]"],
                            "text": "api_key=[redacted] and apikey: '[redacted]'", "n": 3, "home": "/root"}


def test_new_session_id():
    first = new_session_id(datetime(2026, 11, 30, 10, 15, 0))
    assert re.fullmatch(r"20261130-101500-[0-9a-f]{4}", first)
    assert len({new_session_id(datetime(2026, 11, 30)) for _ in range(50)}) > 1
    assert re.fullmatch(r"\d{8}-\d{6}-[0-9a-f]{4}", new_session_id())


THINKING = {"type": "thinking", "thinking": "The user wants the weather in Paris; `get_weather` fits. 31 °C?",
            "signature": "BDaL4VrbR2Oj0hO4XpJxT28J5TILnCrrUXoKiiNBZW9P+nr8XSj1zuZzAl4egiCCpQNvfyUuFFJP5CncdYZEQPPmLxYs"}


def thinking_sample() -> SessionData:
    data = sample()
    data.messages[1].opaque = {"anthropic": [THINKING, {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3p"},
                                             {"type": "text", "chars": 8}, {"type": "tool_use", "id": "c1"}],
                               "openai": [{"reasoning_content": "Read the test first."}]}
    return data


def test_provider_opaque_data_is_saved_and_restored_byte_for_byte(store):
    data = thinking_sample()
    path = store.save(data)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [("opaque" in line) for line in lines if line["type"] == "message"] == [False, True, False, False]
    loaded = store.load(data.id)
    assert loaded.messages == data.messages
    saved = loaded.messages[1].opaque["anthropic"][0]
    assert json.dumps(saved, ensure_ascii=False) == json.dumps(THINKING, ensure_ascii=False)  # keys keep their order


def test_opaque_data_goes_through_the_scrubber_too(folder, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    data = thinking_sample()
    data.messages[1].opaque["anthropic"][0] = {**THINKING, "thinking": f"The .env holds {SECRET}; never repeat it."}
    data.messages[1].opaque["openai"] = [{"reasoning_content": "use api_key=abc123456789 here"}]
    path = SessionStore(folder).save(data)
    assert SECRET not in path.read_text() and "abc123456789" not in path.read_text()
    opaque = SessionStore(folder).load(data.id).messages[1].opaque
    assert opaque["anthropic"][0]["thinking"] == "The .env holds [redacted]; never repeat it."
    assert opaque["openai"] == [{"reasoning_content": "use api_key=[redacted] here"}]


@pytest.mark.parametrize("bad", [["not", "a", "dict"], "text", {"anthropic": "not a list", "openai": 3}])
def test_malformed_opaque_data_loads_as_none(folder, bad):
    line = {"type": "message", "role": "assistant", "text": "hi", "opaque": bad}
    folder.mkdir(parents=True)
    (folder / "s1.jsonl").write_text(json.dumps(line) + "\n")
    assert SessionStore(folder, warn=lambda _: None).load("s1").messages == [Message("assistant", "hi")]


def test_the_checklist_is_saved_as_its_own_line_and_restored(store, folder):
    data = sample()
    data.todos = [Todo("write the parser", "done"), Todo("test it", "in_progress")]
    path = store.save(data)
    assert json.loads(path.read_text().splitlines()[-1]) == {
        "type": "todos", "items": [{"text": "write the parser", "status": "done"}, {"text": "test it", "status": "in_progress"}]}
    assert store.load(data.id).todos == data.todos
    path.write_text(path.read_text().replace('"in_progress"', '"bogus"'))
    assert store.load(data.id).todos[1] == Todo("test it", "pending")  # an unknown state reads as pending
    data.todos = []
    store.save(data)
    assert store.load(data.id).todos == []  # a cleared checklist stays cleared


def test_a_message_goes_to_a_line_and_back_whole_and_the_screen_summary_stays_out():
    message = Message("assistant", "hi", [ToolCall("c1", "read_file", '{"path": "a"}')], [], False, {"thinking": [1]},
                      [Image("image/png", "AAAA", "a.png")])
    assert message_from(message_entry(message)) == message
    result = Message("tool", results=[ToolResult("c1", "read_file", "text", False, "read a (1 line)")])
    entry = message_entry(result)
    assert "summary" not in entry["results"][0] and "opaque" not in entry and "images" not in entry
    assert message_from(entry).results[0].content == "text"
