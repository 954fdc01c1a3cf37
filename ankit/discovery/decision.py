"""Decision mode: the model as ranker. The lexical ranking's top tools become one lettered choice question (a
name and a first sentence each, and "none of these fits"); the model's log-probabilities for the letter it
would write rank them. Large candidate sets are asked in chunks whose winners meet in a final question.

This module only words the questions and reads the answers; asking a model is the Chooser handed in
(turn/deciding.py). Without log-probabilities the caller keeps the lexical ranking and says why.
"""

import math
from dataclasses import dataclass, field
from typing import Protocol

from ankit.discovery.catalog import first_sentence
from ankit.discovery.index import Index

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXY"
NONE = "Z"  # "no tool in this list fits"
CANDIDATES = 20  # tools of the lexical ranking put to the model
CHUNK = 10  # options in one question
WINNERS = 2  # of each chunk, met again in the final question
SYSTEM = "You choose the tool an assistant should use. Answer with one letter only."
QUESTION = """A user asked an assistant: "{request}"

Which one tool fits best?
{options}
{none}. No tool in this list fits.

Answer with the letter only."""


class Chooser(Protocol):
    """Asks a model one choice question: the log-probability of each token it might write first, or a text
    saying why there are none (the server gives no log-probabilities, or the request failed)."""

    def choose(self, system: str, question: str) -> dict[str, float] | str: ...


@dataclass
class Decision:
    """The model's choice: each tool's probability, best first (those under min_probability left out); mode
    "decision", or "words" with the reason the lexical ranking stands."""

    mode: str
    ranked: list[tuple[str, float]] = field(default_factory=list)
    fallback_reason: str = ""
    none: float = 0.0  # the probability that no listed tool fits


def question(request: str, options: list[tuple[str, str]]) -> str:
    """The choice question for a request among (name, description) options, lettered from A."""
    lines = [f"{LETTERS[i]}. {name}: {first_sentence(description)[:200]}" for i, (name, description) in
             enumerate(options)]
    return QUESTION.format(request=" ".join(request.split())[:500], options="\n".join(lines), none=NONE)


def probabilities(logprobs: dict[str, float], count: int) -> dict[str, float]:
    """The letters' probabilities among the answers this question allows (A.. for count options, and Z),
    normalised to add up to one; {} when the model put no weight on any of them."""
    allowed = set(LETTERS[:count]) | {NONE}
    weights = {letter: math.exp(lp) for letter, lp in logprobs.items() if letter in allowed and lp > -100}
    total = sum(weights.values())
    return {letter: w / total for letter, w in weights.items()} if total > 0 else {}


def decide(index: Index, request: str, chooser: Chooser, min_probability: float = 0.05) -> Decision:
    """Rank the lexical top CANDIDATES by the model's choice; chunks of CHUNK, their winners asked again."""
    candidates = [name for name, _ in index.rank_tools(request, CANDIDATES)]
    if not candidates:
        return Decision("words", fallback_reason="no tool matched the request's words")
    tools = index.catalog.tools
    chunks = [candidates[i:i + CHUNK] for i in range(0, len(candidates), CHUNK)]
    winners: list[str] = []
    for chunk in chunks:
        chosen = _ask(chooser, request, chunk, tools)
        if isinstance(chosen, str):
            return Decision("words", fallback_reason=chosen)
        winners += [name for name, p in chosen[0][:WINNERS] if p >= min_probability]
    if len(chunks) > 1 and winners:
        chosen = _ask(chooser, request, winners, tools)
        if isinstance(chosen, str):
            return Decision("words", fallback_reason=chosen)
    elif not winners:
        return Decision("decision", [], none=1.0)
    ranked, none = chosen
    return Decision("decision", [(n, p) for n, p in ranked if p >= min_probability], none=none)


def _ask(chooser: Chooser, request: str, names: list[str], tools: dict) -> tuple[list[tuple[str, float]], float] | str:
    """One question over these tools: (tool, probability) best first, and the probability of none; or why the
    model's answer cannot rank them."""
    options = [(name, getattr(tools.get(name), "description", "")) for name in names]
    logprobs = chooser.choose(SYSTEM, question(request, options))
    if isinstance(logprobs, str):
        return logprobs
    shares = probabilities(logprobs, len(names))
    if not shares:
        return "the model's likeliest first tokens were none of the choice letters"
    ranked = sorted(((names[LETTERS.index(letter)], p) for letter, p in shares.items() if letter != NONE),
                    key=lambda pair: pair[1], reverse=True)
    return ranked, shares.get(NONE, 0.0)
