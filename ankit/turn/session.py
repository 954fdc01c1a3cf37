"""The turn and its history, one round at a time, in the order this module reads: plan the round once (the
history that fits the window, the tools that fit beside it), build the request (a pure function of the plan),
send it and read the reply, run the calls (the runner: policy, approval, run, scrub), record; repeat until a
reply makes no call. /compact's summary is such a round too (side_round)."""

import json
import time
from dataclasses import InitVar, dataclass, field, replace
from datetime import datetime
from pathlib import Path

from ankit.errors import AnkitError, Cancelled, ConfigError, ContextError, StreamError
from ankit.protocols import (Checkpoints, Inbox, NoHooks, NullView, Prompt, Provider, Ready, SessionStore,
                             SubagentSource, ToolRunner, TurnHooks, View, WindowSource)
from ankit.records import (Image, Message, Notice, OpaqueData, Request, RoundRecord, SessionData, StreamEnd,
                           SubagentRun, TextDelta, TodoList, ToolCall, ToolCallDone, ToolResult, ToolSpec, Usage,
                           UsageReport)
from ankit.storage.sessions import new_session_id
from ankit.tooling.activation import Activation, RoundTools
from ankit.tooling.toolbox import cap_output
from ankit.turn.conversation import Conversation
from ankit.turn.window import BYTES_PER_TOKEN, cannot_fit, fit_history, history_room, message_bytes, schema_budget
from ankit.usage.meter import Meter
from ankit.usage.ledger import Ledger

REPEAT_LIMIT = 3
NO_PROVIDER = ("No provider is configured: export ANTHROPIC_API_KEY (or OPENAI_API_KEY, OPENROUTER_API_KEY, "
               "GITHUB_TOKEN), or use --provider ollama or --base-url URL")


def read_reply(meter: Meter, provider: Provider, request: Request, view: View,
               tokens: int) -> tuple[Message, Usage, BaseException | None]:
    """Stream one reply through the meter (max_cost: BudgetError before anything is sent), its text shown on the
    view as it comes; a cut or a Ctrl-C keeps the partial text and comes back as the error."""
    reply, usage, error = Message("assistant"), Usage(), None
    try:
        for event in meter.stream(provider, request, tokens=tokens):
            if isinstance(event, TextDelta):
                reply.text += event.text
                view.text(event.text)
            elif isinstance(event, ToolCallDone):
                reply.tool_calls.append(event.call)
            elif isinstance(event, UsageReport):
                usage = event.usage
            elif isinstance(event, OpaqueData):
                reply.opaque[event.kind] = event.data
            elif isinstance(event, Notice):
                view.notice(event.text)
            elif isinstance(event, StreamEnd):
                view.stop_reason(event.stop_reason)
                if event.stop_reason == "max_tokens":
                    view.notice(f"the reply reached max_tokens ({request.max_tokens:,} tokens) and was cut: say 'go on' "
                                f"for the rest, or raise max_tokens in the config")
                break
    except KeyboardInterrupt:
        error = Cancelled("cancelled; the partial reply is kept" if reply.text else "cancelled")
    except StreamError as exc:
        error = exc
    except SystemExit as exc:  # SIGHUP or SIGTERM (cli/main.py): the partial reply is kept, then ankit exits
        error = exc
    view.reply_end()
    if error is not None:
        # calls that will not run must not be sent back unanswered; half a thinking block would be refused
        reply.cut, reply.tool_calls, reply.opaque = True, [], {}
    return reply, usage, error


def cancel_message(head: str, ran: list[str], stopped: list[str], never: list[str]) -> str:
    """What a cancelled round did: which calls ran, which was stopped, which never started."""
    parts = [f"{kind}: {', '.join(names)}" for kind, names in
             (("ran", ran), ("stopped", stopped), ("never started", never)) if names]
    return f"{head} ({'; '.join(parts)})" if parts else head


@dataclass
class Plan:
    """One round's plan, made once: the history that fits the window and the tools that fit beside it."""

    history: list[Message]
    tools: RoundTools
    dropped: int = 0  # the oldest messages left out for the window


