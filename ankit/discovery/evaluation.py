"""eval-discovery: measure the tool search on a catalog and a query set (recall@1, recall@k, MRR, speed).

The ranking measured is the session's own: the same Index, group metadata, phrases, rules and synonyms, and
find() decides loaded_recall exactly as find_tools does. A catalog file may carry group lines (no "name") with
the metadata of the session's groups, so an exported live catalog ranks exactly as the live one.
"""

import argparse
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ankit.discovery.catalog import Catalog, build_catalog
from ankit.discovery.finder import find, loads
from ankit.discovery.index import Index
from ankit.tooling.tool import Tool


@dataclass
class Query:
    """One evaluation request and the tool names that should be found for it."""

    id: str
    text: str
    gold: list[str]
    phrasings: list[str] = field(default_factory=list)  # other phrasings, as a model gives find_tools


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
    loaded_recall: float | None = None  # share of gold tools whose group find_tools would load

    def as_json(self) -> dict:
        """The --json object."""
        data = {
            "recall_at_1": round(self.recall_at_1, 4),
            "recall_at_k": round(self.recall_at_k, 4),
            "mrr": round(self.mrr, 4),
            "ms_per_query": round(self.ms_per_query, 3),
            "tools": self.tools,
            "queries": self.queries,
            "k": self.k,
        }
        if self.loaded_recall is not None:
            data["loaded_recall"] = round(self.loaded_recall, 4)
        return data


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
    """Read catalog lines {name, description, parameters, group?, phrases?}; each tool is its own group unless told."""
    return read_catalog(path)[0]


def read_catalog(path: Path) -> tuple[list[Tool], dict[str, dict]]:
    """Tool lines as Tools, and group lines {group, summary?, rules?, core?} as group metadata."""
    tools: dict[str, Tool] = {}
    groups: dict[str, dict] = {}
    for number, row in _json_lines(path):
        if "name" not in row and isinstance(row.get("group"), str) and row["group"]:
            groups[row["group"]] = {k: v for k, v in row.items() if k in _GROUP_KEYS}
            continue
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
        phrases = row.get("phrases") or []
        if not isinstance(phrases, list) or not all(isinstance(p, str) for p in phrases):
            raise InputError(f"{path}:{number}: \"phrases\" must be a list of strings")
        tools[name] = Tool(name, description, parameters, _no_run, group=group, source=f"{path}:{number}",
                           phrases=phrases)
    return list(tools.values()), groups


_GROUP_KEYS = ("summary", "rules", "core")  # an older export's "keywords" are passed over: no longer searched


def export_lines(catalog: Catalog, names: list[str]) -> list[str]:
    """The catalog as eval-discovery reads it: one line per searchable tool, then one per group's metadata."""
    lines = []
    for name in names:
        tool = catalog.tools[name]
        row = {"name": name, "description": tool.description, "parameters": tool.parameters,
               "group": tool.group or name} | ({"phrases": tool.phrases} if tool.phrases else {})
        lines.append(json.dumps(row, ensure_ascii=False))
    for group in [*catalog.groups.values(), *catalog.split.values()]:
        if group.parent:
            continue  # a part of an oversized group is made again from the group's tools
        row = {"group": group.id, "core": group.core,
               "rules": [{"when": r.when, "prefer": r.prefer, "over": r.over, "reason": r.reason}
                         for r in group.rules]}
        if group.curated:
            row["summary"] = group.summary
        lines.append(json.dumps(row, ensure_ascii=False))
    return lines


def load_queries(path: Path, known: set[str]) -> list[Query]:
    """Read query lines {id, query, gold, phrasings?}; every gold name must be in the catalog."""
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
        also = row.get("phrasings", [])
        if not isinstance(also, list) or not all(isinstance(p, str) for p in also):
            raise InputError(f'{path}:{number}: "phrasings" must be a list of strings')
        queries.append(Query(str(row.get("id", number)), text, list(dict.fromkeys(gold)), also))
    return queries


