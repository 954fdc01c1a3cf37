"""Assembling ankit from its settings: tools, catalog, skills, MCP, activation, provider and session."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ankit.agents.definitions import AgentSpec, agent_dirs, load_agents, unknown_tools
from ankit.context.instructions import Instructions, load_instructions
from ankit.errors import AnkitError, ConfigError
from ankit.mcp.tokens import TokenStore
from ankit.safety import statefiles
from ankit.safety.policy import Policy
from ankit.safety.sandbox import Sandbox
from ankit.safety.scrub import Scrubber
from ankit.safety.text import outside
from ankit import paths
from ankit.settings.config import Config
from ankit.skills.library import Skill, find_skills, skill_dirs
from ankit.tooling.activation import habitual
from ankit.hooks.config import load_hooks
from ankit.hooks.events import Hooks
from ankit.tooling.loader import load_tools
from ankit.codemode.stubs import code_prompt
from ankit.turn.deciding import ModelChooser
from ankit.turn.phrasing import PhraseWriter
from ankit.turn.prompt import Prompt
from ankit.turn.registry import BUILT_IN, Registry
from ankit.usage.budget import Budget
from ankit.usage.meter import Meter
from ankit.usage.pricing import load_prices

if TYPE_CHECKING:  # what only a session needs is imported when one is made: listings start faster
    from ankit.discovery.catalog import Catalog
    from ankit.discovery.index import Index
    from ankit.protocols import Approver, Asker, Editor, Elicitor, Inbox, View
    from ankit.providers import ProviderSettings
    from ankit.storage.sessions import SessionData, SessionStore
    from ankit.tooling.activation import Activation
    from ankit.tooling.tool import Tool
    from ankit.tooling.toolset import Toolset
    from ankit.turn.session import Session

PRELOAD_SESSIONS, PRELOAD_LEAST = 5, 3  # groups activated in 3 of this folder's last 5 sessions are preloaded
WARN_CAP = 2000  # characters of one start-up line (it may quote a file or a server)


@dataclass
class App:
    """Everything one run of ankit works with, assembled from the settings; it hands objects down, never callbacks."""

    config: Config
    cwd: Path
    problems: list[str] = field(default_factory=list)  # start-up problems of the tools, one line each
    notices: list[str] = field(default_factory=list)  # other start-up lines: agents, the sandbox, hooks
    skills: list[Skill] = field(default_factory=list)
    skill_problems: list[str] = field(default_factory=list)
    registry: Registry | None = None
    setup_error: str = ""
    instructions: Instructions = field(default_factory=lambda: Instructions([], ""))
    policy: Policy = field(default_factory=Policy)  # the settings' rules and [a]lways answers (ankit/safety/policy.py)
    sandbox: Sandbox | None = None  # where commands run unasked; the REPL switches its mode
    hooks: Hooks = field(default_factory=Hooks)  # config.toml's and Claude Code's settings.json hooks
    agents: dict[str, AgentSpec] = field(default_factory=dict)  # named subagents
    _agents_stamp: tuple | None = field(default=None, repr=False)  # their files as last read
    _settings: ProviderSettings | None = None
    _told_origin: bool = False
    mcp_start: str = "all"  # "uncached" for listings, "deferred" for -p: see Registry.mcp_start
    elicit: Elicitor | None = None  # asks the user an MCP server's question: a form in the REPL, declined in -p
    arch: str = ""  # the architecture the sandbox's seccomp filter is built for ("": this machine's)
    _store: SessionStore | None = field(default=None, repr=False)
    chooser: ModelChooser | None = None  # decision mode's questions (search = "decision"), for /usage
    meter: Meter = field(init=False)  # every request to the model goes through it (max_cost, /usage)

    def __post_init__(self) -> None:
        self.meter = Meter(Budget(self.config.max_cost, self.prices()))  # a cap of 0 checks nothing

    def load(self) -> "App":
        """Load tools, skills and the catalog; MCP servers start in the background."""
        # ankit's own tools are listed from a cache; other folders' modules are imported as ever (an import may
        # have effects their authors count on)
        file_tools, self.problems = load_tools(self.tool_folders(), BUILT_IN, paths.state_home() / "tools",
                                               cached=[statefiles.bundled("tools")])
        given = [("--tools-dir", p) for p in self.config.tools_dirs] + [("--skills-dir", self.config.skills_dir)]
        self.problems += [f"{flag} {p} is not a folder; check the path" for flag, p in given if p and not p.is_dir()]
        self.load_skills()
        self.instructions = load_instructions(self.cwd, paths.config_home())
        self.notices += self.instructions.cuts
        self.registry = Registry(file_tools, self.skills, self.config.core, self._catalog_mode(),
                                 self.config.mcp_servers, paths.state_home() / "mcp", self.mcp_start,
                                 self.problems, mcp_root=self.cwd, mcp_elicit=self.elicit,
                                 agents=self.agents, decide=self._decider(), code_mode=self.config.code_mode)
        self.notices += self.refresh_agents()  # the dict the task tool holds is filled in place
        self.policy = Policy.from_rules(self.config.allow, self.config.deny, self.cwd, self.config.ask, self.config.yes)
        self.sandbox = Sandbox.for_setting(self.config.sandbox, self.cwd, self.arch)
        self.notices += [line for line in [self.sandbox.unavailable()] if line]
        self.load_hooks()
        return self

    def refresh_agents(self) -> list[str]:
        """Read the agent definitions again when their files changed (at start, and before each prompt); the
        dict is updated in place, so the task tool and the subagents see the same one; the problems found."""
        folders = agent_dirs(self.cwd, paths.config_home(), paths.claude_home())
        plugins = {folder: plugin.name for plugin in self.plugins() for folder in plugin.folders("agents")}
        folders += [(folder, False) for folder in plugins]
        now = paths.stamp([folder for folder, _ in folders], "**/*.md")
        if now == self._agents_stamp:
            return []
        self._agents_stamp = now
        agents, problems = load_agents(folders, self.config.trusted, self.cwd, plugins)
        known = self.tool_groups()
        problems += [f"agent {spec.name} ({spec.source}): {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} "
                     "not a tool here and left out; /agents shows what it gets"
                     for spec in agents.values() if (missing := unknown_tools(spec, known))]
        self.agents.clear()
        self.agents.update(agents)
        if self.registry is not None:  # the task tool's description lists them
            self.registry.reindex()
            self.registry.activation.forget_frozen("agents")
        return problems

    def plugins(self) -> list:
        """The plugins the user added that are as they were when added (claude/plugins.py)."""
        return [plugin for plugin in self.config.plugins if plugin.current]

    def tool_groups(self) -> dict[str, str]:
        """Every tool's name and group (find_tools too), for what a named agent's tools field means here."""
        if self.registry is None:
            return {}
        return {"find_tools": "core", **{name: tool.group for name, tool in self.registry.tools.items()}}

    def load_hooks(self) -> "App":
        """The hooks of config.toml, ~/.claude/settings.json, (trusted folders only) the project's .claude/, and
        the added plugins' hooks.json."""
        claude = [paths.claude_home() / "settings.json"]
        project = [self.cwd / ".claude" / "settings.json", self.cwd / ".claude" / "settings.local.json"]
        origin = ", ".join(str(p) for p in self.config.files) or "config.toml"
        plugin_files = [(path, plugin.root) for plugin in self.plugins() for path in plugin.hook_files()]
        found = load_hooks(self.config.raw.get("hooks") or {}, origin,
                           claude + (project if self.config.trusted else []), self.cwd, plugin_files)
        scrub = self.scrubber() if found.hooks else None
        self.hooks = replace(found, transcripts=paths.state_home() / "sessions", mode=self.sandbox,
                             yes=self.config.yes, **({"scrub": scrub} if scrub else {}))
        self.notices += [line for line in self.hooks.problems if line not in self.config.problems]
        return self  # an untrusted folder's .claude/ hooks are named by the trust notice (cli/main.py)

    def load_skills(self) -> "App":
        """Find the skills (all `ankit skills` needs: no tools, no MCP servers)."""
        dirs = skill_dirs(self.cwd, self.config.skills_dir, Path.home(), paths.config_home(), statefiles.bundled("skills"))
        plugins = {plugin.root / "skills": plugin.name for plugin in self.plugins() if (plugin.root / "skills").is_dir()}
        self.skills, self.skill_problems = find_skills(dirs + list(plugins), plugins)
        return self

    def reload_instructions(self) -> None:
        """Read AGENTS.md / CLAUDE.md again (after /init wrote one); sessions take it with Session.use_prompt."""
        self.instructions = load_instructions(self.cwd, paths.config_home())

    def tool_folders(self) -> list[Path]:
        """Tool folders in load order: bundled, user, project, then --tools-dir."""
        project = [self.cwd / ".ankit" / "tools"] if self.config.trusted else []  # see ankit/settings/layers.py
        return [statefiles.bundled("tools"), paths.config_home() / "tools", *project, *self.config.tools_dirs]

    @property
    def tools(self) -> Toolset:
        """Every known tool: files, built-ins, MCP."""
        return self.registry.tools

    @property
    def catalog(self) -> Catalog:
        """The groups of the current tools."""
        return self.registry.catalog

    @property
    def index(self) -> Index:
        """The search index over the current tools."""
        return self.registry.index

    @property
    def activation(self) -> Activation:
        """Core and activated groups."""
        return self.registry.activation

    @property
    def mcp(self):
        """The MCP servers (an McpManager), or None when none are configured."""
        return self.registry.mcp

    def lookup(self, name: str) -> Tool | None:
        """A known tool by name, whether or not its group is active."""
        return self.tools.get(name)

    def scrubber(self) -> Scrubber:
        """The environment's secrets, the API key in use, MCP servers' env values and their login tokens."""
        values = [str(v) for server in self.config.mcp_servers.values() if isinstance(server, dict)
                  for v in (server.get("env") or {}).values()] if self.config.mcp_servers else []
        if any(isinstance(s, dict) and s.get("url") for s in self.config.mcp_servers.values()):
            values += TokenStore(paths.state_home() / "mcp" / "auth").secrets()
        from ankit.providers.presets import PRESETS
        values += [v for v in (self.config.env.get(p.key_env, "") for p in PRESETS.values()) if v]
        return Scrubber(values=values)

    def store(self) -> SessionStore:
        """The session files, scrubbed of every secret the scrubber knows; one store per run, so a resumed
        session's place in its file is known when it is saved (saves append)."""
        if self._store is None:
            from ankit.storage.sessions import SessionStore
            self._store = SessionStore(paths.state_home() / "sessions", scrubber=self.scrubber())
        return self._store

    def resumed(self, args) -> SessionData | None:
        """The session --continue or --resume ID asks for, if any; with --fork-session, a copy under a new id."""
        from ankit.turn.wiring import resumed  # a session is made next: what it needs loads now
        return resumed(self, args)

    def prompt(self) -> Prompt:
        """The system prompt and window for any model, from this folder, its skills and the config."""
        note = self.sandbox.prompt_note() if self.sandbox is not None else ""
        return Prompt(self.cwd, self.skills, self.config.context_window, self.instructions.text, self.config.system,
                      note, finder=not self.registry.everything_offered(), code=self._code_prompt())

    def _catalog_mode(self) -> str:
        """How find_tools lists the groups not loaded: by their tools' names in code mode when code_mode_catalog
        is "none" (the names a program calls, said once), else as catalog_mode says."""
        names = self.config.code_mode in ("on", "only") and self.config.code_mode_catalog == "none"
        return "names" if names else self.config.catalog_mode

    def _code_prompt(self) -> str:
        """Code mode's part of the system prompt ("" when it is off): the tools no schema sent and no line of
        find_tools' listing names already."""
        if self.config.code_mode not in ("on", "only"):
            return ""
        specs = [tool.spec() for tool in self.tools.values() if tool.name != "find_tools"]
        only, catalog = self.config.code_mode == "only", self.registry.catalog
        core = {n for g in self.registry.activation.core for n in catalog.members(g)}
        skip = set() if only else set(core)
        if self.config.code_mode_catalog == "none":
            skip |= {s.name for s in specs if s.name not in core}  # find_tools' listing names them
        return code_prompt(specs, self.config.code_mode_catalog, only, skip, not self.registry.everything_offered())

    def session(self, view: View, approve: Approver, ask: Asker = input, resume: SessionData | None = None,
                inbox: Inbox | None = None, editor: Editor | None = None) -> Session:
        """A session wired to the provider (None when nothing is configured), resumed if asked; editor: the
        user's editor's files and terminals for the tools (ankit acp)."""
        from ankit.turn.wiring import build_session  # what only a session needs loads when one is made
        session = build_session(self, view, approve, ask, resume, inbox, editor)
        origin = session.provider.settings.origin if session.provider is not None else ""
        if origin and not self._told_origin:
            self._told_origin = True
            view.notice(origin)
        return session

    def prices(self) -> dict:
        """Prices for max_cost (only loaded when a cap is set); a malformed [prices] table is told by /usage."""
        if self.config.max_cost <= 0:
            return {}
        try:
            return load_prices(self.config.prices)
        except AnkitError:
            return {}

    def habits(self) -> dict[str, str]:
        """Groups this folder's recent sessions activated (3 of the last 5), to send from the first request."""
        sessions = self.store().recent(str(self.cwd), PRELOAD_SESSIONS)
        return habitual([s.activated for s in sessions], PRELOAD_LEAST) if len(sessions) >= PRELOAD_LEAST else {}

    def provider(self):
        """The configured model's provider outside a session (ankit mcp phrases); ConfigError saying the fix."""
        provider = self.session_provider("")
        if provider is None:
            raise ConfigError(self.setup_error)
        return provider

    def _decider(self):
        """Decision mode's ranking: the model's choice among a search's top tools (search = "decision", or "auto"
        with a capable model, decided at the first search); None with search = "words"."""
        if self.config.search == "words":
            return None
        wanted = self.decision_wanted if self.config.search == "auto" else None
        self.chooser = ModelChooser(self.decision_provider, self.config.min_probability, wanted, self.meter)
        return self.chooser.decide

    def decision_wanted(self) -> bool:
        """search = "auto": whether decision mode pays here: decision_model named, or the session's model on a
        hosted vendor's own API (tests/bench/bench_decision.py: +0.25 recall@1 at about 340 tokens a search)."""
        if self.config.decision_model:
            return True
        from ankit.providers.presets import provider_settings, vendor_hosted
        try:
            if self._settings is None:
                self._settings = provider_settings(self.config)
        except AnkitError:
            return False
        return vendor_hosted(self._settings)

    def decision_provider(self):
        """The provider decision mode asks (decision_model, else the session's model), or None."""
        provider = self.session_provider("")
        if provider is not None and self.config.decision_model:
            provider.use_model(self.config.decision_model)
        return provider

    def phrase_writer(self):
        """What writes MCP tools' search phrases in the background (phrases_model, else the session's model); None
        with phrases = false, no server, or no model."""
        if not self.config.phrases or self.registry is None or self.registry.mcp is None:
            return None
        provider = self.session_provider("")
        if provider is None or self.registry.phrases is None:
            return None
        if self.config.phrases_model:
            provider.use_model(self.config.phrases_model)
        return PhraseWriter(provider, self.registry, self.scrubber(), self.meter)

    def session_provider(self, session_id: str):
        """The configured model's provider for a session, or None (setup_error says why)."""
        try:
            from ankit.providers import make_provider, presets  # one statement: the lazy imports are counted
            if self._settings is None:  # chosen once: a probe for a local server runs at most once
                self._settings = presets.provider_settings(self.config)
            return make_provider(replace(self._settings, session_id=session_id))
        except ConfigError as exc:
            self.setup_error = str(exc)
            return None

    def close(self) -> None:
        """Stop MCP servers."""
        if self.registry is not None:
            self.registry.close()


def build_app(config: Config, cwd: Path | None = None, mcp_start: str = "all", elicit: Elicitor | None = None) -> App:
    """Load everything ankit needs for this folder (mcp_start: when MCP servers start, see Registry.mcp_start;
    elicit: how an MCP server's question reaches the user)."""
    return App(config, cwd or Path(os.getcwd()), mcp_start=mcp_start, elicit=elicit).load()


def warn(lines: list[str]) -> None:
    """Print start-up problems, one line each, to stderr."""
    for line in lines:
        print(f"ankit: {outside(line, WARN_CAP)}", file=sys.stderr)
