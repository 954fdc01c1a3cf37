"""Reading OpenAI Responses replies: streamed events (or a whole response) into neutral events.

Text is shown from response.output_text.delta; the finished items (response.output_item.done, or the
response's own output list) decide the calls and the layout. A reply holding reasoning or a client tool
search call yields its layout as OpaqueData: reasoning items whole, message items by length, calls by call_id.
"""

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ankit.errors import StreamError
from ankit.providers import http
from ankit.providers.base import ProviderSettings, part
from ankit.providers.sse import ServerEvent
from ankit.records import (Event, OpaqueData, StreamEnd, TextDelta, ToolCall, ToolCallDone, Usage, UsageReport,
                           bounded_arguments)
from ankit.safety import text as boundary

KIND = "responses"  # this provider's key in Message.opaque
SEARCH = "tool_search_call"
RETRYABLE = ("server_error", "rate_limit_exceeded", "overloaded", "server_is_overloaded")
TEXT_DELTAS = ("response.output_text.delta", "response.refusal.delta")
FINISHED = {"response.completed": "", "response.incomplete": "max_tokens"}


@dataclass
class _Reply:
    """What a Responses stream has said so far."""

    items: dict[int, dict] = field(default_factory=dict)  # finished output items by output_index
    shown: dict[str, int] = field(default_factory=dict)  # characters of text shown per item id
    response: dict | None = None  # the final response object
    stop: str = ""

    def take(self, settings: ProviderSettings, kind: str, data: dict) -> Iterator[Event]:
        """Fold one event in, yielding the text it shows."""
        if kind in TEXT_DELTAS and isinstance(data.get("delta"), str) and data["delta"]:
            key = str(data.get("item_id") or "")
            self.shown[key] = self.shown.get(key, 0) + len(data["delta"])
            yield TextDelta(data["delta"])
        elif kind == "response.output_item.done" and isinstance(data.get("item"), dict):
            self.items[part(data, "output_index", int) or len(self.items)] = data["item"]
            yield from self.unshown(data["item"])
        elif kind in FINISHED:
            self.response = data.get("response") if isinstance(data.get("response"), dict) else {}
            self.stop = FINISHED[kind]
        elif kind in ("response.failed", "error"):
            raise stream_failure(settings, data)

    def unshown(self, item: dict) -> Iterator[Event]:
        """The text of a message item no delta showed (a server that sends whole items)."""
        if item.get("type") == "message" and not self.shown.get(str(item.get("id") or "")):
            text = message_text(item)
            if text:
                self.shown[str(item.get("id") or "")] = len(text)
                yield TextDelta(text)


def read_stream(settings: ProviderSettings, events: Iterable[ServerEvent],
                finder: str = "find_tools") -> Iterator[Event]:
    """Turn Responses stream events into neutral events."""
    reply = _Reply()
    for event in events:
        try:
            data = boundary.loads(event.data)
        except ValueError:
            continue
        if isinstance(data, dict):
            yield from reply.take(settings, str(data.get("type") or event.event), data)
        if reply.response is not None:
            break
    if reply.response is None:
        raise StreamError(f"{settings.preset} ended the reply before it finished (no response.completed); "
                          "the partial text is kept: ask again to continue", retryable=True)
    items = [reply.items[i] for i in sorted(reply.items)] or output_items(reply.response)
    yield from finish(items, reply.response, reply.stop, finder, reply.shown)


def read_whole(settings: ProviderSettings, body: dict, finder: str = "find_tools") -> Iterator[Event]:
    """Events from a server that ignored stream: true and sent the whole response at once."""
    if body.get("error"):
        raise stream_failure(settings, body)
    items, shown = output_items(body), {}
    for item in items:
        text = message_text(item) if item.get("type") == "message" else ""
        if text:
            shown[str(item.get("id") or "")] = len(text)
            yield TextDelta(text)
    stop = "max_tokens" if body.get("status") == "incomplete" else ""
    yield from finish(items, body, stop, finder, shown)


def output_items(response: dict) -> list[dict]:
    """The output items of a response object."""
    output = response.get("output")
    return [item for item in output if isinstance(item, dict)] if isinstance(output, list) else []


def message_text(item: dict) -> str:
    """The text of a message item (output_text and refusal parts)."""
    parts = item.get("content") if isinstance(item.get("content"), list) else []
    return "".join(str(p.get("text") or p.get("refusal") or "") for p in parts if isinstance(p, dict))


def finish(items: list[dict], response: dict, stop: str, finder: str, shown: dict) -> Iterator[Event]:
    """The calls, the layout to keep, the usage and the end of the stream."""
    layout, calls = [], 0
    for item in items:
        kind = item.get("type")
        if kind == "function_call" and item.get("name"):
            calls += 1
            yield ToolCallDone(ToolCall(str(item.get("call_id") or item.get("id") or ""), str(item["name"]),
                                        bounded_arguments(str(item.get("arguments") or "{}"))))
            layout.append({"type": kind, "call_id": str(item.get("call_id") or item.get("id") or "")})
        elif kind == SEARCH and item.get("execution") == "client":
            calls += 1
            arguments = item.get("arguments") if isinstance(item.get("arguments"), dict) else {}
            yield ToolCallDone(ToolCall(str(item.get("call_id") or ""), finder, bounded_arguments(json.dumps(arguments))))
            layout.append({"type": kind, "call_id": str(item.get("call_id") or "")})
        elif kind == "message":
            layout.append({"type": kind, "chars": shown.get(str(item.get("id") or ""), 0)})
        elif kind == "reasoning":
            layout.append(dict(item))
    if any(item.get("type") in ("reasoning", SEARCH) for item in layout):
        yield OpaqueData(KIND, layout)
    if isinstance(response.get("usage"), dict):
        yield UsageReport(read_usage(response["usage"]))
    yield StreamEnd(stop or ("tool_use" if calls else "end_turn"))


def read_usage(raw: dict) -> Usage:
    """Usage from a Responses usage object: input_tokens is the whole prompt, cached part included."""
    details = part(raw, "input_tokens_details", dict, {})
    return Usage(input_tokens=part(raw, "input_tokens", int, 0), cached_tokens=part(details, "cached_tokens", int, 0),
                 output_tokens=part(raw, "output_tokens", int, 0), reported=True)


def stream_failure(settings: ProviderSettings, data: dict) -> StreamError:
    """An error event or a failed response, as one line (a StreamError, so the partial text is kept)."""
    failed = data.get("response") if isinstance(data.get("response"), dict) else None
    message, kind = http.error_message(failed if failed and failed.get("error") else data)
    if kind == "" and isinstance(data.get("code"), str):
        kind = data["code"]
    line = f"{settings.preset} reported an error mid-reply: {message}" + (f" ({kind})" if kind else "")
    return StreamError(http.clean(line, settings), retryable=kind in RETRYABLE)
