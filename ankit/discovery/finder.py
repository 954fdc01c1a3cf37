"""find_tools: what a query activates (find) and the tool the model calls, whose description embeds the catalog."""

import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

from ankit.discovery.catalog import Catalog, catalog_text
from ankit.wording import first_sentence
from ankit.discovery.decision import Decision, chosen_hits
from ankit.discovery.index import GroupHit, Index
from ankit.records import ToolSpec
from ankit.discovery.parts import spec_size
from ankit.discovery.synonyms import is_verb
from ankit.discovery.terms import GENERIC_VERBS, clauses, name_key, phrase_terms, stem, terms
from ankit.codemode.stubs import call_form, stubs
from ankit.tooling.tool import Tool

CLOSE = 0.6  # groups scoring at least this share of the best are listed as candidates
TIED = 0.8  # ... and at least this share are activated with the best (three groups at most)
NEAR = 0.8  # a group's tools scoring at least this share of its best tool load with it (close siblings)
MAX_ACTIVATED = 3
MAX_LISTED = 5
MAX_NAMES = 12  # tool names listed per loaded group
MAX_REST = 8  # names of the rest of decision mode's top listed in its answer
MAX_PHRASINGS = 4  # other phrasings of the task read from one find_tools call
MAX_PART_GROUPS = 5  # groups a request of several parts may load from (its best tools' and one per part)
PART_BYTES = 6000  # schema bytes the best tools of a request's parts may add to what the whole request loads
CATALOG_WORDS = {"", "list", "all", "catalog", "tools", "groups", "*", "?", "help"}
_SEPARATORS = re.compile(r"[,\s]+")
_GENERIC = frozenset(stem(w) for w in GENERIC_VERBS)
# a request asking about something rather than for a change: its read-only tools come first
_QUESTION = re.compile(r"(who|what|which|where|when|why|how|is|are|was|were|does|did|has|have)(n['’]t)?\b",
                       re.IGNORECASE)


@dataclass
class Outcome:
    """What a find_tools query found: kind is catalog, exact, winner, close or nothing; activate the groups it
    loads from, tools the tools it loads of each (a group left out: all of it); mode is how it was ranked
    (words, or decision: the model's choice) and fallback_reason why decision mode was not used."""

    kind: str
    activate: list[str] = field(default_factory=list)
    hits: list[GroupHit] = field(default_factory=list)
    mode: str = "words"
    fallback_reason: str = ""
    tools: dict[str, list[str]] = field(default_factory=dict)
    decision: Decision | None = None  # the model's choice behind a decision-mode outcome


_KEYS: "weakref.WeakKeyDictionary[Catalog, dict[str, tuple[str, str]]]" = weakref.WeakKeyDictionary()


def _name_keys(catalog: Catalog) -> dict[str, tuple[str, str]]:
    """Every way to name a group or a tool, with case and separators ignored, to (group, tool or ""): a group's
    id first, then a tool's name, then the last part of a group's id (made once per catalog)."""
    if catalog not in _KEYS:
        by_key: dict[str, tuple[str, str]] = {}
        for group in catalog.groups.values():
            by_key[name_key(group.id.split(":")[-1])] = (group.id, "")
        for name in catalog.tools:
            by_key[name.lower()] = by_key[name_key(name)] = (catalog.group_of(name) or name, name)
        for group in catalog.groups.values():
            by_key[group.id.lower()] = by_key[name_key(group.id)] = (group.id, "")
        _KEYS[catalog] = by_key
    return _KEYS[catalog]


