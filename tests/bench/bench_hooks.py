"""Benchmark: what running hooks costs ankit. Prints a table.

- a chatty hook: one that prints N MB is read capped as it streams; the figure is how much ankit's own memory
  grew (its peak RSS, measured in a child process so each row starts clean) and how long reading took;
- side by side: four hooks of one event that each sleep 0.5 s, run as one event (the hooks of an event run at
  once, so the event takes about as long as its slowest hook);
- a tool call's overhead: one PreToolUse hook that exits 0 at once, per call (process start included).

Run: python3 tests/bench/bench_hooks.py
"""

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT)]

CHILD = """
import resource, sys, time
sys.path.insert(0, {root!r})
from pathlib import Path
from ankit.hooks.events import Hook, Hooks
size = int(sys.argv[1])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.monotonic()
hooks = Hooks([Hook("PostToolUse", f"head -c {{size}} /dev/zero | tr '\\\\0' x", timeout=120)], Path({tmp!r}))
outcome = hooks.run("PostToolUse", {{}})
took = time.monotonic() - started
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(grown, took, len(outcome.notes))
"""


def chatty(megabytes: int, tmp: str) -> tuple[int, float]:
    """(peak RSS growth in kB, seconds) for a hook printing this many MB."""
    code = CHILD.format(root=str(ROOT), tmp=tmp)
    out = subprocess.run([sys.executable, "-c", code, str(megabytes * 1_000_000)], capture_output=True, text=True,
                         check=True).stdout.split()
    return int(out[0]), float(out[1])


def side_by_side(tmp: str) -> float:
    from ankit.hooks.events import Hook, Hooks
    hooks = Hooks([Hook("Stop", f"sleep 0.5; echo {i} > /dev/null") for i in range(4)], Path(tmp))
    started = time.monotonic()
    hooks.run("Stop", {})
    return time.monotonic() - started


def per_call(tmp: str, calls: int = 20) -> float:
    from ankit.records import ToolCall
    from ankit.hooks.events import Hook, Hooks
    from ankit.tooling.toolbox import Runner, Tool, ToolContext
    tool = Tool("run_command", "Run.", {"type": "object", "properties": {"command": {"type": "string"}}},
                lambda args: "ok", group="shell")
    runner = Runner({"run_command": tool}, ToolContext(cwd=Path(tmp)), lambda *a: True,
                    hooks=Hooks([Hook("PreToolUse", "exit 0", "Bash")], Path(tmp)))
    started = time.monotonic()
    for i in range(calls):
        runner.run(ToolCall(f"c{i}", "run_command", json.dumps({"command": "ls"})))
    return (time.monotonic() - started) / calls


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        print("hook output   peak RSS growth   time to read")
        for megabytes in (1, 100, 1000):
            grown, took = chatty(megabytes, tmp)
            print(f"{megabytes:>7} MB   {grown / 1024:>11.1f} MB   {took:>10.2f} s")
        print(f"\n4 hooks of 0.5 s on one event: {side_by_side(tmp):.2f} s")
        print(f"one PreToolUse hook (exit 0), per tool call: {per_call(tmp) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
