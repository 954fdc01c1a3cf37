"""The Tool record and the ToolContext a call gets: what discovery, skills, mcp and the turn name without the runner."""

import inspect
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ankit.errors import ToolError
from ankit.records import ASKED_EFFECTS, EFFECTS, CallEffects, TodoList, ToolSpec, Touches

DEFAULT_TIME_LIMIT = 600.0  # seconds a tool's run() may take unless it or the config says otherwise


def _no_admin(argv: list[str]) -> str:
    raise ToolError("ankit's settings commands are not available here")


def _unconfined(argv: list[str], args: dict) -> list[str]:
    return argv


def _no_subagents(args: dict, output: Callable[[str], None]) -> str:
    raise ToolError("subagents are not available here (a subagent cannot start another)")


@dataclass
class ToolContext:
    """What ankit hands a tool module's run(args, ctx) and hooks; besides it, a tool imports only ankit.toolkit."""

    cwd: Path
    config: dict = field(default_factory=dict)
    state: dict = field(default_factory=dict)
    ask: Callable[[str], str] = lambda question: ""
    find_tools: Callable[[str], str] = lambda query: "find_tools is not available here"
    load_skill: Callable[[str], str] = lambda name: "skills are not available here"
    data_dir: Path | None = None
    output: Callable[[str], None] = lambda text: None  # live output for the user while the call runs
    summarize: Callable[[str], None] = lambda line: None  # one short line for the user about this call
    todos: TodoList = field(default_factory=TodoList)  # the session's checklist (write_todos)
    admin: Callable[[list[str]], str] = _no_admin  # runs `ankit mcp add ...` or `ankit routine ...` argv, returns its text
    confine: Callable[[list[str], dict], list[str]] = _unconfined  # a command tool's argv, inside the sandbox in force
    run_task: Callable[[dict, Callable[[str], None]], str] = _no_subagents  # the task tool: a subagent's answer
    run_code: Callable[[dict, "ToolContext"], str] | None = None  # runs run_code's program (None: not here)
    inner: Callable[[str], None] = lambda line: None  # one line per call a run_code program makes
    editor: object = None  # protocols.Editor: the user's editor's files and terminals (ankit acp), where offered
    withheld: frozenset[str] = frozenset()  # real paths the rules deny reading: search and listing tools leave them out


