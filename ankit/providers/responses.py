"""The OpenAI Responses wire format: neutral records as input items, streamed events back.

Nothing is stored on the server (store: false): every request carries the whole conversation as items. Calls
and their outputs pair by the model's call_id; reasoning items go back unchanged with their encrypted content.
Where the model supports it, find_tools is declared as a client-executed tool_search and every other tool as
a deferred function: the model's tool_search_call is answered with a tool_search_output holding the loaded
tools' definitions, which the API puts at the end of the context, so the cached prefix survives. A server that
refuses that gets today's append path for the rest of the session.
"""

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial

from ankit.errors import ProviderError
from ankit.providers import http
from ankit.providers.base import Provider, ProviderSettings, split_text
from ankit.providers.responses_stream import KIND, SEARCH, read_stream, read_whole
from ankit.records import Event, Message, Notice, Request, ToolCall, ToolSpec

FINDER = "find_tools"  # the tool whose answers load tools: declared as the client tool search
SEARCH_WORDS = ("tool_search", "defer_loading")  # a 400 naming these refuses client tool search
MIN_OUTPUT = 16  # the API refuses a max_output_tokens under 16
REASONING_WORDS = ("reasoning", "encrypted_content", "encrypted content")
REASONING_MODELS = re.compile(r"(?:openai/)?(?:o\d|gpt-[5-9]|gpt-\d\d|codex)", re.IGNORECASE)
SEARCH_MODELS = re.compile(r"(?:openai/)?gpt-(?:5\.(?:[4-9]|\d\d)|[6-9]|\d\d)", re.IGNORECASE)  # gpt-5.4 and later


@dataclass
class Declared:
    """What a request declares: deferred tool names (none on the append path) and always-loaded ones."""

    deferred: dict[str, ToolSpec] = field(default_factory=dict)
    plain: set[str] = field(default_factory=set)
    reasoning: bool = True  # reasoning items may be sent back


