"""What the sandbox adds to the start of a command (target: under 20 ms): `true` started plainly and inside the
workspace sandbox (the trampoline: Python, namespaces, Landlock, seccomp, exec, and the PID namespace's init),
median of many runs; also what containment alone adds to a command run outside the sandbox (the trampoline
as a child subreaper, safety/processes.py: contained).

    python3 tests/bench/bench_sandbox.py [--runs 50]
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ankit.safety.processes import contained  # noqa: E402
from ankit.safety.sandbox import Sandbox, command, protected, support, writable_folders  # noqa: E402


def timed_ms(rows: list[tuple[str, list[str]]], cwd: Path, runs: int) -> dict[str, list[float]]:
    """Each row's wall times (start to exit) in milliseconds, the rows taken in turn so load hits all alike."""
    times: dict[str, list[float]] = {label: [] for label, _ in rows}
    for _ in range(runs):
        for label, argv in rows:
            started = time.perf_counter()
            subprocess.run(argv, cwd=cwd, check=True)
            times[label].append((time.perf_counter() - started) * 1000)
    return times


def without_namespaces(argv: list[str]) -> list[str]:
    """The trampoline's argv with --landlock-only before its "--"."""
    at = argv.index("--")
    return [*argv[:at], "--landlock-only", *argv[at:]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    runs = parser.parse_args().runs
    machine = support()
    if machine.kind != "landlock":
        print(f"no Linux sandbox here ({machine.detail}); nothing to measure")
        return 0
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / ".git").mkdir()
        true = ["/bin/true"]
        sandbox = Sandbox(work, "workspace", machine)
        python = [sys.executable, "-I", "-S", "-c", "pass"]
        rows = [
            ("true, no sandbox", true),
            ("python -I -S alone (the trampoline's interpreter)", python),
            ("true contained, outside the sandbox (subreaper)", contained(true)),
            ("true in the workspace sandbox", sandbox.confine(true, {})),
            ("true in the read-only sandbox", Sandbox(work, "read-only", machine).confine(true, {})),
            ("true, Landlock and seccomp without namespaces",
             without_namespaces(command("landlock", true, writable_folders(work), protected(work), False))),
        ]
        print(f"{machine.detail}; {runs} runs each, taken in turn: median (fastest)")
        times = timed_ms(rows, work, runs)
    figures = {label: statistics.median(ms) for label, ms in times.items()}
    for label, ms in times.items():
        print(f"  {label:<52} {statistics.median(ms):7.1f} ms ({min(ms):.1f})")
    added = figures["true in the workspace sandbox"] - figures["true, no sandbox"]
    print(f"the sandbox adds {added:.1f} ms to a command's start (target: under 20 ms)")
    alone = figures["true contained, outside the sandbox (subreaper)"] - figures["true, no sandbox"]
    print(f"containment alone adds {alone:.1f} ms to a command started outside the sandbox")
    return 0


if __name__ == "__main__":
    sys.exit(main())
