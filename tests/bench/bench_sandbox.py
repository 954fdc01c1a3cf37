"""What the sandbox adds to the start of a command (target: under 20 ms): `true` started plainly and inside the
workspace sandbox (the trampoline: Python, namespaces, Landlock, seccomp, exec), median of many runs.

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

from ankit.safety.sandbox import Sandbox, command, protected, support, writable_folders  # noqa: E402


def median_ms(argv: list[str], cwd: Path, runs: int) -> float:
    """The median wall time of starting argv and waiting for it, in milliseconds."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, cwd=cwd, check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


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
            ("true in the workspace sandbox", sandbox.confine(true, {})),
            ("true in the read-only sandbox", Sandbox(work, "read-only", machine).confine(true, {})),
            ("true, Landlock and seccomp without namespaces",
             without_namespaces(command("landlock", true, writable_folders(work), protected(work), False))),
        ]
        print(f"{machine.detail}; median of {runs} runs each")
        figures = {label: median_ms(argv, work, runs) for label, argv in rows}
    for label, ms in figures.items():
        print(f"  {label:<52} {ms:7.1f} ms")
    added = figures["true in the workspace sandbox"] - figures["true, no sandbox"]
    print(f"the sandbox adds {added:.1f} ms to a command's start (target: under 20 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
