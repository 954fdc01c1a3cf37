"""The neutral vocabulary shared by every module: messages, tool calls, results, usage, events, the checklist,
and what a session file holds (its messages, its rounds)."""

from dataclasses import dataclass, field
from datetime import datetime, timezone


ARGUMENTS_CAP = 8 * 1024 * 1024  # characters of one call's arguments taken from a model (MCP's lines: 32 MB)
TOO_LONG = "ankit_arguments_too_long"  # the one key of the arguments kept for a call past ARGUMENTS_CAP
# What a tool may do (its declared effects, ankit/safety/effects.py): reads, writes in the working folder, writes
# elsewhere, lasting state (memory, notes, routines, MCP and hook settings), the network, runs programs.
EFFECTS = ("read", "write", "write-elsewhere", "lasting", "network", "run")
ASKED_EFFECTS = ("write-elsewhere", "run")  # a call whose tool may do these is asked first, whatever the tool says


@dataclass(frozen=True)
class CallEffects:
    """What one call does, as everything that decides about it reads it (Tool.call_effects): the tool's effect
    words, whether this call outlives the session, whether it asks first, and whether it runs confined in the
    sandbox (unasked there)."""

    words: frozenset[str]
    lasting: bool = False
    asks: bool = False
    confined: bool = False

    @property
    def changes(self) -> bool:
        """It may change something: write here or elsewhere, keep something lasting, run a program."""
        return bool(self.words & {"write", "write-elsewhere", "lasting", "run"})


UNREAD_PROGRAM = "*"  # Touches.runs of a call whose program ankit cannot read (run_code's): it may run anything


@dataclass(frozen=True)
class Touches:
    """What one call declares it reads, changes, runs and reaches (absolute paths, program names, hosts);
    withholds: a read the rules deny is left out of the result instead of the call refused (search and listing
    tools); declared False: the tool said nothing, so it may do anything its arguments allow."""

    reads: tuple[str, ...] = ()
    changes: tuple[str, ...] = ()
    runs: tuple[str, ...] = ()
    reaches: tuple[str, ...] = ()
    withholds: bool = False
    declared: bool = True


@dataclass
class ToolCall:
    """A call the model asked for; `arguments` is the raw JSON text as the model sent it."""

    id: str
    name: str
    arguments: str = "{}"


def bounded_arguments(text: str, size: int | None = None) -> str:
    """A call's arguments as kept: the text, or {"ankit_arguments_too_long": SIZE} when the model sent more
    than ARGUMENTS_CAP characters (size: how many, when the text was no longer kept whole)."""
    size = len(text) if size is None else size
    return text if size <= ARGUMENTS_CAP else '{"%s": %d}' % (TOO_LONG, size)


@dataclass
class ToolResult:
    """The outcome of one tool call: `content` is sent back to the model, `summary` is the user's short line."""

    call_id: str
    name: str
    content: str
    is_error: bool = False
    summary: str = ""  # one plain line for the user ("declined", "loaded git (7 tools)"); never sent
    refused: bool = False  # the policy, a hook or the user refused it (a run_code program gets ToolRefused); never sent
    data: str | None = None  # the tool's value as JSON (ToolOutput.value, scrubbed): what a run_code program gets
    inner: list[str] = field(default_factory=list)  # a run_code program's calls, one line each: saved, never sent


@dataclass(frozen=True)
class ToolOutput:
    """What a tool's run() returns when a program should get data, not display text: the model reads `text` on
    a direct call, a run_code program's call returns `value` (JSON data: str, int, float, bool, None, list, dict)."""

    text: str
    value: object = None


@dataclass
class Image:
    """An image the user attached (@screenshot.png); each provider renders it in its own wire format."""

    media_type: str  # image/png, image/jpeg, image/gif or image/webp
    data: str  # base64
    name: str = ""  # the path as the user wrote it


@dataclass
class Message:
    """One history entry: role is "user", "assistant" or "tool" (a batch of results)."""

    role: str
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    results: list[ToolResult] = field(default_factory=list)
    cut: bool = False  # the reply was interrupted; text is partial
    opaque: dict = field(default_factory=dict)  # wire kind -> data that provider needs back (thinking blocks)
    images: list[Image] = field(default_factory=list)  # user messages only
    summary: bool = False  # /compact's summary: requests start here; the messages before it stay in the file
    activated: list[str] = field(default_factory=list)  # tool batches only: groups first sent to the model with it
    added: list[str] = field(default_factory=list)  # user messages: what hooks added at the end of text, not typed


def typed(message: Message) -> str:
    """What the user typed of a user message: its text without what hooks added at its end."""
    extra = "\n\n".join(message.added)
    if extra and message.text.endswith(extra):
        return message.text[: len(message.text) - len(extra)].rstrip("\n")
    return message.text


@dataclass
class ToolSpec:
    """What the model sees of a tool."""

    name: str
    description: str
    parameters: dict
    group: str = ""
    returns: str = ""  # what a call from a run_code program returns (the stub's return type); never sent as such


@dataclass
class Usage:
    """Token counts for one round; input_tokens is the whole prompt, cached and written parts included."""

    input_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0
    reported: bool = False  # False when the provider never sent usage

    def add(self, other: "Usage") -> "Usage":
        """Return the sum of two usages."""
        return Usage(
            self.input_tokens + other.input_tokens,
            self.cached_tokens + other.cached_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.output_tokens + other.output_tokens,
            self.reported or other.reported,
        )


