"""Start-up with many MCP servers configured: `ankit -p hello`, `ankit tools` and `ankit mcp` (not run in CI).

usage: python3 tests/bench/bench_mcp_start.py [--servers 12] [--delay 3] [--fleet DIR]
Each configured server is tests/mcp_fake_server.py with --start-delay DELAY (a slow server), or with --fleet DIR
the real fleet of tests/bench/fleet/config.toml.in. The provider is the tests' loopback server answering one
streamed reply. Prints wall-clock seconds, best of three, beside the same command with no server configured:
a first run (no cached tool lists: ankit waits for the servers once), then runs answered from the cache.
"""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.conftest import ProviderServer  # noqa: E402

FAKE = ROOT / "tests" / "mcp_fake_server.py"


def config_text(servers: int, delay: float, fleet: Path | None) -> str:
    if fleet is not None:
        return (ROOT / "tests/bench/fleet/config.toml.in").read_text().replace("@FLEET@", str(fleet))
    return "".join(f'[mcp.servers.s{i}]\ncommand = "{sys.executable}"\nargs = ["{FAKE}", "--start-delay", '
                   f'"{delay}", "--tools", "10"]\n\n' for i in range(servers))


def home(text: str) -> dict:
    base = Path(tempfile.mkdtemp(prefix="ankit-start-"))
    (base / "config/ankit").mkdir(parents=True)
    (base / "config/ankit/config.toml").write_text(text)
    (base / "work").mkdir()
    return {**os.environ, "XDG_CONFIG_HOME": str(base / "config"), "XDG_STATE_HOME": str(base / "state"),
            "XDG_DATA_HOME": str(base / "data"), "PYTHONPATH": str(ROOT), "NO_COLOR": "1",
            "OPENAI_API_KEY": "sk-test-0123456789", "_WORK": str(base / "work")}


def timed(env: dict, argv: list[str], provider: ProviderServer | None = None) -> float:
    if provider is not None:
        provider.push_openai(text="hi there")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "ankit", *argv], env=env, cwd=env["_WORK"], capture_output=True,
                          text=True, timeout=300)
    took = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"ankit {' '.join(argv)} failed: {done.stderr.strip()[:300]}")
    return took


def main(argv: list[str]) -> int:
    """Print the figures."""
    servers = int(argv[argv.index("--servers") + 1]) if "--servers" in argv else 12
    delay = float(argv[argv.index("--delay") + 1]) if "--delay" in argv else 3.0
    fleet = Path(argv[argv.index("--fleet") + 1]) if "--fleet" in argv else None
    provider = ProviderServer()
    prompt = ["--base-url", provider.url + "/v1", "--model", "test-model", "-p", "hello"]
    bare, configured = home(""), home(config_text(servers, delay, fleet))
    what = f"the fleet in {fleet}" if fleet else f"{servers} fake servers, each {delay:g} s to start"
    print(f"MCP servers configured: {what}")
    first = timed(configured, ["tools"])
    print(f"{'first ankit tools (no cache yet: waits once)':<48} {first:6.2f} s")
    print(f"{'command':<34} {'no servers':>10} {'with servers':>13} {'difference':>11}")
    for label, args, prov in (("ankit -p hello", prompt, provider), ("ankit tools", ["tools"], None),
                              ("ankit mcp", ["mcp"], None)):
        without = min(timed(bare, args, prov) for _ in range(3))
        with_servers = min(timed(configured, args, prov) for _ in range(3))
        print(f"{label:<34} {without:>9.2f}s {with_servers:>12.2f}s {with_servers - without:>+10.2f}s")
    refresh = timed(configured, ["mcp", "--refresh"])
    print(f"{'ankit mcp --refresh (waits for every server)':<48} {refresh:6.2f} s")
    provider.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
