"""What the discovery benchmarks share: their catalogs, the rankings they compare, and one table per request set.

Catalogs: the fleet's cached one (tests/bench/fleet/catalog.jsonl: no server needed), a dataset folder's, or a
--set folder's (catalog*.jsonl beside requests*.jsonl, and phrases.json {tool: [requests]} if it has one). A
bundled tool in any of them is given the phrases its group ships (tools/GROUP/group.toml's [phrases]), as a
session gives it. Each catalog is ranked with every phrase, without the bundled tools' (where servers' are there
too) and without any. The rankings: ankit's (the one shipped, as eval-discovery measures it: recall, MRR, what
find_tools loads); Okapi BM25 given the same text (the phrases in each description); the ranking of an earlier
checkout (--old TREE, ranked there by tests/bench/rank_tree.py); and decision mode (the model choosing among
the words' top 20, then the words' ranking) replayed from recorded answers (--recorded FILE, by default
tests/bench/fleet/decision_smollm2.jsonl): a question the recording lacks falls back to the words' ranking,
and the table says how many did.
"""

import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from ankit.discovery.catalog import Catalog, build_catalog, described, read_metadata  # noqa: E402
from ankit.discovery.decision import decide  # noqa: E402
from ankit.discovery.evaluation import InputError, load_queries, read_catalog  # noqa: E402
from ankit.discovery.finder import find, loads  # noqa: E402
from ankit.discovery.index import Index  # noqa: E402
from ankit.discovery.phrases import kept  # noqa: E402
from ankit.tooling.tool import Tool  # noqa: E402
from tests.bench.bm25_baseline import BM25  # noqa: E402

FLEET = ROOT / "tests" / "bench" / "fleet"
RECORDING = FLEET / "decision_smollm2.jsonl"
K = 5


def share(gold: set[str], names: list[str]) -> float:
    """The share of the gold tools among names."""
    return len(gold & set(names)) / len(gold)


def bundled_phrases() -> dict[str, dict[str, list[str]]]:
    """The phrases each bundled group ships, by group and tool name."""
    found = {}
    for path in sorted((ROOT / "tools").glob("*/group.toml")):
        table = read_metadata(path)[0].get("phrases")
        if isinstance(table, dict):
            found[path.parent.name] = {name: kept(said) for name, said in table.items() if isinstance(said, list)}
    return found


def with_phrases(tools: list[Tool], extra: dict[str, list[str]] | None = None) -> list[Tool]:
    """The tools, those without phrases given their bundled group's (same group and name) or extra's."""
    shipped, extra = bundled_phrases(), extra or {}
    said = [t.phrases or shipped.get(t.group, {}).get(t.name) or kept(extra.get(t.name) or []) for t in tools]
    return [replace(t, phrases=s) if s != t.phrases else t for t, s in zip(tools, said)]


def fleet_tools() -> tuple[list[Tool], dict[str, dict]]:
    """The fleet's cached catalog with the servers' phrases it carries and the bundled tools' own."""
    tools, groups = read_catalog(FLEET / "catalog.jsonl")
    return with_phrases(tools), groups


def fleet_index(phrases: bool = True) -> tuple[Catalog, Index, BM25]:
    """The fleet's catalog (with every phrase, or none), its index and BM25 over the same searchable tools,
    given the same text (the phrases in each description)."""
    tools, groups = fleet_tools()
    tools = tools if phrases else [replace(t, phrases=[]) for t in tools]
    catalog, _ = build_catalog(tools, groups)
    index = Index(catalog, tools)
    return catalog, index, BM25([replace(t, description=described(t)) for t in tools if t.name in set(index.names)])


def variants(tools: list[Tool]) -> list[tuple[str, list[Tool]]]:
    """(label, tools): every phrase; without the bundled tools' (when servers' are there too); none."""
    if not any(t.phrases for t in tools):
        return [("(no phrases)", tools)]
    shipped = bundled_phrases()
    bundled = {t.name for t in tools if t.phrases and t.phrases == shipped.get(t.group, {}).get(t.name)}
    out = [("+phrases", tools)]
    if bundled and any(t.phrases and t.name not in bundled for t in tools):
        out.append(("+servers' phrases", [replace(t, phrases=[]) if t.name in bundled else t for t in tools]))
    return out + [("no phrases", [replace(t, phrases=[]) for t in tools])]


