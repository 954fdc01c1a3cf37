"""`ankit mcp add/remove/get` as a user runs them: real subprocesses, real config files, the fake MCP server."""

import json
import sys
import tomllib
from pathlib import Path

from tests.test_oneshot import ankit

FAKE = Path(__file__).resolve().parent / "mcp_fake_server.py"


def user_config(tmp_path: Path) -> Path:
    return tmp_path / "config" / "ankit" / "config.toml"


def test_add_then_list_shows_the_new_servers_tools_and_the_users_file_keeps_its_comments(tmp_path):
    config = user_config(tmp_path)
    config.parent.mkdir(parents=True)
    config.write_text("# mine\nmax_rounds = 9  # keep\n\n[mcp]\nstart_timeout = 20\n")
    added = ankit(tmp_path, "mcp", "add", "fake", "--env", "FAKE_GREETING=hello there", "--", sys.executable, str(FAKE))
    assert added.returncode == 0, added.stderr
    assert added.stdout.startswith(f"added MCP server fake to {config}: ")
    text = config.read_text()
    assert text.startswith("# mine\nmax_rounds = 9  # keep\n\n[mcp]\nstart_timeout = 20\n\n[mcp.servers.fake]\n")
    assert tomllib.loads(text)["mcp"]["servers"]["fake"] == {
        "command": sys.executable, "args": [str(FAKE)], "env": {"FAKE_GREETING": "hello there"}}
    listed = ankit(tmp_path, "mcp", "list")
    assert listed.returncode == 0, listed.stderr
    assert "fake: ready" in listed.stdout and "mcp__fake__echo" in listed.stdout
    shown = ankit(tmp_path, "mcp", "get", "fake")
    assert "FAKE_GREETING=…" in shown.stdout and "hello there" not in shown.stdout
    assert ankit(tmp_path, "mcp", "remove", "fake").stdout == f"removed MCP server fake from {config}\n"
    assert config.read_text() == "# mine\nmax_rounds = 9  # keep\n\n[mcp]\nstart_timeout = 20\n"


def test_project_servers_go_in_the_projects_config(tmp_path):
    added = ankit(tmp_path, "mcp", "add", "local", "--project", "--", sys.executable, str(FAKE))
    assert added.returncode == 0, added.stderr
    project = tmp_path / "work" / ".ankit" / "config.toml"
    assert "mcp list starts it" not in added.stdout  # an untrusted folder's server is not started
    assert added.stdout.splitlines()[-1] == ("this folder is not trusted, so ankit starts no server of its "
                                             ".ankit/config.toml: run ankit here and answer y when it asks, or add "
                                             "--trust for one run")
    assert "local" in tomllib.loads(project.read_text())["mcp"]["servers"]
    assert not user_config(tmp_path).exists()
    wrong = ankit(tmp_path, "mcp", "remove", "local")
    assert wrong.returncode == 1 and "(add -s local)" in wrong.stderr
    assert ankit(tmp_path, "mcp", "remove", "local", "--project").returncode == 0


def test_bad_input_is_one_line_and_writes_nothing(tmp_path):
    config = user_config(tmp_path)
    cases = [
        (["add", "x", "--", "no-such-program-here"], "no program 'no-such-program-here' found"),
        (["add", "x", "npx", "-y", "pkg"], "unknown option '-y' for this command (the server's own options go after --)"),
        (["add", "-s", "everywhere", "x", "--", sys.executable], "-s takes local, project, user, not 'everywhere'"),
        (["add", "--scope", "project", "--system", "x", "--", sys.executable], "unknown option '--system'"),
        (["add", "-t", "sse", "old", "http://127.0.0.1:9/sse"], "ankit does not speak the SSE transport"),
        (["add", "x", "https://mcp.example.com/mcp"], "is an address: add -t http"),
        (["add", "-t", "http", "x", "https://a.example/mcp", "-H", "no colon"], "-H takes 'Name: value'"),
        (["add", "-t", "http", "-e", "A=1", "x", "https://a.example/mcp"], "-e sets a local server's environment"),
        (["add", "-H", "A: b", "x", "--", sys.executable], "-H sends a header to a server over HTTP"),
        (["add", "-s"], "-s needs a value"),
        (["add", "bad name", "--", sys.executable], "cannot name an MCP server"),
        (["add", "x", "--env", "NOEQUALS", "--", sys.executable], "--env takes KEY=VALUE"),
        (["remove", "ghost"], "no MCP server named 'ghost'"),
        (["get", "ghost"], "no MCP server named 'ghost'"),
    ]
    for argv, words in cases:
        done = ankit(tmp_path, "mcp", *argv)
        assert done.returncode == 1 and done.stdout == "", argv
        assert len(done.stderr.splitlines()) == 1 and words in done.stderr, (argv, done.stderr)
    assert not config.exists()


def test_a_server_written_inline_is_left_for_the_user_to_edit(tmp_path):
    config = user_config(tmp_path)
    config.parent.mkdir(parents=True)
    original = f'[mcp.servers]\nfake = {{ command = "{sys.executable}" }}\n'
    config.write_text(original)
    duplicate = ankit(tmp_path, "mcp", "add", "fake", "--", sys.executable)
    assert duplicate.returncode == 1 and "already in" in duplicate.stderr
    removed = ankit(tmp_path, "mcp", "remove", "fake")
    assert removed.returncode == 1 and "in a form ankit cannot edit" in removed.stderr
    assert config.read_text() == original