def newly_sent(history: list[Message], tools: RoundTools) -> list[str]:
    """Groups this round sends that no batch in the history was first sent with: newly activated, back after
    waiting for room, or whose batch fell out of the window or before a /compact summary."""
    before = {g for m in history for g in m.activated}
    return [g for g in tools.sent if g not in before]


def held_note(tools: RoundTools) -> str:
    """What the model is told of the groups and tools that do not fit this round; the one place that says it."""
    if not tools.held_back:
        return ""
    note = (f"[ankit] Tools held back this round for lack of room in the context "
            f"window: {', '.join(tools.held_back)}. They come back when there is room.")
    if tools.too_big:
        note += (f" Too big for this model's context window even alone: {', '.join(tools.too_big)}; ask "
                 "find_tools for a narrower task.")
    return note


def build_request(system: str, plan: Plan, max_tokens: int, catalog: list[ToolSpec],
                  extra: list[Message] | None = None) -> Request:
    """The round's request, a pure function of the plan: it changes nothing.

    The newest tool batch carries the groups first sent this round (`Message.activated`, on a copy): how they
    reach the model is each provider's business.
    """
    history = list(plan.history)
    newly = newly_sent(history, plan.tools)
    if newly and history and history[-1].role == "tool":
        history[-1] = replace(history[-1], activated=[*history[-1].activated, *newly])
    return Request(system, [*history, *(extra or [])], plan.tools.specs, held_note(plan.tools), max_tokens, catalog)


def _now() -> str:
    return datetime.now().isoformat(timespec="seconds")


