"""The OpenAI-compatible Chat Completions wire format: neutral records out, streamed events back.

Reasoning models on some servers (DeepSeek, vLLM, llama.cpp, OpenRouter) stream their thinking as
delta.reasoning_content or delta.reasoning, others as a leading <think>...</think> block in the text: neither is
shown as reply text. DeepSeek's thinking mode wants a
tool-calling turn's reasoning_content back in every later request (a 400 otherwise), so that field, and only on
assistant turns with tool calls, is kept in Message.opaque["openai"] and sent back; plain answers keep none.
"""

import math
import json
import secrets
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ankit.errors import ProviderError, StreamError
from ankit.providers import compat, http
from ankit.providers.base import Provider, ProviderSettings, ShapeError, part
from ankit.records import (ARGUMENTS_CAP, Event, Message, Notice, OpaqueData, Request, StreamEnd, TextDelta,
                           TokenChoices, ToolCall, ToolCallDone, Usage, UsageReport, bounded_arguments)
from ankit.providers.sse import ServerEvent
from ankit.safety import text as boundary

KIND = "openai"  # this provider's key in Message.opaque
ECHOED = ("reasoning_content",)  # reply fields sent back with the turn's tool calls
STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "function_call": "tool_use", "length": "max_tokens"}


class OpenAIProvider(Provider):
    """Any server that speaks OpenAI Chat Completions with streaming.

    What a server refuses with a 400 (stream_options, max_tokens, or tools with a model that takes none) is
    left out and the request sent once more; the refusal is remembered for the session (tools: for the model)
    and said once as a Notice.
    """

    def __init__(self, settings: ProviderSettings):
        super().__init__(settings)
        self.dropped: set[str] = set()  # optional body fields this server refused
        self.tools_off = False  # the current model refused the tools field

    def use_model(self, model: str) -> None:
        """Ask for another model from the next request on; it gets tools again."""
        super().use_model(model)
        self.tools_off = False

    def stream(self, request: Request) -> Iterator[Event]:
        """Send one round and yield TextDelta, ToolCallDone, UsageReport, then StreamEnd."""
        settings = self.settings
        headers = {"authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
        url = settings.base_url.rstrip("/") + "/chat/completions"
        notices = []
        while True:  # each refusal removes a field for good, so this ends
            body = self.body(request)
            try:
                response = http.post_stream(settings, url, body, headers)
                break
            except ProviderError as error:
                notice = self._fall_back(error, body)
                if notice is None:
                    raise
                notices.append(notice)
        for notice in notices:
            yield Notice(notice)
        yield from http.read_reply(settings, response, read_stream, read_whole)

    def body(self, request: Request) -> dict:
        """The request body as this session sends it now: without what the server refused."""
        body = build_body(self.settings, request)
        if self.tools_off:
            body.pop("tools", None)
        for name in self.dropped:
            body.pop(name, None)
            for message in body["messages"]:
                message.pop(name, None)
        return body

    def _fall_back(self, error: ProviderError, body: dict) -> str | None:
        """Leave out what the error refuses, from now on; the line that says so, or None when nothing is."""
        text, who = f"{error} {error.detail}", self.settings.preset
        if error.status is None or error.status in (401, 403, 404, 429) or error.status >= 502:
            return None
        if "tools" in body and compat.refuses_tools(text):
            self.tools_off = True
            return (f"{who} takes no tools with the model {self.settings.model} ({error.status}): going on without "
                    "tools (no files, no commands); /model picks another model")
        name = compat.refused_field(text, body)
        if name is None and "max_tokens" in body and compat.overflow_fix(text) and "completion" in text:
            name = "max_tokens"  # vLLM counts the reply reserve into the context: the server's own limit may fit
        if name is None:
            return None
        self.dropped.add(name)
        return f"{who} refused {name} ({error.status}): it is left out of requests from now on"


def build_body(settings: ProviderSettings, request: Request) -> dict:
    """The Chat Completions request body for one round."""
    messages = [{"role": "system", "content": request.system}] if request.system else []
    for message in request.messages:
        messages.extend(wire_messages(message))
    if request.note:
        messages.append({"role": "user", "content": request.note})
    body: dict = {"model": settings.model, "messages": messages}
    if request.tools:
        body["tools"] = [
            {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in request.tools
        ]
    body["stream"] = True
    body["stream_options"] = {"include_usage": True}
    if request.top_logprobs:
        body["logprobs"], body["top_logprobs"] = True, min(request.top_logprobs, 20)
    if settings.preset == "openai" and settings.native:  # OpenAI's own API only: others may reject these fields
        body["max_completion_tokens"] = request.max_tokens
        if settings.session_id:
            body["prompt_cache_key"] = settings.session_id
    else:
        body["max_tokens"] = request.max_tokens
    return body


def wire_messages(message: Message) -> list[dict]:
    """One neutral message as Chat Completions messages (a batch of results becomes one per result)."""
    out = [{"role": "tool", "tool_call_id": r.call_id, "content": r.content} for r in message.results]
    if message.role == "assistant":
        if message.text or message.tool_calls:
            wire: dict = {"role": "assistant", "content": message.text or ""}  # some servers reject null here
            if message.tool_calls:
                wire["tool_calls"] = [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments or "{}"}}
                    for c in message.tool_calls
                ]
                wire.update(echoed_fields(message))
            out.append(wire)
    elif message.role == "user" and message.images:
        parts = [{"type": "text", "text": message.text}] if message.text else []
        parts += [{"type": "image_url", "image_url": {"url": f"data:{i.media_type};base64,{i.data}"}}
                  for i in message.images]
        out.append({"role": "user", "content": parts})
    elif message.role == "user" and message.text:
        out.append({"role": "user", "content": message.text})
    return out