def measure(rank: Callable[[str], list[str]], queries: list[Query], tools: int, k: int = 5,
            loads: Callable[[str], set[str]] | None = None) -> Metrics:
    """Rank the catalog for every query and compute the metrics; time the ranking alone.

    loads(text), when given, is the set of tools find_tools would load for the request (for loaded_recall).
    """
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
    loaded = None
    if loads is not None:
        loaded = sum(len(set(q.gold) & loads(q.text)) / len(set(q.gold)) for q in queries) / n
    return Metrics(r1 / n, rk / n, rr / n, 1000 * elapsed / n, tools, len(queries), k, loaded)


def loaded_tools(index: Index, phrasings: dict[str, list[str]] | None = None) -> Callable[[str], set[str]]:
    """What find_tools loads for a request, as tool names (the tools find() picks, core included)."""
    core = {name for g in index.catalog.groups.values() if g.core for name in g.tools}
    also = phrasings or {}

    def loaded(text: str) -> set[str]:
        return core | set(loads(find(index, text, also.get(text)), index.catalog))
    return loaded


def evaluate(index: Index, queries: list[Query], k: int = 5) -> Metrics:
    """The figures of one index on a query set: the session's ranking and find_tools' loading (with the
    phrasings a query line carries, as find_tools takes them)."""
    also = {q.text: q.phrasings for q in queries if q.phrasings}
    rank = lambda text: [name for name, _ in index.rank_phrasings([text, *also.get(text, [])])]  # noqa: E731
    return measure(rank, queries, len(index.names), k, loaded_tools(index, also))


def report(metrics: Metrics) -> str:
    """The text form of the figures."""
    m = metrics
    return "\n".join([
        f"tools          {m.tools}",
        f"queries        {m.queries}",
        f"recall@1       {m.recall_at_1:.3f}",
        f"recall@{m.k:<7} {m.recall_at_k:.3f}",
        f"MRR            {m.mrr:.3f}",
        *([f"loaded recall  {m.loaded_recall:.3f}"] if m.loaded_recall is not None else []),
        f"ms per query   {m.ms_per_query:.2f}",
    ])


DESCRIPTION = "Measure the tool search on a catalog and queries."
EPILOG = "--live evaluates this session's own catalog: bundled tools, tool folders, MCP servers"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """eval-discovery's flags, on the command line's parser."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--catalog", type=Path, help="a JSONL catalog (tool lines, optional group lines)")
    source.add_argument("--live", action="store_true", help="the catalog a session here would search")
    parser.add_argument("--queries", type=Path, help="JSONL requests {id, query, gold}")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--export", type=Path, metavar="PATH", help="write the catalog searched to PATH (JSONL)")
    parser.add_argument("--refresh", action="store_true", help="with --live: list MCP tools afresh, not from cache")


LiveIndex = Callable[[bool], Index]  # (refresh) -> the session's index


def run(args: argparse.Namespace, live: LiveIndex | None = None) -> int:
    """Run eval-discovery on parsed flags; print the figures; 0 on success, 2 on bad arguments or input files."""
    if args.k < 1 or not (args.queries or args.export):
        print("--k must be 1 or more" if args.k < 1 else "give --queries FILE (or --export PATH to write the catalog)")
        return 2
    try:
        index = _index(args, live)
        if args.export:
            _write(args.export, export_lines(index.catalog, index.names))
        if not args.queries:
            return 0
        queries = load_queries(args.queries, set(index.names))
    except InputError as exc:
        print(exc)
        return 2
    metrics = evaluate(index, queries, args.k)
    print(json.dumps(metrics.as_json()) if args.json else report(metrics))
    return 0


def _index(args, live: LiveIndex | None) -> Index:
    if args.live:
        if live is None:
            raise InputError("--live needs ankit's session set-up; run it as ankit eval-discovery --live")
        return live(args.refresh)
    tools, groups = read_catalog(args.catalog)
    catalog, _problems = build_catalog(tools, groups)
    return Index(catalog, tools)


def _write(path: Path, lines: list[str]) -> None:
    try:
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror}") from None
