"""The Anthropic Messages wire format: neutral records out, streamed events back, with cache breakpoints.

Thinking blocks travel back untouched: a reply's content is kept as its layout (thinking and redacted_thinking
blocks whole, text blocks by length, tool_use blocks by id) in Message.opaque["anthropic"], and the assistant turn
is rebuilt in that order, because the API checks each thinking block's signature against what came before it.

Activated tools reach the model without touching the cached prefix: always-loaded tools are declared plain;
a group first sent with a batch of results (Message.activated) is referenced from that batch's find_tools
answer, a tool_result holding only tool_reference blocks with its words in a text block beside it, and its
tools are declared with "defer_loading": true from that round on, never before (deferred declarations are
not part of the cached prefix). A server that refuses that (an older model, a proxy) gets the append path
for the rest of the session.
"""

import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from ankit.errors import ProviderError
from ankit.providers import http
from ankit.providers.anthropic_stream import KIND, THINKING, read_stream, read_whole
from ankit.providers.base import Provider, ProviderSettings, split_text
from ankit.records import Event, Message, Notice, Request, ToolCall, ToolResult, ToolSpec

VERSION = "2023-06-01"
REFUSAL_WORDS = ("defer_loading", "tool_reference")  # a 400 naming these refuses deferred tools


FINDER = "find_tools"  # the tool whose answers reference the tools they load


@dataclass
class Deferral:
    """What a request declares: deferred tools (none on the append path) and always-loaded ones, by name."""

    deferred: dict[str, ToolSpec] = field(default_factory=dict)  # in catalog order
    plain: set[str] = field(default_factory=set)
    catalog: set[str] = field(default_factory=set)  # the groups of the catalog: a sent one not in it is gone


class AnthropicProvider(Provider):
    """The Anthropic Messages API, or any server that speaks it."""

    def __init__(self, settings: ProviderSettings):
        super().__init__(settings)
        self.refused: set[str] = set()  # signatures (or data) of thinking blocks the API would not take back
        self.defer = settings.deferred != "append"  # off for good once the server refuses deferred tools

    @property
    def defers(self) -> bool:
        """Whether activated tools are still loaded without touching the tools array."""
        return self.defer

    def stream(self, request: Request) -> Iterator[Event]:
        """Send one round and yield TextDelta, ToolCallDone, OpaqueData, UsageReport, then StreamEnd."""
        settings = self.settings
        headers = {"anthropic-version": VERSION}
        if settings.api_key:
            headers["x-api-key"] = settings.api_key
        if settings.cache_ttl == "1h":
            headers["anthropic-beta"] = "extended-cache-ttl-2025-04-11"
        url = settings.base_url.rstrip("/") + "/messages"
        try:
            response = self._post(url, self._body(request), headers)
        except ProviderError as error:
            if not (self.defer and request.deferred and settings.deferred == "auto" and refuses_deferral(error)):
                raise
            self.defer = False
            response = self._post(url, self._body(request), headers)
            yield Notice(f"{settings.preset} refused deferred tools ({error.status}): activated tools are added to "
                         "the tool list for the rest of this session (deferred = \"append\" skips the attempt)")
        yield from http.read_reply(settings, response, read_stream, read_whole)

    def _body(self, request: Request) -> dict:
        body = build_body(self.settings, request, self.defer)
        drop_thinking(body["messages"], self.refused)
        return body

    def _post(self, url: str, body: dict, headers: dict):
        """Post the body; if the API refuses its thinking blocks, post once more without any of them.

        A block is refused when what came before it changed (tools, system prompt, an earlier message), when it
        comes from another account, or when it was altered (a secret scrubbed from a saved session). The docs'
        remedy is to drop the thinking history and retry once; the refused blocks are never sent again.
        """
        try:
            return http.post_stream(self.settings, url, body, headers)
        except ProviderError as error:
            text = str(error).lower()
            if error.status != 400 or "signature" not in text or "thinking" not in text:
                raise
            self.refused |= {block_key(b) for m in body["messages"] for b in m["content"] if b.get("type") in THINKING}
            if not drop_thinking(body["messages"], self.refused):
                raise
        return http.post_stream(self.settings, url, body, headers)


