"""Discovery with the model in the loop: score the first find_tools call a model makes for each fleet request.

usage: python3 tests/bench/bench_model_calls.py --calls FILE [FILE ...] [--set DIR ...] [--old TREE]
                                                [--recorded FILE | --no-decision] [--k 5]
       python3 tests/bench/bench_model_calls.py --view
       python3 tests/bench/bench_model_calls.py --ask URL --model NAME [--provider openai|responses|anthropic]
                                                [--key-env VAR] --queries FILE --out FILE
In a session the user's words never reach the search as typed: the model reads find_tools' description (the
groups of the session, one line each) and writes the call, often a group id or the task in a tool author's
words, with phrasings. This scores such calls on the fleet's catalog (tests/bench/fleet/catalog.jsonl, the
bundled tools with their groups' phrases), one table per request set: each ranking of tests/bench/compare.py
(ankit's with every phrase, without the bundled tools' and without any; BM25 given the same text; with --old
TREE an earlier checkout's; decision mode replayed from tests/bench/fleet/decision_smollm2.jsonl or
--recorded FILE) on the requests as typed ("typed:"), then each but decision mode on the model's calls ("call:").

--calls: JSON lines {"id": "SET:ID", "query": ..., "phrasings": [...]} for a find_tools call, or {"id": ...,
"core": TOOL} when the model would call an always-loaded tool directly (--ask writes {"id": ..., "answer": TEXT}
when the model called no tool: a miss). SET names the request set (tests/bench/fleet/user_requests_SET.jsonl,
or requests_SET.jsonl in a --set DIR, ranked on that folder's catalog) and ID a request in it. A core answer
counts as the tool it is (or the server tool that stands in for it: read_file for the filesystem server's
read_file), for every ranking.
--view: what the model sees at the start of a fleet session (the system prompt's opening, the core tools and
find_tools' description), the text a model (or a person playing one) writes the calls from.
--ask: ask a model server for the calls: one request per line of --queries with ankit's own system prompt and
tools, through ankit's provider of that wire format; writes --out in the --calls format (SET from the file name).
Not run in CI: tests never reach a model. Decision mode in detail: tests/bench/bench_decision.py.
"""

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from ankit.discovery.catalog import Catalog  # noqa: E402
from ankit.discovery.evaluation import InputError  # noqa: E402
from ankit.discovery.finder import PARAMETERS, describe  # noqa: E402
from ankit.records import Message, Request as Asked, TextDelta, ToolCallDone, ToolSpec  # noqa: E402
from ankit.turn.prompt import system_prompt  # noqa: E402
from tests.bench.compare import (FLEET, K, Decided, Request, common, fleet_index, fleet_tools,  # noqa: E402,F401
                                 folder_sets, folder_tools, header, lines_of, rankings, share, value)


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


def source(name: str, sets: list[Path]) -> tuple[Path, Path | None]:
    """The request file of a calls' SET and its catalog (None: the fleet's)."""
    if (FLEET / f"user_requests_{name}.jsonl").is_file():
        return FLEET / f"user_requests_{name}.jsonl", None
    for folder in sets:
        for catalog, path in folder_sets(folder):
            if path.name == f"requests_{name}.jsonl":
                return path, catalog
    raise InputError(f"no request set user_requests_{name}.jsonl (or requests_{name}.jsonl in a --set folder) "
                     f"for calls '{name}:...'")


def paired(path: Path, name: str, calls: dict[str, dict], index) -> tuple[list[Request], list[Request]]:
    """The set's requests that have a call: as typed, and as the model's calls (a core tool called directly
    stands for its server's twin, if any; an answer in words finds nothing)."""
    typed, called = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        request = json.loads(line) if line.strip() else None
        call = calls.get(f"{name}:{request['id']}") if request else None
        if call is None:
            continue
        gold = set(request["gold"])
        typed.append(Request(gold, request["query"]))
        if "query" in call:
            called.append(Request(gold, call["query"], [p for p in call.get("phrasings") or [] if isinstance(p, str)]))
        else:
            called.append(Request(gold, "", fixed=[index.stand_in(call["core"])] if "core" in call else []))
    return typed, called


def report(calls: dict[str, dict], argv: list[str]) -> str:
    """One table per request set: every ranking on the requests as typed, then on the model's calls."""
    k, old, chooser, sets = common(argv)
    made: dict[Path | None, list] = {}
    tables = []
    for name in sorted({key.split(":", 1)[0] for key in calls}):
        path, catalog = source(name, sets)
        if catalog not in made:
            made[catalog] = rankings(*(folder_tools(catalog) if catalog else fleet_tools()), old, chooser)
        ranked = made[catalog]
        typed, called = paired(path, name, calls, ranked[0].index)
        direct = sum(r.fixed is not None for r in called)
        title = f"{name}: {len(typed)} requests with a call ({direct} without find_tools), k = {k}"
        searched = [r for r in ranked if not isinstance(r, Decided)]
        tables.append("\n".join([title, header(k), *lines_of(typed, ranked, k, "typed: "),
                                  *lines_of(called, searched, k, "call: ")]))
    return "\n\n".join(tables)


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
            asked = Asked(system, [Message("user", request["query"])], specs, max_tokens=400)
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
    after = argv[argv.index("--calls") + 1:]
    paths = [Path(p) for p in after[:next((i for i, p in enumerate(after) if p.startswith("--")), len(after))]]
    print(report(read_calls(paths), argv))
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main(sys.argv[1:]))
    except (InputError, json.JSONDecodeError, OSError) as exc:
        raise SystemExit(f"bench_model_calls: {exc}") from None
