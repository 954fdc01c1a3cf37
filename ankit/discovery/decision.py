"""Decision mode: the model as ranker. The lexical ranking's top tools become lettered choice questions (a name
and a first sentence each, in a seeded rotation rather than the words' order, and "none of these fits"); the
model answers with up to three letters, best first. Where its server returns log-probabilities, the first
token's rank the options; elsewhere the letters' order does. The first chunk is asked alone and stands when its
winner is clear; otherwise the other chunks are asked side by side and their winners meet in a final question.
When nothing fits, a question over the groups picks one.

This module only words the questions and reads the answers; asking a model is the Chooser handed in
(turn/deciding.py).
"""

import hashlib
import math
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Protocol

from ankit.discovery.catalog import first_sentence
from ankit.discovery.index import GroupHit, Index
from ankit.wording import count

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXY"
NONE = "Z"  # "no option in this list fits"
CANDIDATES = 20  # tools of the lexical ranking put to the model
CHUNK = 10  # options in one question
WINNERS = 2  # of each chunk, met again in the final question
PLACES = (4.0, 2.0, 1.0)  # a written answer's letters weigh by place: "C, A" is C 2/3, A 1/3
# The first chunk's answer stands when its best tool leads the next answer (a tool, or none) by this much:
# fitted by tests/bench/bench_decision.py --fit on the unseen servers' half A (never on the half measured).
MARGIN = {"logprobs": 0.0, "letters": 0.0}
SYSTEM = "You choose the tool an assistant should use. Answer with letters only."
QUESTION = """A user asked an assistant: "{request}"

Which {kind} fits best?
{options}
{none}. No {kind} in this list fits.

Answer with up to three letters, best first (for example "C, A"), or {none} alone."""
NO_LETTER = "the model's answer named none of the choice letters"
_LETTER = re.compile(r"(?<![A-Za-z])(?![AI] [a-z])[A-Z](?![A-Za-z])")  # "A tool", "I think" are words


@dataclass
class Said:
    """One answer: the first token's log-probabilities (empty where the server gives none), the text, and its
    cost (input and output tokens)."""

    logprobs: dict[str, float]
    text: str
    tokens: int = 0


class Chooser(Protocol):
    """Asks a model one choice question: its answer, or a text saying why there is none (the request failed).
    Called from several threads at once when chunks are asked side by side."""

    def choose(self, system: str, question: str) -> Said | str: ...


@dataclass
class Decision:
    """The model's choice: each tool's share, best first (those under min_probability left out); mode "decision",
    or "words" with the reason the lexical ranking stands. After "none fits", group is the group the model chose
    among all of them. The cost: questions asked, their tokens, seconds from first question to answer."""

    mode: str
    ranked: list[tuple[str, float]] = field(default_factory=list)
    fallback_reason: str = ""
    none: float = 0.0  # the share of "no listed tool fits"
    candidates: list[str] = field(default_factory=list)  # the words' top, as put to the model
    group: str = ""
    source: str = ""  # "logprobs" or "letters": what ranked the options
    questions: int = 0
    rounds: int = 0  # questions asked one after another (those side by side count once)
    tokens: int = 0
    seconds: float = 0.0
    asked: list[str] = field(default_factory=list)  # what was asked, one phrase each, for find_tools' answer
    biased: bool = False  # the model answered by the options' position: not to be asked again this session

    def said(self) -> str:
        """What the model was asked, and what it cost, in a few words for find_tools' answer."""
        cost = f"{count(self.questions, 'question')}, {count(self.tokens, 'token')}"
        return f"asked the model {'; '.join(self.asked)} ({cost})"

    def unchosen(self) -> list[str]:
        """The model's choices, then the rest of the words' top (what find_tools' answer names as one call away)."""
        return list(dict.fromkeys([*(name for name, _ in self.ranked), *self.candidates]))


@dataclass
class _Answer:
    """One question's ranking: (name, share) best first, the share of none, and what ranked them."""

    ranked: list[tuple[str, float]]
    none: float
    source: str
    letter: str  # the letter of the best answer


def question(request: str, options: list[tuple[str, str]], kind: str = "tool") -> str:
    """The choice question for a request among (name, description) options, lettered from A."""
    lines = [f"{LETTERS[i]}. {name}: {first_sentence(description)[:200]}" for i, (name, description) in
             enumerate(options)]
    return QUESTION.format(request=" ".join(request.split())[:500], options="\n".join(lines), none=NONE, kind=kind)


