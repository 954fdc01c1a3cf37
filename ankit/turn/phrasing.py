"""Asking the model, once per MCP server's tool list, for the phrases users type for its tools: in the background
of a REPL session (PhraseWriter, on by default: `phrases = false` turns it off) and with `ankit mcp phrases`.

The question, the reading of the answer and the store are discovery's (ankit/discovery/phrases.py); this asks the
configured provider (or `phrases_model`) and takes the answer into the registry, which searches each tool's
phrases with its description from then on. Servers are asked side by side.
"""

import queue
import threading
from collections.abc import Iterator

from ankit.discovery.phrases import SYSTEM, original_name, question, read_answer
from ankit.protocols import Provider
from ankit.records import Message, Request, RoundRecord, TextDelta
from ankit.safety.scrub import Scrubber
from ankit.usage.meter import Meter
from ankit.turn.registry import Registry
from ankit.wording import count

PHRASES_USAGE = "usage: ankit mcp phrases [NAME ...] [--again]"
PER_QUESTION = 25  # tools per question: eight phrases each fit one answer of MAX_TOKENS
MAX_TOKENS = 4_000
SIDE_BY_SIDE = 3  # servers asked at once


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
                  scrubber: Scrubber, meter: Meter | None = None) -> Iterator[str]:
    """For each listed server (or those named) without kept phrases (every one, with again), ask the model (the
    question scrubbed of the secrets ankit knows: a description may carry one) and keep its phrases: a line when a
    server is asked, and one when it is done (servers side by side; a slow model takes a while)."""
    listed = registry.mcp.catalog.listed()
    unknown = [n for n in names if n not in {server for server, _, _ in listed}]
    if unknown:
        known = ", ".join(server for server, _, _ in listed) or "none has listed its tools"
        yield f"no listed MCP server named {unknown[0]!r} (servers: {known}); see ankit mcp"
        return
    asked = []
    for server, label, tools in listed:
        kept = registry.phrases.load(server, label, tools) if registry.phrases else None
        if names and server not in names:
            continue
        if kept is not None and not again:
            yield f"{server}: phrases kept for {len(kept)} of {count(len(tools), 'tool')} (--again asks anew)"
            continue
        questions = -(-len(tools) // PER_QUESTION)
        yield f"{server}: asking the model about {count(len(tools), 'tool')} ({count(questions, 'question')})..."
        asked.append((server, label, tools))
    writer = PhraseWriter(provider, registry, scrubber, meter)
    yield from writer.write(asked)
    registry.reindex()


class PhraseWriter:
    """Asks the model for the phrases of servers' tools and keeps them; in a session, in the background, once per
    tool list (an answer without phrases is kept too, so the same list is not asked again); the requests' usage
    is kept for /usage."""

    def __init__(self, provider: Provider, registry: Registry, scrubber: Scrubber, meter: Meter | None = None):
        self.provider, self.registry, self.scrubber = provider, registry, scrubber
        self.meter = meter or Meter()  # the session's: max_cost checked before each question
        self.rounds: list[RoundRecord] = []  # one per question asked
        self.lock = threading.Lock()
        self.running = False  # a background thread is asking

    def kick(self) -> None:
        """Ask, on a thread of its own, about each listed server with no phrases kept and none being asked: first
        waiting for servers still starting (each at most its start_timeout); the main thread takes the phrases in
        at its next rebuild (posted to the registry's queue)."""
        with self.lock:
            if self.running:
                return
            self.running = True
        threading.Thread(target=self._background, daemon=True, name="ankit-phrases").start()

    def _background(self) -> None:
        try:
            self.registry.mcp.wait(patient=True)  # nobody waits for this thread
            missing = [(s, label, tools) for s, label, tools in self.registry.mcp.catalog.listed()
                       if self.registry.phrases.load(s, label, tools) is None]
            for _ in self.write(missing, keep_empty=True):  # an empty answer is kept: that list is not asked again
                self.registry.post_change()
        finally:
            with self.lock:
                self.running = False

    def write(self, servers: list, keep_empty: bool = False) -> Iterator[str]:
        """Ask about each server (SIDE_BY_SIDE at once) and keep what comes back (an answer without phrases too,
        with keep_empty); a line per server as each is done."""
        done: queue.SimpleQueue = queue.SimpleQueue()
        slots = threading.BoundedSemaphore(SIDE_BY_SIDE)
        for server in servers:
            threading.Thread(target=self._one, args=(server, slots, done), daemon=True, name="ankit-phrases").start()
        for _ in servers:
            server, label, tools, found = done.get()
            yield self._keep(server, label, tools, found, keep_empty)

    def _one(self, server: tuple, slots: threading.BoundedSemaphore, done: queue.SimpleQueue) -> None:
        """One server's phrases (or the exception that stopped them), posted to `done`."""
        with slots:
            try:
                found = self._phrases_of(*server)
            except Exception as exc:  # handed to the caller's thread, which says it in one line
                found = exc
        done.put((*server, found))

    def _keep(self, server: str, label: str, tools: list, found: dict | Exception, keep_empty: bool) -> str:
        """Keep one server's phrases; the line that says what came of it."""
        if isinstance(found, Exception):  # a failed request: nothing kept, asked again next time
            return f"{server}: the model was not reached ({self.scrubber.text(str(found))}); nothing kept"
        if self.registry.phrases is not None and (found or keep_empty):
            self.registry.phrases.save(server, label, tools, found)
        if not found:
            return f"{server}: the model's answer held no phrases for its tools; try again, or another model"
        return (f"{server}: {count(sum(map(len, found.values())), 'phrase')} for {len(found)} of "
                f"{count(len(tools), 'tool')}")

    def _phrases_of(self, server: str, label: str, tools: list) -> dict[str, list[str]]:
        """The model's phrases for a server's tools, asked PER_QUESTION tools at a time (each answer stays short)."""
        found: dict[str, list[str]] = {}
        for start in range(0, len(tools), PER_QUESTION):
            part = tools[start:start + PER_QUESTION]
            asked = self.scrubber.text(question(server, label, part))
            found |= read_answer(self._ask(asked), [original_name(t, label) for t in part])
        return found

    def _ask(self, text: str) -> str:
        """The model's whole text answer to one question (no tools offered); its usage kept."""
        request = Request(SYSTEM, [Message("user", text)], [], max_tokens=MAX_TOKENS)
        events = self.meter.stream(self.provider, request, into=self.rounds)  # BudgetError: past max_cost
        return "".join(event.text for event in events if isinstance(event, TextDelta))