class ResponsesProvider(Provider):
    """The Responses API (POST {base}/responses), or any server that speaks it."""

    def __init__(self, settings: ProviderSettings):
        super().__init__(settings)
        self.refused = False  # the server refused client tool search: the append path for the rest of the session
        self.search = self._wants_search()
        self.reasoning = True  # off for good once the server refuses the reasoning items sent back

    def use_model(self, model: str) -> None:
        """Ask for another model; tool search follows what it supports unless it was refused."""
        super().use_model(model)
        self.search = self._wants_search()

    def _wants_search(self) -> bool:
        deferred = self.settings.deferred
        return not self.refused and (deferred == "native" or (deferred == "auto" and searches(self.settings.model)))

    @property
    def defers(self) -> bool:
        """Whether activated tools are still loaded without touching the tools array."""
        return self.search

    def stream(self, request: Request) -> Iterator[Event]:
        """Send one round and yield TextDelta, ToolCallDone, OpaqueData, UsageReport, then StreamEnd."""
        settings = self.settings
        headers = {"authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}
        url = settings.base_url.rstrip("/") + "/responses"
        try:
            response = http.post_stream(settings, url, self.body(request), headers)
        except ProviderError as error:
            notice = self._fall_back(error, request)
            if notice is None:
                raise
            response = http.post_stream(settings, url, self.body(request), headers)
            yield Notice(notice)
        yield from http.read_reply(settings, response, partial(read_stream, finder=FINDER),
                                   partial(read_whole, finder=FINDER))

    def body(self, request: Request) -> dict:
        """The request body for one round, as this session sends it now."""
        return build_body(self.settings, request, declare(request, self.search, self.reasoning))

    def _fall_back(self, error: ProviderError, request: Request) -> str | None:
        """Switch off what a 400 refuses, once per session; the line that says so, or None."""
        text, who = str(error), self.settings.preset
        if error.status != 400:
            return None
        refused = any(word in text for word in SEARCH_WORDS)
        if self.search and request.deferred and self.settings.deferred == "auto" and refused:
            self.search, self.refused = False, True
            return (f"{who} refused client tool search ({error.status}): activated tools are added to the tool list "
                    "for the rest of this session (deferred = \"append\" skips the attempt)")
        if self.reasoning and any(w in text.lower() for w in REASONING_WORDS) and has_reasoning(request):
            self.reasoning = False
            return f"{who} would not take back earlier reasoning items ({error.status}): they are left out from now on"
        return None


def searches(model: str) -> bool:
    """Whether a model takes client-executed tool search (gpt-5.4 and later, as the guide says)."""
    return bool(SEARCH_MODELS.match(model))


def has_reasoning(request: Request) -> bool:
    """Whether the history holds reasoning items to send back."""
    return any(item.get("type") == "reasoning" for m in request.messages for item in layout_of(m))


def declare(request: Request, search: bool, reasoning: bool = True) -> Declared:
    """Which tools a request declares deferred: none on the append path, or when nothing would stay plain."""
    names = {t.name: t for t in request.deferred} if search else {}
    plain = {t.name for t in request.tools if t.name not in names}
    if not names or FINDER not in plain:
        return Declared(plain={t.name for t in request.tools}, reasoning=reasoning)
    return Declared(names, plain, reasoning)


def build_body(settings: ProviderSettings, request: Request, declared: Declared) -> dict:
    """The Responses request body: instructions, the conversation as items, the tools, streaming on."""
    body: dict = {"model": settings.model}
    if request.system:
        body["instructions"] = request.system
    items = input_items(request.messages, declared)
    if request.note:
        items.append(user_item(request.note))
    body["input"] = items
    if request.tools:
        body["tools"] = tools_array(request, declared)
    body["stream"] = True
    body["store"] = False
    if declared.reasoning and REASONING_MODELS.match(settings.model):
        body["include"] = ["reasoning.encrypted_content"]
    body["max_output_tokens"] = max(request.max_tokens, MIN_OUTPUT)
    if settings.preset == "openai" and settings.native and settings.session_id:
        body["prompt_cache_key"] = settings.session_id
    return body


def function(spec: ToolSpec, deferred: bool = False) -> dict:
    """A flat function tool (strict off: ankit's schemas are not written for strict mode)."""
    entry = {"type": "function", "name": spec.name, "description": spec.description, "parameters": spec.parameters,
             "strict": False}
    return {**entry, "defer_loading": True} if deferred else entry


def tools_array(request: Request, declared: Declared) -> list[dict]:
    """Plain tools; on the search path find_tools becomes the client tool search and the catalog follows deferred."""
    if not declared.deferred:
        return [function(t) for t in request.tools]
    out = []
    for spec in request.tools:
        if spec.name == FINDER:
            out.append({"type": "tool_search", "execution": "client", "description": spec.description,
                        "parameters": spec.parameters})
        elif spec.name in declared.plain:
            out.append(function(spec))
    return out + [function(t, deferred=True) for t in declared.deferred.values()]


def user_item(text: str) -> dict:
    """A user message item."""
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def layout_of(message: Message) -> list[dict]:
    """The layout a reply kept (reasoning items, messages by length, calls by call_id), or none."""
    layout = message.opaque.get(KIND)
    return [item for item in layout if isinstance(item, dict)] if isinstance(layout, list) else []


def input_items(messages: list[Message], declared: Declared) -> list[dict]:
    """The conversation as input items; a search call's answer becomes a tool_search_output on the search path."""
    items: list[dict] = []
    searches_ids: set[str] = set()
    for message in messages:
        if message.role == "assistant":
            items += assistant_items(message, declared, searches_ids)
        elif message.role == "tool":
            items += result_items(message, declared, searches_ids)
        elif message.images:
            item = user_item(message.text) if message.text else {"type": "message", "role": "user", "content": []}
            item["content"] += [{"type": "input_image", "image_url": f"data:{i.media_type};base64,{i.data}"}
                                for i in message.images]
            items.append(item)
        elif message.text:
            items.append(user_item(message.text))
    return items


def assistant_items(message: Message, declared: Declared, searches_ids: set[str]) -> list[dict]:
    """A reply's items in the order the API sent them: reasoning whole, text, then calls."""
    layout = layout_of(message)
    sizes = [item.get("chars") for item in layout if item.get("type") == "message"]
    pieces = split_text(message.text, sizes)
    calls = {c.id: c for c in message.tool_calls}
    kinds = {item.get("call_id"): item.get("type") for item in layout if item.get("type") in ("function_call", SEARCH)}
    out: list[dict] = []
    for item in layout:
        kind = item.get("type")
        if kind == "reasoning" and declared.reasoning and item.get("encrypted_content"):
            out.append(dict(item))
        elif kind == "message":
            out += text_item(pieces.pop(0))
        elif kind in ("function_call", SEARCH) and item.get("call_id") in calls:
            out.append(call_item(calls.pop(item["call_id"]), kind, declared, searches_ids))
    out += text_item(pieces[-1])
    return out + [call_item(c, kinds.get(c.id, "function_call"), declared, searches_ids) for c in calls.values()]


def text_item(text: str) -> list[dict]:
    """An assistant message item, or none for blank text."""
    return [{"type": "message", "role": "assistant", "content": text}] if text.strip() else []


def call_item(call: ToolCall, kind: str, declared: Declared, searches_ids: set[str]) -> dict:
    """A call as a function_call, or as the tool_search_call it was when the search path is on."""
    if kind == SEARCH and declared.deferred:
        searches_ids.add(call.id)
        arguments = parse_object(call.arguments)
        return {"type": SEARCH, "execution": "client", "call_id": call.id, "status": "completed",
                "arguments": arguments}
    return {"type": "function_call", "call_id": call.id, "name": call.name, "arguments": call.arguments or "{}"}


def parse_object(arguments: str) -> dict:
    """Raw JSON arguments as an object ({} when they are not one)."""
    try:
        value = json.loads(arguments or "{}", strict=False)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def result_items(message: Message, declared: Declared, searches_ids: set[str]) -> list[dict]:
    """Call outputs; the batch's last search answer holds the definitions of the groups first sent with the
    batch (Message.activated), its words in a user message after the batch."""
    out, beside = [], []
    searches = [r for r in message.results if r.call_id in searches_ids]
    for result in message.results:
        if result.call_id not in searches_ids:
            output = result.content or "(no output)"
            out.append({"type": "function_call_output", "call_id": result.call_id, "output": output})
            continue
        groups = message.activated if result is searches[-1] else []
        tools = [function(t, deferred=True) for g in groups for t in declared.deferred.values() if t.group == g]
        gone = [g for g in groups if not any(t.group == g for t in declared.deferred.values())]
        out.append({"type": "tool_search_output", "execution": "client", "call_id": result.call_id,
                    "status": "completed", "tools": tools})
        text = result.content + (f"\n[ankit] No longer available: {', '.join(gone)}." if gone else "")
        beside += [user_item(text)] if text.strip() else []
    return out + beside
