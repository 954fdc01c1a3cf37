"""Okapi BM25 baseline for tool retrieval (k1 = 1.2, b = 0.75), to compare ankit's discovery against.

usage: python3 tests/bench/bm25_baseline.py DATASET_DIR [--k 5]
DATASET_DIR holds catalog.jsonl and queries.jsonl (the eval-discovery format).
Tool text: the name split on camelCase, _ . and -, the description, and every parameter's name and
description; lower-cased alphanumeric tokens, no stemming or stop words. idf is Lucene's
log(1 + (N - n + 0.5) / (n + 0.5)) and each query word counts once (the stronger variant).
"""

import math
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ankit.discovery.evaluation import InputError, load_catalog, load_queries, measure, report  # noqa: E402
from ankit.tooling.toolbox import Tool  # noqa: E402

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _name_tokens(name: str) -> list[str]:
    return [p.lower() for chunk in re.split(r"[\W_]+", name) for p in _CAMEL.findall(chunk)]


def _param_text(schema: dict) -> list[str]:
    props = schema.get("properties") if isinstance(schema, dict) else None
    out: list[str] = []
    for key, sub in (props or {}).items():
        out += _name_tokens(key)
        if isinstance(sub, dict):
            out += _tokens(str(sub.get("description", "")))
    return out


class BM25:
    """A plain BM25 ranker over whole-tool documents."""

    def __init__(self, tools: list[Tool], k1: float = 1.2, b: float = 0.75) -> None:
        self.names = [t.name for t in tools]
        docs = [_name_tokens(t.name) + _tokens(t.description) + _param_text(t.parameters) for t in tools]
        self.k1, self.b = k1, b
        self.lengths = [len(d) for d in docs]
        self.avg = sum(self.lengths) / max(len(docs), 1)
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i, doc in enumerate(docs):
            for term, tf in Counter(doc).items():
                self.postings[term].append((i, tf))
        n = len(docs)
        self.idf = {t: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in self.postings.items()}

    def rank(self, query: str) -> list[str]:
        """Every tool, best first; ties in catalog order."""
        scores: dict[int, float] = defaultdict(float)
        for term in set(_tokens(query)):
            idf = self.idf.get(term)
            if idf is None:
                continue
            for i, tf in self.postings[term]:
                norm = tf + self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg)
                scores[i] += idf * tf * (self.k1 + 1) / norm
        ranked = sorted(scores, key=lambda i: (-scores[i], i))
        seen = set(ranked)
        return [self.names[i] for i in ranked] + [n for i, n in enumerate(self.names) if i not in seen]


def read_dataset(argv: list[str], doc: str):
    """The dataset folder, k, tools and queries from a benchmark's arguments; None (after one line) if unusable."""
    if not argv or argv[0].startswith("-"):
        print(doc.splitlines()[2])
        return None
    folder = Path(argv[0])
    k = int(argv[argv.index("--k") + 1]) if "--k" in argv else 5
    try:
        tools = load_catalog(folder / "catalog.jsonl")
        return folder, k, tools, load_queries(folder / "queries.jsonl", {t.name for t in tools})
    except InputError as exc:
        print(exc)
        return None


def main(argv: list[str]) -> int:
    """Print the baseline's figures for one dataset folder."""
    dataset = read_dataset(argv, __doc__)
    if dataset is None:
        return 2
    folder, k, tools, queries = dataset
    ranker = BM25(tools)
    print(f"BM25 baseline on {folder}")
    print(report(measure(ranker.rank, queries, len(tools), k)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
