"""Security: an MCP server writing one endless line is stopped at the line cap and marked failed, instead of
taking ankit's memory (a real server subprocess on a pipe); a read-only tool that may reach the open world asks."""

import json
import resource
import sys
import time

import pytest

from ankit.mcp.transport import LINE_CAP, McpError, StdioTransport

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
    search, read = make_tools("web", specs, lambda name, args: sent.append(name) or {})[0]
    asked = []
    query = "harmless words " + "x" * 500 + " OPENAI_API_KEY=the-rest-of-the-secret"
    result = run_call(ToolCall("c1", search.name, json.dumps({"q": query})), search, ToolContext(cwd="."),
                      lambda tool, args, preview: asked.append(preview) or False)
    assert result.is_error and sent == [] and "the-rest-of-the-secret" in asked[0]
    assert not run_call(ToolCall("c2", read.name, "{}"), read, ToolContext(cwd="."), lambda *a: False).is_error
    assert sent == ["read"]
