"""Benchmark of ankit's tool discovery: quality on a dataset, and speed at 1,500 and 10,000 tools.

usage: python3 tests/bench/bench_discovery.py DATASET_DIR [--k 5] [--no-speed] [--baseline]
DATASET_DIR holds catalog.jsonl and queries.jsonl (the eval-discovery format). Prints recall@1, recall@k, MRR
and ms per query for the same ranking `ankit eval-discovery` uses, split by single- and multi-gold queries;
with --baseline also the Okapi BM25 baseline (tests/bench/bm25_baseline.py) on the same data.
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
from ankit.discovery.evaluation import Query, measure  # noqa: E402
from ankit.tooling.toolbox import Tool  # noqa: E402
from tests.bench.bm25_baseline import BM25, read_dataset  # noqa: E402

SIZES = (1_500, 10_000)
VARIANTS = ("Pro", "Lite", "Plus", "Alt", "Next", "Classic", "Express", "Max")


def _index(tools: list[Tool]) -> Index:
    catalog, _ = build_catalog(tools)
    return Index(catalog, tools)


def quality(tools: list[Tool], queries: list[Query], k: int, rank) -> None:
    """Print the figures for all queries, then single- and multi-gold ones."""
    subsets = [("all", queries), ("single-gold", [q for q in queries if len(q.gold) == 1]),
               ("multi-gold", [q for q in queries if len(q.gold) > 1])]
    print(f"{'subset':<12} {'n':>5} {'recall@1':>9} {'recall@' + str(k):>9} {'MRR':>7} {'ms/query':>9}")
    for label, subset in subsets:
        if subset:
            m = measure(rank, subset, len(tools), k)
            figures = f"{m.recall_at_1:>9.3f} {m.recall_at_k:>9.3f} {m.mrr:>7.3f} {m.ms_per_query:>9.2f}"
            print(f"{label:<12} {m.queries:>5} {figures}")


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
    """Run the benchmark on one dataset folder."""
    dataset = read_dataset(argv, __doc__)
    if dataset is None:
        return 2
    folder, k, tools, queries = dataset
    index = _index(tools)
    print(f"ankit discovery on {folder}: {len(tools)} tools, {len(queries)} queries")
    quality(tools, queries, k, lambda text: [name for name, _ in index.rank_tools(text)])
    if "--baseline" in argv:
        print(f"\nOkapi BM25 baseline (k1 = 1.2, b = 0.75) on {folder}")
        quality(tools, queries, k, BM25(tools).rank)
    if "--no-speed" not in argv:
        print("\nspeed (catalog grown from this dataset's tools, first 500 queries)")
        speed(tools, queries)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
