"""eval-discovery: measure the tool search on a catalog and a query set (recall@1, recall@k, MRR, speed)."""

import argparse
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ankit.argv import Parser
from ankit.discovery.catalog import build_catalog
from ankit.discovery.index import Index
from ankit.tooling.toolbox import Tool


@dataclass
class Query:
    """One evaluation request and the tool names that should be found for it."""

    id: str
    text: str
    gold: list[str]


@dataclass
class Metrics:
    """The figures eval-discovery prints."""

    recall_at_1: float
    recall_at_k: float
    mrr: float
    ms_per_query: float
    tools: int
    queries: int
    k: int

    def as_json(self) -> dict:
        """The --json object."""
        return {
            "recall_at_1": round(self.recall_at_1, 4),
            "recall_at_k": round(self.recall_at_k, 4),
            "mrr": round(self.mrr, 4),
            "ms_per_query": round(self.ms_per_query, 3),
            "tools": self.tools,
            "queries": self.queries,
            "k": self.k,
        }


class InputError(ValueError):
    """A catalog or query file that cannot be used; the message says which line and why."""


def _json_lines(path: Path) -> list[tuple[int, dict]]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise InputError(f"cannot read {path}: {reason}") from None
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            problem = f"not valid JSON ({exc.msg}); each line must be one JSON object"
            raise InputError(f"{path}:{number}: {problem}") from None
        if not isinstance(value, dict):
            raise InputError(f"{path}:{number}: each line must be a JSON object")
        rows.append((number, value))
    if not rows:
        raise InputError(f"{path}: no lines found; expected one JSON object per line")
    return rows


def _no_run(args, ctx=None) -> str:
    return "this tool comes from an evaluation catalog and does not run"


def load_catalog(path: Path) -> list[Tool]:
    """Read catalog lines {name, description, parameters, group?}; each tool is its own group unless told."""
    tools: dict[str, Tool] = {}
    for number, row in _json_lines(path):
        name = row.get("name")
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"{path}:{number}: \"name\" must be a non-empty string")
        description = row.get("description", "")
        parameters = row.get("parameters") or {}
        group = row.get("group") or name
        if not isinstance(description, str) or not isinstance(parameters, dict) or not isinstance(group, str):
            problem = '"description" and "group" must be strings, "parameters" an object'
            raise InputError(f"{path}:{number}: {problem}")
        if name in tools:
            raise InputError(f"{path}:{number}: duplicate tool name {name!r}")
        tools[name] = Tool(name, description, parameters, _no_run, group=group, source=f"{path}:{number}")
    return list(tools.values())


def load_queries(path: Path, known: set[str]) -> list[Query]:
    """Read query lines {id, query, gold}; every gold name must be in the catalog."""
    queries = []
    for number, row in _json_lines(path):
        text, gold = row.get("query"), row.get("gold")
        good_gold = isinstance(gold, list) and gold and all(isinstance(g, str) for g in gold)
        if not isinstance(text, str) or not good_gold:
            problem = 'needs "query" (a string) and "gold" (a non-empty list of tool names)'
            raise InputError(f"{path}:{number}: {problem}")
        unknown = [g for g in gold if g not in known]
        if unknown:
            raise InputError(f"{path}:{number}: gold tool {unknown[0]!r} is not in the catalog")
        queries.append(Query(str(row.get("id", number)), text, list(dict.fromkeys(gold))))
    return queries


def measure(rank: Callable[[str], list[str]], queries: list[Query], tools: int, k: int = 5) -> Metrics:
    """Rank the catalog for every query and compute the metrics; time the ranking alone."""
    r1 = rk = rr = 0.0
    started = time.perf_counter()
    rankings = [rank(q.text) for q in queries]
    elapsed = time.perf_counter() - started
    for query, ranking in zip(queries, rankings):
        gold = set(query.gold)
        # recall@k: share of this query's gold tools in the top k (at most 1/|gold| at k = 1)
        r1 += len(gold & set(ranking[:1])) / len(gold)
        rk += len(gold & set(ranking[:k])) / len(gold)
        # MRR: 1 / rank of the best-ranked gold tool, 0 when none is ranked
        rr += next((1.0 / i for i, name in enumerate(ranking, 1) if name in gold), 0.0)
    n = max(len(queries), 1)
    return Metrics(r1 / n, rk / n, rr / n, 1000 * elapsed / n, tools, len(queries), k)


def report(metrics: Metrics) -> str:
    """The text form of the figures."""
    m = metrics
    return "\n".join([
        f"tools          {m.tools}",
        f"queries        {m.queries}",
        f"recall@1       {m.recall_at_1:.3f}",
        f"recall@{m.k:<7} {m.recall_at_k:.3f}",
        f"MRR            {m.mrr:.3f}",
        f"ms per query   {m.ms_per_query:.2f}",
    ])


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="ankit eval-discovery", description="Measure the tool search on a catalog and queries.")
    parser.add_argument("--catalog", required=True, type=Path)
    parser.add_argument("--queries", required=True, type=Path)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    return parser


def main(argv: list[str]) -> int:
    """Run eval-discovery; print the figures; 0 on success, 2 on bad arguments or input files."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    if args.k < 1:
        print("--k must be 1 or more")
        return 2
    try:
        tools = load_catalog(args.catalog)
        queries = load_queries(args.queries, {t.name for t in tools})
    except InputError as exc:
        print(exc)
        return 2
    catalog, _problems = build_catalog(tools)
    index = Index(catalog, tools)
    metrics = measure(lambda text: [name for name, _ in index.rank_tools(text)], queries, len(tools), args.k)
    print(json.dumps(metrics.as_json()) if args.json else report(metrics))
    return 0