def test_add_json_takes_claude_codes_json_and_bad_json_writes_nothing(tmp_path):
    entry = {"type": "stdio", "command": sys.executable, "args": [str(FAKE)], "env": {"FAKE_GREETING": "${G:-hi}"}}
    added = ankit(tmp_path, "mcp", "add-json", "fake", json.dumps(entry))
    assert added.returncode == 0, added.stderr
    assert tomllib.loads(user_config(tmp_path).read_text())["mcp"]["servers"]["fake"] == {
        "command": sys.executable, "args": [str(FAKE)], "env": {"FAKE_GREETING": "${G:-hi}"}}
    assert "mcp__fake__echo" in ankit(tmp_path, "mcp", "list").stdout
    before = user_config(tmp_path).read_text()
    bad = ankit(tmp_path, "mcp", "add-json", "other", '{"command": ')
    assert bad.returncode == 1 and bad.stderr.startswith("ankit: the server's JSON is not valid (")
    sse = ankit(tmp_path, "mcp", "add-json", "old", '{"type": "sse", "url": "http://127.0.0.1:9/sse"}')
    assert sse.returncode == 1 and "uses the SSE transport, which ankit does not speak" in sse.stderr
    assert user_config(tmp_path).read_text() == before and "Traceback" not in bad.stderr + sse.stderr


def test_claude_codes_flags_scope_project_writes_mcp_json_and_s_is_never_read_as_system(tmp_path):
    """The documented `claude mcp add` shapes: -s/--scope, -t/--transport, -e, -H, options before the name."""
    work = tmp_path / "work"
    work.mkdir()
    (work / ".mcp.json").write_text('{\n  "mcpServers": {},\n  "note": "kept"\n}\n')
    added = ankit(tmp_path, "mcp", "add", "-s", "project", "-e", "FAKE_GREETING=hi", "clock", "--", sys.executable, str(FAKE))
    assert added.returncode == 0, added.stderr
    assert added.stdout.splitlines()[0] == f"added MCP server clock to {work / '.mcp.json'}: {sys.executable} {FAKE}"
    assert "starts no server of its .mcp.json" in added.stdout
    written = json.loads((work / ".mcp.json").read_text())
    assert written == {"mcpServers": {"clock": {"type": "stdio", "command": sys.executable, "args": [str(FAKE)],
                                                "env": {"FAKE_GREETING": "hi"}}}, "note": "kept"}
    assert not user_config(tmp_path).exists() and not (work / ".ankit").exists()
    http = ankit(tmp_path, "mcp", "add", "--transport", "http", "--scope=project", "notion", "https://mcp.notion.com/mcp",
                 "--header", "Authorization: Bearer ${NOTION_TOKEN}")
    assert http.returncode == 0, http.stderr
    assert json.loads((work / ".mcp.json").read_text())["mcpServers"]["notion"] == {
        "type": "http", "url": "https://mcp.notion.com/mcp", "headers": {"Authorization": "Bearer ${NOTION_TOKEN}"}}
    shown = ankit(tmp_path, "mcp", "get", "notion")
    assert shown.stdout.splitlines() == [f"notion (in {work / '.mcp.json'}, scope project)",
                                         "  command: https://mcp.notion.com/mcp (Streamable HTTP)",
                                         "  headers: Authorization=… (values not shown)"]
    user = ankit(tmp_path, "mcp", "add", "-s", "user", "-t", "stdio", "fake", sys.executable, str(FAKE))
    assert user.returncode == 0 and "fake" in tomllib.loads(user_config(tmp_path).read_text())["mcp"]["servers"]
    local = ankit(tmp_path, "mcp", "add", "-s", "local", "mine", "--", sys.executable, str(FAKE))
    assert local.returncode == 0 and "mine" in tomllib.loads((work / ".ankit" / "config.toml").read_text())["mcp"]["servers"]
    wrong = ankit(tmp_path, "mcp", "remove", "clock")
    assert wrong.returncode == 1 and "(add -s project)" in wrong.stderr
    assert ankit(tmp_path, "mcp", "remove", "clock", "-s", "project").returncode == 0
    assert list(json.loads((work / ".mcp.json").read_text())["mcpServers"]) == ["notion"]


def test_global_options_before_mcp_still_apply_and_a_bad_mcp_json_is_left_alone(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / ".mcp.json").write_text("[1, 2]\n")
    refused = ankit(tmp_path, "--model", "m", "mcp", "add", "-s", "project", "x", "--", sys.executable)
    assert refused.returncode == 1 and len(refused.stderr.splitlines()) == 1
    assert "is not an object with an \"mcpServers\" object" in refused.stderr
    assert (work / ".mcp.json").read_text() == "[1, 2]\n"


def test_the_mcp_manage_tool_names_the_scope_as_claude_mcp_add_does(provider_server, tmp_path):
    """The model's way to the same command: scope project writes .mcp.json through the approval path."""
    add = {"action": "add", "name": "fake", "command": sys.executable, "args": [str(FAKE)], "scope": "project"}
    provider_server.push_openai(tool_calls=[("c1", "find_tools", '{"query": "add an MCP server"}')])
    provider_server.push_openai(tool_calls=[("c2", "mcp_manage", json.dumps(add))])
    provider_server.push_openai(text="Added.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "add it", "--yes")
    assert done.returncode == 0, done.stderr
    result = provider_server.requests[2].json["messages"][-1]["content"]
    assert result.startswith(f"added MCP server fake to {tmp_path / 'work' / '.mcp.json'}: "), result
    written = json.loads((tmp_path / "work" / ".mcp.json").read_text())
    assert written["mcpServers"]["fake"]["command"] == sys.executable