def _exact(catalog: Catalog, query: str) -> Outcome | None:
    """Groups and tools named by the query, every word a tool name or group id ('git_log', 'web search',
    'git, web'): a group named loads whole, a tool named loads without its siblings."""
    by_key = _name_keys(catalog)
    whole = query.strip().strip("`'\"").strip()
    parts = catalog.parts_of(whole) if whole in catalog.split else []
    if parts:  # an oversized group named whole: its parts
        return Outcome("exact", parts)
    pieces = [p.strip("`'\"") for p in _SEPARATORS.split(whole) if p.strip("`'\"")]
    if whole.lower() in by_key or name_key(whole) in by_key:
        named = [by_key.get(whole.lower()) or by_key[name_key(whole)]]
    elif len(pieces) > 1 and all(p.lower() in by_key for p in pieces):
        named = [by_key[p.lower()] for p in pieces]
    else:
        return None
    groups = list(dict.fromkeys(g for g, _ in named))[:MAX_LISTED]
    wholes = {g for g, tool in named if not tool or tool == g}  # an ungrouped tool is its own group
    tools = {g: with_needs(catalog, g, [t for h, t in named if h == g]) for g in groups if g not in wholes}
    return Outcome("exact", groups, tools=tools)


def group_vocabulary(index: Index, group_id: str) -> set[str]:
    """Every term of a group: its tools' search fields (and those of the bundled tools they stand in for), its id."""
    found = set(phrase_terms(group_id.split(":")[-1]))
    group = index.catalog.groups.get(group_id)
    names = set(group.tools if group else ())
    names.update(bundled for server, bundled in index.doubles() if server in names)  # one answer, one vocabulary
    for name in names:
        if name in index.catalog.tools:
            found.update(*index.fields(name).values())
    return found


def telling_match(index: Index, query: str, group_id: str) -> bool:
    """Whether the group shares a query term that is not a generic verb ('find', 'show', ...)."""
    vocabulary = group_vocabulary(index, group_id)
    telling = [t for t in terms(query) if t not in _GENERIC]
    return any(t in vocabulary or not vocabulary.isdisjoint(index.expansions(t)) for t in telling)


def find(index: Index, query: str, phrasings: list[str] | None = None,
         decide: Callable[[Index, str], Decision] | None = None) -> Outcome:
    """Decide what a find_tools query activates; other phrasings of the same task count by their best evidence.
    With decide (decision mode), the model's choice among the lexical top tools ranks them, unless it falls back."""
    query = query if isinstance(query, str) else ""
    also = [p for p in phrasings or [] if isinstance(p, str) and p.strip()][:MAX_PHRASINGS]
    if query.strip().strip("`'\"").lower() in CATALOG_WORDS:
        return Outcome("catalog")
    named = _exact(index.catalog, query)
    if named:
        hits = {h.group: h for h in index.search_groups(query)}
        named.hits = [hits.get(g) or GroupHit(g, 0.0, []) for g in named.activate]
        return named
    decision = decide(index, query) if decide is not None else None
    if decision is not None and decision.mode == "decision":
        outcome = decided(index, query, decision)
    else:
        outcome = _by_words(index, query, also)
        outcome.fallback_reason = decision.fallback_reason if decision is not None else ""
    question = is_question(query)
    outcome.tools = {h.group: siblings(index.catalog, h, question) for h in outcome.hits if h.group in outcome.activate}
    if outcome.kind in ("winner", "close"):
        with_parts(index, query, outcome)
    return outcome


def request_parts(query: str) -> list[str]:
    """A request's parts: its clauses, split again at a comma before a verb ('show the commits, create a
    branch, commit' is three; 'read a, b and c' stays one)."""
    pieces = []
    for clause in clauses(query):
        for piece in re.split(r",\s+", clause):
            first = terms(piece.split()[0]) if piece.split() else []
            if pieces and pieces[-1][1] == clause and not (first and is_verb(first[0])):
                pieces[-1] = (f"{pieces[-1][0]}, {piece}", clause)
            else:
                pieces.append((piece, clause))
    return [piece for piece, _ in pieces if piece.strip()]


