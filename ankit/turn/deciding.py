"""Decision mode's chooser: asks the model (decision_model, or the session's) each choice question that
discovery/decision.py words, for one short reply, with the first token's log-probabilities wanted. Servers that
return them (llama.cpp's, vLLM, OpenAI's chat models) rank by them; the others (Anthropic, the Responses API,
servers that ignore the field) by the letters written. Every question's usage, and every search's questions,
tokens and time, are kept for /usage.
"""

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ankit.discovery.decision import NO_LETTER, Decision, Said, decide
from ankit.discovery.index import Index
from ankit.errors import AnkitError
from ankit.protocols import Provider
from ankit.usage.meter import Meter
from ankit.records import (Message, Request, RoundRecord, TextDelta, TokenChoices, Usage,
                           UsageReport)

TOP = 20  # alternatives asked for the first token
REPLY_TOKENS = 12  # "C, A, F" with room to spare
MUTE = 2  # searches in a row whose answers named no choice letter before the session stops asking


@dataclass
class Search:
    """One search's cost in decision mode: the questions asked, their tokens, the seconds they took."""

    questions: int
    tokens: int
    seconds: float
    mode: str


class ModelChooser:
    """Asks choice questions (several at once when chunks go side by side); remembers their rounds, each search's
    cost, the reasons a search kept the lexical ranking, and why decision mode went off for the session."""

    def __init__(self, provider: Callable[[], Provider | None], min_probability: float = 0.05,
                 wanted: Callable[[], bool] | None = None, meter: Meter | None = None):
        self.provider_of = provider  # made on first use: a search may never happen
        self.provider: Provider | None = None
        self.min_probability = min_probability
        self.wanted = wanted  # search = "auto": whether this model ranks
        self.ranks: bool | None = None if wanted else True  # ... answered once, at the first search
        self.rounds: list[RoundRecord] = []
        self.meter = meter or Meter()  # the session's: max_cost checked before each question
        self.searches: list[Search] = []
        self.fallbacks: list[str] = []  # why a search kept the lexical ranking, each time
        self.off = ""  # why decision mode is off for the session: the model answers by position, or with no letter
        self.unread = 0  # searches in a row whose answers named no letter
        self.probed = False
        self.lock = threading.Lock()

    def decide(self, index: Index, request: str) -> Decision:
        """A search in decision mode; the first one also asks whether the model reads position, not meaning."""
        if self.off:
            return self._kept(Decision("words", fallback_reason=self.off))
        if self.ranks is None:
            self.ranks = bool(self.wanted())
        if not self.ranks:
            return Decision("words")  # auto, without a capable model: the words, as configured
        decision = decide(index, request, self, self.min_probability, probe=not self.probed)
        self.probed = self.probed or decision.questions > 0  # a search that asked nothing probed nothing
        self._watch(decision)
        with self.lock:
            self.searches.append(Search(decision.questions, decision.tokens, decision.seconds, decision.mode))
        return self._kept(decision) if decision.mode != "decision" else decision

    def _watch(self, decision: Decision) -> None:
        """Decision mode off for the session once the model answers by position, or twice names no letter."""
        self.unread = self.unread + 1 if decision.fallback_reason == NO_LETTER else 0
        if decision.biased:
            self.off = decision.fallback_reason
        elif self.unread >= MUTE:
            self.off = (f"the model's answers named no choice letter in {MUTE} searches in a row: decision mode is "
                        "off for this session")

    def choose(self, system: str, question: str) -> Said | str:
        """The model's answer: the first token's log-probabilities where they come back, and the reply's text."""
        provider = self._provider()
        if provider is None:
            return self._fell_back("no model is configured")
        request = Request(system, [Message("user", question)], [], max_tokens=REPLY_TOKENS, top_logprobs=TOP)
        usage, choices, text = Usage(), {}, []
        try:
            for event in self.meter.stream(provider, request, into=self.rounds):  # BudgetError: past max_cost
                if isinstance(event, TokenChoices):
                    choices = choices or event.logprobs
                elif isinstance(event, TextDelta):
                    text.append(event.text)
                elif isinstance(event, UsageReport):
                    usage = event.usage
        except AnkitError as exc:
            return self._fell_back(f"the question failed: {exc}")
        return Said(choices, "".join(text), usage.input_tokens + usage.output_tokens)

    def _provider(self) -> Provider | None:
        with self.lock:
            if self.provider is None:
                self.provider = self.provider_of()
            return self.provider

    def _kept(self, decision: Decision) -> Decision:
        if decision.fallback_reason and decision.fallback_reason not in self.fallbacks[-1:]:
            self._fell_back(decision.fallback_reason)
        return decision

    def _fell_back(self, reason: str) -> str:
        with self.lock:
            self.fallbacks.append(reason)
        return reason
