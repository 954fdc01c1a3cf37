"""Benchmark of discovery on a real MCP fleet: eval-discovery on the exported catalog and --live, beside BM25.

usage: python3 tests/bench/bench_fleet.py [--fleet DIR] [--export] [--k 5] [--queries FILE] [--no-phrases] [--all]
--all prints every request set below on the cached catalog, with and without phrases, beside BM25 given the
same text, in one table.
Without --fleet it reads the catalog cached in tests/bench/fleet/catalog.jsonl (the fleet's bundled tools, MCP
tools and group metadata, as `ankit eval-discovery --live --export` wrote it) and needs no server. With --fleet
DIR (installed by tests/bench/fleet/install.sh) it also runs `ankit eval-discovery --live` in a session whose
config is tests/bench/fleet/config.toml.in with DIR filled in; --export rewrites the cached catalog from it.
Requests: tests/bench/fleet/queries.jsonl (written after reading the tools), or --queries FILE, such as
user_requests_dev.jsonl and user_requests_heldout.jsonl there (written from each server's purpose before
reading its tools; the held-out half was never looked at while tuning), user_requests_blind.jsonl and
user_requests_blind2.jsonl (each written by someone who never saw the tools or ankit's code, labelled
afterwards; measured, never tuned on), user_requests_dev2.jsonl (written the same way, tuned on), or
bundled_guard.jsonl (requests only a bundled tool serves, though servers are configured: a regression guard).
The cached catalog carries the phrases a model wrote for each server's tools (`ankit mcp phrases`);
--no-phrases measures it without them. Besides the whole catalog a session
searches (bundled tools too), it ranks the MCP servers' tools alone ("MCP tools only"). Not run in CI.
"""

import json
import os
from dataclasses import replace
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from ankit.discovery.catalog import build_catalog, described  # noqa: E402
from ankit.discovery.evaluation import InputError, evaluate, load_queries, measure, read_catalog  # noqa: E402
from ankit.discovery.index import Index  # noqa: E402
from tests.bench.bm25_baseline import BM25  # noqa: E402

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


def row(label: str, figures: dict) -> str:
    loaded = figures.get("loaded_recall")
    shown = f"{loaded:>8.3f}" if loaded is not None else f"{'-':>8}"
    return (f"{label:<26} {figures['tools']:>5} {figures['queries']:>4} {figures['recall_at_1']:>8.3f} "
            f"{figures['recall_at_k']:>8.3f} {figures['mrr']:>6.3f} {shown} {figures['ms_per_query']:>8.2f}")


SETS = ("queries", "user_requests_dev", "user_requests_dev2", "user_requests_heldout", "user_requests_blind",
        "user_requests_blind2", "bundled_guard")


def every_set(k: int) -> int:
    """--all: each request set of the fleet on the cached catalog, with and without the phrases, beside BM25
    given the same text: recall@1 / recall@k / MRR (loaded recall for ankit)."""
    tools, groups = read_catalog(CATALOG)
    bare = [replace(t, phrases=[]) for t in tools]
    rankers = []
    for label, listed in (("phrases", tools), ("no phrases", bare)):
        catalog, _ = build_catalog(listed, groups)
        index = Index(catalog, listed)
        said = [replace(t, description=described(t)) for t in listed if t.name in set(index.names)]
        rankers.append((label, index, BM25(said)))
    print(f"fleet catalog {CATALOG.relative_to(ROOT)}, k = {k}; recall@1 / recall@{k} / MRR (ankit: / loaded)")
    print(f"{'set':<28} {'ankit +phrases':>28} {'BM25 +phrases':>22} {'ankit':>28} {'BM25':>22}")
    for name in SETS:
        cells = []
        for _, index, bm25 in rankers:
            queries = load_queries(HERE / f"{name}.jsonl", set(index.names))
            mine = evaluate(index, queries, k)
            base = measure(bm25.rank, queries, len(index.names), k)
            cells.append(f"{mine.recall_at_1:.3f} / {mine.recall_at_k:.3f} / {mine.mrr:.3f} / {mine.loaded_recall:.3f}")
            cells.append(f"{base.recall_at_1:.3f} / {base.recall_at_k:.3f} / {base.mrr:.3f}")
        print(f"{name + f' ({len(queries)})':<28} " + " ".join(f"{c:>{28 if n % 2 == 0 else 22}}"
                                                          for n, c in enumerate(cells)))
    return 0


def main(argv: list[str]) -> int:
    """Print the fleet figures."""
    k = int(argv[argv.index("--k") + 1]) if "--k" in argv else 5
    if "--all" in argv:
        return every_set(k)
    fleet = Path(argv[argv.index("--fleet") + 1]) if "--fleet" in argv else None
    path = Path(argv[argv.index("--queries") + 1]).resolve() if "--queries" in argv else QUERIES
    results = []
    if fleet is not None:
        results.append(("ankit --live", live(fleet_home(fleet), k, "--export" in argv, path)))
    tools, groups = read_catalog(CATALOG)
    if "--no-phrases" in argv:  # the catalog as it is before `ankit mcp phrases`
        tools = [replace(t, phrases=[]) for t in tools]
    for label, subset in (("exported catalog", tools), ("MCP tools only", [t for t in tools if "__" in t.name])):
        catalog, _ = build_catalog(subset, groups)
        index = Index(catalog, subset)
        queries = load_queries(path, set(index.names))
        results.append((f"ankit ({label})", evaluate(index, queries, k).as_json()))
        searchable = [t for t in subset if t.name in set(index.names)]
        bm25 = measure(BM25(searchable).rank, queries, len(searchable), k).as_json()
        results.append((f"BM25 ({label})", bm25))
        if any(t.phrases for t in searchable):  # BM25 given the same phrases, as part of each description
            said = [replace(t, description=described(t)) for t in searchable]
            results.append((f"BM25+phrases ({label})", measure(BM25(said).rank, queries, len(said), k).as_json()))
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    print(f"fleet requests: {shown} ({len(queries)}), k = {k}")
    print(f"{'':<26} {'tools':>5} {'reqs':>4} {'recall@1':>8} {'recall@' + str(k):>8} {'MRR':>6} {'loaded':>8} "
          f"{'ms/query':>8}")
    for label, figures in results:
        print(row(label, figures))
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main(sys.argv[1:]))
    except InputError as exc:  # a request line without gold, or gold the catalog lacks: one line, no traceback
        raise SystemExit(f"bench_fleet: {exc}") from None
