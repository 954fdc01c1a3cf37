"""Subagents: the task tool runs a sub-session (a fresh history holding only the prompt, its own system prompt,
find_tools discovery and activated set; the same policy, hooks and approvals; a round and cost limit) and
returns its final answer, capped, as the tool's result. The finished runs wait in `Subagents` until the
session that asked takes them into its usage and its file.
"""

import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ankit.names import ambiguous, resolve
from ankit.agents.definitions import AgentSpec
from ankit.agents.families import agent_model, known_models
from ankit.codemode.bridge import CodeLimits, CodeMode
from ankit.discovery.finder import make_find_tools
from ankit.errors import AnkitError, Cancelled, ToolError
from ankit.providers import ProviderSettings, make_provider
from ankit.records import TodoList, ToolCall, ToolResult
from ankit.turn.registry import Registry
from ankit.protocols import View
from ankit.turn.session import Session
from ankit.turn.turnhooks import STOP_LIMIT
from ankit.records import SubagentRun
from ankit.safety.effects import reads_only
from ankit.safety.text import outside
from ankit.storage.sessions import new_session_id
from ankit.tooling.activation import Activation
from ankit.hooks.events import Hooks
from ankit.tooling.tool import Tool
from ankit.tooling.toolbox import Runner, cap_output
from ankit.usage.meter import Meter
from ankit.usage.ledger import status_line
from ankit.turn.window import context_window

ANSWER_CAP = 20_000  # characters of a subagent's answer returned to the model
INTRO = """You are a subagent of ankit, working in the folder {cwd} on one task another assistant handed you.
You see only this task, nothing of its conversation. Use tools to look at real files and run real commands
rather than guessing; only a few tools are offered at first: call find_tools with a few plain words to load
others. When you are done, answer with what the other assistant needs, complete and concise: your final
answer is all it sees of your work."""
@dataclass
class SubPrompt:
    """A subagent's system prompt: the subagent intro (or a named agent's own text), the project instructions."""

    cwd: Path
    own: str = ""  # a named agent's system prompt
    instructions: str = ""
    configured_window: int = 0

    def system(self, model: str) -> str:
        """The system prompt (the same for every model)."""
        head = self.own or INTRO.format(cwd=self.cwd)
        parts = [head, f"Working folder: {self.cwd}" if self.own else "", self.instructions.strip()]
        return "\n\n".join(p for p in parts if p)

    def window(self, model: str, server: int = 0) -> int:
        """The model's context window in tokens."""
        return context_window(model, self.configured_window or server)


class SubTools(Mapping):
    """The tools a subagent may call: the main set less task (no nesting) and what its agent leaves out, with a
    find_tools of its own that activates into its own set."""

    def __init__(self, tools: Mapping[str, Tool], finder: Tool | None, allowed):
        self.tools, self.finder, self.allowed = tools, finder, allowed

    def __getitem__(self, name: str) -> Tool:
        if name == "find_tools" and self.finder is not None:
            return self.finder
        tool = self.tools[name]
        if name in ("task", "find_tools") or not self.allowed(tool):
            raise KeyError(name)
        return tool

    def __iter__(self) -> Iterator[str]:
        return (n for n in self.tools if n in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, name) -> bool:
        try:
            self[name]
        except KeyError:
            return False
        return True


class NamedApprover:
    """The main approver, one question at a time, the question naming the subagent that asks."""

    def __init__(self, approve, label: str, lock: threading.Lock, stop: threading.Event | None = None):
        self.approve, self.label, self.lock, self.stop = approve, label, lock, stop

    def __call__(self, tool: Tool, args: dict, preview: str):
        shown = preview or json.dumps(args, indent=2, ensure_ascii=False)
        with self.lock:
            if self.stop is not None and self.stop.is_set():  # the user stopped the turn while this one waited
                raise Cancelled("cancelled")
            return self.approve(tool, args, f"NOTE: asked by the subagent {self.label!r}\n{shown}")


