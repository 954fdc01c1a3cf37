"""`ankit -p` as a user runs it: a real subprocess against the loopback provider server."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ankit.safety.sandbox import support
from conftest import fixture_parts, openai_sse
from tests.helpers import local_model_server, pids_started, process_gone, stubborn_server, wait_for

ROOT = Path(__file__).resolve().parent.parent


def env_for(tmp_path: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN")) and not k.startswith("ANKIT_")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_DATA_HOME=str(tmp_path / "data"), HOME=str(tmp_path / "home"), NO_COLOR="1",
               PYTHONPATH=str(ROOT))
    env.update(extra)
    return env


def ankit(tmp_path, *args, stdin="", **env):
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-m", "ankit", *args], cwd=work, input=stdin, text=True,
                          capture_output=True, timeout=60, env=env_for(tmp_path, **env))


def test_prints_the_streamed_answer_openai(provider_server, tmp_path):
    provider_server.push("openai_text.sse")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "hello")
    assert done.returncode == 0, done.stderr
    body = provider_server.requests[0].json
    assert body["messages"][-1] == {"role": "user", "content": "hello"}
    assert done.stdout.strip() and done.stderr == ""


def test_prints_the_streamed_answer_anthropic(provider_server, tmp_path):
    provider_server.push("anthropic_text.sse")
    done = ankit(tmp_path, "--provider", "anthropic", "--base-url", provider_server.url + "/v1", "-p", "hello",
                 ANTHROPIC_API_KEY="sk-ant-test-0123456789")
    assert done.returncode == 0, done.stderr
    assert provider_server.requests[0].headers["x-api-key"] == "sk-ant-test-0123456789"
    assert done.stdout.strip()


def test_a_reply_cut_at_max_tokens_says_so_on_stderr(provider_server, tmp_path):
    provider_server.push_openai(text="The first half of", finish="length")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "write a lot")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "The first half of\n"
    assert done.stderr == ("ankit: the reply reached max_tokens (4,096 tokens) and was cut: say 'go on' for the rest, "
                           "or raise max_tokens in the config\n")


def test_an_overflow_says_what_to_do_in_p_terms(provider_server, tmp_path):
    error = {"error": {"message": "This model's maximum context length is 2048 tokens. However, you requested 2301 "
                                  "tokens.", "type": "invalid_request_error", "code": "context_length_exceeded"}}
    provider_server.push(error, status=400)
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "a long question")
    assert done.returncode == 1 and "/clear" not in done.stderr
    assert done.stderr.endswith("· shorten the prompt or its @files\n"), done.stderr


def test_a_message_larger_than_the_window_the_server_says_is_refused_before_sending(provider_server, tmp_path):
    provider_server.info["/props"] = {"default_generation_settings": {"n_ctx": 8192}}
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "mid.log").write_text("a log line that goes on and on\n" * 2000)  # 62 KB
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "summarize @mid.log")
    assert done.returncode == 1 and provider_server.requests == []  # nothing was sent
    attached, line = done.stderr.splitlines()
    assert attached == "ankit: @mid.log: only the first 40,000 of 62,000 characters attached"
    assert line.startswith("ankit: this message is about 10,0")
    assert "more than the model's context window of 8,192 tokens leaves" in line and "nothing was sent" in line
    assert [r.path for r in provider_server.info_requests] == ["/props"]


def test_after_an_overflow_the_message_is_out_of_the_session_and_continue_goes_on(provider_server, tmp_path):
    provider_server.push({"error": {"message": "the request exceeds the available context size, try increasing it",
                                    "type": "exceed_context_size_error", "n_ctx": 2048}}, status=400)
    provider_server.push_openai(text="Hello.")
    url = provider_server.url + "/v1"
    first = ankit(tmp_path, "--base-url", url, "-p", "a question the server finds too long")
    assert first.returncode == 1
    assert first.stderr.endswith("· shorten the prompt or its @files\n"), first.stderr
    done = ankit(tmp_path, "--base-url", url, "--continue", "-p", "hello")
    assert done.returncode == 0, done.stderr
    assert [m["content"] for m in provider_server.requests[1].json["messages"][1:]] == ["hello"]


def test_a_server_listing_several_models_gives_the_first_and_says_so(provider_server, tmp_path):
    provider_server.models = ["zeta-7b", "alpha-3b"]
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "hello")
    assert done.returncode == 0 and done.stdout == "ok\n"
    assert provider_server.requests[0].json["model"] == "alpha-3b"
    assert f"no model set: using alpha-3b, the first of the 2 models {provider_server.url}/v1 lists" in done.stderr


def test_piped_text_is_appended(provider_server, tmp_path):
    provider_server.push_openai(text="three lines")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "summarize this", stdin="a\nb\nc\n")
    assert done.returncode == 0, done.stderr
    assert provider_server.requests[0].json["messages"][-1]["content"] == "summarize this\n\na\nb\nc\n"
    assert done.stdout == "three lines\n"


def test_a_real_two_round_tool_loop(provider_server, tmp_path):
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("the answer is 42\n")
    provider_server.push_openai(tool_calls=[("call_1", "read_file", '{"path": "notes.txt"}')])
    provider_server.push_openai(text="It says 42.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "what do my notes say?")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "It says 42.\n"
    second = provider_server.requests[1].json["messages"]
    assert second[-2]["tool_calls"][0]["function"]["name"] == "read_file"
    assert second[-1]["role"] == "tool" and "the answer is 42" in second[-1]["content"]


def test_tools_needing_approval_are_refused_without_yes(provider_server, tmp_path):
    provider_server.push_openai(tool_calls=[("c1", "write_file", '{"path": "x.txt", "content": "hi"}')])
    provider_server.push_openai(text="I could not write it.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "write x.txt")
    assert done.returncode == 0
    assert "write_file needs approval; refused (rerun with --yes to allow it)" in done.stderr
    assert not (tmp_path / "work" / "x.txt").exists()
    assert "declined" in provider_server.requests[1].json["messages"][-1]["content"]


def test_yes_approves(provider_server, tmp_path):
    provider_server.push_openai(tool_calls=[("c1", "write_file", '{"path": "x.txt", "content": "hi"}')])
    provider_server.push_openai(text="done")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "write x.txt", "--yes")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "work" / "x.txt").read_text() == "hi"


def test_failure_is_one_line_and_non_zero(provider_server, tmp_path):
    provider_server.push("anthropic_401.http")
    done = ankit(tmp_path, "--provider", "anthropic", "--base-url", provider_server.url + "/v1", "-p", "hi",
                 ANTHROPIC_API_KEY="sk-ant-secret-0123456789")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == ["ankit: 401 from anthropic: check ANTHROPIC_API_KEY"]
    assert "sk-ant-secret" not in done.stderr + done.stdout


def test_nothing_configured_prints_set_up_help(tmp_path):
    if found := local_model_server():
        pytest.skip(f"a server listens at {found}, where ankit looks for a local model server")
    done = ankit(tmp_path, "-p", "hi")
    assert done.returncode == 1
    assert len(done.stderr.strip().splitlines()) == 3 and "ANTHROPIC_API_KEY" in done.stderr


def test_one_shot_runs_are_saved_as_sessions_without_secrets(provider_server, tmp_path):
    provider_server.push("anthropic_usage_cached.sse")
    done = ankit(tmp_path, "--provider", "anthropic", "--base-url", provider_server.url + "/v1", "-p", "hi",
                 ANTHROPIC_API_KEY="sk-ant-secret-0123456789")
    assert done.returncode == 0, done.stderr
    files = list((tmp_path / "state" / "ankit" / "sessions").glob("*.jsonl"))
    assert len(files) == 1
    text = files[0].read_text()
    assert "sk-ant-secret" not in text
    rounds = [json.loads(line) for line in text.splitlines() if json.loads(line)["type"] == "round"]
    assert len(rounds) == 1 and rounds[0]["usage"]["cached_tokens"] > 0


def test_version_and_bad_flag(tmp_path):
    assert ankit(tmp_path, "--version").stdout.startswith("ankit ")
    bad = ankit(tmp_path, "--frobnicate")
    assert bad.returncode == 2 and bad.stderr == "ankit: unrecognized arguments: --frobnicate (see ankit --help)\n"


def test_a_new_user_in_a_scratch_repository(provider_server, tmp_path):
    """Read, search, edit, run, commit, fetch and remember, each group found through find_tools."""
    import http.server
    import threading

    work = tmp_path / "work"
    work.mkdir()
    (work / "README.md").write_text("hello\n")
    for command in (["init", "-q"], ["config", "user.name", "T"], ["config", "user.email", "t@example.com"],
                    ["add", "-A"], ["commit", "-qm", "first"]):
        subprocess.run(["git", *command], cwd=work, check=True)

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = "<html><head><title>Docs</title></head><body><p>ankit fetched me</p></body></html>".encode()
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    page = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=page.serve_forever, daemon=True).start()
    steps = [
        ("read_file", '{"path": "README.md"}', None),
        ("search_text", '{"pattern": "hello"}', None),
        ("find_tools", '{"query": "edit a file"}', "Loaded edit"),
        ("edit_file", '{"path": "README.md", "old_string": "hello", "new_string": "hello world"}', None),
        ("find_tools", '{"query": "run a shell command"}', "Loaded shell"),
        ("run_command", '{"command": "cat README.md"}', "hello world"),
        ("find_tools", '{"query": "commit my changes to git"}', "Loaded git"),
        ("git_commit", '{"message": "Greet the world", "all": true}', None),
        ("find_tools", '{"query": "fetch a web page"}', "Loaded web"),
        ("web_fetch", json.dumps({"url": f"http://127.0.0.1:{page.server_port}/docs"}), "ankit fetched me"),
        ("find_tools", '{"query": "remember a fact for later"}', "Loaded memory"),
        ("remember", '{"fact": "the README greets the world"}', None),
    ]
    for i, (name, arguments, _) in enumerate(steps):
        provider_server.push_openai(tool_calls=[(f"c{i}", name, arguments)])
    provider_server.push_openai(text="All done.")
    try:
        done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--yes", "-p", "tidy up my repo")
    finally:
        page.shutdown()
    assert done.returncode == 0, done.stderr
    assert done.stdout == "All done.\n"
    for i, (name, _, expected) in enumerate(steps):
        result = provider_server.requests[i + 1].json["messages"][-1]
        assert result["role"] == "tool" and not result["content"].startswith("Error"), (name, result["content"])
        assert expected is None or expected in result["content"], (name, result["content"])
    assert (work / "README.md").read_text() == "hello world\n"
    log = subprocess.run(["git", "log", "--format=%s"], cwd=work, capture_output=True, text=True).stdout
    assert log.splitlines() == ["Greet the world", "first"]
    assert list((tmp_path / "data" / "ankit").glob("*"))  # the memory database


def test_the_first_turn_waits_for_mcp_servers_still_starting(provider_server, tmp_path):
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True)
    server = ROOT / "tests" / "mcp_fake_server.py"
    (config / "config.toml").write_text(f"[mcp.servers.fake]\ncommand = {json.dumps(sys.executable)}\n"
                                        f"args = [{json.dumps(str(server))}, \"--start-delay\", \"1\"]\n"
                                        "start_timeout = 60\n"  # a loaded machine may be slow to start Python
                                        "trust_annotations = true\n")  # echo's readOnlyHint: believed, so unasked
    provider_server.push_openai(tool_calls=[("c1", "mcp__fake__echo", '{"text": "ready"}')])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "echo")
    assert done.returncode == 0, done.stderr
    assert "waiting for MCP servers to start" in done.stderr
    assert provider_server.requests[1].json["messages"][-1]["content"] == "ready"
    assert any("mcp:fake" in t["function"]["description"] for t in provider_server.requests[0].json["tools"])


def slow_server_config(tmp_path: Path) -> None:
    """A server slower than its start_timeout (the first turn gives up on it) within its startup_timeout."""
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True)
    server = ROOT / "tests" / "mcp_fake_server.py"
    (config / "config.toml").write_text(f"[mcp.servers.fake]\ncommand = {json.dumps(sys.executable)}\n"
                                        f"args = [{json.dumps(str(server))}, \"--start-delay\", \"4\"]\n"
                                        "start_timeout = 0.2\nstartup_timeout = 60\n")


def test_find_tools_in_a_one_shot_run_waits_for_a_server_still_listing(provider_server, tmp_path):
    slow_server_config(tmp_path)
    provider_server.push_openai(tool_calls=[("c1", "find_tools", '{"query": "echo the text back"}')])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "echo")
    assert done.returncode == 0, done.stderr
    assert "is not answering after 0.2s" in done.stderr  # the first request did not wait for it
    assert "waiting for the MCP server fake to list its tools…" in done.stderr
    found = provider_server.requests[1].json["messages"][-1]["content"]
    assert "mcp__fake__echo" in found, found


def test_a_call_by_name_to_a_server_still_listing_waits_for_it(provider_server, tmp_path):
    slow_server_config(tmp_path)
    provider_server.push_openai(tool_calls=[("c1", "mcp__fake__echo", '{"text": "ready"}')])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--yes", "-p", "echo")
    assert done.returncode == 0, done.stderr
    assert "waiting for the MCP server fake to list its tools" in done.stderr
    assert provider_server.requests[1].json["messages"][-1]["content"] == "ready"


def test_servers_listed_before_start_for_neither_hello_nor_tools(provider_server, tmp_path):
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True)
    server, record = ROOT / "tests" / "mcp_fake_server.py", tmp_path / "record.jsonl"
    (config / "config.toml").write_text("".join(
        f"[mcp.servers.s{i}]\ncommand = {json.dumps(sys.executable)}\nstart_timeout = 60\n"
        f"args = [{json.dumps(str(server))}, \"--tools\", \"{i}\", \"--record\", {json.dumps(str(record))}]\n"
        for i in range(3)))
    first = ankit(tmp_path, "tools")  # lists each server once, into the cache
    assert first.returncode == 0 and "mcp:s2" in first.stdout and record.read_text().count('"initialize"') == 3
    record.unlink()
    provider_server.push_openai(text="hi")
    hello = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "hello")
    assert hello.returncode == 0 and hello.stdout.strip() == "hi", hello.stderr
    assert "mcp:s1" in json.dumps(provider_server.requests[0].json["tools"])  # the catalog, from the cache
    listing = ankit(tmp_path, "tools")
    assert listing.returncode == 0 and "mcp:s2" in listing.stdout
    assert not record.exists()  # no server process started


def test_a_server_that_never_answers_holds_nothing_up_and_nothing_survives(provider_server, tmp_path):
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True)
    table = stubborn_server(tmp_path, "unused", answers=False)
    (config / "config.toml").write_text(f"[mcp.servers.mute]\ncommand = \"/bin/sh\"\nargs = {json.dumps(table['args'])}\n"
                                        "start_timeout = 1\n")
    provider_server.push_openai(text="answered")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "hello")
    assert done.returncode == 0 and done.stdout.strip() == "answered", done.stderr
    assert "MCP server 'mute' is not answering after 1s: its tools are missing from this turn" in done.stderr
    pids = pids_started(tmp_path)
    assert len(pids) == 2 and all(process_gone(pid) for pid in pids)


def test_a_servers_question_is_declined_in_p_with_a_line(provider_server, tmp_path):
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True)
    server = ROOT / "tests" / "mcp_fake_server.py"
    (config / "config.toml").write_text(f"[mcp.servers.fake]\ncommand = {json.dumps(sys.executable)}\n"
                                        f"args = [{json.dumps(str(server))}, \"--asking\"]\nstart_timeout = 60\n")
    provider_server.push_openai(tool_calls=[("c1", "mcp__fake__book", "{}")])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--yes", "-p", "book a table")
    assert done.returncode == 0, done.stderr
    assert "ankit: MCP server 'fake' asked \"Which date?\"; declined (-p asks nobody: run ankit to answer it)" in done.stderr
    assert provider_server.requests[1].json["messages"][-1]["content"] == 'elicitation answered {"action": "decline"}'


def test_sigterm_ends_ankit_as_an_exit_does_and_its_servers_with_it(provider_server, tmp_path):
    import signal
    import time
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True)
    table = stubborn_server(tmp_path, "unused", answers=False)
    (config / "config.toml").write_text(f"[mcp.servers.mute]\ncommand = \"/bin/sh\"\nargs = {json.dumps(table['args'])}\n"
                                        "start_timeout = 1\n")
    provider_server.push(["stall"])  # the model never answers: ankit is busy when it is told to stop
    (tmp_path / "work").mkdir(exist_ok=True)
    proc = subprocess.Popen([sys.executable, "-m", "ankit", "--base-url", provider_server.url + "/v1", "-p", "hi"],
                            cwd=tmp_path / "work", env=env_for(tmp_path), stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not provider_server.requests and time.monotonic() < deadline:  # bounded wait, not a timing assertion
        time.sleep(0.05)
    assert provider_server.requests
    pids = pids_started(tmp_path)
    assert pids and not any(process_gone(pid) for pid in pids)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(60) == 128 + signal.SIGTERM
    assert all(process_gone(pid) for pid in pids)
    assert "Traceback" not in proc.stderr.read()


def test_words_ankit_does_not_take_get_one_line_saying_what_to_do(tmp_path):
    typo = ankit(tmp_path, "tool")
    assert typo.returncode == 2 and typo.stderr == ("ankit: unknown command 'tool': did you mean ankit tools? (to ask "
                                                    "it, add a word: ankit \"tool ...\") (see ankit --help)\n")
    unknown = ankit(tmp_path, "--frobnicate", "what")
    assert unknown.returncode == 2 and unknown.stderr == "ankit: unrecognized arguments: --frobnicate (see ankit --help)\n"


@pytest.mark.parametrize("flag, says", [
    ("--allowedTools", 'allow rules in the settings: allow = ["run_command: npm test *"] (ankit help approvals)'),
    ("--disallowed-tools", 'deny rules in the settings: deny = ["run_command: rm *"] (ankit help approvals)'),
    ("--system-prompt", "ankit keeps its own system prompt; --system TEXT adds TEXT to it"),
    ("--max-turns", "ankit has no turn limit; --max-cost USD stops a run by its cost"),
])
def test_claude_codes_options_ankit_takes_another_way_are_answered_with_the_equivalent(tmp_path, flag, says):
    done = ankit(tmp_path, flag, "x", "-p", "hi")
    assert done.returncode == 2
    assert done.stderr == f"ankit: {flag} is Claude Code's; in ankit: {says} (see ankit --help)\n"


def test_claude_codes_spellings_of_p_yes_and_system_are_accepted(provider_server, tmp_path):
    provider_server.push_openai(tool_calls=[("c1", "write_file", '{"path": "x.txt", "content": "hi"}')])
    provider_server.push_openai(text="written")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--print", "--dangerously-skip-permissions",
                 "--append-system-prompt", "Be brief.", "--output-format", "json", "write x.txt")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "written"
    assert (tmp_path / "work" / "x.txt").read_text() == "hi"
    first = provider_server.requests[0].json["messages"]
    assert "Be brief." in first[0]["content"] and first[-1]["content"] == "write x.txt"


def test_words_after_the_options_are_the_repls_first_message(provider_server, tmp_path):
    provider_server.push_openai(text="It is a test folder.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "what", "is", "this?")
    assert done.returncode == 0, done.stderr
    assert "> what is this?\n" in done.stdout and "It is a test folder." in done.stdout
    assert provider_server.requests[0].json["messages"][-1]["content"] == "what is this?"


def test_an_empty_prompt_is_one_line_and_sends_nothing(provider_server, tmp_path):
    for prompt in ("", "   \n\t"):
        done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", prompt)
        assert done.returncode == 1 and done.stderr.count("\n") == 1 and "-p needs a question" in done.stderr
    assert provider_server.requests == []


def test_stderr_shows_each_tool_line_as_the_repl_does(provider_server, tmp_path):
    provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "echo  hi"}')])
    provider_server.push_openai(text="It said hi.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "say hi", "--yes")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == "· $ echo hi" and lines[1].startswith("  ⎿ exit code 0 (") and lines[1].endswith(" · 1 line")


def test_agents_md_the_system_flag_and_a_mentioned_file_reach_the_request(provider_server, tmp_path):
    work, config = tmp_path / "work", tmp_path / "config" / "ankit"
    (work / "src").mkdir(parents=True)
    config.mkdir(parents=True)
    (config / "AGENTS.md").write_text("User rule: be terse.\n")
    (work / "AGENTS.md").write_text("Project rule: run make test.\n")
    (work / "src" / "app.py").write_text("def main():\n    return 42\n")
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-s", "Answer in French.",
                 "-p", "explain @src/app.py and @nothing/here.py")
    assert done.returncode == 0, done.stderr
    body = provider_server.requests[0].json
    system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
    assert system.index("User rule: be terse.") < system.index("Project rule: run make test.") < system.index("Answer in French.")
    assert user == ("explain @src/app.py and @nothing/here.py\n\n[ankit] Attached by the user's @mentions:\n"
                    '<file path="src/app.py">\ndef main():\n    return 42\n</file>')
    assert "ankit: @nothing/here.py: no such file or folder; the message goes without it" in done.stderr


def test_an_image_goes_as_an_image_block_to_anthropic_and_is_refused_by_a_local_server(provider_server, tmp_path):
    from tests.test_mentions import PNG
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "shot.png").write_bytes(PNG)
    provider_server.push_anthropic(text="a red dot")
    done = ankit(tmp_path, "--provider", "anthropic", "--base-url", provider_server.url + "/v1",
                 "-p", "what is in @shot.png?", ANTHROPIC_API_KEY="sk-ant-test-0123456789")
    assert done.returncode == 0, done.stderr
    content = provider_server.requests[0].json["messages"][-1]["content"]
    assert content[0]["type"] == "image" and content[0]["source"]["media_type"] == "image/png"
    assert content[-1]["text"] == "what is in @shot.png?"
    provider_server.push_openai(text="cannot see")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "what is in @shot.png?")
    assert done.returncode == 0
    assert done.stderr.count("\n") == 1 and "does not take images" in done.stderr
    assert isinstance(provider_server.requests[1].json["messages"][-1]["content"], str)


def test_max_cost_stops_before_the_request_with_one_line(provider_server, tmp_path):
    (tmp_path / "config" / "ankit").mkdir(parents=True)
    (tmp_path / "config" / "ankit" / "config.toml").write_text('max_cost = 0.5\n[prices."priced-model"]\ninput = 1000000\noutput = 0\n')
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--model", "priced-model", "-p", "hello")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("ankit: stopped by max_cost $0.5000: this session has spent $0.0000")
    assert provider_server.requests == []
    provider_server.push_openai(text="cheap enough")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--model", "priced-model", "--max-cost", "1e9",
                 "-p", "hello")
    assert done.returncode == 0 and done.stdout == "cheap enough\n"


def test_a_tool_loop_over_the_responses_api_with_a_retry_and_the_session_file(provider_server, tmp_path):
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("the answer is 42\n")
    limited = {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}
    provider_server.push(limited, status=429, headers={"retry-after-ms": "10"})
    provider_server.push_responses(tool_calls=[("call_1", "read_file", '{"path": "notes.txt"}')])
    provider_server.push_responses(text="It says 42.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--api", "responses",
                 "-p", "what do my notes say?")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "It says 42.\n" and [r.path for r in provider_server.requests] == ["/v1/responses"] * 3
    output = provider_server.requests[2].json["input"][-1]
    assert output["type"] == "function_call_output" and output["call_id"] == "call_1"
    assert output["output"].startswith("1\tthe answer is 42")
    saved = (tmp_path / "state" / "ankit" / "sessions").glob("*.jsonl")
    rounds = [json.loads(line) for path in saved for line in path.read_text().splitlines()]
    assert [r["usage"]["input_tokens"] for r in rounds if r["type"] == "round"] == [10, 10]


def test_a_cut_responses_stream_is_one_line_and_exit_1(provider_server, tmp_path):
    from conftest import fixture_parts
    provider_server.push(fixture_parts("responses_text.sse")[:5] + ["cut"])
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--api", "responses", "-p", "hello")
    assert done.returncode == 1 and done.stdout.startswith("Hello!")
    assert len(done.stderr.strip().splitlines()) == 1 and "no response.completed" in done.stderr


@pytest.mark.parametrize("args, out", [(["-p", "hello"], "hi there\n"), (["sessions"], "no saved sessions yet\n"),
                                       (["usage"], ""), (["-p", "again", "--continue"], "")])
def test_an_unusable_sessions_folder_is_one_line_not_a_traceback(provider_server, tmp_path, args, out):
    sessions = tmp_path / "state" / "ankit" / "sessions"
    sessions.parent.mkdir(parents=True)
    sessions.write_text("a file where the folder should be")
    provider_server.push_openai(text="hi there")
    flags = ["--base-url", provider_server.url + "/v1"] if args[0] == "-p" else []
    done = ankit(tmp_path, *args, *flags)
    assert "Traceback" not in done.stderr and "unknown command" not in done.stderr
    assert len(done.stderr.splitlines()) <= 1 and done.stderr[:7] in ("ankit: ", "")
    assert done.stdout.startswith(out)
    if args == ["-p", "hello"]:
        assert done.returncode == 0 and "cannot save session" in done.stderr and f"check {sessions}" in done.stderr


@pytest.mark.skipif(support().kind != "landlock", reason=f"no Linux sandbox here: {support().detail}")
def test_p_follows_the_sandbox_setting_commands_run_unasked_inside_and_off_refuses_them(provider_server, tmp_path):
    command = json.dumps({"command": "touch made"})
    for _ in range(2):
        provider_server.push_openai(tool_calls=[("c1", "run_command", command)])
        provider_server.push_openai(text="Done.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "touch")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "work" / "made").exists()  # no --yes: it ran, in the sandbox
    (tmp_path / "work" / "made").unlink()
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "touch", "--sandbox", "off")
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "work" / "made").exists()  # off: it needs approval, which -p without --yes refuses


def test_text_output_ends_with_one_line_naming_each_refused_call(provider_server, tmp_path):
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "y.txt").write_text("a\n")
    edit = '{"path": "y.txt", "old_string": "a", "new_string": "b"}'
    provider_server.push_openai(tool_calls=[("c1", "write_file", '{"path": "x.txt", "content": "hi"}'),
                                            ("c2", "edit_file", edit)])
    provider_server.push_openai(text="I could not do it.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "write x.txt", "--strict")
    assert done.returncode == 3
    assert done.stdout == "I could not do it.\n"
    last = done.stderr.splitlines()[-1]
    assert last.startswith("ankit: not done: 2 refused calls: write_file (needs approval;")
    assert "; edit_file (needs approval;" in last


def test_strict_exits_3_when_a_call_failed_and_0_without_it(provider_server, tmp_path):
    for strict, code in ((["--strict"], 3), ([], 0)):
        provider_server.push_openai(tool_calls=[("c1", "read_file", '{"path": "missing.txt"}')])
        provider_server.push_openai(text="There is no such file.")
        done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "read missing.txt", *strict)
        assert done.returncode == code, done.stderr
        assert "not done" not in done.stderr  # a failure is not a refusal


def test_strict_without_p_is_one_line(tmp_path):
    done = ankit(tmp_path, "--strict")
    assert done.returncode == 2 and "--strict is for one-shot runs" in done.stderr


def test_resuming_in_p_a_session_that_ran_elsewhere_says_where_it_ran(provider_server, tmp_path):
    provider_server.push_openai(text="Noted.")
    provider_server.push_openai(text="Still noted.")
    first = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--output-format", "json", "-p", "note 7")
    sid = json.loads(first.stdout)["session_id"]
    elsewhere = tmp_path / "work" / "sub"
    elsewhere.mkdir()
    done = subprocess.run([sys.executable, "-m", "ankit", "--base-url", provider_server.url + "/v1", "--resume", sid,
                           "-p", "and now?"], cwd=elsewhere, text=True, capture_output=True, timeout=60,
                          env=env_for(tmp_path))
    assert done.returncode == 0, done.stderr
    assert f"ankit: this session ran in {tmp_path / 'work'}; it goes on here, in {elsewhere}" in done.stderr
    assert "(cd there to work there)" in done.stderr


def test_all_without_resume_is_one_line(tmp_path):
    done = ankit(tmp_path, "--all")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--all goes with --resume" in done.stderr


def test_two_servers_whose_tools_would_share_a_name_are_told_apart_said_and_both_callable(provider_server, tmp_path):
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True)
    fake = json.dumps(str(ROOT / "tests" / "mcp_fake_server.py"))
    config.joinpath("config.toml").write_text(
        f'[mcp.servers.a]\ncommand = {json.dumps(sys.executable)}\nargs = [{fake}, "--names", "b__c", "--lenient"]\n'
        f'[mcp.servers.a__b]\ncommand = {json.dumps(sys.executable)}\nargs = [{fake}, "--names", "c"]\n')
    provider_server.push_openai(tool_calls=[("c1", "mcp__a__b__c", "{}"), ("c2", "mcp__a_b__c", "{}")])
    provider_server.push_openai(text="both answered")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--yes", "-p", "call both")
    assert done.returncode == 0, done.stderr
    assert ("MCP servers 'a' and 'a__b' could give two tools one name (mcp__a__b__...): 'a__b''s tools are named "
            "mcp__a_b__...") in done.stderr
    results = {m["tool_call_id"]: m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"}
    assert results == {"c1": "called b__c", "c2": "called c"}


def test_a_run_killed_in_its_second_round_keeps_the_question_and_the_first_rounds_results(provider_server, tmp_path):
    """A turn is kept round by round beside its session: SIGKILL (the OOM killer, a closed laptop) loses at most
    the round under way; --continue goes on with the question and the calls already made."""
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("kept\n")
    provider_server.push_openai(text="an earlier answer")
    assert ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "hello").returncode == 0
    provider_server.push_openai(tool_calls=[("c1", "read_file", '{"path": "notes.txt"}')])
    provider_server.push(fixture_parts(openai_sse(text="never")), delay=provider_server.gate())  # round 2 hangs
    run = subprocess.Popen([sys.executable, "-m", "ankit", "--base-url", provider_server.url + "/v1", "--continue",
                            "-p", "read my notes"], cwd=tmp_path / "work", env=env_for(tmp_path),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: len(provider_server.requests) == 3, timeout=60)
    finally:
        run.kill()
        run.wait()
    provider_server.push_openai(text="went on")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--continue", "-p", "and then?")
    assert done.returncode == 0 and done.stdout == "went on\n", done.stderr
    sent = [(m["role"], m.get("content") or "") for m in provider_server.requests[-1].json["messages"][1:]]
    assert [role for role, _ in sent] == ["user", "assistant", "user", "assistant", "tool", "user"]
    assert sent[2][1] == "read my notes" and "kept" in sent[4][1] and sent[5][1] == "and then?"
    assert len(list((tmp_path / "state" / "ankit" / "sessions").glob("*.jsonl"))) == 1


def test_a_run_told_to_stop_mid_reply_keeps_what_the_reply_had_said(provider_server, tmp_path):
    """SIGTERM (or a closed terminal's SIGHUP) ends ankit -p as an exit does: the partial reply is saved, cut,
    as a Ctrl-C keeps it."""
    gate = provider_server.gate()
    words = "The first half, and the second half."
    first = words[:len(words) // 2]  # openai_sse sends the text in two pieces
    parts = fixture_parts(openai_sse(text=words))
    provider_server.push([*parts[:2], gate, *parts[2:]])
    (tmp_path / "work").mkdir()
    run = subprocess.Popen([sys.executable, "-m", "ankit", "--base-url", provider_server.url + "/v1", "-p", "tell me"],
                           cwd=tmp_path / "work", env=env_for(tmp_path), stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
    try:
        assert run.stdout.read(len(first)) == first
        run.terminate()
        run.wait(timeout=30)
    finally:
        gate.set()
        run.kill()
    saved = [json.loads(line) for path in (tmp_path / "state" / "ankit" / "sessions").glob("*.jsonl")
             for line in path.read_text().splitlines()]
    said = [(e["role"], e["text"], e["cut"]) for e in saved if e["type"] == "message"]
    assert said == [("user", "tell me", False), ("assistant", first, True)]