def with_parts(index: Index, query: str, outcome: Outcome) -> None:
    """A request of several parts also loads the best tool of each part ('..., create a branch, commit' loads
    git_commit beside the log and branch tools), within PART_BYTES and MAX_PART_GROUPS."""
    pieces = request_parts(query)
    if len(pieces) < 2:
        return
    catalog, room = index.catalog, PART_BYTES
    for piece in pieces:
        best = index.rank_tools(piece, limit=1)
        name = best[0][0] if best and best[0][1] > 0 else ""
        group = catalog.group_of(name) or name
        if not name or group not in catalog.groups or catalog.groups[group].core or not telling_match(index, piece, group):
            continue
        known = outcome.tools.get(group)
        if group in outcome.activate and (not known or name in known):
            continue  # the whole group, or this tool, loads already
        added = with_needs(catalog, group, [name])
        size = sum(spec_size(catalog.tools[n]) for n in added if n in catalog.tools)
        if size > room or group not in outcome.activate and len(outcome.activate) >= MAX_PART_GROUPS:
            continue
        room -= size
        if group not in outcome.activate:
            outcome.activate.append(group)
            outcome.hits.append(next((h for h in index.search_groups(piece) if h.group == group), GroupHit(group, 0.0)))
        outcome.tools[group] = list(dict.fromkeys([*(known or []), *added]))


def is_question(query: str) -> bool:
    """Whether a request asks about something (who/what/which/is/are/does..., or ends with '?')."""
    return query.rstrip().endswith("?") or bool(_QUESTION.match(query.strip()))


def read_only(tool: Tool | None) -> bool:
    """Whether a tool declares that it only reads (effects = ["read"])."""
    return tool is not None and tool.declared_effects() == {"read"}


def siblings(catalog: Catalog, hit: GroupHit, question: bool = False, share: float = NEAR) -> list[str]:
    """What a search loads of a group: its best tool and the tools scoring at least `share` of it, best first,
    then the tools they need (the group's [needs]). A question also loads the read-only tools scoring at least
    CLOSE of the best, and puts read-only ones first."""
    scored = sorted(zip(hit.tools, hit.scores), key=lambda pair: -pair[1])
    if not scored or scored[0][1] <= 0:
        return []
    top = scored[0][1]
    near = [name for name, score in scored if score >= share * top
            or question and score >= CLOSE * top and read_only(catalog.tools.get(name))][:MAX_NAMES]
    near = with_needs(catalog, hit.group, near)
    return sorted(near, key=lambda name: not read_only(catalog.tools.get(name))) if question else near


def with_needs(catalog: Catalog, group_id: str, names: list[str]) -> list[str]:
    """These tools of a group, then those they are no use without (its [needs])."""
    group = catalog.groups.get(group_id)
    if group is None:
        return list(names)
    needed = [n for name in names for n in group.needs.get(name, []) if n in group.tools]
    return list(dict.fromkeys([*names, *needed]))


def decided(index: Index, query: str, decision: Decision) -> Outcome:
    """What the model's choice activates: the group of its best tool, and those as likely (three at most); after
    "none fits", the group it chose, its tools as the words rank them within it."""
    ranked = chosen_hits(index, query, decision)[:MAX_LISTED]
    if not ranked:
        return Outcome("nothing", mode="decision", decision=decision)
    tied = [h.group for h in ranked if h.score >= TIED * ranked[0].score][:MAX_ACTIVATED]
    return Outcome("winner" if len(ranked) == 1 else "close", tied, ranked, mode="decision", decision=decision)


def _by_words(index: Index, query: str, also: list[str]) -> Outcome:
    """The lexical ranking's outcome."""
    said = " ".join([query, *also])
    found = index.search_groups(query, also)[: 2 * MAX_LISTED]
    hits = [h for h in found if telling_match(index, said, h.group)]
    if not hits or hits[0].score <= 0:
        return Outcome("nothing")
    top = hits[0].score
    close = [h for h in hits[:MAX_LISTED] if h.score >= CLOSE * top]
    if len(close) == 1:
        return Outcome("winner", [hits[0].group], close)
    tied = [h.group for h in close if h.score >= TIED * top][:MAX_ACTIVATED]
    return Outcome("close", tied, close)


def effect(tool: Tool | None) -> str:
    """What calling a tool does, as find_tools marks it: read-only, asks first, or nothing said."""
    if tool is None:
        return ""
    if tool.read_only and not callable(tool.needs_approval):
        return "read-only"
    return "asks first" if tool.needs_approval or tool.lasting else ""


