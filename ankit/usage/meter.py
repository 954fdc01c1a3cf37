"""The one metered call to the model (`Meter.stream`): every request (a turn's rounds and /compact's summary,
subagents', the phrase writer's questions, decision mode's, prompt hooks') goes through it. Before it is sent,
max_cost is checked against everything the session paid for; once its reply has ended, what it cost is recorded
(`paid`, and the caller's own list that /usage shows).

One Meter per run of ankit (App.meter), handed in at construction to what asks the model.
"""

import json
import threading
import time
from collections.abc import Iterator

from ankit.protocols import Provider
from ankit.records import Event, Notice, Request, RoundRecord, Usage, UsageReport
from ankit.usage.budget import Budget

BYTES_PER_TOKEN = 4  # the estimate of a request's tokens before it is sent (turn/window.py counts the same way)


def estimate(request: Request) -> int:
    """About how many tokens the request's input is: its system prompt, messages and tool schemas."""
    size = len(request.system.encode()) + len(request.note.encode())
    for message in request.messages:
        size += len(message.text.encode()) + sum(len(c.arguments.encode()) for c in message.tool_calls)
        size += sum(len(str(r.content).encode()) for r in message.results)
    size += sum(len(json.dumps(t.parameters)) + len(t.description) for t in request.tools)
    return size // BYTES_PER_TOKEN


class Meter:
    """max_cost checked before every request to the model, and every request's cost recorded after it."""

    def __init__(self, budget: Budget | None = None, before: list[RoundRecord] | None = None):
        self.budget = budget
        self.paid: list[RoundRecord] = list(before or [])  # every request this session paid for (a resumed one's too)
        self.lock = threading.Lock()

    def stream(self, provider: Provider, request: Request, into: list[RoundRecord] | None = None,
               tokens: int | None = None) -> Iterator[Event]:
        """Check max_cost (BudgetError: the request is not sent), send the request, yield its events (a Notice
        first when max_cost cannot be checked); its RoundRecord joins `paid` and `into` once the stream ends."""
        notice = self.check(provider.model, estimate(request) if tokens is None else tokens)
        if notice:
            yield Notice(notice)
        started, usage = time.monotonic(), Usage()
        try:
            for event in provider.stream(request):
                if isinstance(event, UsageReport):
                    usage = event.usage
                yield event
        finally:
            self.record(RoundRecord(0, len(into or []) + 1, provider.name, provider.model, usage, 0, [], [],
                                    time.monotonic() - started), into)

    def check(self, model: str, tokens: int) -> str:
        """Raise BudgetError when a request of about `tokens` input tokens would pass max_cost; a notice or ""."""
        if self.budget is None:
            return ""
        with self.lock:
            paid = list(self.paid)
        return self.budget.check(model, paid, tokens)

    def record(self, record: RoundRecord, into: list[RoundRecord] | None = None) -> None:
        """Count one request's cost (and keep it in the caller's list, for /usage)."""
        with self.lock:
            self.paid.append(record)
            if into is not None:
                into.append(record)

    def restart(self, before: list[RoundRecord] | None = None) -> None:
        """A new session (/clear) starts with nothing spent, or with a resumed one's rounds."""
        with self.lock:
            self.paid = list(before or [])

    def line(self) -> str:
        """The /usage line: the cap and what is spent ("" when nothing meters)."""
        with self.lock:
            paid = list(self.paid)
        return self.budget.line(paid) if self.budget is not None else ""