@dataclass
class Tool:
    """A loaded tool: its spec plus how to run it."""

    name: str
    description: str
    parameters: dict
    run: Callable
    group: str = ""
    read_only: bool = False
    needs_approval: bool | Callable = False
    preview: Callable | None = None
    examples: list[str] = field(default_factory=list)
    source: str = ""
    changes: Callable | None = None  # changes(args, ctx) -> the paths a call will change (for checkpoints)
    time_limit: float | Callable | None = None  # seconds run() may take: a number, or a function of the args
    lasting: bool | Callable = False  # its effect outlives the session (memory, notes, routines, MCP settings)
    effects: frozenset[str] | Callable = frozenset(EFFECTS)  # what it may do (safety/effects.py): everything unless
    # declared; a function (a cached listing's tool) asks its module when a call needs it
    phrases: list[str] = field(default_factory=list)  # what users type for it, written by a model: searched, never sent
    touches: Callable | None = None  # touches(args, ctx) -> {"reads", "changes", "runs", "reaches", "withholds"}
    confined: bool = False  # its calls run inside the OS sandbox (ankit's own command tools): unasked there
    claims: frozenset[str] | None = None  # what an untrusted outside party says it does (MCP annotations): a hint
    returns: str = ""  # what a run_code program's call returns: "annotation" or "annotation: what it holds"

    def spec(self) -> ToolSpec:
        """The part the model sees."""
        return ToolSpec(self.name, self.description, self.parameters, self.group, self.returns)

    def call_effects(self, args: dict, ctx: ToolContext | None) -> CallEffects:
        """The one reading of what this call does: its effect words; lasting (the module's lasting, or "lasting"
        named); whether it asks (a lasting call, a tool that may write elsewhere or run programs, else the
        module's needs_approval, a function of the call or a bool, never for a tool declared read-only without
        one); confined (ankit's own command tools, unasked in the sandbox)."""
        words, lasting = self.declared_effects(), self._lasting(args, ctx)
        if lasting or words & set(ASKED_EFFECTS):
            asks = True
        elif callable(self.needs_approval):
            asks = bool(call_flexibly(self.needs_approval, args, ctx))
        else:
            asks = bool(self.needs_approval) and not self.read_only
        return CallEffects(words, lasting, asks, self.confined)

    def wants_approval(self, args: dict, ctx: ToolContext) -> bool:
        """Whether this call must be approved by the user before it runs (call_effects)."""
        return self.call_effects(args, ctx).asks

    def outlives(self, args: dict, ctx: ToolContext) -> bool:
        """Whether this call's effect outlives the session: it is always asked and its result marked."""
        return self._lasting(args, ctx)

    def _lasting(self, args: dict, ctx: ToolContext | None) -> bool:
        return bool(call_flexibly(self.lasting, args, ctx)) if callable(self.lasting) else bool(self.lasting)

    def exact_grant(self, args: dict, ctx: ToolContext | None, effects: CallEffects | None = None) -> bool:
        """Whether an [a]lways answer for this call covers that exact call only: its effect outlives the session,
        or it runs in the sandbox a program it is given that no scanner reads (run_code), not a shell command."""
        lasting = effects.lasting if effects is not None else self._lasting(args, ctx)
        return lasting or (self.confined and not isinstance(args.get("command"), str))

    def declared_effects(self) -> frozenset[str]:
        """What the tool declares it may do (everything when it declares nothing)."""
        return frozenset(self.effects()) if callable(self.effects) else self.effects

    def touched(self, args: dict, ctx: ToolContext) -> Touches:
        """What this call declares it reads, changes, runs and reaches (paths absolute); undeclared (a tool
        without touches(), or one that raised) when it cannot say: then only the paths changes() names are known."""
        try:
            found = call_flexibly(self.touches, args, ctx) if self.touches is not None else None
        except Exception:
            found = None
        if not isinstance(found, dict):
            return Touches(changes=_absolute(self._changed(args, ctx), ctx.cwd), declared=False)
        words = {key: tuple(str(v) for v in found.get(key) or ()) for key in ("runs", "reaches")}
        return Touches(_absolute(found.get("reads") or (), ctx.cwd), _absolute(found.get("changes") or (), ctx.cwd),
                       words["runs"], words["reaches"], bool(found.get("withholds")))

    def _changed(self, args: dict, ctx: ToolContext) -> list:
        try:
            return list(call_flexibly(self.changes, args, ctx) or []) if self.changes is not None else []
        except Exception:
            return []

    def limit(self, args: dict, ctx: ToolContext) -> float:
        """The seconds this call may run: the tool's own limit, else the config's tool_timeout, else the default."""
        own = call_flexibly(self.time_limit, args, ctx) if callable(self.time_limit) else self.time_limit
        if own is None:
            own = ctx.config.get("tool_timeout") if isinstance(ctx.config, dict) else None
        try:
            return float(own) if own is not None else DEFAULT_TIME_LIMIT
        except (TypeError, ValueError):
            return DEFAULT_TIME_LIMIT


def _absolute(found, cwd: Path) -> tuple[str, ...]:
    """Declared paths as absolute, normalised strings (relative ones start at the working folder)."""
    return tuple(os.path.normpath(os.path.join(cwd, os.path.expanduser(str(p)))) for p in found)


def call_flexibly(fn: Callable, args: dict, ctx: ToolContext):
    """Call fn(args) or fn(args, ctx), whichever it accepts."""
    try:
        count = len(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        count = 2
    return fn(args) if count == 1 else fn(args, ctx)