def echoed_fields(message: Message) -> dict:
    """The reply fields kept in the message's opaque data that go back with its tool calls."""
    items = message.opaque.get(KIND)
    fields = items[0] if isinstance(items, list) and items and isinstance(items[0], dict) else {}
    return {k: v for k, v in fields.items() if k in ECHOED and isinstance(v, str)}


@dataclass
class _Call:
    """One tool call as its pieces stream in: id, name and the argument text so far."""

    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)  # kept while their size is within ARGUMENTS_CAP
    size: int = 0

    def add(self, piece: str) -> None:
        self.size += len(piece)
        if self.size <= ARGUMENTS_CAP:
            self.arguments.append(piece)


@dataclass
class _Reply:
    """What a Chat Completions stream has said so far."""

    calls: dict[int, _Call] = field(default_factory=dict)
    moved: dict[int, int] = field(default_factory=dict)  # a reused tool-call index -> the call it continues
    usage: Usage | None = None
    reasoning: list[str] | None = None  # reasoning_content pieces, when the server sends that field
    finish: str | None = None
    inline: compat.InlineThinking = field(default_factory=compat.InlineThinking)
    choices_told: bool = False  # the first token's alternatives, once

    def take(self, chunk: dict) -> Iterator[Event]:
        """Fold one chunk in, yielding its reply text; reasoning is never shown (delta.reasoning is ignored)."""
        if part(chunk, "usage", dict) is not None:
            self.usage = read_usage(chunk["usage"])
        for choice in part(chunk, "choices", list, []):
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") if isinstance(choice.get("delta"), dict) else {}  # odd deltas carry nothing
            if isinstance(delta.get("reasoning_content"), str):
                self.reasoning = self.reasoning if self.reasoning is not None else []
                self.reasoning.append(delta["reasoning_content"])
            if not self.choices_told and (first := first_token_choices(choice)) is not None:
                self.choices_told = True
                yield first
            if isinstance(delta.get("content"), str) and (text := self.inline.feed(delta["content"])):
                yield TextDelta(text)
            for call in part(delta, "tool_calls", list, []):
                merge_call(self.calls, call, self.moved)
            self.finish = part(choice, "finish_reason", str) or self.finish


def read_stream(settings: ProviderSettings, events: Iterable[ServerEvent]) -> Iterator[Event]:
    """Turn Chat Completions stream chunks into neutral events."""
    reply, done = _Reply(), False
    for event in events:
        if event.data.strip() == "[DONE]":
            done = True
            break
        try:
            chunk = boundary.loads(event.data)
        except (ValueError, RecursionError):
            continue  # keep-alives and junk lines carry nothing
        if not isinstance(chunk, dict):
            continue
        if event.event == "error" or chunk.get("error") or chunk.get("object") == "error":
            raise stream_failure(settings, chunk)  # llama.cpp's `error:` lines, vLLM's error objects
        yield from reply.take(chunk)
    if not done and reply.finish is None:
        raise StreamError(f"{settings.preset} ended the reply before it finished (no [DONE]); "
                          "the partial text is kept: ask again to continue", retryable=True)
    if rest := reply.inline.flush():
        yield TextDelta(rest)
    yield from finish_events(reply.calls, reply.usage, reply.finish, reply.reasoning)


def first_token_choices(choice: dict) -> TokenChoices | None:
    """The first token's top_logprobs of a choice (Chat Completions' logprobs.content[0]), as one event; None
    when the choice carries none (an empty list comes with the role-only first chunk)."""
    content = part(part(choice, "logprobs", dict, {}), "content", list, [])
    first = content[0] if content and isinstance(content[0], dict) else {}
    tops = part(first, "top_logprobs", list, [])
    found: dict[str, float] = {}
    for top in tops:
        token, logprob = (top.get("token"), top.get("logprob")) if isinstance(top, dict) else (None, None)
        if isinstance(token, str) and isinstance(logprob, (int, float)) and not isinstance(logprob, bool):
            found[token] = max(found.get(token, -math.inf), float(logprob))
    return TokenChoices(found) if found else None


