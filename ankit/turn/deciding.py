"""Decision mode's chooser: asks the model (decision_model, or the session's) a choice question for one token and
reads the log-probabilities of the letters it might write (discovery/decision.py words the questions).

Servers that return them: OpenAI-compatible Chat Completions with logprobs (llama.cpp's server, vLLM, OpenAI's
chat models). Anthropic's API and the Responses path give none: the search then keeps its lexical ranking and
says why. Every question's usage is kept for /usage.
"""

import math
import threading
import time
from collections.abc import Callable

from ankit.errors import AnkitError
from ankit.protocols import Provider
from ankit.records import Message, Request, RoundRecord, TokenChoices, Usage, UsageReport

TOP = 20  # alternatives asked for the first token
NO_LOGPROBS = "the model's server returned no token log-probabilities"


class ModelChooser:
    """Asks one choice question a time; remembers its rounds and the reasons it could not rank."""

    def __init__(self, provider: Callable[[], Provider | None]):
        self.provider_of = provider  # made on first use: a search may never happen
        self.provider: Provider | None = None
        self.rounds: list[RoundRecord] = []
        self.fallbacks: list[str] = []  # why a search kept the lexical ranking, each time
        self.lock = threading.Lock()

    def choose(self, system: str, question: str) -> dict[str, float] | str:
        """The first token's letters and their log-probabilities, or why there are none."""
        if self.provider is None:
            self.provider = self.provider_of()
        if self.provider is None:
            return self._fell_back("no model is configured")
        request = Request(system, [Message("user", question)], [], max_tokens=1, top_logprobs=TOP)
        started, usage, choices = time.monotonic(), Usage(), None
        try:
            for event in self.provider.stream(request):
                if isinstance(event, TokenChoices):
                    choices = event.logprobs
                elif isinstance(event, UsageReport):
                    usage = event.usage
        except AnkitError as exc:
            return self._fell_back(f"the question failed: {exc}")
        finally:
            self._record(usage, time.monotonic() - started)
        return letters(choices) if choices else self._fell_back(NO_LOGPROBS)

    def _record(self, usage: Usage, seconds: float) -> None:
        with self.lock:
            self.rounds.append(RoundRecord(0, len(self.rounds) + 1, self.provider.name, self.provider.model, usage, 0,
                                           [], [], seconds))

    def _fell_back(self, reason: str) -> str:
        with self.lock:
            self.fallbacks.append(reason)
        return reason


def letters(logprobs: dict[str, float]) -> dict[str, float]:
    """Tokens read as the letter they write (" B", "B.", "b" are B), the alternatives of one letter summed."""
    found: dict[str, float] = {}
    for token, logprob in logprobs.items():
        word = token.strip().strip(".):").upper()
        if len(word) == 1 and word.isalpha():
            found[word] = _log_add(found[word], logprob) if word in found else logprob
    return found


def _log_add(a: float, b: float) -> float:
    """log(exp(a) + exp(b)) without overflow."""
    high, low = max(a, b), min(a, b)
    return high + math.log1p(math.exp(low - high))