class SubView(View):
    """What a subagent does, as one progress line each for the user; raises KeyboardInterrupt once stopped."""

    def __init__(self, label: str, output, stop: threading.Event):
        self.label, self.output, self.stop = label, output, stop

    def _check(self) -> None:
        if self.stop.is_set():
            raise KeyboardInterrupt

    def text(self, delta: str) -> None:
        self._check()

    def tool_start(self, call: ToolCall) -> None:
        self._check()
        arguments = outside(" ".join(call.arguments.split())[:100], 100, line=True)
        self.output(f"[{self.label}] · {call.name} {arguments}\n")

    def tool_end(self, result: ToolResult) -> None:
        if result.is_error:
            self.output(f"[{self.label}]   {result.summary or 'failed'}\n")

    def notice(self, line: str) -> None:
        self.output(f"[{self.label}] ankit: {line}\n")

    def inner_call(self, call: ToolCall, result: ToolResult) -> None:
        arguments = outside(" ".join(call.arguments.split())[:100], 100, line=True)
        failed = f" ({result.summary or 'failed'})" if result.is_error else ""
        self.output(f"[{self.label}]   · {call.name} {arguments}{failed}\n")


@dataclass
class Subagents:
    """Runs task calls as sub-sessions built from the main session's pieces; finished runs wait in `finished`."""

    registry: Registry
    settings: ProviderSettings | None  # the main provider's; a named agent may ask for another model
    runner: Runner  # the main runner's pieces (context without run_task, approver, rules, hooks, checkpoints)
    prompt: SubPrompt
    agents: dict[str, AgentSpec] = field(default_factory=dict)
    max_rounds: int = 15
    max_tokens: int = 4096
    meter: Meter | None = None  # the session's: max_cost counts subagents' requests as its own
    hooks: Hooks | None = None
    stop: threading.Event = field(default_factory=threading.Event)  # set: running subagents stop
    code_limits: CodeLimits | None = None  # code mode: each subagent's run_code programs, limited one by one
    finished: list[SubagentRun] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _asking: threading.Lock = field(default_factory=threading.Lock)  # one approval question at a time

    def take(self) -> list[SubagentRun]:
        """The runs finished since the last take, for the asking session's usage and file."""
        with self._lock:
            runs, self.finished[:] = list(self.finished), []
        return runs

    def run(self, args: dict, output: Callable[[str], None]) -> str:
        """One task to its final answer (what the task tool's ctx.run_task does); its steps go to output."""
        spec = self._spec(str(args.get("agent") or ""))
        label = " ".join(str(args.get("description") or "task").split())[:40] or "task"
        session = self.session_for(spec, label, output)
        for note in spec.notes if spec else []:
            output(f"[{label}] ankit: the project agent {spec.name}: {note} (the folder is not trusted)\n")
        note = self.model_for(spec)[1] if spec else ""
        if note:
            output(f"[{label}] ankit: the agent {spec.name}: {note}\n")
        output(f"[{label}] started" + (f" ({spec.name})" if spec else "") + "\n")
        self._started(session, spec, label, output)
        answer, error, started = "", None, time.monotonic()
        try:
            answer = session.turn(str(args["prompt"]))
            answer = self._stop_hooks(session, spec, label, answer, output)
        except AnkitError as exc:  # Cancelled too: the partial work is kept in the file all the same
            error = exc
        finally:  # another model's words: through the text boundary before anyone reads or keeps them
            answer = outside(answer.strip(), ANSWER_CAP, self.runner.scrub)
            self._finish(session, label, spec, answer)
        output(f"[{label}] {'stopped' if error else 'done'}: {status_line(session.ledger.rounds, time.monotonic() - started)}\n")
        if isinstance(error, Cancelled):
            raise error
        if error is not None:
            return f"Error: the subagent stopped: {error}"
        return answer or "(the subagent gave no final answer)"

    def _spec(self, name: str) -> AgentSpec | None:
        if not name:
            return None
        found, candidates = resolve(self.agents, name)
        if candidates:
            raise ToolError(ambiguous("the agent", name, candidates))
        if not found:
            known = ", ".join(self.agents) or "none are defined"
            raise ToolError(f"no agent named {name!r} (named agents: {known}); leave agent out for a general subagent")
        return self.agents[found]

    def _started(self, session: Session, spec: AgentSpec | None, label: str, output) -> None:
        """SubagentStart hooks: the context they add goes to the subagent with its task."""
        if self.hooks is None or not self.hooks.active("SubagentStart"):
            return
        kind = spec.name if spec else "general"
        outcome = self.hooks.run("SubagentStart", {"agent_id": session.id, "agent_type": kind}, kind)
        for note in outcome.notes:
            output(f"[{label}] ankit: {note}\n")
        for text in outcome.context:
            session.add_context(text)

    def _stop_hooks(self, session: Session, spec: AgentSpec | None, label: str, answer: str, output) -> str:
        """SubagentStop hooks: a block is shown as hook feedback and sends the subagent back with its reason, at
        most STOP_LIMIT times and not again for the same answer (as the Stop hooks of a session)."""
        kind, answers = spec.name if spec else "general", []
        while self.hooks is not None and self.hooks.active("SubagentStop"):
            outcome = self.hooks.run("SubagentStop", {"stop_hook_active": bool(answers), "agent_id": session.id,
                                                      "agent_type": kind}, kind)
            if not outcome.blocked or answer in answers or len(answers) >= STOP_LIMIT:
                return answer
            answers.append(answer)
            output(f"[{label}] SubagentStop hook feedback: {outcome.reason}\n")
            answer = session.turn(f"[SubagentStop hook] {outcome.reason}")
        return answer

    def _finish(self, session: Session, label: str, spec: AgentSpec | None, answer: str) -> None:
        run = SubagentRun(session.id, 0, label, spec.name if spec else "", list(session.conversation.messages),
                          list(session.ledger.rounds), answer)
        with self._lock:
            self.finished.append(run)

    def model_for(self, spec: AgentSpec | None) -> tuple[str, str]:
        """The model a subagent runs on (a named agent's alias mapped to this provider's), and a line when its
        alias had no counterpart here."""
        session_model = self.settings.model if self.settings is not None else ""
        return agent_model(spec.model if spec else "", session_model, known_models())

    def session_for(self, spec: AgentSpec | None, label: str, output) -> Session:
        """A fresh sub-session for one task."""
        sid, found = new_session_id(), set()  # found: the groups its find_tools activated
        allowed = _allowed(spec, found)
        core = self.registry.activation.core
        activation = Activation(lambda g: [s for s in self.registry.group_specs(g) if allowed(self.registry.tools.get(s.name))],
                                list(core), all_groups=self.registry.activation.all_groups,
                                only=self.registry.activation.only)
        finder = make_find_tools(lambda: self.registry.index, _activator(self.registry, activation, found),
                                 lambda: [*activation.core, *activation.active], self.registry.catalog_mode)
        finds = spec is None or spec.tools is None or "find_tools" in spec.tools
        tools = SubTools(self.registry.tools, finder if finds else None, allowed)
        if spec is not None and spec.tools is not None:  # a list: all of it sent from the first round
            listed = [t for t in tools.values() if t.name in spec.tools or t.group in spec.tools]
            activation.activate(list(dict.fromkeys(t.group for t in listed if t.group)))
        ctx = replace(self.runner.ctx, todos=TodoList())
        approve = NamedApprover(self.runner.approve, label, self._asking, self.stop)
        runner = replace(self.runner, tools=tools, ctx=ctx, approve=approve, notice=None)  # its notes: in its lines
        view = SubView(label, output, self.stop)
        if self.code_limits is not None and "run_code" in tools:  # its programs call what it may, as it asks
            programs = CodeMode(replace(runner, values=True), tools, ctx.cwd, runner.sandbox, self.code_limits,
                                view.inner_call)
            runner = replace(runner, ctx=replace(ctx, run_code=programs.run))
        provider, model = None, spec.model if spec and spec.model not in ("", "inherit") else ""
        if self.settings is not None:
            model = self.model_for(spec)[0]
            provider = make_provider(replace(self.settings, session_id=sid, model=model, origin=""))
        prompt = replace(self.prompt, own=spec.system if spec else "")
        return Session(provider, runner, activation, prompt, view=view, model=model,
                       max_tokens=self.max_tokens, max_rounds=self.max_rounds, todos=ctx.todos, id=sid,
                       **({"meter": self.meter} if self.meter is not None else {}))


def _activator(registry: Registry, activation: Activation, found: set[str]):
    """A subagent's find_tools activation: into its own set (the groups noted in found), the MCP servers behind
    the groups woken."""
    def activate(groups: list[str]) -> list[str]:
        found.update(groups)
        added = activation.activate(groups)
        registry.wake(groups)
        return added
    return activate


def _allowed(spec: AgentSpec | None, found: set[str]):
    """Which tools a subagent may call: every tool, or its agent's list (names or groups) and, when the list has
    find_tools, the groups and tools it found; for an untrusted project's agent only those whose declared effects are reads."""
    def allowed(tool: Tool | None) -> bool:
        if tool is None or tool.name == "task":  # no subagent of a subagent
            return False
        if spec is None:
            return True
        if spec.read_only and not reads_only(tool.declared_effects()):
            return False
        if spec.tools is None or tool.name in spec.tools or tool.group in spec.tools:
            return True
        return "find_tools" in spec.tools and (tool.group in found or tool.name in found)
    return allowed