@dataclass
class Request:
    """One request of a set: its gold tools, the text searched and its phrasings; fixed: the tools a model's
    answer named without searching (a core tool called directly, or none), the same for every ranking."""

    gold: set[str]
    text: str
    phrasings: list[str] = field(default_factory=list)
    fixed: list[str] | None = None


def requests_of(path: Path, known: set[str]) -> list[Request]:
    """A request file in the eval format (InputError for gold the catalog lacks)."""
    return [Request(set(q.gold), q.text, q.phrasings) for q in load_queries(path, known)]


class Words:
    """ankit's ranking, as eval-discovery measures it: rank_phrasings, and what find() would load."""

    loads = True

    def __init__(self, label: str, tools: list[Tool], groups: dict[str, dict]) -> None:
        self.label, self.tools, self.groups = label, tools, groups
        catalog, _ = build_catalog(tools, groups)
        self.index = Index(catalog, tools)
        self.core = [n for g in catalog.groups.values() if g.core for n in g.tools]

    def prepare(self, requests: list[Request]) -> None:
        """Nothing to do before a set."""

    def rank(self, request: Request) -> tuple[list[str], list[str]]:
        ranked = [name for name, _ in self.index.rank_phrasings([request.text, *request.phrasings])]
        return ranked, self.core + loads(find(self.index, request.text, request.phrasings), self.index.catalog)

    def note(self) -> str:
        return ""


class Baseline(Words):
    """Okapi BM25 over the searchable tools, given the same text (the phrases in each description)."""

    loads = False

    def __init__(self, label: str, words: Words) -> None:
        self.label, self.tools, self.groups = label, words.tools, words.groups
        named = set(words.index.names)
        self.bm25 = BM25([replace(t, description=described(t)) for t in words.tools if t.name in named])

    def rank(self, request: Request) -> tuple[list[str], list[str]]:
        return self.bm25.rank(" ".join([request.text, *request.phrasings])), []


class Earlier(Words):
    """An earlier checkout's ranking (--old TREE), ranked there by rank_tree.py in a process of its own."""

    def __init__(self, label: str, tree: Path, words: Words) -> None:
        self.label, self.tree, self.tools, self.groups = label, tree, words.tools, words.groups
        self.done: dict[str, tuple[list[str], list[str]]] = {}

    def prepare(self, requests: list[Request]) -> None:
        """Rank, in TREE, the requests not ranked yet."""
        asked = {_key(r): r for r in requests if r.fixed is None and _key(r) not in self.done}
        if asked:
            answers = run_tree(self.tree, self.tools, self.groups, list(asked.values()))
            self.done.update(zip(asked, answers))

    def rank(self, request: Request) -> tuple[list[str], list[str]]:
        return self.done[_key(request)]


def _key(request: Request) -> str:
    return json.dumps([request.text, request.phrasings, sorted(request.gold)])


def run_tree(tree: Path, tools: list[Tool], groups: dict[str, dict], requests: list[Request]) -> list[tuple]:
    """(ranked, loaded) per request from rank_tree.py over TREE's ankit; InputError in one line on failure."""
    with tempfile.TemporaryDirectory(prefix="ankit-old-") as folder:
        catalog, asked = Path(folder) / "catalog.jsonl", Path(folder) / "requests.jsonl"
        rows = [{"name": t.name, "description": t.description, "parameters": t.parameters, "group": t.group,
                 "phrases": t.phrases} for t in tools] + [{"group": g, **meta} for g, meta in groups.items()]
        catalog.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
        asked.write_text("\n".join(json.dumps({"query": r.text, "phrasings": r.phrasings, "gold": sorted(r.gold)})
                                   for r in requests) + "\n", encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(tree)}
        done = subprocess.run([sys.executable, str(Path(__file__).with_name("rank_tree.py")), str(tree),
                               str(catalog), str(asked)], capture_output=True, text=True, env=env, cwd=folder)
    if done.returncode:
        said = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise InputError(f"--old {tree}: its ranking failed ({said})")
    return [(row["ranked"], row["loaded"]) for row in map(json.loads, done.stdout.splitlines())]