def refuses_deferral(error: ProviderError) -> bool:
    """Whether a refusal is about deferred tools themselves."""
    return error.status == 400 and any(word in str(error) for word in REFUSAL_WORDS)


def deferral(request: Request, defer: bool) -> Deferral:
    """Which tools a request declares deferred: those of the groups its history has sent (none on the append
    path, or when nothing would stay plain)."""
    everything = Deferral(plain={t.name for t in request.tools})
    if not defer or not request.deferred:
        return everything
    catalog = {t.name for t in request.deferred}
    plain = {t.name for t in request.tools if t.name not in catalog}
    if not plain:
        return everything
    sent = {g for m in request.messages for g in m.activated}
    deferred = {t.name: t for t in request.deferred if t.group in sent}
    return Deferral(deferred, plain, {t.group for t in request.deferred})


def tools_array(request: Request, declared: Deferral) -> list[dict]:
    """The tools: plain ones first; on the deferred path the tools sent so far follow, each marked deferred."""
    if not declared.catalog:
        return [tool_entry(t) for t in request.tools]
    plain = [tool_entry(t) for t in request.tools if t.name in declared.plain]
    return plain + [{**tool_entry(t), "defer_loading": True} for t in declared.deferred.values()]


def tool_entry(spec: ToolSpec) -> dict:
    """One tool declaration."""
    return {"name": spec.name, "description": spec.description, "input_schema": spec.parameters}


def build_body(settings: ProviderSettings, request: Request, defer: bool = False) -> dict:
    """The Messages request body: breakpoints on the system prompt, the previous round's end and the latest message.

    The tools come first in Anthropic's prefix order, so the system breakpoint caches them too. Marking where the
    previous request ended guarantees a cache read even when a round added more than the 20 blocks the server
    looks back. The note goes after the last breakpoint, so it never changes the cached prefix. Three breakpoints
    at most, of the four allowed.
    """
    cache = {"type": "ephemeral", "ttl": "1h"} if settings.cache_ttl == "1h" else {"type": "ephemeral"}
    declared = deferral(request, defer)
    messages = wire_messages(request.messages, declared)
    if messages:
        mark(messages[-1]["content"], cache)
    if len(messages) >= 3 and messages[-3]["role"] == "user":
        mark(messages[-3]["content"], cache)
    if request.note:
        if messages and messages[-1]["role"] == "user":
            messages[-1]["content"].append({"type": "text", "text": request.note})
        else:
            messages.append({"role": "user", "content": [{"type": "text", "text": request.note}]})
    body: dict = {"model": settings.model, "max_tokens": request.max_tokens}
    if request.system:
        body["system"] = [{"type": "text", "text": request.system, "cache_control": dict(cache)}]
    body["messages"] = messages
    if request.tools:
        body["tools"] = tools_array(request, declared)
    body["stream"] = True
    return body


def mark(content: list[dict], cache: dict) -> None:
    """Put a cache breakpoint on the last block that may carry one (thinking blocks may not)."""
    for block in reversed(content):
        if block.get("type") not in THINKING:
            block["cache_control"] = dict(cache)
            return


def wire_messages(messages: list[Message], declared: Deferral | None = None) -> list[dict]:
    """Neutral messages as Messages-API turns: results become user tool_result blocks, same roles merge."""
    out: list[dict] = []
    declared = declared or Deferral()
    for message in messages:
        role = "assistant" if message.role == "assistant" else "user"
        blocks = assistant_blocks(message) if message.role == "assistant" else content_blocks(message, declared)
        if not blocks:
            continue  # an empty turn is refused by the API
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return out