def _names(catalog: Catalog, group_id: str, best: list[str], offered: set[str]) -> str:
    """The group's matched tools first, each with its effect, then in one line what else it holds: loaded too,
    or not loaded and how to load it."""
    group = catalog.groups.get(group_id)
    names = list(group.tools) if group else []
    matched = [n for n in best if n in names][:MAX_NAMES] or names[:MAX_NAMES]
    marked = [f"{n} ({effect(catalog.tools.get(n))})" if effect(catalog.tools.get(n)) else n for n in matched]
    rest = [n for n in names if n not in matched]
    waiting = [n for n in rest if n not in offered]
    if waiting:
        return (", ".join(marked) + f"; not loaded yet: {_listed(waiting)} (find_tools loads them by name, "
                f"or \"{group_id}\" for all)")
    return ", ".join(marked) + (f"; also in {group_id}: {_listed(rest)}" if rest else "")


def _listed(names: list[str]) -> str:
    extra = len(names) - MAX_NAMES
    return ", ".join(names[:MAX_NAMES]) + (f", and {extra} more" if extra > 0 else "")


def loads(outcome: Outcome, catalog: Catalog) -> list[str]:
    """The tools an outcome loads: the tools picked of each group, or the whole group."""
    found = [n for g in outcome.activate for n in (outcome.tools.get(g) or catalog.members(g))]
    return list(dict.fromkeys(found))


def units(outcome: Outcome, catalog: Catalog, offered: set[str]) -> list[str]:
    """What to activate for an outcome: a group whose tools it all loads (or all but those offered) as the
    group, otherwise the picked tools one by one; nothing for tools offered already."""
    found: list[str] = []
    for group in outcome.activate:
        members = catalog.members(group)
        picked = outcome.tools.get(group) or members
        if members and set(members) <= offered:
            continue
        whole = not outcome.tools.get(group) or set(members) <= set(picked) | offered
        found += [group] if whole or not members else [n for n in picked if n not in offered]
    return found


def offered_names(catalog: Catalog, loaded: list[str]) -> set[str]:
    """The tools loaded units offer (groups whole, tools loaded alone)."""
    return {n for unit in loaded for n in catalog.members(unit)}


def doubles(index: Index, groups: list[str]) -> list[tuple[str, str]]:
    """(server tool, bundled tool) pairs doing the same job among these groups' tools: the server's is preferred."""
    catalog = index.catalog
    names = {n for g in groups if g in catalog.groups for n in catalog.groups[g].tools}
    return sorted((server, bundled) for server, bundled in index.doubles() if server in names or bundled in names)


def _prefer_line(pairs: list[tuple[str, str]]) -> list[str]:
    said = ", ".join(f"{server} over {bundled}" for server, bundled in pairs[:MAX_NAMES])
    return [f"Same job, prefer the configured server's tool: {said}."] if pairs else []


def code_text(outcome: Outcome, catalog: Catalog, code: str) -> str:
    """find_tools' answer in code mode, one description per tool: with `only` (no schemas sent) the found tools
    as Python stubs with their whole descriptions; with `on` (their schemas are sent) how a program calls each
    and what it gets back."""
    specs = [catalog.tools[n].spec() for n in loads(outcome, catalog) if n in catalog.tools]
    if not specs:
        return ""
    if code == "only":
        return ("In run_code, `import tools` gives each of them as a function (it returns the tool's value, and "
                "raises tools.ToolError on failure):\n```python\n" + stubs(specs, whole=True) + "\n```")
    return ("In run_code, as functions of `import tools` (arguments in this order, or by name):\n"
            + "\n".join(call_form(s) for s in specs))


