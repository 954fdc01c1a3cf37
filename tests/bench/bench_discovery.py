"""Benchmark of discovery on a dataset: every ranking side by side per request set; speed at 1,500 and 10,000 tools.

usage: python3 tests/bench/bench_discovery.py DATASET_DIR [--k 5] [--no-speed] [--set DIR ...] [--old TREE]
                                              [--recorded FILE | --no-decision]
DATASET_DIR holds catalog.jsonl and queries.jsonl (the eval-discovery format), such as the shared Seal-Tools
(../shared/datasets/tool-retrieval) and MetaTool (its metatool/) sets; --set DIR adds a folder's sets
(requests*.jsonl on catalog*.jsonl of the same suffix or catalog.jsonl, phrases.json {tool: [requests]} if
there), e.g. tests/bench/unseen. One table per request set (tests/bench/compare.py): ankit's shipped ranking (with
the phrases and without, where the catalog has any), Okapi BM25 given the same text, with --old TREE the
ranking of an earlier checkout (git -C /work/main archive 6402d37 | tar -x -C TREE), and decision mode replayed
from tests/bench/fleet/decision_smollm2.jsonl (or --recorded FILE): recorded for the fleet's requests only, so
on another set every question falls back to the words' ranking, and the table says so.
The speed run builds catalogs of 1,500 and 10,000 tools from the dataset's own: its tools first, then
perturbed copies (a variant word in the name, a fifth of the description words dropped, two words from
another tool mixed in), and times the dataset's queries against them: the whole catalog ranked (as
eval-discovery does) and the top 10 only (as find_tools does), by wall clock and by CPU time, warm and cold
(term matches forgotten before each query). Best of three runs. "first s" is the index's first search, which
embeds every tool's text once (ankit.discovery.vectors; a session that never searches never pays it).
"""

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ankit.discovery.catalog import build_catalog  # noqa: E402
from ankit.discovery.index import Index  # noqa: E402
from ankit.discovery.evaluation import InputError, Query  # noqa: E402
from ankit.tooling.toolbox import Tool  # noqa: E402
from tests.bench.bm25_baseline import read_dataset  # noqa: E402
from tests.bench.compare import common, folder_tables  # noqa: E402

SIZES = (1_500, 10_000)
VARIANTS = ("Pro", "Lite", "Plus", "Alt", "Next", "Classic", "Express", "Max")


def _index(tools: list[Tool]) -> Index:
    catalog, _ = build_catalog(tools)
    return Index(catalog, tools)


def grown(tools: list[Tool], size: int, seed: int = 20240601) -> list[Tool]:
    """A catalog of `size` tools: the originals, then perturbed copies of them."""
    rng = random.Random(seed)
    out = list(tools[:size])
    copy = 0
    while len(out) < size:
        base, other = tools[copy % len(tools)], rng.choice(tools)
        variant = f"{VARIANTS[copy // len(tools) % len(VARIANTS)]}{copy // (len(tools) * len(VARIANTS)) or ''}"
        words = [w for w in base.description.split() if rng.random() > 0.2]
        mixed_in = other.description.split() or ["tool"]
        at = rng.randrange(len(words) + 1)
        words[at:at] = rng.sample(mixed_in, k=min(2, len(mixed_in)))
        name = f"{base.name}{variant}"
        out.append(Tool(name, " ".join(words), base.parameters, base.run, group=name))
        copy += 1
    return out


def _best_ms(run, texts: list[str], clock=time.perf_counter, cold=None) -> float:
    """Best of three runs, in ms per query; cold() (if given) runs before each query, outside the timing."""
    best = float("inf")
    for _ in range(3):
        spent = 0.0
        for text in texts:
            if cold:
                cold()
            started = clock()
            run(text)
            spent += clock() - started
        best = min(best, spent * 1000 / len(texts))
    return best


def speed(tools: list[Tool], queries: list[Query]) -> None:
    """Print build time and ms per query at each size."""
    texts = [q.text for q in queries[:500]]
    print("ms per query: wall clock, and CPU time of this process (what the machine's load does not inflate);")
    print("cold: the index's term matches are forgotten before each query, as for a session's first request")
    print(f"{'tools':>7} {'build s':>8} {'first s':>8} {'whole wall':>11} {'whole CPU':>10} {'top10 wall':>11} {'top10 CPU':>10} "
          f"{'cold whole CPU':>15} {'cold top10 CPU':>15}")
    for size in SIZES:
        catalog_tools = grown(tools, size)
        started = time.perf_counter()
        index = _index(catalog_tools)
        built = time.perf_counter() - started
        started = time.perf_counter()
        index.rank_tools(texts[0], limit=10)
        first = time.perf_counter() - started
        top10 = lambda text: index.rank_tools(text, limit=10)  # noqa: E731
        figures = [_best_ms(index.rank_tools, texts), _best_ms(index.rank_tools, texts, time.process_time),
                   _best_ms(top10, texts), _best_ms(top10, texts, time.process_time),
                   _best_ms(index.rank_tools, texts, time.process_time, index.forget),
                   _best_ms(top10, texts, time.process_time, index.forget)]
        shown = " ".join(f"{f:>{w}.2f}" for f, w in zip(figures, (11, 10, 11, 10, 15, 15)))
        print(f"{size:>7} {built:>8.2f} {first:>8.2f} {shown}")


def main(argv: list[str]) -> int:
    """Run the benchmark on one dataset folder (and any --set folders)."""
    dataset = read_dataset(argv, __doc__)
    if dataset is None:
        return 2
    folder, _, tools, queries = dataset
    k, old, chooser, sets = common(argv)
    print(f"ankit discovery on {folder}: {len(tools)} tools, {len(queries)} queries")
    for each in [folder, *sets]:
        folder_tables(each, k, old, chooser)
    if "--no-speed" not in argv:
        print("\nspeed (catalog grown from this dataset's tools, first 500 queries)")
        speed(tools, queries)
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main(sys.argv[1:]))
    except InputError as exc:
        raise SystemExit(f"bench_discovery: {exc}") from None
