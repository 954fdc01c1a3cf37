"""The ranking of another ankit checkout, for the benchmarks' --old TREE (tests/bench/compare.py runs this).

usage: python3 tests/bench/rank_tree.py TREE CATALOG REQUESTS
TREE is a checkout of an earlier ankit (git -C /work/main archive 6402d37 | tar -x -C /tmp/old); CATALOG is in
the eval-discovery format (tool lines, group lines); REQUESTS holds JSON lines {"query", "phrasings", "gold"}.
Prints one JSON line per request: {"ranked": [...], "loaded": [...]}, the tools that tree ranks first, up to
and including the first gold tool (at least 10), and what its find_tools would load (core tools included: the
tools it picks of each group, or whole groups in a tree from before it picked).
Only TREE's ankit is imported (its read_catalog, build_catalog, Index and find, as at 6402d37).
"""

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    """Rank every request with TREE's ankit."""
    if len(argv) != 3 or not (Path(argv[0]) / "ankit" / "discovery").is_dir():
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    sys.path.insert(0, str(Path(argv[0]).resolve()))
    from ankit.discovery.catalog import build_catalog
    from ankit.discovery.evaluation import read_catalog
    from ankit.discovery.finder import find
    from ankit.discovery.index import Index

    tools, groups = read_catalog(Path(argv[1]))
    catalog, _ = build_catalog(tools, groups)
    index = Index(catalog, tools)
    core = [n for g in catalog.groups.values() if g.core for n in g.tools]
    for line in Path(argv[2]).read_text(encoding="utf-8").splitlines():
        request = json.loads(line)
        texts, gold = [request["query"], *request["phrasings"]], set(request["gold"])
        ranked = [name for name, _ in index.rank_phrasings(texts)]
        first = next((i for i, name in enumerate(ranked, 1) if name in gold), 0)
        loaded = core + loaded_by(find(index, request["query"], request["phrasings"]), catalog)
        print(json.dumps({"ranked": ranked[:max(10, first)], "loaded": loaded}))
    return 0


def loaded_by(outcome, catalog) -> list[str]:
    """The tools a find() outcome loads: those it picked of each group, else the whole group (a tree from before
    issue #31 item 4 picks none)."""
    picked = getattr(outcome, "tools", {})
    groups = catalog.groups
    return [n for g in outcome.activate for n in picked.get(g) or (groups[g].tools if g in groups else [])]


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
