"""`ankit mcp phrases` as a user runs it: a real MCP server, a loopback provider, then the session's search."""

import json
import sys
import time
from pathlib import Path

from tests.conftest import openai_sse
from tests.test_oneshot import ankit

ROOT = Path(__file__).resolve().parent.parent
ANSWER = {"echo": ["parrot my words", "say it back to me"], "add": ["what is 17 plus 25"], "nope": ["not a tool"]}


def fake_server_config(tmp_path: Path, *flags: str, env: str = "") -> None:
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True, exist_ok=True)
    args = json.dumps([str(ROOT / "tests" / "mcp_fake_server.py"), *flags])
    (config / "config.toml").write_text(f"[mcp.servers.fake]\ncommand = {json.dumps(sys.executable)}\n"
                                        f"args = {args}\n{env}")


def ranked_first(tmp_path: Path, query: str) -> str:
    """The tool a session's search ranks first for the query (eval-discovery --live --export)."""
    queries, exported = tmp_path / "q.jsonl", tmp_path / "catalog.jsonl"
    queries.write_text(json.dumps({"id": "1", "query": query, "gold": ["mcp__fake__echo"]}) + "\n")
    done = ankit(tmp_path, "eval-discovery", "--live", "--queries", str(queries), "--json", "--export", str(exported))
    assert done.returncode == 0, done.stdout + done.stderr
    return "mcp__fake__echo" if json.loads(done.stdout)["recall_at_1"] == 1.0 else "another tool"


def test_the_model_writes_phrases_once_and_the_search_finds_the_tool_by_them(tmp_path, provider_server):
    fake_server_config(tmp_path)
    assert ranked_first(tmp_path, "parrot my words") == "another tool"
    provider_server.push(openai_sse("Here they are:\n" + json.dumps(ANSWER)))
    done = ankit(tmp_path, "mcp", "phrases", "--base-url", provider_server.url + "/v1", OPENAI_API_KEY="sk-test-1")
    assert done.returncode == 0, done.stderr
    asking, said = done.stdout.splitlines()
    assert asking == "fake: asking the model about 15 tools (1 question)..."
    assert said.startswith("fake: 3 phrases for 2 of ") and said.endswith(" tools")
    body = provider_server.requests[0].json
    assert "tools" not in body and body["messages"][0]["role"] == "system"
    asked = body["messages"][1]["content"]
    assert asked.startswith('For each tool of the MCP server "fake" below') and "\n- echo: Echo the text back." in asked
    assert ranked_first(tmp_path, "parrot my words") == "mcp__fake__echo"
    # the phrases travel with an exported catalog, and are never part of what the model is sent of the tool
    echo = next(json.loads(line) for line in (tmp_path / "catalog.jsonl").read_text().splitlines()
                if '"mcp__fake__echo"' in line)
    assert echo["phrases"] == ["parrot my words", "say it back to me"] and echo["description"] == "Echo the text back."
    again = ankit(tmp_path, "mcp", "phrases", "--base-url", provider_server.url + "/v1", OPENAI_API_KEY="sk-test-1")
    assert again.stdout.startswith("fake: phrases kept for 2 of ") and len(provider_server.requests) == 1


def test_an_answer_without_phrases_keeps_nothing_and_says_so(tmp_path, provider_server):
    fake_server_config(tmp_path)
    provider_server.push(openai_sse("I'd rather not."))
    done = ankit(tmp_path, "mcp", "phrases", "--base-url", provider_server.url + "/v1", "fake", OPENAI_API_KEY="sk-x1")
    assert done.stdout.splitlines()[1:] == ["fake: the model's answer held no phrases for its tools; try again, "
                                            "or another model"]
    wrong = ankit(tmp_path, "mcp", "phrases", "--base-url", provider_server.url + "/v1", "other", OPENAI_API_KEY="sk-x1")
    assert wrong.stdout.startswith("no listed MCP server named 'other' (servers: fake)")
    assert len(provider_server.requests) == 1


def test_a_secret_in_a_tools_description_never_reaches_the_model(tmp_path, provider_server):
    secret = "fk-live-7f3a9c2e5b1d8f60"
    fake_server_config(tmp_path, "--leaky-description", env=f'env = {{ FAKE_TOKEN = "{secret}" }}\n')
    provider_server.push(openai_sse(json.dumps({"echo": ["parrot my words"]})))
    done = ankit(tmp_path, "mcp", "phrases", "--base-url", provider_server.url + "/v1", OPENAI_API_KEY="sk-x1")
    assert done.stdout.splitlines()[1].startswith("fake: 1 phrase for 1 of "), done.stdout + done.stderr
    asked = provider_server.requests[0].json["messages"][1]["content"]
    assert "- echo: Echo the text back (key " in asked and secret not in asked


def test_a_large_server_is_asked_in_parts_and_every_parts_phrases_are_kept(tmp_path, provider_server):
    fake_server_config(tmp_path, "--tools", "30")  # 45 tools in all: two questions
    provider_server.push(openai_sse(json.dumps({"echo": ["parrot my words"]})))
    provider_server.push(openai_sse(json.dumps({"tool_029": ["the last generated one"]})))
    done = ankit(tmp_path, "mcp", "phrases", "--base-url", provider_server.url + "/v1", OPENAI_API_KEY="sk-x1")
    assert done.stdout.splitlines()[1].startswith("fake: 2 phrases for 2 of "), done.stdout + done.stderr
    first, second = (r.json["messages"][1]["content"] for r in provider_server.requests)
    assert "\n- echo: " in first and "\n- tool_029: " in second and "\n- tool_029: " not in first
    assert first.count("\n- ") == 25


