"""Groups of tools: membership, metadata from group.toml (its tools' phrases too), summaries, and the search terms
derived from each tool."""

import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from ankit.discovery.parts import spec_size, split_group
from ankit.discovery.phrases import kept
from ankit.discovery.synonyms import is_verb
from ankit.discovery.terms import name_terms, split_name, stem, terms
from ankit.tooling.tool import Tool
from ankit.wording import first_sentence

METADATA_FILE = "group.toml"
CORE_GROUP = "core"  # the group of find_tools: always core, whatever its metadata says
CATALOG_MODES = ("names", "first", "full")
_SUMMARY_CAP = 160
_NAMES_CAP = 20  # tool names listed per group in the catalog text


@dataclass
class Rule:
    """A disambiguation rule: when all `when` words are in a query, `prefer` wins over `over`."""

    when: list[str]
    prefer: str
    over: list[str] = field(default_factory=list)
    reason: str = ""


@dataclass
class Group:
    """A group of tools found and activated together."""

    id: str
    summary: str = ""
    rules: list[Rule] = field(default_factory=list)
    core: bool = False
    tools: list[str] = field(default_factory=list)
    curated: bool = False  # True when the summary came from metadata rather than the tools
    parent: str = ""  # for a part of an oversized group: the group it was split from
    needs: dict[str, list[str]] = field(default_factory=dict)  # tool -> the tools it is no use without


@dataclass
class ToolTerms:
    """The search fields of one tool, stemmed: its own name's words, description, parameters, the phrases users
    type for it (a model's for a server's tool, its group.toml's for a tool file), and the server it comes from
    (mcp__SERVER__name)."""

    name: list[str]
    description: list[str]
    parameters: list[str]
    phrases: list[str] = field(default_factory=list)
    server: list[str] = field(default_factory=list)


def derive_terms(tool: Tool) -> ToolTerms:
    """Derive search terms from a tool's name, description, parameter names, descriptions and enums, phrases,
    and the server named in its name."""
    *prefix, own = tool.name.split("__") if tool.name.count("__") >= 2 else [tool.name]
    return ToolTerms(name_terms(own), terms(tool.description), terms(" ".join(_parameter_text(tool.parameters))),
                     terms(". ".join(tool.phrases)), name_terms(" ".join(prefix[1:])))


def described(tool: Tool) -> str:
    """A tool's description for search: the author's text, then the phrases users type for it."""
    return ". ".join([tool.description, *tool.phrases]) if tool.phrases else tool.description


def _parameter_text(schema, depth: int = 0) -> list[str]:
    if not isinstance(schema, dict) or depth > 3:
        return []
    pieces = []
    props = schema.get("properties")
    for key, sub in (props.items() if isinstance(props, dict) else []):
        pieces.append(" ".join(split_name(str(key))))
        if isinstance(sub, dict):
            pieces.append(str(sub.get("description", "")))
            for values in (sub.get("enum"), sub.get("examples"), [sub.get("default")], [sub.get("x-unit")]):
                if isinstance(values, list):  # values a request may carry: a currency code, a unit, an id
                    pieces.extend(str(v) for v in values[:20] if isinstance(v, (str, int, float)) and v != "")
            pieces.extend(_parameter_text(sub, depth + 1))
            pieces.extend(_parameter_text(sub.get("items"), depth + 1))
    return pieces


_HEADING = re.compile(r"^\s{0,3}(#{1,6}\s|={3,}\s*$|-{3,}\s*$)")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_BULLETS = re.compile(r"^\s*(?:[-*+>]|\d+[.)])\s+", re.MULTILINE)
_EMPHASIS = re.compile(r"\*\*|__|`+")  # taken out after the cut: a `?` inside code ends no sentence
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|[\x00-\x1f\x7f-\x9f]")  # escape sequences whole


def _cap(text: str) -> str:
    return text if len(text) <= _SUMMARY_CAP else text[: _SUMMARY_CAP - 1].rsplit(" ", 1)[0] + "…"


def clean_summary(text: str) -> str:
    """A catalog line from a description or a server's instructions: one sentence, no Markdown headings or
    markup, no control characters, capped."""
    lines = [ln for ln in text[:4000].replace("\r", "\n").split("\n") if not _HEADING.match(ln)]
    body = _BULLETS.sub("", _LINK.sub(r"\1", "\n".join(lines)))
    return _cap(_EMPHASIS.sub("", first_sentence(_CONTROL.sub(" ", body.strip("\n")))))


