"""Discovery with the model in the loop: score the first find_tools call a model makes for each fleet request.

usage: python3 tests/bench/bench_model_calls.py --calls FILE [FILE ...] [--no-phrases]
       python3 tests/bench/bench_model_calls.py --view
       python3 tests/bench/bench_model_calls.py --ask URL --model NAME [--provider openai|responses|anthropic]
                                                [--key-env VAR] --queries FILE --out FILE
In a session the user's words never reach the search as typed: the model reads find_tools' description (the
groups of the session, one line each) and writes the call, often a group id or the task in a tool author's
words, with phrasings. This scores such calls on the fleet's catalog (tests/bench/fleet/catalog.jsonl), beside
the same requests as typed, and beside BM25 given the same text (the catalog's phrases too; --no-phrases
leaves them out of both).

--calls: JSON lines {"id": "SET:ID", "query": ..., "phrasings": [...]} for a find_tools call, or {"id": ...,
"core": TOOL} when the model would call an always-loaded tool directly (--ask writes {"id": ..., "answer": TEXT}
when the model called no tool: a miss). SET names the request set
(tests/bench/fleet/user_requests_SET.jsonl) and ID a request in it. A core answer counts as the tool it is (or the
server tool that stands in for it: read_file for the filesystem server's read_file).
--view: what the model sees at the start of a fleet session (the system prompt's opening, the core tools and
find_tools' description), the text a model (or a person playing one) writes the calls from.
--ask: ask a model server for the calls: one request per line of --queries with ankit's own system prompt and
tools, through ankit's provider of that wire format; writes --out in the --calls format (SET from the file name).
Not run in CI: tests never reach a model. Decision mode (the model ranking the words' top tools):
tests/bench/bench_decision.py.
"""

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from dataclasses import replace  # noqa: E402

from ankit.discovery.catalog import Catalog, build_catalog, described  # noqa: E402
from ankit.discovery.evaluation import InputError, read_catalog  # noqa: E402
from ankit.discovery.finder import PARAMETERS, describe, find  # noqa: E402
from ankit.discovery.index import Index  # noqa: E402
from ankit.records import Message, Request, TextDelta, ToolCallDone, ToolSpec  # noqa: E402
from ankit.turn.prompt import system_prompt  # noqa: E402
from tests.bench.bm25_baseline import BM25  # noqa: E402

FLEET = Path(__file__).resolve().parent / "fleet"
K = 5


def fleet_index(phrases: bool = True) -> tuple[Catalog, Index, BM25]:
    """The fleet's catalog (with the phrases a model wrote for the servers' tools, or without), its index and
    BM25 over the same searchable tools, given the same text (the phrases in each description)."""
    tools, groups = read_catalog(FLEET / "catalog.jsonl")
    tools = tools if phrases else [replace(t, phrases=[]) for t in tools]
    catalog, _ = build_catalog(tools, groups)
    index = Index(catalog, tools)
    return catalog, index, BM25([replace(t, description=described(t)) for t in tools if t.name in set(index.names)])


def core_tools(catalog: Catalog) -> list[str]:
    """The always-loaded tools, in catalog order."""
    return [name for group in catalog.groups.values() if group.core for name in group.tools]


def session_specs(catalog: Catalog) -> list[ToolSpec]:
    """The tools a fleet session offers in its first round: the core tools, then find_tools."""
    specs = [ToolSpec(n, catalog.tools[n].description, catalog.tools[n].parameters) for n in core_tools(catalog)]
    return specs + [ToolSpec("find_tools", describe(catalog, "first"), PARAMETERS)]


def view(catalog: Catalog) -> str:
    """The session's opening as the model reads it, as Markdown."""
    lines = ["# What the model sees", "", "## System prompt (opening)", "", system_prompt(Path("~/project"), ""), "",
             "## Tools", ""]
    for spec in session_specs(catalog):
        lines += [f"### {spec.name}", "", spec.description, "", "```json", json.dumps(spec.parameters), "```", ""]
    return "\n".join(lines)


def read_calls(paths: list[Path]) -> dict[str, dict]:
    """Calls by request id; InputError for a line that is no call."""
    calls = {}
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            call = json.loads(line)
            if not isinstance(call, dict) or ":" not in str(call.get("id", "")) or not any(
                    isinstance(call.get(key), str) for key in ("query", "core", "answer")):
                raise InputError(f"{path}:{number}: a call needs an id 'SET:ID' and a query, a core tool or an answer")
            calls[call["id"]] = call
    return calls


def share(gold: set[str], names: list[str]) -> float:
    """The share of the gold tools among names."""
    return len(gold & set(names)) / len(gold)


def loaded(catalog: Catalog, index: Index, text: str, phrasings: list[str]) -> list[str]:
    """What find_tools loads for a call: the tools of the groups it activates, the core tools too."""
    groups = find(index, text, phrasings).activate
    return core_tools(catalog) + [n for g in groups if g in catalog.groups for n in catalog.groups[g].tools]


