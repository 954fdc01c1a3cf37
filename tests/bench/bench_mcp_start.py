"""Start-up with many MCP servers configured: `ankit -p hello`, `ankit tools` and `ankit mcp` (not run in CI).

usage: python3 tests/bench/bench_mcp_start.py [--servers 12] [--delay 3] [--fleet DIR] [--runs 5]
Each configured server is tests/mcp_fake_server.py with --start-delay DELAY (a slow server), or with --fleet DIR
the real fleet of tests/bench/fleet/config.toml.in (installed by tests/bench/fleet/install.sh). The provider is
the tests' loopback server answering one streamed reply. First `ankit tools` runs once with no cached tool lists
(ankit waits for the servers once); then every command runs RUNS times, interleaved, with no server configured
and with the servers (answered from the cache), beside a bare provider round trip: a fresh `python3` that posts
one streamed request to the same loopback server with urllib and reads the reply. Prints wall-clock medians and
the targets: `ankit tools` within 0.5 s, `ankit -p hello` within 2 s of the bare round trip.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.conftest import ProviderServer  # noqa: E402

FAKE = ROOT / "tests" / "mcp_fake_server.py"
BARE_TRIP = """import json, sys, urllib.request
body = json.dumps({"model": "test-model", "stream": True, "messages": [{"role": "user", "content": "hello"}]})
request = urllib.request.Request(sys.argv[1] + "/v1/chat/completions", body.encode(), method="POST",
                                 headers={"Content-Type": "application/json", "Authorization": "Bearer sk-test"})
with urllib.request.urlopen(request) as reply:
    reply.read()
"""


def config_text(servers: int, delay: float, fleet: Path | None) -> str:
    if fleet is not None:
        return (ROOT / "tests/bench/fleet/config.toml.in").read_text().replace("@FLEET@", str(fleet))
    return "".join(f'[mcp.servers.s{i}]\ncommand = "{sys.executable}"\nargs = ["{FAKE}", "--start-delay", '
                   f'"{delay}", "--tools", "10"]\n\n' for i in range(servers))


def home(text: str) -> dict:
    """A private HOME and XDG folders whose config.toml is text; the environment to run ankit in."""
    base = Path(tempfile.mkdtemp(prefix="ankit-start-"))
    (base / "config/ankit").mkdir(parents=True)
    (base / "config/ankit/config.toml").write_text(text)
    (base / "work").mkdir()
    (base / "home").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANKIT_", "XDG_", "PYTHON"))}
    return {**env, "HOME": str(base / "home"), "XDG_CONFIG_HOME": str(base / "config"),
            "XDG_STATE_HOME": str(base / "state"), "XDG_DATA_HOME": str(base / "data"),
            "XDG_CACHE_HOME": str(base / "cache"), "PYTHONPATH": str(ROOT), "NO_COLOR": "1",
            "OPENAI_API_KEY": "sk-test-0123456789", "_WORK": str(base / "work")}


def timed(env: dict, argv: list[str], provider: ProviderServer | None = None) -> float:
    """Seconds from spawning `python3 ARGV` to its exit; a failed run stops the benchmark."""
    if provider is not None:
        provider.push_openai(text="hi there")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, *argv], env=env, cwd=env["_WORK"], capture_output=True, text=True,
                          timeout=300)
    took = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.strip()[:300]}")
    return took


def main(argv: list[str]) -> int:
    """Print the figures."""
    servers = int(argv[argv.index("--servers") + 1]) if "--servers" in argv else 12
    delay = float(argv[argv.index("--delay") + 1]) if "--delay" in argv else 3.0
    fleet = Path(argv[argv.index("--fleet") + 1]) if "--fleet" in argv else None
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 5
    provider = ProviderServer()
    prompt = ["-m", "ankit", "--base-url", provider.url + "/v1", "--model", "test-model", "-p", "hello"]
    bare, configured = home(""), home(config_text(servers, delay, fleet))
    what = f"the fleet in {fleet}" if fleet else f"{servers} fake servers, each {delay:g} s to start"
    print(f"MCP servers configured: {what}; {sys.executable} ({sys.version.split()[0]})")
    first = timed(configured, ["-m", "ankit", "tools"])
    print(f"{'first ankit tools (no cache yet: waits once)':<44} {first:6.2f} s")
    rows = {"bare round trip (python3 + urllib)": (["-c", BARE_TRIP, provider.url], provider, False),
            "ankit -p hello": (prompt, provider, True), "ankit tools": (["-m", "ankit", "tools"], None, True),
            "ankit mcp": (["-m", "ankit", "mcp"], None, True)}
    times: dict[str, tuple[list[float], list[float]]] = {label: ([], []) for label in rows}
    for _ in range(runs):  # interleaved, so a busy machine slows every row alike
        for label, (args, prov, both) in rows.items():
            times[label][0].append(timed(bare, args, prov))
            if both:
                times[label][1].append(timed(configured, args, prov))
    print(f"medians of {runs} interleaved runs")
    print(f"{'command':<36} {'no servers':>10} {'with servers':>13} {'difference':>11}")
    medians = {}
    for label, (without, with_servers) in times.items():
        medians[label] = statistics.median(with_servers or without)
        shown = f"{statistics.median(with_servers):>12.2f}s" if with_servers else f"{'':>13}"
        gap = f"{medians[label] - statistics.median(without):>+10.2f}s" if with_servers else ""
        print(f"{label:<36} {statistics.median(without):>9.2f}s {shown} {gap}")
    trip, oneshot, tools = (medians[k] for k in ("bare round trip (python3 + urllib)", "ankit -p hello", "ankit tools"))
    print(f"target: ankit tools with servers {tools:.2f} s (within 0.5 s: {'met' if tools <= 0.5 else 'NOT met'})")
    print(f"target: ankit -p hello with servers {oneshot - trip:+.2f} s over the bare round trip "
          f"(within 2 s: {'met' if oneshot - trip <= 2 else 'NOT met'})")
    refresh = timed(configured, ["-m", "ankit", "mcp", "--refresh"])
    print(f"{'ankit mcp --refresh (waits for every server)':<44} {refresh:6.2f} s")
    provider.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