def _derived_summary(descriptions: list[str]) -> str:
    """A summary made from the tools' own descriptions: their first sentences joined, capped."""
    parts = [clean_summary(d) for d in descriptions if d.strip()]
    return _cap("; ".join(dict.fromkeys(p for p in parts if p)))


def words_summary(names: list[str], drop: set[str]) -> str:
    """What a set of tools does, from their names: the words all of them share, then the things they act on,
    most tools first, then their actions ('index: create, drop'; 'issue, pull request; create, get, list');
    the words in drop (the server's) left out."""
    own = [split_name(n.rsplit("__", 1)[-1]) for n in names]
    split = [[w for w in words if w not in drop and not w.isdigit()] or words for words in own]
    shared = [w for w in split[0] if all(w in words for words in split)] if len(split) > 1 else []
    found: tuple[dict[str, list[str]], dict[str, list[str]]] = ({}, {})  # stem -> the words said for it
    for said in ([w for w in words if w not in shared] for words in split):
        if len(said) > 1 and is_verb(stem(said[0])) and not said[0].endswith(("ion", "ions", "s")):
            found[1].setdefault(stem(said[0]), []).append(said[0])
            said = said[1:]
        if said:
            found[0].setdefault(" ".join(map(stem, said)), []).append(" ".join(said))
    ranked = [[min(d[k], key=len) for k in sorted(d, key=lambda k: (-len(d[k]), k))] for d in found]
    listed = "; ".join(", ".join(words) for words in ranked if words)
    return _cap(f"{' '.join(shared)}: {listed}" if shared and listed else " ".join(shared) or listed)


def _tells(summary: str, tools: list[Tool], drop: set[str]) -> bool:
    """Whether a server's own summary says what its tools do: a word of their names or descriptions beyond
    the server's name and 'MCP server' ('Audience: these instructions are for an LLM ...' tells nothing)."""
    said = {t for tool in tools for t in [*name_terms(tool.name), *terms(tool.description)]}
    return bool(said & set(terms(summary)) - {stem(w) for w in drop | {"mcp", "server"}})


class _Terms(dict):
    """Each tool's terms, derived when first asked for (listing the groups never needs them)."""

    def __init__(self, tools: dict[str, Tool]) -> None:
        super().__init__()
        self._tools = tools

    def __missing__(self, name: str) -> ToolTerms:
        if name not in self._tools:
            raise KeyError(name)
        self[name] = found = derive_terms(self._tools[name])
        return found

    def get(self, name: str, default=None):
        return self[name] if name in self._tools else default