class Decided(Words):
    """Decision mode over ankit's ranking, its answers replayed by a Recorded chooser (bench_decision.py); a
    question the recording lacks, or any other fallback, leaves the words' ranking."""

    loads = False

    def __init__(self, label: str, words: Words, chooser) -> None:
        self.label, self.index, self.chooser = label, words.index, chooser
        self.fell: Counter = Counter()
        self.searches = self.tokens = 0

    def prepare(self, requests: list[Request]) -> None:
        self.fell, self.searches, self.tokens = Counter(), 0, 0

    def rank(self, request: Request) -> tuple[list[str], list[str]]:
        before = len(self.chooser.fallbacks)
        decision = decide(self.index, request.text, self.chooser)
        self.searches, self.tokens = self.searches + 1, self.tokens + self.chooser.take_tokens()
        reasons = self.chooser.fallbacks[before:] or ([decision.fallback_reason] if decision.mode != "decision" else [])
        self.fell.update(reasons[:1])
        chosen = [name for name, _ in decision.ranked] if decision.mode == "decision" else []
        words = [name for name, _ in self.index.rank_tools(request.text)]
        return chosen + [name for name in words if name not in chosen], []

    def note(self) -> str:
        fell = ", ".join(f"{count} {reason}" for reason, count in self.fell.most_common())
        spent = f"{self.tokens / max(self.searches, 1):.0f} tokens/search"
        return f"{sum(self.fell.values())} of {self.searches} fell back{f' ({fell})' if fell else ''}; {spent}"


def rankings(tools: list[Tool], groups: dict[str, dict], old: Path | None, chooser) -> list[Words]:
    """Every ranking of every phrase variant of one catalog: ankit, BM25, the earlier tree, decision mode."""
    made = []
    for label, listed in variants(tools):
        words = Words(f"ankit {label}", listed, groups)
        made += [words, Baseline(f"BM25 {label}", words)]
        if old is not None and label != "+servers' phrases":
            made.append(Earlier(f"earlier {label}", old, words))
        if chooser is not None and label != "+servers' phrases":
            made.append(Decided(f"decision {label}", words, chooser))
    order = ("ankit", "BM25", "earlier", "decision")
    return sorted(made, key=lambda r: order.index(r.label.split()[0]))


def figures(ranking: Words, requests: list[Request], k: int) -> tuple[float, float, float, float | None]:
    """recall@1, recall@k, MRR and (for a ranking that says what find_tools loads) loaded recall."""
    ranking.prepare(requests)
    sums = [0.0, 0.0, 0.0, 0.0]
    for request in requests:
        ranked, loaded = (request.fixed, request.fixed) if request.fixed is not None else ranking.rank(request)
        gold = request.gold
        first = next((1.0 / i for i, name in enumerate(ranked, 1) if name in gold), 0.0)
        for i, value in enumerate((share(gold, ranked[:1]), share(gold, ranked[:k]), first, share(gold, loaded))):
            sums[i] += value
    n = max(len(requests), 1)
    return sums[0] / n, sums[1] / n, sums[2] / n, sums[3] / n if ranking.loads else None


def table(title: str, requests: list[Request], ranked: list[Words], k: int, prefix: str = "") -> str:
    """One set's table: a line per ranking (its label after prefix)."""
    return "\n".join([title, header(k)] + lines_of(requests, ranked, k, prefix))


def header(k: int) -> str:
    """The columns of a table."""
    return f"  {'ranking':<40} {'recall@1':>8} {f'recall@{k}':>8} {'MRR':>6} {'loaded':>7}  note"


