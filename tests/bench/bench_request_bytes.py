"""Benchmark: the bytes of each Anthropic request with twelve MCP servers configured. Prints a table.

The twelve servers are the development fleet's, replayed from their recorded exchanges
(tests/fixtures/mcp_*.jsonl, through tests/mcp_replay_server.py); the provider is a loopback server speaking
the Messages format. A scripted model asks find_tools for the sqlite tools in the first round, calls one in
the second and answers in the third; a second turn answers at once. For each request: its size, the size of
its tools array, how many tool definitions it declares (deferred or not), and what declaring the whole
deferred catalog would have added.

Run: python3 tests/bench/bench_request_bytes.py
"""

import json
import os
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from conftest import ProviderServer  # noqa: E402

FLEET = ROOT / "tests" / "bench" / "fleet" / "config.toml.in"  # the twelve servers, by name
FIXTURES = [ROOT / "tests" / "fixtures" / f"mcp_{name.replace('-', '_')}.jsonl"
            for name in tomllib.loads(FLEET.read_text())["mcp"]["servers"]]
REPLAY = ROOT / "tests" / "mcp_replay_server.py"


def fleet_config() -> str:
    """One [mcp.servers.NAME] table per recorded server, each replayed by a subprocess."""
    lines = []
    for fixture in FIXTURES:
        name = fixture.stem.removeprefix("mcp_").replace("_", "-")
        lines += [f"[mcp.servers.{json.dumps(name)}]", f"command = {json.dumps(sys.executable)}",
                  f"args = [{json.dumps(str(REPLAY))}, {json.dumps(str(fixture))}]", ""]
    return "\n".join(lines)


def tools_bytes(body: bytes) -> int:
    """The bytes of the request's tools array as sent."""
    return len(json.dumps(json.loads(body).get("tools", []), ensure_ascii=False).encode())


def main() -> None:
    from ankit.protocols import NullView
    from ankit.settings.layers import load_config
    from ankit.turn.app import build_app

    with tempfile.TemporaryDirectory() as tmp:
        for var in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"):
            os.environ[var] = str(Path(tmp) / var.lower())
        work, home = Path(tmp) / "work", Path(tmp) / "config"
        work.mkdir()
        home.mkdir()
        (home / "config.toml").write_text(fleet_config())
        server = ProviderServer()
        flags = {"base_url": server.url + "/v1", "provider": "anthropic"}
        app = build_app(load_config(flags, {"ANTHROPIC_API_KEY": "sk-ant-bench-0123456789"}, work, home), work)
        try:
            session = app.session(NullView(), lambda *a: True)
            server.push_anthropic(tool_calls=[("t1", "find_tools", '{"query": "list the tables of the sqlite database"}')])
            server.push_anthropic(tool_calls=[("t2", "mcp__sqlite__list_tables", "{}")])
            server.push_anthropic(text="Two tables.")
            server.push_anthropic(text="Still two.")
            session.turn("what tables does the database have?")
            session.turn("and now?")
            catalog = app.activation.catalog()
            whole = sum(len(json.dumps({"name": s.name, "description": s.description, "input_schema": s.parameters,
                                        "defer_loading": True}, ensure_ascii=False).encode()) + 2 for s in catalog)
            print(f"{len(FIXTURES)} MCP servers, {len(catalog)} tools outside core; declaring all of them deferred "
                  f"would add {whole / 1024:,.0f} KB to every request\n")
            print("| request | bytes | tools array | definitions declared (deferred) |")
            print("|---:|---:|---:|---:|")
            for number, request in enumerate(server.requests, 1):
                tools = json.loads(request.body).get("tools", [])
                deferred = sum(1 for t in tools if t.get("defer_loading"))
                print(f"| {number} | {len(request.body) / 1024:,.1f} KB | {tools_bytes(request.body) / 1024:,.1f} KB "
                      f"| {len(tools)} ({deferred}) |")
        finally:
            app.close()
            server.close()


if __name__ == "__main__":
    main()