@dataclass
class Session:
    """The round loop of one conversation with one provider, built from its seams; nothing outside sets its
    attributes. The history and its edits are `conversation`'s; the hooks around a turn are `hooks`'."""

    provider: Provider | None
    tools: ToolRunner  # every known tool by name, active or not, and how a call runs
    activation: Activation
    prompt: Prompt
    view: View = field(default_factory=NullView)
    store: SessionStore | None = None  # None: nothing is saved
    ready: Ready | None = None  # asked before each turn to make the catalog ready
    cwd: Path = field(default_factory=Path.cwd)  # recorded in the session file
    model: str = ""  # used for the prompt and window when there is no provider
    max_tokens: int = 4096
    max_rounds: int = 25
    todos: TodoList = field(default_factory=TodoList)  # the checklist write_todos keeps (the tools' ctx holds it too)
    resume: InitVar[SessionData | None] = None  # a saved session to go on with
    meter: Meter = field(default_factory=Meter)  # every request goes through it: max_cost checked, cost recorded
    checkpoints: Checkpoints | None = None  # what tool calls changed, for /undo and /rewind
    hooks: TurnHooks = field(default_factory=NoHooks)  # SessionStart, UserPromptSubmit, Stop, PreCompact, SessionEnd
    # (the runner has the tool events)
    subagents: SubagentSource | None = None  # where the task tool's finished runs wait to be taken
    runs: list[SubagentRun] = field(default_factory=list, init=False)  # this session's subagent runs
    forked_from: str = field(default="", init=False)
    inbox: Inbox | None = None  # what the user types while the turn works, taken at each round boundary
    server_window: WindowSource | None = None  # what the server says the model's window is (asked when first needed)
    ledger: Ledger = field(default_factory=Ledger, init=False)
    conversation: Conversation = field(default_factory=Conversation, init=False)
    system: str = field(default="", init=False)
    window_sure: bool = field(default=False, init=False)  # the window is the config's or the server's, not a guess
    _window: int = field(default=0, init=False, repr=False)
    _unsaved: str = field(default="", init=False, repr=False)  # why the last save failed ("" once one succeeds)
    turn_no: int = field(default=0, init=False)
    id: str = field(default_factory=new_session_id)  # the provider may know it too (a prompt-cache key)
    created: str = field(default_factory=_now, init=False)

    def __post_init__(self, resume: SessionData | None) -> None:
        if self.provider is not None:
            self.model = self.provider.model
        self.system = self.prompt.system(self.model)
        if resume is not None:
            self.id, self.created = resume.id, resume.created
            self.conversation = Conversation(list(resume.messages), resume.title)
            self.ledger.rounds = list(resume.rounds)
            self.turn_no = max((r.turn for r in resume.rounds), default=0)
            self.activation.reset(resume.activated)  # the resumed session brings its own activated set
            self.todos.replace([{"text": t.text, "status": t.status} for t in resume.todos])
            self.runs, self.forked_from = list(resume.subagents), resume.forked_from
            self.meter.restart(self.spent_rounds())  # max_cost counts what the resumed session spent

    @property
    def window(self) -> int:
        """The model's context window in tokens: the config's, else what the server says (asked when first needed,
        so the prompt shows before any request), else a guess from the model's name."""
        if not self._window:
            said = None
            if self.server_window is not None and self.provider is not None and not self.prompt.configured_window:
                said = self.server_window(self.model)
            self._window = self.prompt.window(self.model, said or 0)
            self.window_sure = bool(said or self.prompt.configured_window)
        return self._window

    def turn(self, text: str, images: list[Image] | None = None) -> str:
        """Run one user turn to its final answer and return the answer's text; a message that cannot fit a window
        known for sure is refused before anything is sent, and one the provider refuses as too long is taken out."""
        if self.provider is None:
            raise ConfigError(NO_PROVIDER)
        fixed = len(self.system.encode()) + self.activation.core_bytes()
        too_big = cannot_fit(Message("user", text, images=images or []), self.window, fixed, self.max_tokens)
        if too_big and self.window_sure:
            raise ContextError(too_big)
        if self.ready is not None:
            self.ready.before_turn(self.view)
        added = self.hooks.prompt(self.id, text, bool(self.conversation.messages))
        self.turn_no += 1
        if self.checkpoints is not None:
            self.checkpoints.begin(self.id, self.turn_no, len(self.conversation.messages))
        self.conversation.add_user(text, images, added)
        try:
            self.save(progress=True)  # kept as it goes (and after each round's calls): a kill loses one round at most
            answer = self._rounds()
            while (more := self.hooks.stop(self.id, answer)) is not None:  # a Stop hook sends the model back
                self.conversation.messages.append(Message("user", more, added=[more]))
                answer = self._rounds()
            return answer
        except AnkitError as exc:
            if getattr(exc, "overflow", False):  # kept, it would meet every later message with the same refusal
                self.conversation.drop_last_turn()
            raise
        finally:
            self.save()

    def _rounds(self) -> str:
        recent: list[str] = []
        for number in range(1, self.max_rounds + 1):
            reply, error = self._round(number)
            if error is not None:
                raise error
            if not reply.tool_calls:
                return reply.text
            signature = json.dumps([(c.name, c.arguments) for c in reply.tool_calls])
            recent = (recent + [signature])[-REPEAT_LIMIT:]
            self._run_tools(reply.tool_calls)
            if len(recent) == REPEAT_LIMIT and len(set(recent)) == 1:
                self.view.notice(f"stopped: the model made the same call {REPEAT_LIMIT} times in a row")
                return reply.text
            self._take_typed()
            self.save(progress=True)
        self.view.notice(f"stopped after {self.max_rounds} rounds (max_rounds); say 'go on' to continue")
        return ""

    def _take_typed(self) -> None:
        """What the user typed while the round ran goes after its results, one message for the next request."""
        typed = self.inbox.take() if self.inbox is not None else []
        if typed:
            self.conversation.messages.append(Message("user", "\n\n".join(typed)))

    def _round(self, number: int, extra: list[Message] | None = None,
               keep: bool = True) -> tuple[Message, BaseException | None]:
        """One round: plan it once, build its request, send it and read the reply, record what happened.

        `extra` goes after the history for this round only; a reply not kept (/compact's summary) stays out
        of the history. A cut or a Ctrl-C keeps the partial text and comes back as the error.
        """
        plan = self.plan()
        request = build_request(self.system, plan, self.max_tokens, self.activation.catalog(), extra or [])
        if plan.dropped and not self.conversation.told_overflow:
            self.conversation.told_overflow = True
            self.view.notice(f"the oldest {plan.dropped} messages no longer fit the model's window: left out of "
                             "requests, kept in the session file")
        started = time.monotonic()
        reply, usage, error = read_reply(self.meter, self.provider, request, self.view, self.tokens(request, plan.tools))
        if plan.history and plan.history[-1].role == "tool":  # what the request sent with that batch stays so
            plan.history[-1].activated += newly_sent(plan.history, plan.tools)
        if keep and (reply.text or reply.tool_calls):
            self.conversation.messages.append(reply)
        self.ledger.add(RoundRecord(
            turn=self.turn_no, round=number, provider=self.provider.name, model=self.provider.model,
            usage=usage, schema_bytes=plan.tools.schema_bytes, groups_sent=list(plan.tools.sent),
            groups_held=list(plan.tools.held_back), duration=time.monotonic() - started))
        return reply, error

    def side_round(self, message: Message) -> tuple[Message, BaseException | None]:
        """A round of a turn of its own whose reply stays out of the history (/compact asks for a summary)."""
        if self.provider is None:
            raise ConfigError(NO_PROVIDER)
        self.turn_no += 1
        return self._round(1, [message], keep=False)

    def plan(self) -> Plan:
        """What the next round carries, decided once: the history that fits the window, the tools beside it."""
        room = history_room(self.window, self.max_tokens, len(self.system.encode()) + self.activation.core_bytes())
        history, dropped = fit_history(self.conversation.live(), room)
        prompt_bytes = len(self.system.encode()) + sum(message_bytes(m) for m in history) + self.activation.core_bytes()
        return Plan(history, self.activation.tools_for_round(schema_budget(self.window, self.max_tokens, prompt_bytes)),
                    dropped)

    def request(self) -> tuple[Request, RoundTools]:
        """The next round's request and the tools decision behind it, as /context shows them; changes nothing."""
        plan = self.plan()
        return build_request(self.system, plan, self.max_tokens, self.activation.catalog()), plan.tools

    @staticmethod
    def tokens(request: Request, tools: RoundTools) -> int:
        """About how many input tokens the request is (what max_cost is checked with before it is sent)."""
        size = len(request.system.encode()) + sum(message_bytes(m) for m in request.messages)
        return (size + tools.schema_bytes + len(request.note.encode())) // BYTES_PER_TOKEN

    def _run_tools(self, calls: list[ToolCall]) -> None:
        results: list[ToolResult] = []
        stopped: list[str] = []
        before = len(self.activation.active)
        if self.ready is not None:
            self.ready.before_calls([call.name for call in calls], self.view)  # a server still listing a named tool
        try:
            self.tools.start(calls, self.view.tool_output)  # task calls of one reply run at once
            for call in calls:
                tool = self.tools.lookup(call.name)
                version = self.todos.version
                self.view.tool_start(call)
                try:
                    result = self.tools.run(call, self.view.tool_output)
                except KeyboardInterrupt as exc:  # stopped while it ran
                    detail = str(exc) or "stopped by the user while it ran"
                    results.append(ToolResult(call.id, call.name, cap_output(f"Error: {detail}"), True, "stopped"))
                    stopped.append(call.name)
                    raise
                if tool is not None and tool.name not in self.activation.offered_names():
                    self.activation.activate([tool.name])  # a deferred tool called by name joins the set, alone
                self.view.tool_end(result)
                results.append(result)
                while self.checkpoints is not None and self.checkpoints.notes:
                    self.view.notice(self.checkpoints.notes.pop(0))
                if self.todos.version != version:
                    self.view.todos(self.todos)
        except (KeyboardInterrupt, Cancelled) as exc:
            ran = [r.name for r in results if r.name not in stopped]
            never = [c for c in calls if c.id not in {r.call_id for r in results}]
            results += [ToolResult(c.id, c.name, "Error: cancelled by the user before it started", True,
                                   "never started") for c in never]
            head = str(exc) if isinstance(exc, Cancelled) and str(exc) else "cancelled"
            raise Cancelled(cancel_message(head, ran, stopped, [c.name for c in never])) from None
        finally:
            self._take_runs()
            self.conversation.messages.append(Message("tool", results=results))
            if self.ledger.rounds:  # groups that find_tools or a deferred call activated in this round
                self.ledger.rounds[-1].activated += self.activation.active[before:]
                self.ledger.rounds[-1].code_calls += sum(len(r.inner) for r in results)

    def _take_runs(self) -> None:
        """The subagent runs this round's task calls finished join the session (its usage and its file)."""
        for run in self.subagents.take() if self.subagents is not None else []:
            run.turn = self.turn_no
            self.runs.append(run)

    def spent_rounds(self) -> list:
        """Every round this session paid for: its own and its subagents' (what max_cost counts)."""
        return [*self.ledger.rounds, *(r for run in self.runs for r in run.rounds)]

    def restart(self) -> None:
        """Start afresh under a new id, so the earlier conversation stays saved; the activated set stays."""
        self.conversation.clear()
        self.conversation.title = ""
        self.todos.replace([])
        self.id, self.created, self.turn_no = new_session_id(), _now(), 0
        self.ledger = Ledger()
        self.meter.restart()

    def fork(self) -> str:
        """Go on under a new id with a copy of the conversation (and of its checkpoints); the original file stays
        as it is. Returns the original's id."""
        old = self.id
        self.save()
        self.conversation.keep_title()
        self.id, self.created, self.forked_from = new_session_id(), _now(), old
        if self.checkpoints is not None:
            self.checkpoints.copy(old, self.id)
        self.save()
        return old

    def rewind(self, at: int, files: bool = False):
        """Take the conversation back to just before message `at`; with files, put back what the turns since
        changed too (a storage.checkpoints.Undone, or None)."""
        self.conversation.check(at)
        done = None
        if files:
            if self.checkpoints is None:
                raise AnkitError("no checkpoints are kept in this session: the files stay as they are")
            done = self.checkpoints.rewind(self.id, at)
        self.conversation.cut(at)
        self.save()
        return done

    def switch_model(self, model: str) -> None:
        """Ask for another model from the next turn on: its window and system prompt come with it."""
        if self.provider is None:
            raise ConfigError(NO_PROVIDER)
        self.provider.use_model(model)
        self.model = model
        self.system, self._window = self.prompt.system(model), 0

    def use_prompt(self, prompt: Prompt) -> None:
        """Build the system prompt from another Prompt (new project instructions after /init)."""
        self.prompt = prompt
        self.system = prompt.system(self.model)

    def snapshot(self) -> SessionData:
        """Everything the session file holds, as of now."""
        provider = self.provider
        return SessionData(
            id=self.id, created=self.created, cwd=str(self.cwd), provider=provider.name if provider else "",
            model=provider.model if provider else "", messages=self.conversation.messages,
            rounds=self.ledger.rounds, activated=list(self.activation.active), title=self.conversation.title,
            todos=list(self.todos.items),
            subagents=list(self.runs), forked_from=self.forked_from)

    def save(self, title: str = "", progress: bool = False) -> Path | None:
        """Write the session file (titled, if a title is given; with progress, a turn's lines so far, kept apart
        until it ends); a failure is told in one line, the old copy stays."""
        if title:
            self.conversation.title = title
        if self.store is None:
            return None
        try:
            saved = self.store.save_progress(self.snapshot()) if progress else self.store.save(self.snapshot())
        except AnkitError as exc:
            if str(exc) != self._unsaved:  # said once, not at every round of a turn
                self.view.notice(str(exc))
            self._unsaved = str(exc)
            return None
        self._unsaved = ""
        return saved
