"""Reading Anthropic Messages replies: streamed events (or a whole message) into neutral events.

Besides text, calls and usage, a reply that thinks yields its layout as OpaqueData: thinking and redacted_thinking
blocks whole, text blocks by length and tool_use blocks by id, in the order the API sent them.
"""

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ankit.errors import StreamError
from ankit.providers import http
from ankit.providers.base import ProviderSettings, part
from ankit.records import (ARGUMENTS_CAP, Event, OpaqueData, StreamEnd, TextDelta, ToolCall, ToolCallDone, Usage,
                           UsageReport, bounded_arguments)
from ankit.safety import text as boundary
from ankit.providers.sse import ServerEvent

RETRYABLE_ERRORS = {"overloaded_error": 529, "api_error": 500, "rate_limit_error": 429}
KIND = "anthropic"  # the provider's key in Message.opaque
THINKING = ("thinking", "redacted_thinking")
DELTA_FIELDS = {"text_delta": "text", "input_json_delta": "partial_json", "thinking_delta": "thinking",
                "signature_delta": "signature"}


def read_stream(settings: ProviderSettings, events: Iterable[ServerEvent]) -> Iterator[Event]:
    """Turn Messages stream events into neutral events; ping and unknown events are ignored."""
    state = _Stream()
    for event in events:
        try:
            data = boundary.loads(event.data)
        except (ValueError, RecursionError):
            continue
        if isinstance(data, dict):
            yield from state.take(settings, data.get("type") or event.event, data)
        if state.done:
            break
    if not state.done:
        raise StreamError(f"{settings.preset} ended the reply before it finished (no message_stop); "
                          "the partial text is kept: ask again to continue", retryable=True)
    for index in sorted(state.blocks):
        yield from state.finish(index)
    yield from opaque_events([state.layout[i] for i in sorted(state.layout)])
    if state.usage:
        yield UsageReport(read_usage(state.usage))
    yield StreamEnd(state.stop)


@dataclass
class _Block:
    """A content block still streaming: its start, the pieces so far, a thinking block's signature."""

    start: dict
    parts: list[str] = field(default_factory=list)
    signature: str | None = None
    size: int = 0  # characters sent so far (a tool_use block keeps its pieces only up to ARGUMENTS_CAP)


class _Stream:
    """What a Messages stream has said so far: open and finished blocks, raw usage, the stop reason."""

    def __init__(self):
        self.blocks: dict[int, _Block] = {}
        self.layout: dict[int, dict] = {}  # finished blocks by index, as Message.opaque keeps them
        self.usage: dict = {}
        self.stop, self.done = "", False

    def take(self, settings: ProviderSettings, kind: str, data: dict) -> Iterator[Event]:
        """Fold one event in, yielding the neutral events it completes."""
        index = part(data, "index", int, 0)
        if kind == "message_start":
            update_usage(self.usage, part(part(data, "message", dict, {}), "usage", dict))
        elif kind == "content_block_start":
            yield from self.start(index, part(data, "content_block", dict, {}))
        elif kind == "content_block_delta":
            yield from self.delta(index, part(data, "delta", dict, {}))
        elif kind == "content_block_stop":
            yield from self.finish(index)
        elif kind == "message_delta":
            self.stop = part(part(data, "delta", dict, {}), "stop_reason", str) or self.stop
            update_usage(self.usage, part(data, "usage", dict))  # cumulative: replaces, never adds
        elif kind == "message_stop":
            self.done = True
        elif kind == "error":
            raise stream_failure(settings, data)

    def start(self, index: int, block: dict) -> Iterator[Event]:
        """Open a block; a text block may start with text already."""
        self.blocks[index] = _Block(block)
        text = part(block, "text", str, "") if block.get("type") == "text" else ""
        if text:
            self.blocks[index].parts.append(text)
            yield TextDelta(text)

    def delta(self, index: int, delta: dict) -> Iterator[Event]:
        """Add a piece to an open block; only text is shown, thinking never is."""
        kind = part(delta, "type", str, "")
        piece = delta.get(DELTA_FIELDS.get(kind, ""))
        if not isinstance(piece, str):
            return
        if kind == "text_delta" and piece:
            yield TextDelta(piece)
        block = self.blocks.get(index)
        if block is not None and kind == "signature_delta":
            block.signature = piece  # the SDKs keep the last one: it arrives whole, just before the block stops
        elif block is not None:
            block.size += len(piece)
            if kind != "input_json_delta" or block.size <= ARGUMENTS_CAP:  # a call's arguments are capped
                block.parts.append(piece)

    def finish(self, index: int) -> Iterator[Event]:
        """Close a block: a tool_use becomes a call; every known kind takes its place in the layout."""
        block = self.blocks.pop(index, None)
        kind = block.start.get("type") if block else None
        if kind == "tool_use":
            call = ToolCall(part(block.start, "id", str, ""), part(block.start, "name", str, ""),
                            bounded_arguments("".join(block.parts) or "{}", block.size))
            self.layout[index] = {"type": "tool_use", "id": call.id}
            yield ToolCallDone(call)
        elif kind == "text":
            self.layout[index] = {"type": "text", "chars": sum(len(p) for p in block.parts)}
        elif kind == "thinking":
            whole = {**block.start, "thinking": str(block.start.get("thinking") or "") + "".join(block.parts)}
            if block.signature is not None:
                whole["signature"] = block.signature
            self.layout[index] = whole
        elif kind == "redacted_thinking":
            self.layout[index] = dict(block.start)