def lines_of(requests: list[Request], ranked: list[Words], k: int, prefix: str = "") -> list[str]:
    """A table's lines for these requests, one per ranking."""
    lines = []
    for ranking in ranked:
        r1, rk, mrr, loaded = figures(ranking, requests, k)
        shown = f"{loaded:>7.3f}" if loaded is not None else f"{'-':>7}"
        label = prefix + ranking.label
        lines.append(f"  {label:<40} {r1:>8.3f} {rk:>8.3f} {mrr:>6.3f} {shown}  {ranking.note()}".rstrip())
    return lines


def folder_sets(folder: Path) -> list[tuple[Path, Path]]:
    """(catalog, requests) of a set folder: each requests*.jsonl (or queries.jsonl) with catalog{same
    suffix}.jsonl, else catalog.jsonl; InputError in one line when one is missing."""
    found = sorted(folder.glob("requests*.jsonl")) + sorted(folder.glob("queries.jsonl"))
    if not found:
        raise InputError(f"{folder}: no requests*.jsonl (or queries.jsonl) there; a set folder holds catalog*.jsonl "
                         "and requests*.jsonl in the eval-discovery format")
    pairs = []
    for path in found:
        suffix = path.stem.removeprefix("requests").removeprefix("queries")
        catalog = next((c for c in (folder / f"catalog{suffix}.jsonl", folder / "catalog.jsonl") if c.is_file()), None)
        if catalog is None:
            raise InputError(f"{folder}: no catalog{suffix}.jsonl or catalog.jsonl for {path.name}")
        pairs.append((catalog, path))
    return pairs


def folder_tools(catalog: Path) -> tuple[list[Tool], dict[str, dict]]:
    """A set folder's catalog, with its folder's phrases.json ({tool: [requests]}) and the bundled tools' own."""
    tools, groups = read_catalog(catalog)
    path = catalog.parent / "phrases.json"
    extra = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    if not isinstance(extra, dict) or not all(isinstance(v, list) for v in extra.values()):
        raise InputError(f"{path}: must be one JSON object {{tool name: [requests]}}")
    return with_phrases(tools, extra), groups


def chooser_of(path: Path | None):
    """The Recorded chooser replaying a recording (bench_decision.py's), or None without one."""
    from tests.bench.bench_decision import Recorded
    if path is None:
        return None
    if not path.is_file():
        raise InputError(f"--recorded {path}: no such file (decision mode's recorded answers)")
    return Recorded(path)


def value(argv: list[str], flag: str) -> str | None:
    """The word after flag, or None."""
    return argv[argv.index(flag) + 1] if flag in argv and argv.index(flag) + 1 < len(argv) else None


def common(argv: list[str]) -> tuple[int, Path | None, object, list[Path]]:
    """The flags every comparing bench takes: --k, --old TREE, --recorded FILE (--no-decision: none), --set DIR."""
    k = int(value(argv, "--k") or K)
    old = Path(value(argv, "--old")).resolve() if value(argv, "--old") else None
    if old is not None and not (old / "ankit" / "discovery").is_dir():
        raise InputError(f"--old {old}: no ankit/discovery there; make one with "
                         f"git -C /work/main archive 6402d37 | tar -x -C {old}")
    recorded = None if "--no-decision" in argv else Path(value(argv, "--recorded") or RECORDING)
    sets = [Path(argv[i + 1]) for i, flag in enumerate(argv[:-1]) if flag == "--set"]
    for folder in sets:
        if not folder.is_dir():
            raise InputError(f"--set {folder}: no such folder (it holds catalog*.jsonl and requests*.jsonl)")
        folder_sets(folder)  # a folder without sets says so before any table
    return k, old, chooser_of(recorded), sets


def folder_tables(folder: Path, k: int, old: Path | None, chooser) -> None:
    """Print a table for each request set of a folder, each on its catalog."""
    made: dict[Path, list[Words]] = {}
    for catalog, path in folder_sets(folder):
        tools, groups = folder_tools(catalog)
        if catalog not in made:
            made[catalog] = rankings(tools, groups, old, chooser)
        requests = requests_of(path, set(made[catalog][0].index.names))
        title = f"{folder.name}/{path.name} ({len(requests)} requests) on {catalog.name} ({len(tools)} tools), k = {k}"
        print(table(title, requests, made[catalog], k) + "\n", flush=True)
