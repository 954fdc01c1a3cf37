"""The Anthropic Messages wire format: neutral records out, streamed events back, with cache breakpoints."""

import json
from collections.abc import Iterable, Iterator

from ankit.errors import StreamError
from ankit.providers import http
from ankit.providers.base import Provider, ProviderSettings
from ankit.records import Event, Message, Request, StreamEnd, TextDelta, ToolCall, ToolCallDone, Usage, UsageReport
from ankit.sse import ServerEvent

VERSION = "2023-06-01"
RETRYABLE_ERRORS = {"overloaded_error": 529, "api_error": 500, "rate_limit_error": 429}


class AnthropicProvider(Provider):
    """The Anthropic Messages API, or any server that speaks it."""

    def stream(self, request: Request) -> Iterator[Event]:
        """Send one round and yield TextDelta, ToolCallDone, UsageReport, then StreamEnd."""
        settings = self.settings
        headers = {"anthropic-version": VERSION}
        if settings.api_key:
            headers["x-api-key"] = settings.api_key
        if settings.cache_ttl == "1h":
            headers["anthropic-beta"] = "extended-cache-ttl-2025-04-11"
        url = settings.base_url.rstrip("/") + "/messages"
        response = http.post_stream(settings, url, build_body(settings, request), headers)
        if "json" in response.headers.get("content-type", ""):
            yield from read_whole(settings, http.read_json(settings, response))
        else:
            yield from read_stream(settings, http.stream_events(settings, response))


def build_body(settings: ProviderSettings, request: Request) -> dict:
    """The Messages request body: breakpoints on the system prompt, the previous round's end and the latest message.

    The tools come first in Anthropic's prefix order, so the system breakpoint caches them too. Marking where the
    previous request ended guarantees a cache read even when a round added more than the 20 blocks the server
    looks back. The note goes after the last breakpoint, so it never changes the cached prefix. Three breakpoints
    at most, of the four allowed.
    """
    cache = {"type": "ephemeral", "ttl": "1h"} if settings.cache_ttl == "1h" else {"type": "ephemeral"}
    messages = wire_messages(request.messages)
    if messages:
        messages[-1]["content"][-1]["cache_control"] = dict(cache)
    if len(messages) >= 3 and messages[-3]["role"] == "user":
        messages[-3]["content"][-1]["cache_control"] = dict(cache)
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
        body["tools"] = [{"name": t.name, "description": t.description, "input_schema": t.parameters}
                         for t in request.tools]
    body["stream"] = True
    return body


def wire_messages(messages: list[Message]) -> list[dict]:
    """Neutral messages as Messages-API turns: results become user tool_result blocks, same roles merge."""
    out: list[dict] = []
    for message in messages:
        role = "assistant" if message.role == "assistant" else "user"
        blocks = content_blocks(message)
        if not blocks:
            continue  # an empty turn is refused by the API
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return out


def content_blocks(message: Message) -> list[dict]:
    """The content blocks of one message; never an empty text block."""
    blocks: list[dict] = []
    for result in message.results:
        block = {"type": "tool_result", "tool_use_id": result.call_id, "content": result.content or "(no output)"}
        if result.is_error:
            block["is_error"] = True
        blocks.append(block)
    if message.text.strip():
        blocks.append({"type": "text", "text": message.text})
    if message.role == "assistant":
        blocks.extend({"type": "tool_use", "id": c.id, "name": c.name, "input": parse_input(c.arguments)}
                      for c in message.tool_calls)
    return blocks


def parse_input(arguments: str) -> dict:
    """A call's raw JSON arguments as the object tool_use wants ({} when they are not an object)."""
    try:
        value = json.loads(arguments or "{}", strict=False)  # small models put raw newlines in strings
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def read_stream(settings: ProviderSettings, events: Iterable[ServerEvent]) -> Iterator[Event]:
    """Turn Messages stream events into neutral events; ping and unknown events are ignored."""
    state = _Stream()
    for event in events:
        try:
            data = json.loads(event.data)
        except ValueError:
            continue
        if isinstance(data, dict):
            yield from state.take(settings, data.get("type") or event.event, data)
        if state.done:
            break
    if not state.done:
        raise StreamError(f"{settings.preset} ended the reply before it finished (no message_stop); "
                          "the partial text is kept: ask again to continue", retryable=True)
    for index in sorted(state.blocks):
        yield from finished_call(state.blocks[index])
    if state.usage:
        yield UsageReport(read_usage(state.usage))
    yield StreamEnd(state.stop)


class _Stream:
    """What a Messages stream has said so far: open blocks, raw usage, the stop reason."""

    def __init__(self):
        self.blocks: dict[int, dict] = {}
        self.usage: dict = {}
        self.stop, self.done = "", False

    def take(self, settings: ProviderSettings, kind: str, data: dict) -> Iterator[Event]:
        """Fold one event in, yielding the neutral events it completes."""
        index = data.get("index", 0)
        if kind == "message_start":
            update_usage(self.usage, (data.get("message") or {}).get("usage"))
        elif kind == "content_block_start":
            block = data.get("content_block") or {}
            self.blocks[index] = {**block, "json": []}
            if block.get("type") == "text" and block.get("text"):
                yield TextDelta(block["text"])
        elif kind == "content_block_delta":
            delta = data.get("delta") or {}
            if delta.get("type") == "text_delta" and delta.get("text"):
                yield TextDelta(delta["text"])
            elif delta.get("type") == "input_json_delta" and index in self.blocks:
                self.blocks[index]["json"].append(delta.get("partial_json") or "")
        elif kind == "content_block_stop":
            yield from finished_call(self.blocks.pop(index, None))
        elif kind == "message_delta":
            self.stop = (data.get("delta") or {}).get("stop_reason") or self.stop
            update_usage(self.usage, data.get("usage"))  # cumulative: replaces, never adds
        elif kind == "message_stop":
            self.done = True
        elif kind == "error":
            raise stream_failure(settings, data)


def finished_call(block: dict | None) -> Iterator[Event]:
    """A ToolCallDone for a finished tool_use block (nothing for other blocks)."""
    if block and block.get("type") == "tool_use":
        yield ToolCallDone(ToolCall(block.get("id", ""), block.get("name", ""), "".join(block["json"]) or "{}"))


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
    for block in body.get("content") or []:
        if block.get("type") == "text" and block.get("text"):
            yield TextDelta(block["text"])
        elif block.get("type") == "tool_use":
            arguments = json.dumps(block.get("input") or {}, ensure_ascii=False)
            yield ToolCallDone(ToolCall(block.get("id", ""), block.get("name", ""), arguments))
    if isinstance(body.get("usage"), dict):
        yield UsageReport(read_usage({k: v for k, v in body["usage"].items() if isinstance(v, int)}))
    yield StreamEnd(body.get("stop_reason") or "end_turn")
