"""Benchmark of discovery on a real MCP fleet's catalog: every request set, one table each, every ranking beside.

usage: python3 tests/bench/bench_fleet.py [--queries FILE] [--set DIR ...] [--old TREE] [--recorded FILE |
                                          --no-decision] [--k 5]
       python3 tests/bench/bench_fleet.py --fleet DIR [--export] [--queries FILE] [--k 5]
It reads the catalog cached in tests/bench/fleet/catalog.jsonl (the fleet's bundled tools, MCP tools with the
phrases a model wrote for them, `ankit mcp phrases`, and group metadata, as `ankit eval-discovery --live
--export` wrote it) and needs no server; the bundled tools get the phrases their groups ship (tools/*/group.toml).
For each request set it prints one table (tests/bench/compare.py): ankit's shipped ranking with every phrase,
without the bundled tools' and without any; BM25 given the same text; with --old TREE the ranking of an earlier
checkout (git -C /work/main archive 6402d37 | tar -x -C TREE: the wave-4 ranking); and decision mode replayed
from tests/bench/fleet/decision_smollm2.jsonl (or --recorded FILE; a question it lacks counts as a fallback).
The sets, in tests/bench/fleet/: queries.jsonl (written after reading the tools), user_requests_dev and
_heldout (written from each server's purpose before reading its tools; the held-out half never looked at while
tuning), user_requests_blind and _blind2 (each written by someone who never saw the tools or ankit's code,
labelled afterwards; measured, never tuned on), user_requests_dev2 (written the same way, tuned on), and
bundled_guard (requests only a bundled tool serves, though servers are configured: a regression guard); or
only --queries FILE. --set DIR adds a folder's sets (requests*.jsonl, each on catalog*.jsonl of the same
suffix or catalog.jsonl, phrases.json {tool: [requests]} if there), e.g. tests/bench/unseen.
With --fleet DIR (installed by tests/bench/fleet/install.sh) it runs `ankit eval-discovery --live` in a session
whose config is tests/bench/fleet/config.toml.in with DIR filled in, and prints its figures for --queries (or
queries.jsonl); --export rewrites the cached catalog from it. Not run in CI.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from ankit.discovery.evaluation import InputError, read_catalog  # noqa: E402
from tests.bench.compare import (K, common, fleet_tools, folder_tables, rankings, requests_of, table,  # noqa: E402
                                 value)

HERE = Path(__file__).resolve().parent / "fleet"
CATALOG, QUERIES = HERE / "catalog.jsonl", HERE / "queries.jsonl"


def fleet_home(fleet: Path) -> dict:
    """A private XDG home whose config.toml lists the fleet's servers; the environment to run ankit in."""
    home = Path(tempfile.mkdtemp(prefix="ankit-fleet-"))
    (home / "config" / "ankit").mkdir(parents=True)
    text = (HERE / "config.toml.in").read_text().replace("@FLEET@", str(fleet))
    (home / "config" / "ankit" / "config.toml").write_text(text)
    return {**os.environ, "XDG_CONFIG_HOME": str(home / "config"), "XDG_STATE_HOME": str(home / "state"),
            "XDG_DATA_HOME": str(home / "data"), "PYTHONPATH": str(ROOT)}


def live(env: dict, k: int, export: bool, queries: Path) -> dict:
    """eval-discovery --live in the fleet's session (servers listed afresh); optionally export the catalog."""
    argv = [sys.executable, "-m", "ankit", "eval-discovery", "--live", "--refresh", "--queries", str(queries),
            "--k", str(k), "--json"] + (["--export", str(CATALOG)] if export else [])
    kept = {t.name: t for t in read_catalog(CATALOG)[0]} if export and CATALOG.exists() else {}
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300, cwd=tempfile.gettempdir())
    if done.returncode:
        raise SystemExit(f"eval-discovery --live failed: {done.stdout.strip()} {done.stderr.strip()}")
    if kept:
        keep_phrases(kept)
    return json.loads(done.stdout)


def keep_phrases(before: dict) -> None:
    """The fresh home has no phrases: a re-exported tool keeps the ones the cached catalog had for the same
    name and description (a changed tool needs `ankit mcp phrases` again)."""
    lines = []
    for line in CATALOG.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        old = before.get(row.get("name"))
        if old is not None and old.phrases and old.description == row.get("description"):
            row["phrases"] = old.phrases
        lines.append(json.dumps(row, ensure_ascii=False))
    CATALOG.write_text("\n".join(lines) + "\n", encoding="utf-8")


SETS = ("queries", "user_requests_dev", "user_requests_dev2", "user_requests_heldout", "user_requests_blind",
        "user_requests_blind2", "bundled_guard")


def fleet_tables(paths: list[Path], k: int, old: Path | None, chooser) -> None:
    """One table per request file, on the cached fleet catalog."""
    tools, groups = fleet_tools()
    made = rankings(tools, groups, old, chooser)
    names = set(made[0].index.names)
    for path in paths:
        requests = requests_of(path, names)
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        print(table(f"{shown} ({len(requests)} requests), k = {k}", requests, made, k) + "\n", flush=True)


def main(argv: list[str]) -> int:
    """Print the fleet figures."""
    path = Path(value(argv, "--queries")).resolve() if value(argv, "--queries") else None
    if "--fleet" in argv:
        fleet = Path(value(argv, "--fleet") or "")
        if not (fleet / "npm" / "node_modules").is_dir():
            raise InputError(f"--fleet {fleet}: no fleet installed there (tests/bench/fleet/install.sh DIR)")
        figures = live(fleet_home(fleet), int(value(argv, "--k") or K), "--export" in argv, path or QUERIES)
        print("ankit --live:", json.dumps(figures))
        return 0
    k, old, chooser, sets = common(argv)
    fleet_tables([path] if path else [HERE / f"{name}.jsonl" for name in SETS], k, old, chooser)
    for folder in sets:
        folder_tables(folder, k, old, chooser)
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main(sys.argv[1:]))
    except InputError as exc:  # a request line without gold, or gold the catalog lacks: one line, no traceback
        raise SystemExit(f"bench_fleet: {exc}") from None
