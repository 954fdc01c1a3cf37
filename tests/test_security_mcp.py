"""Security: an MCP server writing one endless line is stopped at the line cap and marked failed, instead of
taking ankit's memory (a real server subprocess on a pipe)."""

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