class Catalog:
    """Every group with its tools, in a stable order (groups by id, tools by name), plus each tool's terms."""

    def __init__(self) -> None:
        self.groups: dict[str, Group] = {}
        self.tools: dict[str, Tool] = {}
        self.terms: dict[str, ToolTerms] = _Terms(self.tools)
        self.split: dict[str, Group] = {}  # oversized groups, by id, now present as their parts
        self.part_of: dict[str, str] = {}  # tool name -> the part of an oversized group it is in

    def add_tools(self, tools: list[Tool], meta: dict[str, dict] | None = None) -> list[str]:
        """Add tools (and metadata for their groups, e.g. from an MCP server); return one line per problem."""
        problems: list[str] = []
        for tool in tools:
            group_id = tool.group or tool.name
            group = self.groups.setdefault(group_id, Group(group_id))
            if tool.name in self.tools:  # a tool listed again (an MCP server re-listed): it may have moved
                old = self.groups.get(self.tools[tool.name].group or tool.name)
                if old and tool.name in old.tools:
                    old.tools.remove(tool.name)
            if tool.name not in group.tools:
                group.tools.append(tool.name)
            self.tools[tool.name] = tool
            self.terms.pop(tool.name, None)  # derived again when asked for
        for group_id, data in (meta or {}).items():
            group = self.groups.setdefault(group_id, Group(group_id))
            problems.extend(apply_metadata(group, data, f"metadata for group {group_id}"))
        self._finish()
        return problems

    def _finish(self) -> None:
        self.groups = {
            gid: g for gid, g in sorted(self.groups.items()) if g.tools or g.curated
        }
        for group in self.groups.values():
            group.core = group.core or group.id == CORE_GROUP
            group.tools.sort()  # the same order whatever the load order, so schema bytes stay stable
            served = _server_words(group.id)
            members = [self.tools[n] for n in group.tools]
            if served and members and not (group.curated and _tells(group.summary, members, served)):
                group.summary, group.curated = words_summary(group.tools, served), False
            elif not group.curated:
                group.summary = _derived_summary([self.tools[n].description for n in group.tools])

    def group_of(self, tool_name: str) -> str | None:
        """The id of the group (or the part of an oversized group) a tool belongs to, or None for an unknown tool."""
        tool = self.tools.get(tool_name)
        return (self.part_of.get(tool_name) or tool.group or tool.name) if tool else None

    def unit_group(self, unit: str) -> str:
        """The group an activation unit belongs to: a group (or part) itself, a tool loaded alone its group's."""
        return unit if unit in self.groups else self.group_of(unit) or unit

    def members(self, unit: str) -> list[str]:
        """The tools an activation unit loads: a group's (or a part's), or one tool named alone."""
        if unit in self.groups:
            return list(self.groups[unit].tools)
        return [unit] if unit in self.tools else []

    def parts_of(self, group_id: str) -> list[str]:
        """The group itself, or the parts an oversized group was split into (none for an unknown id)."""
        if group_id in self.groups:
            return [group_id]
        return [g.id for g in self.groups.values() if g.parent == group_id]

    def split_oversized(self) -> None:
        """Split every group over the size cap (core groups excepted) into parts of related tools, named
        GROUP/WORD ('mcp:mongodb/collection'); each part keeps the group's core flag."""
        for group in [g for g in self.groups.values() if not g.core and not g.parent]:
            sizes = {name: spec_size(self.tools[name]) for name in group.tools}
            parts = split_group(group.tools, sizes)
            if len(parts) < 2:
                continue
            self.split[group.id] = self.groups.pop(group.id)
            for label, members in parts.items():
                part = Group(f"{group.id}/{label}", tools=members, parent=group.id,
                             needs=dict(group.needs))
                part.summary = words_summary(members, _server_words(group.id) | {"mcp"})
                self.groups[part.id] = part
                self.part_of.update(dict.fromkeys(members, part.id))
        self.groups = dict(sorted(self.groups.items()))

    def rules(self) -> list[Rule]:
        """Every disambiguation rule of every group."""
        return [rule for group in self.groups.values() for rule in group.rules]


def _server_words(group_id: str) -> set[str]:
    """The words of an MCP server's name (group mcp:NAME), which its tools' names repeat; none for others."""
    return set(split_name(group_id.removeprefix("mcp:").split("/")[0])) | {"mcp"} if group_id.startswith("mcp:") else set()


def _string_list(value) -> list[str] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def _rule(data, where: str) -> tuple[Rule | None, str]:
    if not isinstance(data, dict):
        return None, f"{where}: each [[rules]] entry must be a table"
    when, over = _string_list(data.get("when")), _string_list(data.get("over", []))
    prefer = data.get("prefer")
    if not when or not isinstance(prefer, str) or over is None:
        needs = 'when = [words], prefer = "group" and optionally over = [groups]'
        return None, f"{where}: a rule needs {needs}; rule skipped"
    return Rule([w for w in when if w.strip()], prefer, over, str(data.get("reason", ""))), ""


def apply_metadata(group: Group, data: dict, where: str) -> list[str]:
    """Merge metadata (summary, core, rules, needs) into a group; return one line per bad entry."""
    problems = []
    if isinstance(data.get("summary"), str) and clean_summary(data["summary"]):
        if not group.curated:
            group.summary, group.curated = clean_summary(data["summary"]), True
    elif "summary" in data:
        problems.append(f"{where}: summary must be a non-empty string; derived from the tools instead")
    if "keywords" in data:  # searched until the ranking was fitted, which gave them no weight
        problems.append(f"{where}: keywords are no longer searched; write [phrases] for the group's tools instead "
                        "(ankit help tools)")
    if "core" in data:
        if isinstance(data["core"], bool):
            group.core = data["core"]
        else:
            problems.append(f"{where}: core must be true or false; ignored")
    problems += _needs(group, data.get("needs", {}), where)
    rules = data.get("rules", [])
    for entry in rules if isinstance(rules, list) else [rules]:
        rule, problem = _rule(entry, where)
        if rule:
            group.rules.extend([rule] if rule not in group.rules else [])
        else:
            problems.append(problem)
    return problems


