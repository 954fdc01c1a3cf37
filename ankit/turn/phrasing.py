"""`ankit mcp phrases`: ask the model, once per MCP server's tool list, for the phrases users type for its tools.

The question, the reading of the answer and the store are discovery's (ankit/discovery/phrases.py); this asks the
configured provider and takes the answer into the registry, which searches each tool's phrases with its
description from then on.
"""

from collections.abc import Iterator

from ankit.discovery.phrases import SYSTEM, original_name, question, read_answer
from ankit.protocols import Provider
from ankit.records import Message, Request, TextDelta
from ankit.safety.scrub import Scrubber
from ankit.turn.registry import Registry
from ankit.wording import count

PHRASES_USAGE = "usage: ankit mcp phrases [NAME ...] [--again]"
PER_QUESTION = 25  # tools per question: eight phrases each fit one answer of MAX_TOKENS
MAX_TOKENS = 4_000


def hint(registry: Registry | None) -> list[str]:
    """One line naming the listed servers with no phrases yet and how to have the model write them; none if all have."""
    missing = without_phrases(registry) if registry is not None else []
    return [f"no search phrases yet for {', '.join(missing)}: `ankit mcp phrases` (or /mcp phrases) asks the model, "
            "once per tool list, for the words users type for each tool"] if missing else []


def without_phrases(registry: Registry) -> list[str]:
    """The listed servers whose current tool list has no phrases kept."""
    if registry.mcp is None or registry.phrases is None:
        return []
    return [server for server, label, tools in registry.mcp.catalog.listed() if registry.phrases.load(server, label, tools) is None]


def write_phrases(provider: Provider, registry: Registry, names: list[str], again: bool,
                  scrubber: Scrubber) -> Iterator[str]:
    """For each listed server (or those named) without kept phrases (every one, with again), ask the model (the
    question scrubbed of the secrets ankit knows: a description may carry one) and keep its phrases; one line per
    server saying what was kept, as each is done (a slow model takes a while)."""
    listed = registry.mcp.catalog.listed()
    unknown = [n for n in names if n not in {server for server, _, _ in listed}]
    if unknown:
        known = ", ".join(server for server, _, _ in listed) or "none has listed its tools"
        yield f"no listed MCP server named {unknown[0]!r} (servers: {known}); see ankit mcp"
        return
    for server, label, tools in listed:
        if names and server not in names:
            continue
        kept = registry.phrases.load(server, label, tools) if registry.phrases else None
        if kept is not None and not again:
            yield f"{server}: phrases kept for {len(kept)} of {count(len(tools), 'tool')} (--again asks anew)"
            continue
        found = _phrases_of(provider, server, label, tools, scrubber)
        if not found:
            yield f"{server}: the model's answer held no phrases for its tools; try again, or another model"
            continue
        if registry.phrases is not None:
            registry.phrases.save(server, label, tools, found)
        registry.reindex()
        yield (f"{server}: {count(sum(map(len, found.values())), 'phrase')} for {len(found)} of "
               f"{count(len(tools), 'tool')}")


def _phrases_of(provider: Provider, server: str, label: str, tools: list, scrubber: Scrubber) -> dict[str, list[str]]:
    """The model's phrases for a server's tools, asked PER_QUESTION tools at a time (each answer stays short)."""
    found: dict[str, list[str]] = {}
    for start in range(0, len(tools), PER_QUESTION):
        part = tools[start:start + PER_QUESTION]
        asked = scrubber.text(question(server, label, part))
        found |= read_answer(_ask(provider, asked), [original_name(t, label) for t in part])
    return found


def _ask(provider: Provider, text: str) -> str:
    """The model's whole text answer to one question (no tools offered)."""
    request = Request(SYSTEM, [Message("user", text)], [], max_tokens=MAX_TOKENS)
    return "".join(event.text for event in provider.stream(request) if isinstance(event, TextDelta))
