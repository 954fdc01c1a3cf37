"""Security: an MCP server writing one endless line is stopped at the line cap and marked failed, instead of
taking ankit's memory (a real server subprocess on a pipe); a read-only tool that may reach the open world asks."""

import json
import resource
import sys
import time

import pytest

from ankit.mcp.transport import LINE_CAP, McpError, StdioTransport
from ankit.safety.sandbox import support
from tests.test_oneshot import ROOT, ankit

FLOOD = ("import sys\n"
         "sys.stdin.readline()\n"
         "chunk = b'x' * (1 << 20)\n"
         f"for _ in range({LINE_CAP // (1 << 20) + 8}):\n"
         "    sys.stdout.buffer.write(chunk)\n"
         "sys.stdout.buffer.flush()\n"
         "import time; time.sleep(60)\n")


def test_a_line_past_the_cap_stops_the_server_with_one_reason(tmp_path):
    transport = StdioTransport("flood", sys.executable, ["-c", FLOOD], None, None, tmp_path / "flood.log")
    try:
        transport.spawn()
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.monotonic()
        with pytest.raises(McpError) as caught:
            transport.request("initialize", {}, 30)
        assert time.monotonic() - started < 25
        assert "sent a line longer than 32 MB, so it was stopped" in str(caught.value)
        grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
        assert grown_mb < 3 * LINE_CAP / (1 << 20)  # the line was not kept whole, let alone decoded twice
    finally:
        transport.close()


def test_a_read_only_tool_that_may_reach_the_open_world_asks_and_its_approval_shows_every_argument():
    """readOnlyHint alone runs nothing unasked: a search or fetch tool sends its arguments off the machine (the
    spec's openWorldHint defaults to true). Only read-only, closed-world tools run freely."""
    from ankit.mcp.tools import make_tools
    from ankit.records import ToolCall
    from ankit.tooling.toolbox import ToolContext, run_call
    specs = [{"name": "search", "annotations": {"readOnlyHint": True}, "inputSchema": {"type": "object"}},
             {"name": "read", "annotations": {"readOnlyHint": True, "openWorldHint": False},
              "inputSchema": {"type": "object"}}]
    sent = []
    search, read = make_tools("web", specs, lambda name, args: sent.append(name) or {}, trusted=True)[0]
    asked = []
    query = "harmless words " + "x" * 500 + " OPENAI_API_KEY=the-rest-of-the-secret"
    result = run_call(ToolCall("c1", search.name, json.dumps({"q": query})), search, ToolContext(cwd="."),
                      lambda tool, args, preview: asked.append(preview) or False)
    assert result.is_error and sent == [] and "the-rest-of-the-secret" in asked[0]
    assert not run_call(ToolCall("c2", read.name, "{}"), read, ToolContext(cwd="."), lambda *a: False).is_error
    assert sent == ["read"]


def probe_server(tmp_path, *rules: str, key: str = "deny") -> None:
    """The loopback MCP server as `probe` in the user's config, and Claude Code settings holding these rules."""
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True, exist_ok=True)
    server = ROOT / "tests" / "mcp_fake_server.py"
    (config / "config.toml").write_text(f"[mcp.servers.probe]\ncommand = {json.dumps(sys.executable)}\n"
                                        f"args = [{json.dumps(str(server))}]\nstart_timeout = 60\n")
    claude = tmp_path / "home" / ".claude"
    claude.mkdir(parents=True, exist_ok=True)
    (claude / "settings.json").write_text(json.dumps({"permissions": {key: list(rules)}}))


@pytest.mark.parametrize("rule", ["mcp__probe", "mcp__probe__*"])
def test_a_rule_over_a_whole_server_denies_every_tool_of_it_under_yes(provider_server, tmp_path, rule):
    probe_server(tmp_path, rule)
    provider_server.push_openai(tool_calls=[("c1", "mcp__probe__echo", '{"text": "hi"}'),
                                            ("c2", "mcp__probe__add", '{"a": 1, "b": 2}')])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "go", "--yes")
    assert done.returncode == 0, done.stderr
    sent = [m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert [s.split(" in the settings")[0] for s in sent] == [f"Error: refused by the rule {rule!r}"] * 2
    assert "ignores" not in done.stderr and "cannot apply" not in done.stderr


def test_an_allow_over_a_whole_server_lets_its_tools_run_in_p_without_yes(provider_server, tmp_path):
    probe_server(tmp_path, "mcp__probe", key="allow")
    provider_server.push_openai(tool_calls=[("c1", "mcp__probe__add", '{"a": 1, "b": 2}')])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "go")
    assert done.returncode == 0, done.stderr
    [sent] = [m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert not sent.startswith("Error") and "3" in sent


def echo_in_p(provider_server, tmp_path, *flags: str) -> str:
    provider_server.push_openai(tool_calls=[("c1", "mcp__probe__echo", '{"text": "hi"}')])
    provider_server.push_openai(text="ok")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", *flags, "-p", "go")
    assert done.returncode == 0, done.stderr
    return [m["content"] for m in provider_server.requests[-1].json["messages"] if m["role"] == "tool"][0]


def test_a_read_only_hint_runs_unasked_only_for_a_server_the_users_own_config_trusts(provider_server, tmp_path):
    """The MCP spec: annotations from an untrusted server are untrusted. echo says readOnlyHint and closed world;
    each run in a fresh home (a cached list grants nothing either)."""
    server = ROOT / "tests" / "mcp_fake_server.py"
    table = (f"[mcp.servers.probe]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(server))}]\n"
             "start_timeout = 60\ntrust_annotations = true\n")
    other = table.replace(json.dumps(str(server)), json.dumps(str(server)) + ', "--instructions", "hi"')
    cases = {"untrusted": ("", ""), "project": ("", table), "user": (table, ""), "swapped": (table, other)}
    for case, (user, project) in cases.items():
        home = tmp_path / case
        probe_server(home)
        if user:
            (home / "config" / "ankit" / "config.toml").write_text(user)
        if project:
            (home / "work" / ".ankit").mkdir(parents=True)
            (home / "work" / ".ankit" / "config.toml").write_text(project)
        answer = echo_in_p(provider_server, home, "--trust")
        assert answer == "hi" if case == "user" else answer.startswith("Error: the user declined"), (case, answer)


@pytest.mark.skipif(not support().kind, reason="plan mode needs this machine's sandbox")
def test_plan_mode_asks_for_a_tool_an_untrusted_server_calls_read_only_and_p_refuses_it(provider_server, tmp_path):
    probe_server(tmp_path / "untrusted")
    assert echo_in_p(provider_server, tmp_path / "untrusted", "--sandbox", "plan").startswith(
        "Error: the user declined")  # asked (plan mode does not run it on the server's word), and -p asks nobody
    probe_server(tmp_path / "trusted")
    config = tmp_path / "trusted" / "config" / "ankit" / "config.toml"
    config.write_text(config.read_text() + "trust_annotations = true\n")
    assert echo_in_p(provider_server, tmp_path / "trusted", "--sandbox", "plan") == "hi"
