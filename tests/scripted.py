"""A scripted provider for loop tests: each round replays a list of events and records the request."""

from ankit.providers.base import Provider, ProviderSettings
from ankit.records import StreamEnd, TextDelta, ToolCall, ToolCallDone, Usage, UsageReport


def text(words: str, usage: Usage | None = None) -> list:
    """A round that answers with text."""
    return [TextDelta(words), UsageReport(usage or Usage(10, 0, 0, 2, True)), StreamEnd("stop")]


def call(name: str, arguments: str = "{}", call_id: str = "c1") -> list:
    """A round that calls one tool."""
    return [ToolCallDone(ToolCall(call_id, name, arguments)), UsageReport(Usage(10, 0, 0, 2, True)), StreamEnd("tool_use")]


class ScriptedProvider(Provider):
    """Plays back rounds in order; an exception in a round's list is raised at that point."""

    def __init__(self, rounds: list[list]):
        super().__init__(ProviderSettings("scripted", "openai", "http://127.0.0.1:9", "scripted-model"))
        self.rounds = list(rounds)
        self.requests = []

    def stream(self, request):
        self.requests.append(request)
        for event in self.rounds.pop(0):
            if isinstance(event, BaseException):
                raise event
            yield event
