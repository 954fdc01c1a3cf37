"""A project's .mcp.json and Claude's server JSON, as a user meets them: real files, `ankit -p`, `ankit mcp list`
and the trust question on a pty, the fake MCP server started from a file Claude Code would read."""

import json
import shutil
import sys
from pathlib import Path

import pytest

from ankit.errors import ConfigError
from ankit.claude.mcp import expand, server_table, servers_of
from tests.test_oneshot import ankit
from tests.test_repl import home, run  # noqa: F401  (fixtures)

FAKE = Path(__file__).resolve().parent / "mcp_fake_server.py"
# The shape Claude Code's documentation gives a project's .mcp.json: stdio with ${VAR} and ${VAR:-default}, and http
MCP_JSON = {"mcpServers": {
    "fake": {"command": "${FAKE_PY}", "args": ["${FAKE_DIR:-/nowhere}/mcp_fake_server.py"],
             "env": {"FAKE_GREETING": "${GREETING:-hello from .mcp.json}"}},
    "docs": {"type": "http", "url": "${DOCS_URL:-http://127.0.0.1:9/mcp}",
             "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}},
}}


def project(work: Path, data: dict = MCP_JSON) -> None:
    work.mkdir(parents=True, exist_ok=True)
    (work / ".mcp.json").write_text(json.dumps(data, indent=2))


def test_claudes_server_json_becomes_ankits_table_and_what_ankit_cannot_run_is_one_line():
    assert server_table("fake", MCP_JSON["mcpServers"]["fake"]) == MCP_JSON["mcpServers"]["fake"]
    assert server_table("docs", MCP_JSON["mcpServers"]["docs"]) == {
        "url": "${DOCS_URL:-http://127.0.0.1:9/mcp}", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}
    assert server_table("s", {"type": "stdio", "command": "npx", "args": [], "env": {}}) == {"command": "npx"}
    tables, problems = servers_of({"mcpServers": {"old": {"type": "sse", "url": "http://x/sse"},
                                                  "my.server": {"command": "x"}, "odd": {"type": "ws"}}}, ".mcp.json")
    assert tables == {}
    assert problems == [
        ".mcp.json: MCP server 'old' uses the SSE transport, which ankit does not speak (Streamable HTTP: \"type\": "
        "\"http\"); skipped",
        ".mcp.json: MCP server 'my.server': ankit names servers with letters, digits, '-' and '_' (up to 40); rename it",
        ".mcp.json: MCP server 'odd' has \"type\": \"ws\"; ankit runs stdio and http servers"]
    with pytest.raises(ConfigError):
        server_table("x", ["not", "an", "object"])


def test_variables_and_defaults():
    missing: list[str] = []
    env = {"A": "1", "EMPTY": ""}
    assert expand("${A}-${B:-two}-${EMPTY:-d}-${C}-$A-${A:-x}", env, missing) == "1-two-d--$A-1"
    assert missing == ["C"]


def test_an_untrusted_folders_mcp_json_starts_nothing_and_says_so(provider_server, tmp_path):
    marker = tmp_path / "MCP_RAN"
    project(tmp_path / "work", {"mcpServers": {"evil": {"command": sys.executable,
                                                        "args": ["-c", f"open({str(marker)!r}, 'w')"]}}})
    (tmp_path / "config" / "ankit").mkdir(parents=True)
    (tmp_path / "config" / "ankit" / "config.toml").write_text(
        f'provider = "local"\nbase_url = "{provider_server.url}/v1"\n')
    provider_server.push_openai(text="fine")
    done = ankit(tmp_path, "-p", "hi")
    assert done.returncode == 0 and done.stdout == "fine\n", done.stderr
    assert not marker.exists()
    assert [line for line in done.stderr.splitlines() if "not trusted" in line and "mcp" in line]


def test_a_trusted_folders_mcp_json_server_starts_with_its_variables_filled(tmp_path):
    project(tmp_path / "work")
    listed = ankit(tmp_path, "--trust", "mcp", "list", FAKE_PY=sys.executable, FAKE_DIR=str(FAKE.parent))
    assert "fake: ready" in listed.stdout and "mcp__fake__echo" in listed.stdout, listed.stdout + listed.stderr
    shown = ankit(tmp_path, "mcp", "get", "fake")
    assert shown.stdout.splitlines()[:3] == [f"fake (in {tmp_path / 'work' / '.mcp.json'}, scope project)",
                                             "  command: '${FAKE_PY}' '${FAKE_DIR:-/nowhere}/mcp_fake_server.py'",
                                             "  env: FAKE_GREETING=… (values not shown)"]
    missing = ankit(tmp_path, "--trust", "mcp", "list", FAKE_DIR=str(FAKE.parent))
    assert "[mcp.servers.fake] uses ${FAKE_PY}, which is not set (FAKE_PY); set it, or write ${FAKE_PY:-default} " \
           "for a default" in missing.stdout + missing.stderr


def test_the_trust_question_lists_the_mcp_json_servers_as_written_and_a_change_is_asked_again(run, home):
    project(home / "work")
    term = run()
    shown = term.expect("Trust this folder and apply them? [y/N] ")
    assert "start the MCP server fake: ${FAKE_PY} ${FAKE_DIR:-/nowhere}/mcp_fake_server.py" in shown
    assert "connect to the MCP server docs at ${DOCS_URL:-http://127.0.0.1:9/mcp}" in shown
    term.answer("y")
    term.expect("ankit ")
    term.finish()
    changed = json.loads(json.dumps(MCP_JSON))
    changed["mcpServers"]["fake"]["args"].append("--tools=3")
    project(home / "work", changed)
    term = run()
    shown = term.expect("[y/N] ").replace("\n  ↪ ", "")  # rows continued where the folder's path length says
    assert "changed since you trusted it" in shown and "--tools=3" in shown
    term.answer("n")
    term.finish()


def test_a_real_mcp_json_is_asked_about_as_written_and_started_only_once_trusted(run, home):
    """microsoft/playwright-mcp's .mcp.json (serena through uvx, "type": "stdio", an empty env)."""
    shutil.copy(Path(__file__).parent / "fixtures" / "claude_code" / "playwright-mcp" / ".mcp.json",
                home / "work" / ".mcp.json")
    term = run()
    shown = term.expect("Trust this folder and apply them? [y/N] ")
    assert ("start the MCP server serena: uvx --from git+https://github.com/oraios/serena serena start-mcp-server "
            "--context ide-assistant --project /Users/tomohiko/fast-playwright-mcp --enable-web-dashboard False") \
        in " ".join(shown.replace("↪", "").split())  # a long line wraps with a marker
    term.answer("n")
    term.expect("ignored this time")
    term.line("/mcp")
    term.expect("no MCP servers")
    assert term.finish() == 0
