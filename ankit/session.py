"""The turn loop and the history: send, stream, run tools, repeat until the model answers."""

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ankit.tooling.activation import BYTES_PER_TOKEN, Activation, RoundTools, schema_budget
from ankit.errors import Cancelled, ConfigError, StreamError
from ankit.window import fit_history, message_bytes
from ankit.providers.base import Provider
from ankit.records import (Message, OpaqueData, Request, StreamEnd, TextDelta, ToolCall, ToolCallDone,
                           ToolResult, Usage, UsageReport)
from ankit.tooling.toolbox import Approver, Tool, ToolContext, run_call
from ankit.usage.ledger import Ledger, RoundRecord

REPEAT_LIMIT = 3
NO_PROVIDER = ("No provider is configured: export ANTHROPIC_API_KEY (or OPENAI_API_KEY, OPENROUTER_API_KEY, "
               "GITHUB_TOKEN), or use --provider ollama or --base-url URL")


class View:
    """What the session shows while it works; the REPL and the one-shot runner subclass it."""

    def text(self, delta: str) -> None:
        """A piece of reply text."""

    def reply_end(self) -> None:
        """The reply of one round is complete."""

    def tool_start(self, call: ToolCall) -> None:
        """A tool call is about to run."""

    def tool_end(self, result: ToolResult) -> None:
        """A tool call finished."""

    def notice(self, line: str) -> None:
        """A one-line message from ankit itself."""


@dataclass
class Session:
    """One conversation with one provider."""

    provider: Provider | None
    lookup: Callable[[str], Tool | None]  # every known tool by name, active or not
    activation: Activation
    system: str
    ctx: ToolContext
    approve: Approver
    view: View = field(default_factory=View)
    ledger: Ledger = field(default_factory=Ledger)
    window: int = 32_000
    max_tokens: int = 4096
    max_rounds: int = 25
    output_cap: int = 64 * 1024
    messages: list[Message] = field(default_factory=list)
    save: Callable[[], None] = lambda: None
    prepare: Callable[[], None] = lambda: None  # called before each turn (e.g. let MCP servers finish starting)
    turn_no: int = 0
    id: str = ""
    created: str = ""
    title: str = ""
    _told_overflow: bool = False

    def turn(self, text: str) -> str:
        """Run one user turn to its final answer and return the answer's text."""
        if self.provider is None:
            raise ConfigError(NO_PROVIDER)
        self.prepare()
        self.turn_no += 1
        self.messages.append(Message("user", text))
        try:
            return self._rounds()
        finally:
            self.save()

    def _rounds(self) -> str:
        recent: list[str] = []
        for number in range(1, self.max_rounds + 1):
            reply = self._round(number)
            if not reply.tool_calls:
                return reply.text
            signature = json.dumps([(c.name, c.arguments) for c in reply.tool_calls])
            recent = (recent + [signature])[-REPEAT_LIMIT:]
            self._run_tools(reply.tool_calls)
            if len(recent) == REPEAT_LIMIT and len(set(recent)) == 1:
                self.view.notice(f"stopped: the model made the same call {REPEAT_LIMIT} times in a row")
                return reply.text
        self.view.notice(f"stopped after {self.max_rounds} rounds (max_rounds); say 'go on' to continue")
        return ""

    def request(self) -> tuple[Request, RoundTools]:
        """Build the next round's request and the tools decision behind it."""
        history, dropped = fit_history(self.messages, self._history_room())
        if dropped and not self._told_overflow:
            self._told_overflow = True
            self.view.notice(f"the oldest {dropped} messages no longer fit the model's window: left out of requests, kept in the session file")
        prompt_bytes = len(self.system.encode()) + sum(message_bytes(m) for m in history) + self.activation.core_bytes()
        tools = self.activation.tools_for_round(schema_budget(self.window, self.max_tokens, prompt_bytes))
        note = ""
        if tools.held_back:
            note = (f"[ankit] Tool groups held back this round for lack of room in the context window: "
                    f"{', '.join(tools.held_back)}. They come back when there is room.")
        return Request(self.system, history, tools.specs, note, self.max_tokens), tools

    def _history_room(self) -> int:
        window = (self.window - self.max_tokens) * BYTES_PER_TOKEN
        return window - len(self.system.encode()) - self.activation.core_bytes()

    def _round(self, number: int) -> Message:
        request, tools = self.request()
        started = time.monotonic()
        reply, usage, error = self.stream_reply(request)
        if reply.text or reply.tool_calls:
            self.messages.append(reply)
        self.record_round(number, usage, tools, started)
        if error is not None:
            raise error
        return reply

    def record_round(self, number: int, usage: Usage, tools: RoundTools, started: float) -> None:
        """Add one round of this turn to the ledger."""
        self.ledger.add(RoundRecord(
            turn=self.turn_no, round=number, provider=self.provider.name, model=self.provider.model,
            usage=usage, schema_bytes=tools.schema_bytes, groups_sent=list(tools.sent),
            groups_held=list(tools.held_back), duration=time.monotonic() - started))

    def stream_reply(self, request: Request) -> tuple[Message, Usage, Exception | None]:
        """Stream one reply; a cut or a Ctrl-C keeps the partial text and returns the error."""
        reply, usage, error = Message("assistant"), Usage(), None
        try:
            for event in self.provider.stream(request):
                if isinstance(event, TextDelta):
                    reply.text += event.text
                    self.view.text(event.text)
                elif isinstance(event, ToolCallDone):
                    reply.tool_calls.append(event.call)
                elif isinstance(event, UsageReport):
                    usage = event.usage
                elif isinstance(event, OpaqueData):
                    reply.opaque[event.kind] = event.data
                elif isinstance(event, StreamEnd):
                    break
        except KeyboardInterrupt:
            error = Cancelled("cancelled; the partial reply is kept" if reply.text else "cancelled")
        except StreamError as exc:
            error = exc
        self.view.reply_end()
        if error is not None:
            # calls that will not run must not be sent back unanswered; half a thinking block would be refused
            reply.cut, reply.tool_calls, reply.opaque = True, [], {}
        return reply, usage, error

    def _run_tools(self, calls: list[ToolCall]) -> None:
        results: list[ToolResult] = []
        before = len(self.activation.active)
        try:
            for call in calls:
                tool = self.lookup(call.name)
                self.view.tool_start(call)
                result = run_call(call, tool, self.ctx, self.approve, self.output_cap)
                if tool is not None:
                    self.activation.activate([tool.group])  # a deferred tool called by name joins the set
                self.view.tool_end(result)
                results.append(result)
        except (KeyboardInterrupt, Cancelled):
            done = {r.call_id for r in results}
            results += [ToolResult(c.id, c.name, "Error: cancelled by the user", True) for c in calls if c.id not in done]
            raise Cancelled("cancelled; the tool calls that did not run were answered as cancelled") from None
        finally:
            self.messages.append(Message("tool", results=results))
            if self.ledger.rounds:  # groups that find_tools or a deferred call activated in this round
                self.ledger.rounds[-1].activated += self.activation.active[before:]

    def clear(self) -> None:
        """Empty the history; the activated set stays."""
        self.replace_history([])

    def restart(self, new_id: str, created: str) -> None:
        """Start afresh under a new id, so the earlier conversation stays saved; the activated set stays."""
        self.clear()
        self.id, self.created, self.turn_no, self.title = new_id, created, 0, ""
        self.ledger = Ledger()

    def replace_history(self, messages: list[Message]) -> None:
        """Put messages in place of the history (after /clear or /compact)."""
        self.messages[:] = messages
        self._told_overflow = False