def apply_phrases(catalog: Catalog, group: Group, table, where: str) -> list[str]:
    """Give the group's tools the phrases its group.toml writes for them ([phrases]: tool name = [requests]),
    kept as a model's are (kept); a tool that has phrases already keeps them. One line per bad entry."""
    if table is None:
        return []
    if not isinstance(table, dict):
        return [f"{where}: phrases must be a table (tool name = [requests]); ignored"]
    problems = []
    for name, said in table.items():
        listed = _string_list(said)
        if name not in group.tools:
            problems.append(f"{where}: phrases for {name!r}, which is no tool of group {group.id}; ignored")
        elif listed is None or isinstance(said, str):
            problems.append(f"{where}: phrases for {name} must be a list of strings; ignored")
        elif not catalog.tools[name].phrases:
            catalog.tools[name] = replace(catalog.tools[name], phrases=kept(listed))
            catalog.terms.pop(name, None)
    return problems


def _needs(group: Group, data, where: str) -> list[str]:
    """Merge a [needs] table (tool = [the tools it is no use without]); one line per bad entry."""
    if not isinstance(data, dict):
        return [f"{where}: needs must be a table of tool = [tool names]; ignored"]
    problems = []
    for name, wanted in data.items():
        names = _string_list(wanted)
        if names is None:
            problems.append(f"{where}: needs.{name} must be a list of tool names; ignored")
        else:
            group.needs.setdefault(name, []).extend(n for n in names if n not in group.needs.get(name, []))
    return problems


def _metadata_files(tools: list[Tool]) -> dict[str, list[Path]]:
    """group.toml files per group: in a folder named like the group that holds one of its tools."""
    found: dict[str, list[Path]] = {}
    for tool in tools:
        group_id = tool.group or tool.name
        if not tool.source:
            continue
        folder = Path(tool.source).parent
        path = folder / METADATA_FILE
        if folder.name == group_id and path not in found.get(group_id, []) and path.is_file():
            found.setdefault(group_id, []).append(path)
    return found


def read_metadata(path: Path) -> tuple[dict, str]:
    """Read one group.toml; on failure return {} and one line saying what to fix."""
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle), ""
    except tomllib.TOMLDecodeError as exc:
        return {}, f"{path} does not parse ({exc}); the group still loads with a derived summary"
    except OSError as exc:
        return {}, f"{path} cannot be read ({exc.strerror}); the group still loads with a derived summary"


def build_catalog(tools: list[Tool], extra_groups: dict[str, dict] | None = None) -> tuple[Catalog, list[str]]:
    """Group tools, read each group's group.toml, merge extra metadata (e.g. MCP); return the catalog and problems."""
    meta: dict[str, list[tuple[str, dict]]] = {}
    problems: list[str] = []
    for group_id, paths in _metadata_files(tools).items():
        for path in paths:
            data, problem = read_metadata(path)
            if problem:
                problems.append(problem)
            elif data:
                meta.setdefault(group_id, []).append((str(path), data))
    catalog = Catalog()
    catalog.add_tools(tools)
    for group_id, entries in meta.items():
        for where, data in entries:
            problems.extend(apply_metadata(catalog.groups[group_id], data, where))
            problems.extend(apply_phrases(catalog, catalog.groups[group_id], data.get("phrases"), where))
    if extra_groups:
        problems.extend(catalog.add_tools([], extra_groups))
    catalog._finish()
    catalog.split_oversized()
    return catalog, problems


def catalog_text(catalog: Catalog, mode: str = "first", loaded: set[str] | frozenset = frozenset()) -> str:
    """One line per group not loaded: 'names' (tool names), 'first' (summary's first sentence) or 'full'.

    Core and loaded groups are left out: their tools are sent, so the model already has their full
    schemas and listing them would only invite a needless find_tools call.
    """
    lines = []
    for group in catalog.groups.values():
        if group.core or not group.tools or group.id in loaded:
            continue
        names = ", ".join(group.tools[:_NAMES_CAP])
        if len(group.tools) > _NAMES_CAP:
            names += f", +{len(group.tools) - _NAMES_CAP} more"
        if mode == "names":
            lines.append(f"- {group.id}: {names}")
        elif mode == "full":
            lines.append(f"- {group.id}: {group.summary} ({names})" if group.summary else f"- {group.id}: {names}")
        else:
            lines.append(f"- {group.id}: {first_sentence(group.summary) or names}")
    return "\n".join(lines)