def merge_call(calls: dict[int, _Call], delta: dict, moved: dict[int, int] | None = None) -> None:
    """Fold one tool-call delta into its call: arguments are appended, a repeated id or name is set; moved maps
    a reused index to the call it now continues."""
    if not isinstance(delta, dict):
        return
    index = delta.get("index")
    function = part(delta, "function", dict, {})
    call_id, name = part(delta, "id", str, ""), part(function, "name", str, "")
    if not isinstance(index, int):  # a server without indexes: match by id, else continue the last call
        ids = {c.id: i for i, c in calls.items()}
        index = ids.get(call_id, len(calls) if call_id or not calls else max(calls))
    elif moved is not None:  # a server that gives every call the same index: a new id with a name is a new call
        index = moved.get(index, index)
        old = calls.get(index)
        if old and old.id and old.name and call_id not in ("", old.id) and name:
            moved[delta["index"]] = index = max(calls) + 1
    call = calls.setdefault(index, _Call())
    call.id = call_id or call.id
    call.name = name or call.name
    arguments = part(function, "arguments", (str, dict))
    if arguments is not None:  # a few servers send an object, not text
        call.add(arguments if isinstance(arguments, str) else json.dumps(arguments))


def finish_events(calls: dict[int, _Call], usage: Usage | None, finish: str | None,
                  reasoning: list[str] | None = None) -> Iterator[Event]:
    """The assembled tool calls, their reasoning to send back, the usage (when reported) and the end of the stream."""
    named, ids = 0, set()
    for index in sorted(calls):
        call = calls[index]
        if call.name:
            named += 1
            # a missing or repeated id gets a fresh one: each result must answer exactly one call
            call_id = call.id if call.id and call.id not in ids else f"call_{secrets.token_hex(12)}"
            ids.add(call_id)
            yield ToolCallDone(ToolCall(call_id, call.name, bounded_arguments("".join(call.arguments) or "{}", call.size)))
    if named and reasoning is not None:
        yield OpaqueData(KIND, [{"reasoning_content": "".join(reasoning)}])
    if usage is not None:
        yield UsageReport(usage)
    yield StreamEnd(STOP_REASONS.get(finish or "", finish or ""))


def read_usage(raw: dict) -> Usage:
    """Usage from a Chat Completions usage object."""
    details = part(raw, "prompt_tokens_details", dict, {})
    return Usage(
        input_tokens=part(raw, "prompt_tokens", int, 0),
        cached_tokens=part(details, "cached_tokens", int, 0),
        output_tokens=part(raw, "completion_tokens", int, 0),
        reported=True,
    )


def stream_failure(settings: ProviderSettings, chunk: dict) -> StreamError:
    """An error payload sent inside the stream, as one line (a StreamError, so the partial text is kept)."""
    message, kind = http.error_message(chunk)
    retryable = kind in ("server_error", "overloaded", "rate_limit_exceeded", "overloaded_error")
    line = f"{settings.preset} reported an error mid-reply: {message}" + (f" ({kind})" if kind else "")
    fix = compat.overflow_fix(message, kind)
    if fix:
        line, retryable = f"{settings.preset}: {fix} ({message})", False
    return StreamError(http.clean(line, settings), retryable=retryable, overflow=fix is not None)


def read_whole(settings: ProviderSettings, body: dict) -> Iterator[Event]:
    """Events from a server that ignored stream: true and sent the whole completion at once."""
    if body.get("error"):
        raise stream_failure(settings, body)
    choices = part(body, "choices", list, [])
    choice = choices[0] if choices else {}
    if not isinstance(choice, dict):
        raise ShapeError(f"choices[0] is {type(choice).__name__}")
    message = part(choice, "message", dict, {})
    if (first := first_token_choices(choice)) is not None:
        yield first
    inline = compat.InlineThinking()
    if isinstance(message.get("content"), str) and (text := inline.feed(message["content"]) + inline.flush()):
        yield TextDelta(text)
    calls: dict[int, _Call] = {}
    for index, call in enumerate(part(message, "tool_calls", list, [])):
        merge_call(calls, {**call, "index": index} if isinstance(call, dict) else call)
    usage = read_usage(body["usage"]) if part(body, "usage", dict) is not None else None
    reasoning = [message["reasoning_content"]] if isinstance(message.get("reasoning_content"), str) else None
    yield from finish_events(calls, usage, part(choice, "finish_reason", str) or "stop", reasoning)