def opaque_events(layout: list[dict]) -> Iterator[Event]:
    """The reply's layout as OpaqueData, when it holds thinking to send back (nothing otherwise)."""
    if any(item.get("type") in THINKING for item in layout):
        yield OpaqueData(KIND, layout)


def update_usage(raw: dict, new) -> None:
    """Replace the usage fields present in a usage object."""
    if isinstance(new, dict):
        raw.update({k: v for k, v in new.items() if isinstance(v, int)})


def read_usage(raw: dict) -> Usage:
    """Usage with the whole prompt as input: uncached + cache read + cache write."""
    read, write = raw.get("cache_read_input_tokens", 0), raw.get("cache_creation_input_tokens", 0)
    return Usage(input_tokens=raw.get("input_tokens", 0) + read + write, cached_tokens=read,
                 cache_write_tokens=write, output_tokens=raw.get("output_tokens", 0), reported=True)


def stream_failure(settings: ProviderSettings, data: dict) -> StreamError:
    """An error event inside the stream, as one line (a StreamError, so the partial text is kept)."""
    message, kind = http.error_message(data)
    if kind == "overloaded_error":
        line = f"{settings.preset} is overloaded ({message}); try again in a moment"
    else:
        line = f"{settings.preset} reported an error mid-reply: {message}" + (f" ({kind})" if kind else "")
    return StreamError(http.clean(line, settings), status=RETRYABLE_ERRORS.get(kind),
                         retryable=kind in RETRYABLE_ERRORS)


def read_whole(settings: ProviderSettings, body: dict) -> Iterator[Event]:
    """Events from a server that ignored stream: true and sent the whole message at once."""
    if body.get("type") == "error" or body.get("error"):
        raise stream_failure(settings, body)
    layout: list[dict] = []
    for block in part(body, "content", list, []):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            text = part(block, "text", str, "")
            layout.append({"type": "text", "chars": len(text)})
            if text:
                yield TextDelta(text)
        elif kind == "tool_use":
            arguments = bounded_arguments(json.dumps(part(block, "input", dict, {}), ensure_ascii=False))
            call_id = part(block, "id", str, "")
            layout.append({"type": "tool_use", "id": call_id})
            yield ToolCallDone(ToolCall(call_id, part(block, "name", str, ""), arguments))
        elif kind in THINKING:
            layout.append(block)
    yield from opaque_events(layout)
    usage = part(body, "usage", dict)
    if usage is not None:
        yield UsageReport(read_usage({k: v for k, v in usage.items() if isinstance(v, int)}))
    yield StreamEnd(part(body, "stop_reason", str) or "end_turn")
