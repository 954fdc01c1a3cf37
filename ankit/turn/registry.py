"""Every known tool (files, built-ins, MCP) with the catalog, index and core groups rebuilt when they change.

Only the main thread rebuilds them: an MCP server's thread only posts "my tools changed" to a queue, which
the main thread drains before a turn (or after waiting for servers, for a listing).
"""

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ankit.agents.tool import make_task_tool
from ankit.discovery.catalog import Catalog, build_catalog
from ankit.discovery.decision import Decision
from ankit.discovery.finder import make_find_tools
from ankit.discovery.index import Index
from ankit.discovery.phrases import PhraseStore
from ankit.protocols import Elicitor
from ankit.records import ToolSpec
from ankit.skills.library import Skill
from ankit.skills.tool import make_skill_tool
from ankit.tooling.activation import Activation
from ankit.codemode.tool import make_run_code_tool
from ankit.tooling.tool import Tool
from ankit.tooling.toolset import Toolset
from ankit.mcp.cache import ToolCache

BUILT_IN = ("find_tools", "skill", "task", "run_code")  # ankit's own tools: no module or MCP server may take these names


@dataclass
class Registry:
    """The tools ankit knows and what is built from them; MCP servers start in the background and join later."""

    file_tools: list[Tool]
    skills: list[Skill]
    core: list[str] = field(default_factory=list)  # the config's core list: groups or single tools
    catalog_mode: str = "first"
    mcp_servers: dict = field(default_factory=dict)  # the config's [mcp.servers] tables
    mcp_log_dir: Path | None = None
    # "refresh": every server starts at once (to be waited for); otherwise ("all", "uncached", "deferred") only
    # servers with no cached tool list start, in the background; the others start when a tool of theirs is
    # activated by find_tools or called
    mcp_start: str = "all"
    problems: list[str] = field(default_factory=list)  # one line per skipped module or catalog problem
    mcp_root: Path | None = None  # the working folder, offered as the root when a server asks
    mcp_elicit: Elicitor | None = None  # asks the user a server's question (None: not offered)
    agents: dict = field(default_factory=dict)  # named subagents (agents.definitions.AgentSpec by name)
    decide: Callable[[Index, str], Decision] | None = None  # decision mode: the model's choice ranks a search
    code_mode: str = "off"  # run_code: off, on (beside the tools), only (run_code and find_tools alone)
    tools: Toolset = field(default_factory=Toolset, init=False)
    activation: Activation = field(init=False)
    catalog: Catalog | None = field(default=None, init=False)
    _index: Index | None = field(default=None, init=False, repr=False)  # built when first searched
    mcp: object = field(default=None, init=False)  # an McpManager when servers are configured
    _changes: queue.SimpleQueue = field(default_factory=queue.SimpleQueue, init=False)  # posted by MCP threads
    late_problems: list[str] = field(default_factory=list, init=False)  # found after start (MCP name clashes)
    _told: int = field(default=0, init=False)
    phrases: PhraseStore | None = field(default=None, init=False)  # the phrases models wrote for MCP servers' tools

    def __post_init__(self) -> None:
        only = ("find_tools", "run_code") if self.code_mode == "only" else ()
        self.activation = Activation(self.group_specs, [], all_groups=lambda: list(self.catalog.groups), only=only)
        if self.mcp_servers:
            from ankit.mcp.servers import McpManager
            cache = ToolCache(self.mcp_log_dir / "cache") if self.mcp_log_dir else None
            self.phrases = PhraseStore(self.mcp_log_dir / "phrases") if self.mcp_log_dir else None
            self.mcp = McpManager(self.mcp_servers, self.mcp_log_dir, on_change=self.post_change, cache=cache,
                                  root=self.mcp_root, elicit=self.mcp_elicit)
            self.mcp.start(uncached_only=self.mcp_start != "refresh")
        self.reindex()

    def post_change(self) -> None:
        """Called on another thread (an MCP server's, the phrase writer's): only say that the tools changed."""
        self._changes.put(None)

    def take_changes(self) -> None:
        """On the main thread: rebuild once if MCP servers posted changes; a rebuild that fails keeps the previous
        catalog and is told once, as a problem."""
        if threading.current_thread() is not threading.main_thread():
            return
        posted = False
        while True:
            try:
                self._changes.get_nowait()
            except queue.Empty:
                break
            posted = True
        if not posted:
            return
        try:
            self.reindex()
        except Exception as exc:  # a bug in a rebuild must not end the session: the previous catalog stays
            self._problem(f"could not take in the MCP servers' new tool lists ({type(exc).__name__}: {exc}); "
                          "the previous ones stay (ankit bug: please report it)")

    def reindex(self) -> None:
        """Rebuild the catalog and the index from the current tools (main thread only)."""
        tools = {t.name: t for t in self.file_tools}
        meta = {}
        if self.mcp is not None:
            if self.phrases is not None:  # what users type for each server's tools, if the model wrote it
                for server, label, listed in self.mcp.catalog.listed():
                    self.phrases.attach(server, label, listed)
            for tool in self.mcp.catalog.tools():
                if tool.name in tools or tool.name in BUILT_IN:
                    where = tools[tool.name].source if tool.name in tools else "built in"
                    self._problem(f"skipped the MCP tool {tool.name!r} ({tool.source}): a tool of that name "
                                  f"already exists ({where})")
                else:
                    tools[tool.name] = tool
            meta = self.mcp.catalog.group_meta()
        tools.setdefault("skill", make_skill_tool(lambda: self.skills))
        tools.setdefault("task", make_task_tool(self.agents))
        if self.code_mode in ("on", "only"):
            tools.setdefault("run_code", make_run_code_tool())
        finder = make_find_tools(lambda: self.index, self._activate_found, self.offered, self.catalog_mode,
                                 self.decide, self.code_mode)
        tools.setdefault(finder.name, finder)
        catalog, problems = build_catalog(list(tools.values()), meta)
        if self.catalog is not None and _outline(catalog) != _outline(self.catalog):
            self.activation.forget_frozen("core")  # find_tools' description lists the groups
        self.catalog = catalog
        self.tools.replace(tools)
        self._index = None  # a listing never searches: the index is built on first use
        self.problems += [p for p in problems if p not in self.problems]
        self.activation.core = self._core_groups()
        for unit in [*meta, *self.activation.active]:  # a server's group, its parts, its tools loaded alone
            if unit in meta or self._root(unit) in meta:
                self.activation.forget_frozen(unit)

    def _root(self, unit: str) -> str:
        """The group an activation unit belongs to: a tool's group, a part's whole group, or the unit itself."""
        group = self.catalog.groups.get(self.catalog.unit_group(unit))
        return (group.parent or group.id) if group else unit

    @property
    def index(self) -> Index:
        """The search index over the current tools, built on first use after each rebuild."""
        if self._index is None:
            self._index = Index(self.catalog, list(self.tools.values()))
        return self._index

    def before_calls(self, names: list[str], view) -> None:
        """Servers that have not listed their tools yet and that a call needs are waited for (each up to its
        startup_timeout), so a one-shot run does not lose a slow server: every one for a find_tools call (a
        search must not answer without them), its own for a call to mcp__LABEL__TOOL (deferred tools stay callable
        by name instead of "unknown tool")."""
        if self.mcp is None:
            return
        unknown = [n for n in names if n.startswith("mcp__") and n not in self.tools]
        servers = [name for name, label in self.mcp.unlisted()
                   if "find_tools" in names or any(n.startswith(f"mcp__{label}__") for n in unknown)]
        if servers:
            many = len(servers) > 1
            what = f"servers {', '.join(servers)} to list their" if many else f"server {servers[0]} to list its"
            view.notice(f"waiting for the MCP {what} tools…")
            self._await(servers)

    def _await(self, servers: list[str]) -> None:
        """Start these servers if need be and wait for their lists; the main thread takes them in."""
        if servers:
            self.mcp.wake([f"mcp:{name}" for name in servers])
            self.mcp.wait(patient=True, names=servers)
            self.take_changes()

    def _problem(self, line: str) -> None:
        if line not in self.problems and line not in self.late_problems:
            self.late_problems.append(line)

    def before_turn(self, view) -> None:
        """MCP servers still starting list their tools first and the main thread takes in what changed; then each
        problem found since (an MCP tool skipped for its name, a failed rebuild) is told once."""
        if self.mcp is not None:
            self.mcp.before_turn(view)
            self.take_changes()
        for line in self.late_problems[self._told:]:
            view.notice(line)
        self._told = len(self.late_problems)

    def _activate_found(self, groups: list[str]) -> list[str]:
        """find_tools' activation: the groups join the set, and the MCP servers behind them start (in the background)."""
        added = self.activation.activate(groups)
        self.wake(groups)
        return added

    def wake(self, units: list[str]) -> None:
        """Start, in the background, the MCP servers behind these units (a tool loaded alone wakes its server too)."""
        if self.mcp is not None:
            self.mcp.wake([self.catalog.unit_group(u) for u in units])

    def _core_groups(self) -> list[str]:
        wanted = ["core", *[g.id for g in self.catalog.groups.values() if g.core], *self.core]
        if self.mcp is not None:
            wanted += self.mcp.catalog.core_groups()
        wanted = [part for g in wanted for part in self.catalog.parts_of(g)]  # an oversized group: its parts
        return [g for g in dict.fromkeys(["core", *sorted(set(wanted) - {"core"})]) if g in self.catalog.groups]

    def group_specs(self, group: str) -> list[ToolSpec]:
        """An activation unit's current specs (a group's, or one tool's), from the catalog; find_tools only while
        a group is left to load."""
        names = self.catalog.members(group)  # a group, or a tool find_tools loaded without its siblings
        if group == "core":  # tools named one by one in the config's core list travel with the core group
            names += [n for n in self.core if n in self.tools and n not in names]
            if self.everything_offered():
                names = [n for n in names if n != "find_tools"]
        return [self.tools[n].spec() for n in names if n in self.tools]

    def everything_offered(self) -> bool:
        """Whether every group with tools is sent already (core, activated, or each of its tools loaded alone):
        nothing is left to find."""
        offered = set(self.offered())
        names = {name for unit in offered for name in self.catalog.members(unit)}
        return all(g.id in offered or names.issuperset(g.tools)
                   for g in self.catalog.groups.values() if g.tools and not g.core)

    def offered(self) -> list[str]:
        """Groups whose tools are sent: core, then activated."""
        return [*self.activation.core, *self.activation.active]

    def close(self) -> None:
        """Stop MCP servers."""
        if self.mcp is not None:
            self.mcp.close()


def _outline(catalog: Catalog) -> list:
    return [(g.id, g.summary, g.tools) for g in catalog.groups.values()]
