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
    assert wrong.returncode == 1 and "(add --project)" in wrong.stderr
    assert ankit(tmp_path, "mcp", "remove", "local", "--project").returncode == 0


def test_bad_input_is_one_line_and_writes_nothing(tmp_path):
    config = user_config(tmp_path)
    cases = [
        (["add", "x", "--", "no-such-program-here"], "no program 'no-such-program-here' found"),
        (["add", "x", sys.executable], "put the server's command after --"),
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
