"""Prints how long `ankit acp` takes from initialize to the first session/update of a one-line reply, beside
`ankit -p` to the first byte of the same reply, on the same loopback provider server.

Run: python3 tests/bench/bench_acp.py [ROUNDS]

Each round runs both once, in turn (interleaved, so a busy machine slows them alike), from an empty folder with
HOME and the XDG folders in a temporary directory. ankit acp is started and sent initialize, session/new and
session/prompt at once (a client that waits for each answer adds round trips of its own); the clock stops at
the first agent_message_chunk. ankit -p's clock stops at the first byte on its stdout. Both clocks start just
before the process does, so Python's and ankit's start-up count for both. Also printed: ankit acp from the
initialize answer to that chunk (what an editor that started ankit earlier waits), and the cancel of a stalled
stream to its cancelled answer (the issue asks for under a second).
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.bench_startup import clean_env  # noqa: E402
from tests.conftest import ProviderServer, fixture_parts, openai_sse  # noqa: E402

REPLY = "Hello from the model."


def line(message: dict) -> bytes:
    return json.dumps(message).encode() + b"\n"


def acp_round(server: ProviderServer, home: Path, work: Path) -> tuple[float, float]:
    """Seconds from start to the first reply chunk, and from the initialize answer to it."""
    server.push(fixture_parts(openai_sse(text=REPLY)))
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "ankit", "acp", "--base-url", server.url + "/v1"], cwd=work,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=clean_env(home))
    proc.stdin.write(line({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}))
    proc.stdin.write(line({"jsonrpc": "2.0", "id": 2, "method": "session/new",
                           "params": {"cwd": str(work), "mcpServers": []}}))
    proc.stdin.flush()
    answered = first = 0.0
    for raw in proc.stdout:
        message = json.loads(raw)
        if message.get("id") == 1:
            answered = time.monotonic()
        elif message.get("id") == 2:
            sid = message["result"]["sessionId"]
            proc.stdin.write(line({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {
                "sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}}))
            proc.stdin.flush()
        elif message.get("params", {}).get("update", {}).get("sessionUpdate") == "agent_message_chunk":
            first = time.monotonic()
            break
    proc.stdin.close()
    proc.wait(30)
    return first - started, first - answered


def oneshot_round(server: ProviderServer, home: Path, work: Path) -> float:
    """Seconds from start to the first byte of ankit -p's answer."""
    server.push(fixture_parts(openai_sse(text=REPLY)))
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "ankit", "--base-url", server.url + "/v1", "-p", "hi"], cwd=work,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=clean_env(home))
    proc.stdout.read(1)
    first = time.monotonic()
    proc.stdout.read()
    proc.wait(30)
    return first - started


def cancel_round(server: ProviderServer, home: Path, work: Path) -> float:
    """Seconds from session/cancel to the cancelled answer, with the model's stream stalled mid-reply."""
    server.push([b'data: {"choices":[{"index":0,"delta":{"content":"Thinking"}}]}\n\n', "stall"])
    proc = subprocess.Popen([sys.executable, "-m", "ankit", "acp", "--base-url", server.url + "/v1"], cwd=work,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=clean_env(home))

    def send(message: dict) -> None:
        proc.stdin.write(line(message))
        proc.stdin.flush()

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
    send({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": str(work), "mcpServers": []}})
    sent = 0.0
    for raw in proc.stdout:
        message = json.loads(raw)
        if message.get("id") == 2:
            sid = message["result"]["sessionId"]
            send({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
                  "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}})
        elif message.get("params", {}).get("update", {}).get("sessionUpdate") == "agent_message_chunk" and not sent:
            sent = time.monotonic()
            send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": sid}})
        elif message.get("id") == 3:
            break
    done = time.monotonic()
    proc.stdin.close()
    proc.wait(30)
    server.release.set()
    server.release.clear()
    return done - sent


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    server = ProviderServer()
    acp, acp_after_init, oneshot, cancels = [], [], [], []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            home, work = Path(tmp) / "home", Path(tmp) / "work"
            work.mkdir()
            acp_round(server, home, work)  # the first run writes the tool cache: not counted
            for _ in range(rounds):
                whole, after_init = acp_round(server, home, work)
                acp.append(whole)
                acp_after_init.append(after_init)
                oneshot.append(oneshot_round(server, home, work))
                cancels.append(cancel_round(server, home, work))
    finally:
        server.close()
    med = statistics.median
    print(f"{rounds} rounds, medians (min-max), {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, "
          f"Python {sys.version.split()[0]}")
    print(f"ankit -p, start to first reply byte:                {med(oneshot):.3f} s ({min(oneshot):.3f}-{max(oneshot):.3f})")
    print(f"ankit acp, start to first agent_message_chunk:      {med(acp):.3f} s ({min(acp):.3f}-{max(acp):.3f})")
    print(f"  ratio acp / -p:                                   {med(acp) / med(oneshot):.2f} x of the medians, "
          f"{min(acp) / min(oneshot):.2f} x of the fastest (target: within 1.5 x)")
    print(f"ankit acp, initialize answer to first chunk:        {med(acp_after_init):.3f} s")
    print(f"ankit acp, session/cancel to the cancelled answer:  {med(cancels) * 1000:.0f} ms "
          f"(max {max(cancels) * 1000:.0f} ms; target: under 1 s)")


if __name__ == "__main__":
    main()
