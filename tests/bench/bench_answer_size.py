"""Benchmark of find_tools' answer size: what a search loads, whole groups against the matched tools and their
close siblings, on the bundled tools and on the MCP fleet's cached catalog.

usage: python3 tests/bench/bench_answer_size.py [--shares 0.7,0.8,0.9,1.0]
For each request set it prints, per rule, the loaded recall (the share of the gold tools find_tools loads,
core tools counted as loaded), the tools and schema bytes a search loads beside core (means), and for the
bundled tools the requests of the issue. "whole" loads every tool of each group find() activates (the rule
before issue #31 item 4); "share S" loads each group's best tool and the tools scoring at least S of it
(find_tools uses ankit.discovery.finder.NEAR); "find_tools" is what find_tools itself loads (finder.loads: its
siblings rule and the best tool of each part of a request of several parts). Bundled requests: each tool's
examples, gold the tool; then requests of several parts, gold the tool of each part.
"""

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from ankit.discovery.catalog import build_catalog  # noqa: E402
from ankit.discovery.evaluation import Query, load_queries  # noqa: E402
from ankit.discovery.finder import NEAR, find, is_question, loads, siblings  # noqa: E402
from ankit.discovery.index import Index  # noqa: E402
from ankit.discovery.parts import spec_size  # noqa: E402
from tests.bench.compare import FLEET, fleet_tools  # noqa: E402
from tests.helpers import bundled  # noqa: E402

SETS = ("queries", "user_requests_dev", "user_requests_heldout", "user_requests_blind", "user_requests_blind2")
ISSUE = ("run the tests", "who is listening on port 8080", "is anything listening on port 3000 that I should kill?",
         "show the recent commits", "start the dev server in the background")
SEVERAL = (  # requests of several parts, the tool of each part
    ("show the last commits and who made them, create a branch, commit", ["git_log", "git_branch", "git_commit"]),
    ("list the files in src, then delete the old log file", ["list_directory", "delete_file"]),
    ("read the config file and then search the web for the error", ["read_file", "web_search"]),
    ("run the tests, then commit the fix", ["run_command", "git_commit"]),
    ("fetch https://example.com and remember what it says", ["web_fetch", "remember"]),
    ("start the dev server in the background, then check what is listening on port 3000", ["job_start", "port_status"]),
    ("find the TODO comments, fix the first one, show the diff", ["search_text", "edit_file", "git_diff"]),
    ("stage and commit my changes, then push a new branch", ["git_commit", "git_branch"]),
)


def loaded(index: Index, text: str, share: float | str | None) -> list[str]:
    """The tools a search loads beside core: whole groups (share None), each group's close tools, or what
    find_tools loads (share "find_tools")."""
    catalog, outcome = index.catalog, find(index, text)
    if share == "find_tools":
        return loads(outcome, catalog)
    hits = {h.group: h for h in outcome.hits}
    found = []
    for group in outcome.activate:
        picked = siblings(catalog, hits[group], is_question(text), share) if share and group in hits else []
        found += picked or catalog.members(group)
    return list(dict.fromkeys(found))


def figures(index: Index, queries: list[Query], share: float | None) -> tuple[float, float, float]:
    """Loaded recall, mean tools and mean schema bytes loaded beside core."""
    core = {n for g in index.catalog.groups.values() if g.core for n in g.tools}
    recall = tools = size = 0.0
    for query in queries:
        names = [n for n in loaded(index, query.text, share) if n not in core]
        recall += len(set(query.gold) & (core | set(names))) / len(set(query.gold))
        tools += len(names)
        size += sum(spec_size(index.catalog.tools[n]) for n in names)
    n = max(len(queries), 1)
    return recall / n, tools / n, size / n


def table(label: str, index: Index, queries: list[Query], shares: list[float]) -> None:
    print(f"\n{label} ({len(queries)} requests)")
    print(f"  {'rule':<10} {'loaded recall':>13} {'tools':>7} {'bytes':>8}")
    for share in [None, *shares, "find_tools"]:
        recall, tools, size = figures(index, queries, share)
        name = "whole" if share is None else share if isinstance(share, str) else f"share {share:g}"
        print(f"  {name:<10} {recall:>13.3f} {tools:>7.2f} {size:>8.0f}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shares", default="0.7,0.8,0.9,1.0")
    shares = sorted({NEAR, *(float(s) for s in parser.parse_args(argv).shares.split(","))})
    tools = list(bundled()[0].values())
    catalog, _ = build_catalog(tools)
    index = Index(catalog, tools)
    examples = [Query(f"{t.name}-{i}", str(e), [t.name]) for t in tools for i, e in enumerate(t.examples)]
    table("bundled tools, their examples", index, examples, shares)
    print("\nthe issue's requests (bundled tools), loaded beside core:")
    for text in ISSUE:
        print(f"  {text!r}: whole {', '.join(loaded(index, text, None))}")
        print(f"  {'':{len(text) + 4}}share {NEAR:g} {', '.join(loaded(index, text, NEAR))}")
    table("bundled tools, requests of several parts", index,
          [Query(f"several-{i}", text, gold) for i, (text, gold) in enumerate(SEVERAL)], shares)
    for text, gold in SEVERAL:
        print(f"  {text!r}: {', '.join(loaded(index, text, 'find_tools'))}")
    tools, groups = fleet_tools()  # as bench_fleet.py reads it: the bundled tools with their groups' phrases
    fleet_catalog, _ = build_catalog(tools, groups)
    fleet = Index(fleet_catalog, tools)
    for name in SETS:
        table(f"fleet, {name}", fleet, load_queries(FLEET / f"{name}.jsonl", set(fleet.names)), shares)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
