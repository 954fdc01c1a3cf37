"""Calls real MCP servers end to end through `ankit -p`: a scripted model on the loopback provider asks for tools.

usage: python3 tests/bench/bench_mcp_fleet.py [--fleet /work/fleet] [--only a,b] [--yes]
For each server of tests/bench/fleet/config.toml.in (installed by install.sh), one `ankit -p` session whose model
calls the tools in CALLS in one round; prints each call's result as the model received it (first line), and a
table: server, tools listed, calls tried, calls answered without an error. Without --yes, tools the server does not
mark read-only are refused, as `-p` refuses them. Not run in CI.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.conftest import ProviderServer  # noqa: E402

CONFIG = ROOT / "tests" / "bench" / "fleet" / "config.toml.in"
CALLS = {
    "filesystem": [("list_allowed_directories", {}), ("write_file", {"path": "@FLEET@/data/probe.txt", "content": "hi\n"}),
                   ("read_text_file", {"path": "@FLEET@/data/probe.txt"}), ("read_text_file", {"path": "/etc/passwd"}),
                   ("read_media_file", {"path": "@FLEET@/data/fleet.db"})],
    "memory": [("create_entities", {"entities": [{"name": "probe", "entityType": "test", "observations": ["x"]}]}),
               ("search_nodes", {"query": "probe"})],
    "everything": [("echo", {"message": "hi"}), ("get-tiny-image", {}), ("get-structured-content", {"location": "Chicago"}),
                   ("get-resource-links", {"count": 2}), ("get-resource-reference", {"resourceType": "Blob", "resourceId": 2}),
                   ("get-annotated-message", {"messageType": "error", "includeImage": True}),
                   ("trigger-long-running-operation", {"duration": 2, "steps": 4}),
                   ("simulate-research-query", {"topic": "cats"}), ("get-sum", {"a": "x"})],
    "sequential-thinking": [("sequentialthinking", {"thought": "one", "thoughtNumber": 1, "totalThoughts": 1,
                                                    "nextThoughtNeeded": False})],
    "github": [("search_repositories", {"query": "ankit"})],
    "kubernetes": [("ping", {}), ("kubectl_get", {"resourceType": "pods"})],
    "mongodb": [("list-connections", {}), ("list-databases", {})],
    "playwright": [("browser_tabs", {"action": "list"})],
    "git": [("git_status", {"repo_path": "@FLEET@/repo"}), ("git_status", {"repo_path": "/nonexistent"})],
    "fetch": [("fetch", {"url": "http://127.0.0.1:9/"})],
    "time": [("get_current_time", {"timezone": "Europe/Paris"}), ("get_current_time", {"timezone": "Mars/Base"})],
    "sqlite": [("list_tables", {}), ("read_query", {"query": "select 1 as one"})],
}


def home_for(fleet: Path, name: str, table: dict) -> dict:
    """A private XDG home whose config lists only this server; the environment to run ankit in."""
    home = Path(tempfile.mkdtemp(prefix=f"ankit-{name}-"))
    (home / "config" / "ankit").mkdir(parents=True)
    lines = [f"[mcp.servers.{json.dumps(name)}]"] + [f"{k} = {json.dumps(v)}" for k, v in table.items() if k != "env"]
    if table.get("env"):
        lines.append("env = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in table["env"].items()) + " }")
    (home / "config" / "ankit" / "config.toml").write_text("\n".join(lines) + "\n")
    (home / "work").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN")) and not k.startswith("ANKIT_")}
    return {**env, "XDG_CONFIG_HOME": str(home / "config"), "XDG_STATE_HOME": str(home / "state"),
            "XDG_DATA_HOME": str(home / "data"), "PYTHONPATH": str(ROOT), "HOME": str(home), "OPENAI_API_KEY": "sk-x"}


def run(fleet: Path, name: str, table: dict, yes: bool) -> tuple[int, int, int]:
    """One -p session calling the server's tools; returns (tools listed, calls tried, calls without error)."""
    env, provider = home_for(fleet, name, table), ProviderServer()
    calls = [(f"c{i}", f"mcp__{name}__{tool}", json.dumps(args).replace("@FLEET@", str(fleet)))
             for i, (tool, args) in enumerate(CALLS.get(name, []))]
    provider.push_openai(tool_calls=calls)
    provider.push_openai(text="done")
    began = time.monotonic()
    argv = [sys.executable, "-m", "ankit", "--base-url", provider.url + "/v1", "-p", f"use the {name} server"]
    done = subprocess.run(argv + (["--yes"] if yes else []), cwd=Path(env["HOME"]) / "work", env=env,
                          capture_output=True, text=True, timeout=300)
    took = time.monotonic() - began
    provider.close()
    listing = subprocess.run([sys.executable, "-m", "ankit", "mcp"], env=env, capture_output=True, text=True, timeout=60)
    listed = sum(1 for line in listing.stdout.splitlines() if line.startswith("  mcp__"))
    ok = 0
    print(f"{name}: exit {done.returncode} in {took:.1f}s; {listing.stdout.splitlines()[0] if listing.stdout else ''}")
    results = {m.get("tool_call_id"): m.get("content") for m in
               (provider.requests[1].json["messages"] if len(provider.requests) > 1 else []) if m.get("role") == "tool"}
    for cid, tool, _ in calls:
        content = str(results.get(cid, "(no result)"))
        ok += not content.startswith(("Error", "(no result)"))
        print(f"   {tool}: {content.splitlines()[0][:150] if content else '(empty)'!r}")
    if done.returncode:
        print("   stderr:", done.stderr.strip()[-300:])
    return listed, len(calls), ok


def main(argv: list[str]) -> int:
    """Print each server's calls and the table."""
    fleet = Path(argv[argv.index("--fleet") + 1]) if "--fleet" in argv else Path("/work/fleet")
    servers = tomllib.loads(CONFIG.read_text().replace("@FLEET@", str(fleet)))["mcp"]["servers"]
    only = argv[argv.index("--only") + 1].split(",") if "--only" in argv else list(servers)
    rows = [(name, *run(fleet, name, servers[name], "--yes" in argv)) for name in only]
    print(f"\n{'server':<20} {'tools':>5} {'calls':>5} {'answered':>8}")
    for name, listed, tried, ok in rows:
        print(f"{name:<20} {listed:>5} {tried:>5} {ok:>8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