def score(request: dict, call: dict, catalog: Catalog, index: Index, bm25: BM25) -> list[float]:
    """recall@1, recall@5 and loaded for ankit and recall@1, recall@5 for BM25: as typed, then the model's call."""
    gold, typed = set(request["gold"]), request["query"]
    ranked = [name for name, _ in index.rank_tools(typed, K)]
    row = [share(gold, ranked[:1]), share(gold, ranked), share(gold, loaded(catalog, index, typed, [])),
           share(gold, bm25.rank(typed)[:1]), share(gold, bm25.rank(typed)[:K])]
    if "query" not in call:  # a core tool called directly, or no call at all (an answer in words)
        answer = [index.stand_in(call["core"])] if "core" in call else []
        return row + [share(gold, answer)] * 3 + [share(gold, answer)] * 2
    phrasings = [p for p in call.get("phrasings") or [] if isinstance(p, str)]
    ranked = [name for name, _ in index.rank_phrasings([call["query"], *phrasings], K)]
    other = bm25.rank(" ".join([call["query"], *phrasings]))
    return row + [share(gold, ranked[:1]), share(gold, ranked),
                  share(gold, loaded(catalog, index, call["query"], phrasings)),
                  share(gold, other[:1]), share(gold, other[:K])]


def report(calls: dict[str, dict], phrases: bool = True) -> str:
    """One line per request set: the requests as typed, then the model's calls."""
    catalog, index, bm25 = fleet_index(phrases)
    head = (f"{'set':<9} {'reqs':>4} {'direct':>6} | as typed: ankit r@1  r@5 loaded  BM25 r@1  r@5 | "
            f"model's call: ankit r@1  r@5 loaded  BM25 r@1  r@5")
    lines = [head]
    for name in sorted({key.split(":", 1)[0] for key in calls}):
        path = FLEET / f"user_requests_{name}.jsonl"
        if not path.is_file():
            raise InputError(f"no request set {path.name} for calls '{name}:...'")
        requests = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        pairs = [(r, calls[f"{name}:{r['id']}"]) for r in requests if f"{name}:{r['id']}" in calls]
        rows = [score(r, c, catalog, index, bm25) for r, c in pairs]
        mean = [sum(row[i] for row in rows) / len(rows) for i in range(10)]
        cores = sum("query" not in c for _, c in pairs)
        lines.append(f"{name:<9} {len(rows):>4} {cores:>6} |           {mean[0]:.3f} {mean[1]:.3f}  {mean[2]:.3f}"
                     f"     {mean[3]:.3f} {mean[4]:.3f} |               {mean[5]:.3f} {mean[6]:.3f}  "
                     f"{mean[7]:.3f}     {mean[8]:.3f} {mean[9]:.3f}")
    return "\n".join(lines)


def ask(argv: list[str]) -> int:
    """Ask a model server for the first call of every request in --queries; write them to --out."""
    from ankit.providers import ProviderSettings, make_provider

    def value(flag: str, default: str | None = None) -> str:
        if flag in argv and argv.index(flag) + 1 < len(argv):
            return argv[argv.index(flag) + 1]
        if default is None:
            raise InputError(f"--ask needs {flag}")
        return default

    kind = value("--provider", "openai")
    settings = ProviderSettings(kind, kind, value("--ask"), value("--model"),
                                api_key=os.environ.get(value("--key-env", "OPENAI_API_KEY"), ""), native=False)
    provider, (catalog, _, _) = make_provider(settings), fleet_index()
    specs, system = session_specs(catalog), system_prompt(Path("~/project"), "")
    queries = Path(value("--queries"))
    name = queries.stem.removeprefix("user_requests_")
    written = []
    for line in queries.read_text(encoding="utf-8").splitlines():
        if line.strip():
            request = json.loads(line)
            asked = Request(system, [Message("user", request["query"])], specs, max_tokens=400)
            events = list(provider.stream(asked))
            first = next((e.call for e in events if isinstance(e, ToolCallDone)), None)
            said = "".join(e.text for e in events if isinstance(e, TextDelta))
            written.append(json.dumps({"id": f"{name}:{request['id']}", **_as_call(first, said)}))
            print(written[-1], flush=True)
    Path(value("--out")).write_text("\n".join(written) + "\n", encoding="utf-8")
    return 0


def _as_call(call, said: str) -> dict:
    """A model's first tool call in the --calls format; no call at all: the start of what it answered instead."""
    if call is None:
        return {"answer": " ".join(said.split())[:200]}
    try:
        args = json.loads(call.arguments or "{}")
    except json.JSONDecodeError:
        args = {}
    args = args if isinstance(args, dict) else {}
    if call.name != "find_tools":
        return {"core": call.name}
    phrasings = args.get("phrasings")
    return {"query": str(args.get("query") or ""),
            "phrasings": [p for p in phrasings if isinstance(p, str)] if isinstance(phrasings, list) else []}


def main(argv: list[str]) -> int:
    """Print the figures, the view, or ask a model."""
    if "--view" in argv:
        print(view(fleet_index()[0]))
        return 0
    if "--ask" in argv:
        return ask(argv)
    if "--calls" not in argv:
        print(__doc__.splitlines()[2])
        return 2
    paths = [Path(p) for p in argv[argv.index("--calls") + 1:] if not p.startswith("--")]
    print(report(read_calls(paths), "--no-phrases" not in argv))
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main(sys.argv[1:]))
    except (InputError, json.JSONDecodeError, OSError) as exc:
        raise SystemExit(f"bench_model_calls: {exc}") from None