@dataclass
class Request:
    """Everything one round sends: providers translate it to their wire format."""

    system: str
    messages: list[Message]
    tools: list[ToolSpec]  # always-loaded tools, then activated groups that fit (what an append path sends)
    note: str = ""  # per-round text placed after the last cache breakpoint (e.g. held-back groups)
    max_tokens: int = 4096
    deferred: list[ToolSpec] = field(default_factory=list)  # every other catalog tool, in a grow-only order
    top_logprobs: int = 0  # ask for the likeliest first tokens and their log-probabilities (decision mode)


@dataclass
class TokenChoices:
    """The likeliest first tokens of a reply with their log-probabilities (asked with Request.top_logprobs)."""

    logprobs: dict[str, float]


@dataclass
class TextDelta:
    """A piece of streamed reply text."""

    text: str


@dataclass
class ToolCallDone:
    """A tool call fully assembled from the stream."""

    call: ToolCall


@dataclass
class UsageReport:
    """Usage as read from the stream (the latest report replaces earlier ones)."""

    usage: Usage


@dataclass
class OpaqueData:
    """Data a provider must get back with this reply in later requests, untouched (e.g. thinking blocks)."""

    kind: str
    data: list


@dataclass
class Notice:
    """A one-line message from the provider for the user (e.g. a fallback it switched to)."""

    text: str


@dataclass
class StreamEnd:
    """The stream finished normally."""

    stop_reason: str = ""


Event = TextDelta | ToolCallDone | UsageReport | OpaqueData | Notice | StreamEnd | TokenChoices


TODO_STATES = ("pending", "in_progress", "done")


@dataclass
class Todo:
    """One item of the session's checklist."""

    text: str
    status: str = "pending"  # one of TODO_STATES


@dataclass
class TodoList:
    """The session's checklist: write_todos replaces it whole, the user sees it, the session file keeps it."""

    items: list[Todo] = field(default_factory=list)
    version: int = 0  # counts replacements, so the loop can tell the view the list changed

    def replace(self, entries: list[dict]) -> None:
        """Put these {"text", "status"} entries in place of the list (checked by the caller)."""
        self.items[:] = [Todo(str(e["text"]), str(e.get("status") or "pending")) for e in entries]
        self.version += 1

    def counts(self) -> str:
        """'2/5 done, 1 in progress'."""
        done = sum(t.status == "done" for t in self.items)
        doing = sum(t.status == "in_progress" for t in self.items)
        return f"{done}/{len(self.items)} done" + (f", {doing} in progress" if doing else "")


USAGE_FIELDS = ("input_tokens", "cached_tokens", "cache_write_tokens", "output_tokens")


def _now_text() -> str:
    """The local time now, ISO 8601 with its UTC offset."""
    return datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds")


@dataclass
class RoundRecord:
    """What one round (one request and its reply) cost and carried."""

    turn: int
    round: int
    provider: str
    model: str
    usage: Usage
    schema_bytes: int
    groups_sent: list[str]
    groups_held: list[str]
    duration: float
    activated: list[str] = field(default_factory=list)  # groups newly activated by this round's tool calls
    at: str = field(default_factory=_now_text)  # when the round ended
    code_calls: int = 0  # calls run_code programs made in this round's tool batch

    def to_dict(self) -> dict:
        """A JSON-ready dict."""
        data = dict(self.__dict__)
        data["usage"] = dict(self.usage.__dict__)
        if not self.code_calls:
            del data["code_calls"]  # most rounds run no program: their lines stay as they were
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "RoundRecord":
        """Rebuild a record written by to_dict; raises ValueError when it is malformed."""
        try:
            raw = data["usage"]
            usage = Usage(*(int(raw.get(name, 0)) for name in USAGE_FIELDS), bool(raw.get("reported", False)))
            return cls(
                int(data["turn"]), int(data["round"]), str(data["provider"]), str(data["model"]), usage,
                int(data.get("schema_bytes", 0)), [str(g) for g in data.get("groups_sent", [])],
                [str(g) for g in data.get("groups_held", [])], float(data.get("duration", 0.0)),
                [str(g) for g in data.get("activated", [])], str(data.get("at", "")), int(data.get("code_calls", 0)),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ValueError(f"malformed round record: {error!r}") from None


@dataclass
class SubagentRun:
    """One task a subagent ran: its own transcript and rounds, kept in the file of the session that asked."""

    id: str
    turn: int  # the asking session's turn
    description: str
    agent: str = ""  # the named agent, or "" for the general one
    messages: list[Message] = field(default_factory=list)
    rounds: list[RoundRecord] = field(default_factory=list)
    answer: str = ""


@dataclass
class SessionData:
    """Everything a session file holds."""

    id: str
    created: str
    cwd: str
    provider: str
    model: str
    messages: list[Message] = field(default_factory=list)
    rounds: list[RoundRecord] = field(default_factory=list)
    activated: list[str] = field(default_factory=list)  # the grow-only set, in activation order
    title: str = ""
    todos: list[Todo] = field(default_factory=list)  # the checklist write_todos keeps
    subagents: list[SubagentRun] = field(default_factory=list)  # the tasks its subagents ran
    forked_from: str = ""  # the session this one was forked from (/fork, --fork-session)


@dataclass
class TerminalRun:
    """A command the user's editor ran in one of its terminals (protocols.Editor.run)."""

    code: int | None  # None: ended by a signal, or stopped at the timeout
    output: str
    signal: str = ""
    timed_out: bool = False
    truncated: bool = False  # the editor kept only the end of a longer output
    seconds: float = 0.0
