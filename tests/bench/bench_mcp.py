"""Prints how long MCP start-up takes to return, to list tools, and one tool call's round trip (not collected by pytest).

Run: PYTHONPATH=. python3 tests/bench/bench_mcp.py
"""

import statistics
import sys
import tempfile
import time
from pathlib import Path

from ankit.mcp.servers import McpManager

FAKE = str(Path(__file__).resolve().parent.parent / "mcp_fake_server.py")


def main() -> None:
    servers = {f"s{i}": {"command": sys.executable, "args": [FAKE, "--tools", "200", "--page-size", "50"]}
               for i in range(4)}
    with tempfile.TemporaryDirectory() as folder:
        began = time.perf_counter()
        manager = McpManager(servers, Path(folder))
        manager.start()
        returned = time.perf_counter() - began
        manager.wait(30)
        listed = time.perf_counter() - began
        echo = next(t for t in manager.catalog.tools() if t.name == "mcp__s0__echo")
        rounds = []
        for _ in range(200):
            start = time.perf_counter()
            echo.run({"text": "x"}, None)
            rounds.append(time.perf_counter() - start)
        print(f"start() returned after      {returned * 1000:8.2f} ms")
        print(f"4 servers x 214 tools listed {listed * 1000:8.1f} ms ({len(manager.catalog.tools())} tools)")
        print(f"tools/call round trip        median {statistics.median(rounds) * 1000:.3f} ms, "
              f"max {max(rounds) * 1000:.3f} ms over {len(rounds)} calls")
        manager.close()


if __name__ == "__main__":
    main()
