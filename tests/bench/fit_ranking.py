"""Fit the ranking's numbers (ankit.discovery.weights) on training data only, and measure them on held-out data.

usage: python3 tests/bench/fit_ranking.py DATASETS_DIR [--rounds 2] [--sample 400] [--ablate] [--heldout]
       [--zero NAME,NAME...] [--root TREE]
DATASETS_DIR is the tool-retrieval folder (Seal-Tools catalog.jsonl and queries.jsonl, and metatool/).
Training sets: the half of Seal-Tools' and MetaTool's queries whose id hashes even (at most --sample of each),
the bundled tools' own examples (on the bundled catalog, as `ankit tools check` ranks them), the fleet's dev and
dev2 requests (tests/bench/fleet/), ranked on the fleet catalog with the model's phrases and without them, and
half A of the unseen servers (tests/bench/unseen/, or --unseen DIR: catalog_A.jsonl, requests_A.jsonl,
phrases.json), with and without phrases. The other halves, the fleet's heldout, blind and blind2 requests and
the unseen servers' half B are held out: the fit never reads them. The objective is the mean over the training sets of (recall@1 + recall@5) / 2.
Coordinate ascent: each number in turn is multiplied by 0, 0.5, 0.75, 1.33 and 2 (integers rounded), and the
best value kept; --rounds passes. Prints each change and the fitted Weights.
--ablate measures, on the held-out sets, the fitted numbers with each stage or word source switched off.
--heldout prints the held-out figures of the default Weights (the shipped ones) beside BM25.
--zero a,b,c adds a held-out row per named number set to 0 (a stage switched off); --root TREE ranks with the
ankit of another checkout (git archive main | tar -x -C TREE): the earlier ranking, its stages switched off
the same way (--zero action,bigram,coverage,...), measured on the same held-out sets.
"""

import hashlib
import json
import sys
from dataclasses import asdict, fields, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TREE = Path(sys.argv[sys.argv.index("--root") + 1]).resolve() if "--root" in sys.argv else ROOT
sys.path.insert(0, str(TREE))
sys.path.insert(1, str(ROOT))

from ankit.discovery.catalog import build_catalog, described  # noqa: E402
from ankit.discovery.evaluation import Query, load_queries, measure, read_catalog  # noqa: E402
from ankit.discovery.index import Index  # noqa: E402
from ankit.discovery.weights import Weights  # noqa: E402
from ankit.tooling.loader import load_tools  # noqa: E402
from tests.bench.bm25_baseline import BM25  # noqa: E402

FLEET = ROOT / "tests" / "bench" / "fleet"
UNSEEN = Path(sys.argv[sys.argv.index("--unseen") + 1]) if "--unseen" in sys.argv else ROOT / "tests" / "bench" / "unseen"
STEPS = (0.0, 0.5, 0.75, 1.33, 2.0)
K = 5


def _half(queries: list[Query], train: bool, sample: int) -> list[Query]:
    """The queries whose id hashes even (train) or odd (held out), at most sample of them."""
    kept = [q for q in queries if (hashlib.sha256(q.id.encode()).digest()[0] % 2 == 0) == train]
    return kept[:sample] if sample else kept


class Dataset:
    """One catalog with its query sets; the subword vectors are embedded once and shared by every index.
    written: phrases kept beside the catalog ({tool name: [phrase, ...]}), given to its tools when phrases is on."""

    def __init__(self, label: str, catalog: Path, phrases: bool = True, written: dict | None = None,
                 loaded: tuple[list, dict] | None = None) -> None:
        tools, groups = loaded or read_catalog(catalog)
        if written:
            tools = [replace(t, phrases=written.get(t.name, t.phrases)) for t in tools]
        self.tools = tools if phrases else [replace(t, phrases=[]) for t in tools]
        self.catalog, _ = build_catalog(self.tools, groups)
        self.label, self.path = label, catalog
        self._meanings = None

    def index(self, weights: Weights) -> Index:
        index = Index(self.catalog, self.tools, weights)
        if index.meanings is not None:  # embedding the catalog once saves most of the fit's time
            self._meanings = self._meanings or index.meanings
            index.meanings = self._meanings
        return index

    def score(self, weights: Weights, queries: list[Query]) -> tuple[float, float]:
        index = self.index(weights)
        m = measure(lambda text: [n for n, _ in index.rank_tools(text, 10)], queries, len(index.names), K)
        return m.recall_at_1, m.recall_at_k


def sets(folder: Path, train: bool, sample: int) -> list[tuple[Dataset, list[Query], str]]:
    """(dataset, queries, label) for the training or the held-out side."""
    seal = Dataset("Seal-Tools", folder / "catalog.jsonl")
    meta = Dataset("MetaTool", folder / "metatool" / "catalog.jsonl")
    fleet, bare = Dataset("fleet", FLEET / "catalog.jsonl"), Dataset("fleet", FLEET / "catalog.jsonl", False)
    names = lambda d: {t.name for t in d.tools}  # noqa: E731
    out = [(d, _half(load_queries(d.path.parent / "queries.jsonl", names(d)), train, sample), d.label)
           for d in (seal, meta)]
    if train:
        out.append(bundled_examples())
    files = ("dev", "dev2") if train else ("heldout", "blind", "blind2")
    for name in files:
        queries = load_queries(FLEET / f"user_requests_{name}.jsonl", names(fleet))
        out += [(fleet, queries, f"{name} +phrases"), (bare, queries, f"{name} no phrases")]
    return out + unseen_sets(UNSEEN, "A" if train else "B")