def rotation(request: str, names: list[str], turn: int = 0) -> list[str]:
    """The names in a rotation seeded by the request (and turn): the words' first is not always A, so a model
    that answers by position does not pass for one agreeing with the words."""
    if not names:
        return []
    seed = int.from_bytes(hashlib.sha256(" ".join(request.split()).encode()).digest()[:4], "big")
    start = (seed + turn * (len(names) // 2 or 1)) % len(names)
    return names[start:] + names[:start]


def letters(logprobs: dict[str, float]) -> dict[str, float]:
    """Tokens read as the letter they write (" B", "B.", "b" are B), the alternatives of one letter summed."""
    found: dict[str, float] = {}
    for token, logprob in logprobs.items():
        word = token.strip().strip(".):,\"'").upper()
        if len(word) == 1 and word.isalpha():
            found[word] = _log_add(found[word], logprob) if word in found else logprob
    return found


def written(text: str, count: int) -> list[str]:
    """The letters a reply writes that the question allows (A.. for count options, and Z), best first, three at
    most; nothing after Z counts."""
    allowed, found = set(LETTERS[:count]) | {NONE}, []
    for letter in _LETTER.findall(text[:200]):
        if letter in allowed and letter not in found:
            found.append(letter)
        if letter == NONE or len(found) == 3:
            break
    return found


def shares(said: Said, count: int) -> tuple[dict[str, float], str]:
    """The allowed letters' shares (adding up to one) and what gave them: the first token's log-probabilities
    where there are any on the letters, else the written letters by place; ({}, "") when neither names one."""
    allowed = set(LETTERS[:count]) | {NONE}
    weights = {k: math.exp(v) for k, v in letters(said.logprobs).items() if k in allowed and v > -100}
    source = "logprobs"
    if not sum(weights.values()):
        weights = {letter: PLACES[i] for i, letter in enumerate(written(said.text, count))}
        source = "letters"
    total = sum(weights.values())
    return ({k: w / total for k, w in weights.items()}, source) if total > 0 else ({}, "")


def _log_add(a: float, b: float) -> float:
    """log(exp(a) + exp(b)) without overflow."""
    high, low = max(a, b), min(a, b)
    return high + math.log1p(math.exp(low - high))


class _Asking:
    """One search's questions: who answers, the request, what each option is, and what the questions cost."""

    def __init__(self, chooser: Chooser, request: str, descriptions: dict[str, str]):
        self.chooser, self.request, self.descriptions = chooser, request, descriptions
        self.questions = self.tokens = self.rounds = 0
        self.lock = threading.Lock()  # side-by-side questions count into the same search

    def ask(self, names: list[str], turn: int = 0, kind: str = "tool") -> _Answer | str:
        """One question over these names, in the request's rotation (turn: another one)."""
        order = rotation(self.request, names, turn)
        said = self.chooser.choose(SYSTEM, question(self.request, [(n, self.descriptions.get(n, "")) for n in order],
                                                    kind))
        with self.lock:
            self.questions += 1
            self.tokens += said.tokens if isinstance(said, Said) else 0
        if isinstance(said, str):
            return said
        found, source = shares(said, len(order))
        if not found:
            return NO_LETTER
        ranked = sorted(((order[LETTERS.index(k)], p) for k, p in found.items() if k != NONE), key=lambda x: -x[1])
        return _Answer(ranked, found.get(NONE, 0.0), source, max(found, key=found.__getitem__))

    def side_by_side(self, chunks: list[list[str]], turns: list[int] | None = None,
                     kind: str = "tool") -> list[_Answer | str]:
        """The questions over these chunks, asked at once (one thread each), answers in the chunks' order."""
        turns, self.rounds = turns or [0] * len(chunks), self.rounds + 1
        if len(chunks) == 1:
            return [self.ask(chunks[0], turns[0], kind)]
        return _at_once(self.ask, [(c, t, kind) for c, t in zip(chunks, turns)])


def _at_once(function, calls: list[tuple]) -> list:
    """function over each argument tuple, one thread each, results in order; an exception is raised here."""
    results: list = [None] * len(calls)

    def one(i: int) -> None:
        try:
            results[i] = function(*calls[i])
        except BaseException as exc:  # raised in the caller's thread, below
            results[i] = exc

    threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return results


def clear(answer: _Answer, margin: dict[str, float]) -> bool:
    """Whether a chunk's best tool leads the next answer (another tool, or none) by the source's margin."""
    if not answer.ranked:
        return False
    runner = max([p for _, p in answer.ranked[1:2]] + [answer.none])
    return answer.ranked[0][1] - runner >= margin.get(answer.source, 1.0)


def decide(index: Index, request: str, chooser: Chooser, min_probability: float = 0.05,
           margin: dict[str, float] | None = None, chunk: int = CHUNK, probe: bool = False) -> Decision:
    """Rank the lexical top CANDIDATES by the model's choice: the first chunk alone, the rest side by side when
    its winner is not clear, their winners met in a final question; the groups when none fits. probe asks the
    first chunk in two rotations too: a model answering the same letter for two tools reads position."""
    started = time.monotonic()
    candidates = [name for name, _ in index.rank_tools(request, CANDIDATES)]
    if not candidates:
        return Decision("words", fallback_reason="no tool matched the request's words")
    tools = index.catalog.tools
    asking = _Asking(chooser, request, {n: getattr(tools.get(n), "description", "") for n in candidates})
    chunks = [candidates[i:i + chunk] for i in range(0, len(candidates), chunk)]
    found = _chosen(asking, chunks, min_probability, margin or MARGIN, probe)
    if isinstance(found, Decision):
        decision = found
    else:
        kept = [(n, p) for n, p in found.ranked if p >= min_probability] if found.letter != NONE else []
        decision = Decision("decision", kept, none=found.none, source=found.source)
        decision.asked.append(f"which of the words' top {len(candidates)} tools fits")
        if not decision.ranked:
            _group(index, asking, decision)
    decision.candidates, decision.questions, decision.tokens = candidates, asking.questions, asking.tokens
    decision.rounds = asking.rounds
    decision.seconds = time.monotonic() - started
    return decision


def _chosen(asking: _Asking, chunks: list[list[str]], min_probability: float, margin: dict[str, float],
            probe: bool) -> _Answer | Decision:
    """The answer that ranks the candidates, or the words' Decision saying why not."""
    probing = probe and len(chunks[0]) > 1
    first, *again = asking.side_by_side([chunks[0]] * (2 if probing else 1), [0, 1])
    if isinstance(first, str) or again and isinstance(again[0], str):
        return Decision("words", fallback_reason=first if isinstance(first, str) else again[0])
    if again and _by_position(first, again[0]):
        return Decision("words", fallback_reason=f"the model answered {first.letter} whatever the options' order "
                        "(it reads position, not meaning): decision mode is off for this session", biased=True)
    if len(chunks) == 1 or clear(first, margin):
        return first
    answers = [first, *asking.side_by_side(chunks[1:])]
    failed = next((a for a in answers if isinstance(a, str)), None)
    if failed is not None:
        return Decision("words", fallback_reason=failed)
    winners = [[n for n, p in a.ranked[:WINNERS] if p >= min_probability and a.letter != NONE] for a in answers]
    holding = [i for i, names in enumerate(winners) if names]
    if len(holding) <= 1:
        return answers[holding[0]] if holding else _Answer([], 1.0, first.source, NONE)
    final = asking.side_by_side([[n for i in holding for n in winners[i]]])[0]
    return Decision("words", fallback_reason=final) if isinstance(final, str) else final


def _by_position(first: _Answer, second: _Answer) -> bool:
    """Whether two rotations of one question got the same letter for different tools."""
    return (first.letter == second.letter != NONE and bool(first.ranked) and bool(second.ranked)
            and first.ranked[0][0] != second.ranked[0][0])


def _group(index: Index, asking: _Asking, decision: Decision) -> None:
    """After "none fits": which group fits, over every group not always loaded (the words' best first)."""
    groups, ids = index.catalog.groups, group_options(index, asking.request)
    if not ids:
        return
    asking.descriptions.update({g: groups[g].summary for g in ids})
    answer = asking.side_by_side([ids], kind="tool group")[0]
    chosen = answer.ranked[0][0] if isinstance(answer, _Answer) and answer.letter != NONE else ""
    decision.group = chosen
    decision.asked.append(f"none fit; then which of {len(ids)} tool groups fits: {chosen or 'none'}")


def group_options(index: Index, request: str) -> list[str]:
    """The groups a "which group" question offers: every one not always loaded, the words' best first."""
    groups = index.catalog.groups
    return [g for g in dict.fromkeys([h.group for h in index.search_groups(request)] + list(groups))
            if g in groups and not groups[g].core][:len(LETTERS)]


def chosen_hits(index: Index, request: str, decision: Decision) -> list[GroupHit]:
    """The groups of the model's choices, each scored by its tools' shares, best first; after "none fits", the
    group it chose, with its tools as the words rank them within it."""
    hits: dict[str, GroupHit] = {}
    for name, share in decision.ranked:
        group = index.catalog.group_of(name) or name
        hit = hits.setdefault(group, GroupHit(group, 0.0, []))
        hit.score += share
        hit.tools.append(name)
        hit.scores.append(share)
    if not hits and decision.group:
        found = next((h for h in index.search_groups(request) if h.group == decision.group), None)
        return [found or GroupHit(decision.group, 1.0, [])]
    return sorted(hits.values(), key=lambda h: h.score, reverse=True)