def result_text(outcome: Outcome, catalog: Catalog, newly: list[str], loaded: list[str], query: str,
                pairs: list[tuple[str, str]] | None = None, code: str = "off") -> str:
    """The text find_tools returns: what it activated, what was already loaded, what else those groups hold,
    other candidates, which of two tools doing the same job to prefer, and in code mode the found tools' Python
    stubs. Whether an activated group fits the next request is the round's plan to say, once, in that request."""
    if outcome.kind == "catalog":
        return _catalog_answer(catalog, loaded, "Tool groups you can load")
    if outcome.kind == "nothing":
        shown = " ".join(query.split())[:80]
        return _catalog_answer(catalog, loaded, f"Nothing matched {shown!r}, so nothing was loaded. Tool groups") + (
            _mode_line(outcome))
    best = {h.group: h.tools for h in outcome.hits}
    offered = offered_names(catalog, [*loaded, *newly])
    fresh = offered_names(catalog, newly) & set(loads(outcome, catalog))
    lines = [_line(catalog, g, outcome.tools.get(g) or best.get(g, []), fresh, offered) for g in outcome.activate]
    lines += _prefer_line(pairs or [])
    if newly and code != "only":
        lines.append("These tools can be called from your next step.")
    others = [h for h in outcome.hits if h.group not in outcome.activate and h.group not in loaded]
    if others:
        lines.append("Other close matches (call find_tools with a group id to load one):")
        groups = catalog.groups
        lines += [f"- {h.group}: {first_sentence(groups[h.group].summary)}" for h in others if h.group in groups]
    lines += _rest_line(outcome, catalog, offered)
    stubs_text = code_text(outcome, catalog, code) if code != "off" else ""
    return "\n".join(lines + ([stubs_text] if stubs_text else [])) + _mode_line(outcome)


def _rest_line(outcome: Outcome, catalog: Catalog, offered: set[str]) -> list[str]:
    """In decision mode, the rest of the words' top that nothing loaded: the model's other choices first."""
    said = outcome.decision
    if said is not None and said.group and not said.ranked:
        others = [g for g, group in catalog.groups.items() if g != said.group and not group.core]
        return [f"No tool of the words' top fit; the other tool groups (find_tools loads one by its id): "
                f"{_listed(others)}."] if others else []
    rest = [n for n in said.unchosen() if n not in offered] if said else []
    return [f"Also among the top (find_tools loads them by name): {_listed(rest[:MAX_REST])}."] if rest else []


def _line(catalog: Catalog, group_id: str, shown: list[str], fresh: set[str], offered: set[str]) -> str:
    """One found group: Loaded (or Already loaded) GROUP, its found tools, then what else it holds."""
    state = "Loaded" if fresh & set(catalog.members(group_id)) else "Already loaded"
    return f"{state} {group_id}: {_names(catalog, group_id, shown, offered)}."


def _mode_line(outcome: Outcome) -> str:
    """How the answer was ranked, when decision mode was asked for: what the model was asked, or why not."""
    if outcome.mode == "decision" and outcome.decision is not None:
        return f"\n(mode: decision: {outcome.decision.said()})"
    return f"\n(mode: words; fallback_reason: {outcome.fallback_reason})" if outcome.fallback_reason else ""


def _catalog_answer(catalog: Catalog, loaded: list[str], heading: str) -> str:
    listing = catalog_text(catalog, "first") or "(no other groups)"
    text = f"{heading} (call find_tools with a group id, a tool name or the task in a few words):\n{listing}"
    return text + (f"\nAlready loaded: {', '.join(loaded)}." if loaded else "")


BASE_DESCRIPTION = "Find and load the tools a task needs, by a few words about the task, a group id or a tool name."
# Only the spec carries the guidance and the catalog: the index reads the plain description, so find_tools
# itself never matches a query for "commits" or "web pages".
GUIDANCE = (
    "Describe the task in a few words (\"show recent commits\", \"fetch a web page\"); the best matching "
    "tools are loaded and can be called from your next step, and the answer names what else their groups "
    "hold: name those tools, or a group id, to load them. Loaded tools stay loaded. An empty query lists the "
    "groups. In phrasings, say the same task again as a tool's author would name "
    "it, with the action and the object (\"delete pod\", \"create pull request\", \"forward port\")."
)
PARAMETERS = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": "What you want to do, a group id or a tool name; empty to list the groups",
        },
        "phrasings": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Optional: the same task in a tool author's words, action and object (up to 4)",
        },
    },
    "required": ["query"],
    "additionalProperties": False,
}


