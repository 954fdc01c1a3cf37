"""Prints how long ankit's commands take to start, as medians and as a ratio to a bare `python3 -c pass`.

Run: python3 tests/bench/bench_startup.py [ROUNDS]

Each round runs bare Python and every command once, in turn (interleaved, so a busy machine slows them all
alike), from an empty folder with HOME and the XDG folders in a temporary directory. The REPL row pipes
`/exit` into it: its whole start-up, tools and skills loaded, up to the first prompt. The ankit.pyz rows run
the one-file archive that `ankit bundle` writes (built first, and run once to unpack its tools).
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = {
    "python3 -c pass": ["-c", "pass"],
    "ankit --version": ["-m", "ankit", "--version"],
    "ankit tools": ["-m", "ankit", "tools"],
    "ankit skills": ["-m", "ankit", "skills"],
    "ankit (REPL to its prompt)": ["-m", "ankit"],
    "ankit.pyz --version": ["{pyz}", "--version"],
    "ankit.pyz tools": ["{pyz}", "tools"],
}


def clean_env(home: Path) -> dict[str, str]:
    """No user config, no provider keys; the repository on the path."""
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN")) and not k.startswith(
        ("ANKIT_", "XDG_", "PYTHON"))}
    env.update(HOME=str(home), PYTHONPATH=str(ROOT), XDG_CONFIG_HOME=str(home / "config"),
               XDG_STATE_HOME=str(home / "state"), XDG_DATA_HOME=str(home / "data"),
               XDG_CACHE_HOME=str(home / "cache"))
    return env


def once(args: list[str], env: dict[str, str], cwd: Path) -> float:
    """Seconds one run takes, from spawn to exit."""
    started = time.perf_counter()
    subprocess.run([sys.executable, *args], env=env, cwd=cwd, input=b"/exit\n", stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    with tempfile.TemporaryDirectory() as tmp:
        home, cwd = Path(tmp) / "home", Path(tmp) / "work"
        cwd.mkdir()
        env = clean_env(home)
        pyz = str(Path(tmp) / "ankit.pyz")
        built = subprocess.run([sys.executable, "-m", "ankit", "bundle", "--output", pyz], env=env, cwd=cwd,
                               capture_output=True).returncode == 0  # a checkout from before `ankit bundle`: no rows
        commands = {label: [arg.format(pyz=pyz) for arg in args] for label, args in COMMANDS.items()
                    if built or "{pyz}" not in args}
        for args in commands.values():  # warm the file cache and write the .pyc files
            once(args, env, cwd)
        times: dict[str, list[float]] = {label: [] for label in commands}
        for _ in range(rounds):
            for label, args in commands.items():
                times[label].append(once(args, env, cwd))
    bare = statistics.median(times["python3 -c pass"])
    print(f"{sys.executable} ({sys.version.split()[0]}), median of {rounds} interleaved runs")
    for label, values in times.items():
        median = statistics.median(values)
        print(f"{label:<28} {median * 1000:7.1f} ms  {median / bare:5.2f} x bare Python")


if __name__ == "__main__":
    main()