def two_servers_config(tmp_path: Path, extra: str = "") -> None:
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True, exist_ok=True)
    server = json.dumps([str(ROOT / "tests" / "mcp_fake_server.py")])
    (config / "config.toml").write_text(extra + "".join(f"[mcp.servers.{name}]\ncommand = {json.dumps(sys.executable)}\n"
                                                        f"args = {server}\n" for name in ("fake", "copy")))


def test_servers_are_asked_side_by_side_and_each_line_comes_as_it_is_done(tmp_path, provider_server):
    import subprocess
    from tests.helpers import wait_for
    from tests.test_oneshot import env_for
    two_servers_config(tmp_path)
    gate = provider_server.gate()
    provider_server.push(openai_sse(json.dumps({"echo": ["parrot my words"]})), delay=gate)  # held
    provider_server.push(openai_sse(json.dumps({"add": ["what is 17 plus 25"]})))
    (tmp_path / "work").mkdir()
    process = subprocess.Popen([sys.executable, "-m", "ankit", "--base-url", provider_server.url + "/v1", "mcp",
                                "phrases"], cwd=tmp_path / "work", env=env_for(tmp_path, OPENAI_API_KEY="sk-x1"),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        both_asked = wait_for(lambda: len(provider_server.requests) == 2, timeout=30)
        gate.set()
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert both_asked, "the second server was asked only after the first answered"
    lines = out.splitlines()
    assert sorted(lines[:2]) == ["copy: asking the model about 15 tools (1 question)...",
                                 "fake: asking the model about 15 tools (1 question)..."]
    assert lines[2].endswith("1 phrase for 1 of 15 tools") and lines[3].endswith("1 phrase for 1 of 15 tools")


def test_a_repl_session_has_the_phrases_written_in_the_background_and_usage_shows_them(provider_server, tmp_path):
    from tests.helpers import wait_for
    from tests.test_repl import Terminal
    from tests.test_oneshot import env_for
    fake_server_config(tmp_path)
    provider_server.push(openai_sse(json.dumps(ANSWER), usage={"prompt_tokens": 900, "completion_tokens": 40,
                                                               "total_tokens": 940}))
    (tmp_path / "work").mkdir()
    env = {**env_for(tmp_path), "ANKIT_PROVIDER": "local", "ANKIT_BASE_URL": provider_server.url + "/v1",
           "ANKIT_MODEL": "gpt-4o", "TERM": "xterm"}
    term = Terminal([], env, tmp_path / "work")
    term.expect("> ")
    phrases = tmp_path / "state" / "ankit" / "mcp" / "phrases"
    assert wait_for(lambda: any(phrases.glob("*.json")), timeout=30), "no phrases were written in the background"
    asked = provider_server.requests[0].json
    assert asked["messages"][1]["content"].startswith('For each tool of the MCP server "fake"')
    assert "no search phrases yet" not in term.seen  # nothing to do for the user
    term.line("/usage")
    shown = term.expect("\n> ")
    assert "beside the turns" in shown and "search phrases" in shown and "940" not in shown
    row = next(line for line in shown.splitlines() if "search phrases" in line)
    assert row.split()[2:5] == ["1", "900", "40"]
    assert term.finish() == 0


def test_phrases_false_asks_nothing_in_the_background(provider_server, tmp_path):
    from tests.test_repl import Terminal
    from tests.test_oneshot import env_for
    fake_server_config(tmp_path, env="")
    config = tmp_path / "config" / "ankit" / "config.toml"
    config.write_text("phrases = false\n" + config.read_text())
    (tmp_path / "work").mkdir()
    env = {**env_for(tmp_path), "ANKIT_PROVIDER": "local", "ANKIT_BASE_URL": provider_server.url + "/v1",
           "ANKIT_MODEL": "gpt-4o", "TERM": "xterm"}
    term = Terminal([], env, tmp_path / "work")
    term.expect("> ")
    for _ in range(150):  # until the server has listed its tools (a bounded wait, not a timing assertion)
        term.line("/mcp")
        shown = term.expect("\n> ")
        if "ready (15 tools" in shown:
            break
        time.sleep(0.2)
    assert "no search phrases yet for fake" in shown  # said where asked; never written unasked
    assert term.finish() == 0
    assert provider_server.requests == []


def test_max_cost_stops_the_phrase_writer_before_it_asks(tmp_path, provider_server):
    fake_server_config(tmp_path)
    config = tmp_path / "config" / "ankit" / "config.toml"
    config.write_text('max_cost = 0.5\n[prices."priced-model"]\ninput = 1000000\noutput = 0\n' + config.read_text())
    done = ankit(tmp_path, "mcp", "phrases", "--base-url", provider_server.url + "/v1", "--model", "priced-model",
                 OPENAI_API_KEY="sk-test-1")
    assert done.returncode == 0, done.stderr
    said = done.stdout.splitlines()[1]
    assert said.startswith("fake: the model was not reached (stopped by max_cost $0.5000: this session has spent")
    assert said.endswith("; nothing kept") and provider_server.requests == []
