"""/rewind and /fork in the REPL on a real pty, against the loopback provider; --fork-session with -p."""

import json

from tests.test_oneshot import ankit
from tests.test_repl import home, run, session_lines, sessions  # noqa: F401  (pytest fixtures)


def write(path: str, content: str) -> str:
    return json.dumps({"path": path, "content": content})


def test_rewind_restores_the_conversation_and_the_files(run, provider_server, home):
    work = home / "work"
    provider_server.push_openai(tool_calls=[("c1", "write_file", write("a.txt", "one"))])
    provider_server.push_openai(text="Wrote one.")
    provider_server.push_openai(tool_calls=[("c2", "write_file", write("a.txt", "two")),
                                            ("c3", "write_file", write("b.txt", "new"))])
    provider_server.push_openai(text="Wrote two.")
    provider_server.push_openai(text="Back at the start of the second.")
    term = run("--yes")
    term.line("first: write one")
    term.expect("Wrote one.")
    term.line("second: write two")
    term.expect("Wrote two.")
    assert (work / "a.txt").read_text() == "two" and (work / "b.txt").exists()
    term.line("/rewind")
    listed = term.expect("rewind to just before which message?")
    assert "1  first: write one" in listed and "2  second: write two" in listed
    term.type("2\r")
    term.expect("put back the 2 file(s) changed since then too")
    term.answer("y")
    shown = term.expect("\n> ")
    assert "the conversation is back to just before message 2 (4 messages kept)" in shown
    assert f"removed {work / 'b.txt'} (the turn created it)" in shown and f"restored {work / 'a.txt'}" in shown
    assert (work / "a.txt").read_text() == "one" and not (work / "b.txt").exists()
    term.type("third\r")
    term.expect("Back at the start of the second.")
    assert term.finish() == 0
    sent = provider_server.requests[-1].json["messages"]
    assert [(m["role"], m.get("content")) for m in sent[1:] if m["role"] == "user"] == [
        ("user", "first: write one"), ("user", "third")]
    assert "second" not in json.dumps(sent)
    stored = [line["text"] for line in session_lines(sessions(home)[0]) if line.get("role") == "user"]
    assert stored == ["first: write one", "third"]


def test_rewind_without_files_keeps_them(run, provider_server, home):
    provider_server.push_openai(tool_calls=[("c1", "write_file", write("a.txt", "one"))])
    provider_server.push_openai(text="Wrote one.")
    term = run("--yes")
    term.line("write one")
    term.expect("Wrote one.")
    term.line("/rewind 1")
    term.expect("put back the 1 file(s) changed since then too")
    term.answer("\r")
    assert "back to just before message 1 (0 messages kept)" in term.expect("\n> ")
    assert (home / "work" / "a.txt").read_text() == "one"
    assert term.finish() == 0


def test_fork_goes_on_under_a_new_id_and_leaves_the_original(run, provider_server, home):
    provider_server.push_openai(text="First answer.")
    provider_server.push_openai(text="Answer in the fork.")
    term = run()
    term.line("hello")
    term.expect("First answer.")
    term.line("/fork")
    shown = term.expect("\n> ")
    assert "forked: this is session" in shown
    term.type("more in the fork\r")
    term.expect("Answer in the fork.")
    assert term.finish() == 0
    files = sessions(home)
    assert len(files) == 2
    texts = {path.stem: [line.get("text") for line in session_lines(path) if line.get("role") == "user"]
             for path in files}
    original = next(stem for stem, users in texts.items() if users == ["hello"])
    fork = next(stem for stem in texts if stem != original)
    assert texts[fork] == ["hello", "more in the fork"]
    assert session_lines(home / "state" / "ankit" / "sessions" / f"{fork}.jsonl")[0]["forked_from"] == original


def test_fork_session_flag_continues_a_copy(provider_server, tmp_path):
    provider_server.push_openai(text="One.")
    provider_server.push_openai(text="Two.")
    url = provider_server.url + "/v1"
    assert ankit(tmp_path, "--base-url", url, "-p", "first").returncode == 0
    done = ankit(tmp_path, "--base-url", url, "-p", "second", "--continue", "--fork-session")
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "state" / "ankit" / "sessions"
    users = sorted([json.loads(line).get("text") for line in path.read_text().splitlines()
                    if json.loads(line).get("role") == "user"] for path in folder.glob("*.jsonl"))
    assert users == [["first"], ["first", "second"]]
    assert provider_server.requests[1].json["messages"][1]["content"] == "first"
    assert "--fork-session copies a session" in ankit(tmp_path, "--fork-session", "-p", "x").stderr