def content_blocks(message: Message, declared: Deferral) -> list[dict]:
    """The content blocks of a user or tool message; never an empty text block.

    The batch's find_tools answer (else its last result) references the tools of the groups first sent with
    it: it holds only their tool_reference blocks, and its text goes in a text block after all the
    tool_result blocks, where the API wants any text of a turn that answers calls.
    """
    blocks, beside = [], []
    holder, loads = carrier_of(message), references(message, declared)
    for result in message.results:
        refs, gone = loads if result is holder else ([], [])
        text = result.content + (f"\n[ankit] No longer available: {', '.join(gone)}." if gone else "")
        block = {"type": "tool_result", "tool_use_id": result.call_id}
        if refs:
            block["content"] = [{"type": "tool_reference", "tool_name": n} for n in refs]
            beside += text_block(text)
        else:
            block["content"] = text or "(no output)"
        if result.is_error:
            block["is_error"] = True
        blocks.append(block)
    blocks += [{"type": "image", "source": {"type": "base64", "media_type": i.media_type, "data": i.data}}
               for i in message.images]
    return blocks + beside + text_block(message.text)


def carrier_of(message: Message) -> ToolResult | None:
    """The result that loads a batch's newly sent tools: find_tools' answer, else the batch's last result."""
    finders = [r for r in message.results if r.name == FINDER]
    return (finders or message.results or [None])[-1]


def references(message: Message, declared: Deferral) -> tuple[list[str], list[str]]:
    """The tools the batch references (by group, in order) and the groups it sent that left the catalog."""
    if not declared.catalog or not message.activated:
        return [], []
    refs = [n for g in message.activated for n, t in declared.deferred.items() if t.group == g]
    return refs, [g for g in message.activated if g not in declared.catalog]


def assistant_blocks(message: Message) -> list[dict]:
    """An assistant turn in the order the API sent it: its layout first, then any text and calls not in it.

    Without a layout this is the text, then the tool_use blocks.
    """
    layout = message.opaque.get(KIND)
    layout = [item for item in layout if isinstance(item, dict)] if isinstance(layout, list) else []
    pieces = split_text(message.text, [item.get("chars") for item in layout if item.get("type") == "text"])
    calls = list(message.tool_calls)
    blocks: list[dict] = []
    for item in layout:
        kind = item.get("type")
        if kind in THINKING:
            blocks.append(dict(item))
        elif kind == "text":
            blocks += text_block(pieces.pop(0))
        elif kind == "tool_use":
            call = next((c for c in calls if c.id == item.get("id")), None)
            if call is not None:
                calls.remove(call)
                blocks.append(tool_use_block(call))
    return blocks + text_block(pieces[-1]) + [tool_use_block(c) for c in calls]


def text_block(text: str) -> list[dict]:
    """A text block, or none for blank text (the API refuses those)."""
    return [{"type": "text", "text": text}] if text.strip() else []


def tool_use_block(call: ToolCall) -> dict:
    """A call as a tool_use block."""
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": parse_input(call.arguments)}


def parse_input(arguments: str) -> dict:
    """A call's raw JSON arguments as the object tool_use wants ({} when they are not an object)."""
    try:
        value = json.loads(arguments or "{}", strict=False)  # small models put raw newlines in strings
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def block_key(block: dict) -> str:
    """What identifies a thinking block: its signature, or a redacted block's data."""
    return str(block.get("signature") or block.get("data") or "")


def drop_thinking(messages: list[dict], refused: set[str]) -> int:
    """Remove refused thinking blocks from wire messages (and turns left empty); returns how many went."""
    dropped = 0
    for message in messages:
        kept = [b for b in message["content"] if b.get("type") not in THINKING or block_key(b) not in refused]
        dropped += len(message["content"]) - len(kept)
        message["content"] = kept
    messages[:] = [m for m in messages if m["content"]]
    return dropped