def user_line(outcome: Outcome, catalog: Catalog, newly: list[str], before: set[str] = frozenset()) -> str:
    """What the user sees of a find_tools call: "loaded git (7 tools)", "loaded run_command of shell (1 tool)",
    "nothing matched", ...; the count is of the tools not offered before."""
    if outcome.kind == "catalog":
        return "listed the tool groups"
    if outcome.kind == "nothing":
        return "nothing matched; nothing loaded"
    if not newly:
        return f"already loaded: {', '.join(outcome.activate)}"
    alone: dict[str, list[str]] = {}  # group -> the tools loaded without it ([] for the group itself)
    for unit in newly:
        if unit in catalog.groups:
            alone.setdefault(unit, [])
        else:
            alone.setdefault(catalog.group_of(unit) or unit, []).append(unit)
    said = [f"{', '.join(tools)} of {group}" if tools else group for group, tools in alone.items()]
    count = len(offered_names(catalog, newly) - before)
    return f"loaded {'; '.join(said)} ({count} tool{'' if count == 1 else 's'})"


def describe(catalog: Catalog | None, mode: str, loaded: list[str] | None = None) -> str:
    """find_tools' description: the base text and the generated one-line-per-group catalog of the groups not
    loaded yet."""
    listing = catalog_text(catalog, mode, set(loaded or ())) if catalog is not None else ""
    text = f"{BASE_DESCRIPTION} {GUIDANCE}"
    return f"{text}\nGroups not loaded yet:\n{listing}" if listing else text


@dataclass
class FinderTool(Tool):
    """find_tools: its spec carries the catalog of the current index; its description stays plain for search."""

    index_of: Callable[[], Index | None] = field(default=lambda: None)  # the session's index as it is now
    mode: str = "first"
    loaded: Callable[[], list[str]] = field(default=list)  # the groups whose tools are sent already
    searchable = False  # the index leaves find_tools out: a query never needs to find the finder

    def spec(self) -> ToolSpec:
        """The part the model sees, with the catalog of the groups not loaded, as it is now."""
        index = self.index_of()
        text = describe(index.catalog if index else None, self.mode, self.loaded())
        return ToolSpec(self.name, text, self.parameters, self.group)


def make_find_tools(
    index_getter: Callable[[], Index | None],
    activate: Callable[[list[str]], list[str]],
    active: Callable[[], list[str]],
    mode: str = "first",
    decide: Callable[[Index, str], Decision] | None = None,
    code: str = "off",
) -> Tool:
    """Build the find_tools tool; activate(groups) returns the groups newly activated, active() those loaded.
    find_tools only activates: what reaches the model, and when, is the round's plan and the provider's."""

    def run(args: dict, ctx=None) -> str:
        index = index_getter()
        if index is None:
            return "the tool catalog is still loading; try again in a moment"
        query = args.get("query", "") if isinstance(args, dict) else ""
        query = query if isinstance(query, str) else ""
        phrasings = args.get("phrasings") if isinstance(args, dict) else None
        outcome = find(index, query, phrasings if isinstance(phrasings, list) else None, decide)
        core = [g.id for g in index.catalog.groups.values() if g.core]
        loaded = list(dict.fromkeys([*active(), *core]))
        before = offered_names(index.catalog, loaded)
        wanted = units(outcome, index.catalog, before)
        newly = activate(wanted) if wanted else []
        if hasattr(ctx, "summarize"):
            ctx.summarize(user_line(outcome, index.catalog, newly, before))
        return result_text(outcome, index.catalog, newly, loaded, query, doubles(index, outcome.activate), code)

    return FinderTool("find_tools", BASE_DESCRIPTION, PARAMETERS, run, group="core", read_only=True, source="ankit",
                      effects=frozenset({"read"}), index_of=index_getter, mode=mode, loaded=active)