def bundled_examples() -> tuple[Dataset, list[Query], str]:
    """The bundled tools as a session has them (their groups' keywords, rules and phrases) and their own examples,
    which `ankit tools check` wants in each tool's top 3."""
    tools, _ = load_tools([ROOT / "tools"])
    bundled = Dataset("bundled", ROOT / "tools", loaded=(tools, {}))
    queries = [Query(f"{t.name}:{n}", str(e), [t.name]) for t in tools for n, e in enumerate(t.examples)]
    return bundled, queries, "bundled examples"


def unseen_sets(folder: Path, half: str) -> list[tuple[Dataset, list[Query], str]]:
    """The unseen servers' half (A trains, B is held out), with their written phrases and without; none if the
    folder lacks that half."""
    catalog, requests = folder / f"catalog_{half}.jsonl", folder / f"requests_{half}.jsonl"
    if not (catalog.is_file() and requests.is_file()):
        return []
    written = json.loads((folder / "phrases.json").read_text()) if (folder / "phrases.json").is_file() else {}
    said, bare = Dataset(f"unseen {half}", catalog, True, written), Dataset(f"unseen {half}", catalog, False)
    queries = load_queries(requests, {t.name for t in bare.tools})
    return [(said, queries, f"unseen {half} +phrases"), (bare, queries, f"unseen {half} no phrases")]


def objective(weights: Weights, data) -> float:
    """The weighted mean of (recall@1 + recall@5) / 2: the unseen servers' half counts twice (the closest to a
    catalog nobody tuned on)."""
    counts = [2 if label.startswith("unseen") else 1 for _, _, label in data]
    return sum(n * sum(d.score(weights, q)) / 2 for n, (d, q, _) in zip(counts, data)) / sum(counts)


def fit(data, rounds: int) -> Weights:
    """Coordinate ascent over every number of Weights."""
    best = Weights()
    score = objective(best, data)
    print(f"start {score:.4f}", flush=True)
    for _ in range(rounds):
        for f in fields(Weights):
            current = getattr(best, f.name)
            for step in STEPS:
                value = round(current * step) if f.type in (int, "int") else round(current * step, 3)
                if value == current or (f.name in ("k1", "nearest") and value <= 0):
                    continue
                trial = replace(best, **{f.name: value})
                found = objective(trial, data)
                if found > score + 1e-4:
                    best, score = trial, found
                    print(f"{f.name} {current} -> {value}: {score:.4f}", flush=True)
    print("fitted:", asdict(best))
    return best


ABLATIONS = {
    "clause stage": {"clause": 0.0}, "meaning": {"meaning": 0.0}, "synonyms": {"synonym": 0.0},
    "slang": {"slang": 0.0}, "weak words": {"weak": 0.0}, "server field": {"server": 0.0},
    "phrases field": {"phrases": 0.0}, "parameters field": {"parameters": 0.0},
}


def table(data, rows: dict[str, Weights], bm25: bool = False) -> None:
    """recall@1 / recall@5 on each held-out set (columns), one line per row of weights (and BM25 last); the
    last column is their mean over the sets."""
    print(f"{'':<16}" + "".join(f"{label[:13] + f' ({len(q)})':>20}" for _, q, label in data) + f"{'mean':>14}")
    lines = [(label, [d.score(w, q) for d, q, _ in data]) for label, w in rows.items()]
    if bm25:
        lines.append(("BM25", [_bm25(d, q) for d, q, _ in data]))
    for label, cells in lines:
        mean = (sum(a for a, _ in cells) / len(cells), sum(b for _, b in cells) / len(cells))
        print(f"{label:<16}" + "".join(f"{a:>12.3f} / {b:.3f}" for a, b in [*cells, mean]), flush=True)


def _bm25(d: Dataset, queries: list[Query]) -> tuple[float, float]:
    """BM25 given the same text: the phrases (if the set has them) as part of each description."""
    said = [replace(t, description=described(t)) for t in d.tools]
    m = measure(BM25(said).rank, queries, len(said), K)
    return m.recall_at_1, m.recall_at_k


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print(__doc__.splitlines()[2])
        return 2
    folder = Path(argv[0])
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 2
    sample = int(argv[argv.index("--sample") + 1]) if "--sample" in argv else 400
    if "--heldout" in argv or "--ablate" in argv or "--zero" in argv:
        held = sets(folder, False, 0)
        rows = {"shipped": Weights()}
        if "--ablate" in argv:
            rows.update({f"no {k}": replace(Weights(), **v) for k, v in ABLATIONS.items()})
        zero = argv[argv.index("--zero") + 1].split(",") if "--zero" in argv else []
        rows.update({f"{name}=0": replace(Weights(), **{name: 0}) for name in zero})
        table(held, rows, bm25="--heldout" in argv)
        return 0
    fit(sets(folder, True, sample), rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
