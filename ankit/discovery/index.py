"""The search index over the catalog: one scoring function, every number in ankit.discovery.weights.

Score of a tool for a request (every term counted once; the request's quoted words and identifiers at `weak`):
  sum over terms t of  max over relatives e of t (t itself, an abbreviation's words, slang, a synonym)
      factor(e) * idf(e) * (k1 + 1) * tf(e) / (k1 + tf(e)),
  tf(e) = sum over fields f of  W_f * count_f(e) / (1 - b_f + b_f * len_f / avglen_f),
  over the fields: the tool's name as words, description, parameters, phrases, its server;
+ a request of several parts ("find the rooms, then book one"): clause * top * (the tool's best part score over
  that part's top), so the best tool for every part ranks high;
+ meaning: the reached tools nearest the request by the subword vectors of ankit.discovery.vectors gain
  meaning * top * (their cosine over the next nearest's); meaning reorders what the words reached, adds no tool.
Then the groups' rules (data: a real collision between two groups, ankit.discovery.rules), and a server's tool
stands in for the bundled tool it doubles.
"""

import heapq
import math
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import compress

from ankit.discovery.catalog import Catalog, described
from ankit.discovery.rules import Rules
from ankit.discovery.synonyms import light_verb, relatives, spelled_out
from ankit.discovery.terms import (RequestPart, name_key, name_terms, phrase_terms, request_parts,
                                   split_name)
from ankit.discovery.vectors import Meanings, shipped
from ankit.discovery.weights import FIELDS, Weights
from ankit.tooling.tool import Tool


@dataclass
class GroupHit:
    """One group in a search result: its score and the tools that matched, best first."""

    group: str
    score: float
    tools: list[str] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)  # each matched tool's score, in the order of tools


TWIN = 0.6  # how close in meaning a server tool and a bundled one of like names must be to be one answer
_MATCH_CACHE = 20_000  # term matches kept between searches (each refers to postings the index holds anyway)
_SHORT = ("name", "server")  # fields normalised by b_name
Postings = list[tuple[int, float]]


class Index:
    """The inverted index of a catalog; build once, search many times."""

    def __init__(self, catalog: Catalog, tools: list[Tool] | None = None, weights: Weights | None = None) -> None:
        self.catalog = catalog
        self.weights = weights or Weights()
        listed = [t.name for t in tools] if tools is not None else list(catalog.tools)
        known = catalog.tools
        # a tool may opt out of search (find_tools: finding the finder helps no one)
        self.names = [n for n in dict.fromkeys(listed) if n in known and getattr(known[n], "searchable", True)]
        self._unmatched = [(name, 0.0) for name in self.names]
        self._matched: dict[str, Postings | None] = {}  # term matches, kept
        self._build_postings()
        vectors = shipped() if self.weights.meaning else None
        self.meanings = Meanings(vectors, [_text(known[n]) for n in self.names]) if vectors else None
        self._twins = _twins(catalog, self.names, self.meanings)
        self.rules = Rules(catalog, self.names)

    def fields(self, name: str) -> dict[str, list[str]]:
        """A tool's search fields as terms: its own, and its group's server (or bundled group id)."""
        doc = self.catalog.terms[name]
        group = self.catalog.groups.get(self.catalog.group_of(name) or "")
        root = group.parent or group.id if group else name
        server = doc.server or (phrase_terms(root.split(":")[-1]) if root != name else [])
        return {"name": doc.name, "description": doc.description, "parameters": doc.parameters,
                "phrases": doc.phrases, "server": server}

    def _build_postings(self) -> None:
        w = self.weights
        docs = [self.fields(n) for n in self.names]
        count = max(len(docs), 1)
        avg = {f: (sum(len(d[f]) for d in docs) / count) or 1.0 for f in FIELDS}
        raw: dict[str, dict[int, float]] = defaultdict(dict)
        for i, doc in enumerate(docs):
            for f in (f for f in FIELDS if doc[f]):
                b = w.b_name if f in _SHORT else w.b
                norm = getattr(w, f) / (1 - b + b * len(doc[f]) / avg[f])
                for term in doc[f]:
                    raw[term][i] = raw[term].get(i, 0.0) + norm
        self.idf = {t: math.log(1 + (count - len(p) + 0.5) / (len(p) + 0.5)) for t, p in raw.items()}
        self._postings: dict[str, Postings] = {
            t: [(i, self.idf[t] * tf * (w.k1 + 1) / (w.k1 + tf)) for i, tf in p.items() if tf > 0]
            for t, p in raw.items()
        }

    def _idf(self, term: str) -> float:
        return self.idf.get(term, math.log(1 + len(self.names)))

    def expansions(self, term: str) -> dict[str, float]:
        """The indexed terms a query term stands for, with their factor: itself, its slang and synonyms."""
        w = self.weights
        found = {term: 1.0} if term in self._postings else {}
        for other, kind in relatives(term):
            if other in self._postings:
                found.setdefault(other, getattr(w, kind))
        return {t: f for t, f in found.items() if f > 0}

    def forget(self) -> None:
        """Drop the term matches kept between searches (they are rebuilt as queries need them)."""
        self._matched.clear()

    def _term_match(self, term: str) -> Postings | None:
        """The tools a term reaches through its expansions, each with its best score."""
        cache = self._matched
        if term in cache:
            return cache[term]
        if len(cache) > _MATCH_CACHE:
            cache.clear()
        found = self.expansions(term)
        if found == {term: 1.0}:
            cache[term] = self._postings[term]
            return cache[term]
        best: dict[int, float] = {}
        for other, factor in found.items():
            for i, value in self._postings[other]:
                if factor * value > best.get(i, 0.0):
                    best[i] = factor * value
        cache[term] = list(best.items()) or None
        return cache[term]

    def _score_part(self, request: RequestPart) -> dict[int, float]:
        """The BM25F sum over a part's terms (strong at 1, weak at weights.weak)."""
        scores: dict[int, float] = {}
        get = scores.get
        strong = list(dict.fromkeys(request.strong))
        for factor, words in ((1.0, strong), (self.weights.weak, [t for t in dict.fromkeys(request.weak)
                                                                  if t not in strong])):
            for term in words if factor else ():
                for i, value in self._term_match(term) or ():
                    scores[i] = get(i, 0.0) + factor * value
        return scores

    def score_tools(self, query: str) -> dict[int, float]:
        """Scores of the tools that match the query at all, by position in the index."""
        requested = [_spell_out(p) for p in request_parts(query)]
        if requested and light_verb(query):  # 'make a branch': make, no search term, says create
            requested[0] = RequestPart([*light_verb(query), *requested[0].strong], requested[0].weak)
        whole = RequestPart([t for p in requested for t in p.strong], [t for p in requested for t in p.weak])
        scores = self._score_part(whole)
        if len(requested) > 1 and scores and self.weights.clause:
            self._add_clauses(requested, scores)
        self._add_meaning(query, scores)
        self.rules.apply(" ".join(whole.strong), scores)
        self._pair_twins(scores)
        return scores

    def _add_clauses(self, requested: list[RequestPart], scores: dict[int, float]) -> None:
        """Each tool gains clause * top * its best share of one part's top: the best tool for every part."""
        best: dict[int, float] = {}
        get = best.get
        for part in requested:
            part_scores = self._score_part(part)
            part_top = max(part_scores.values(), default=0.0)
            for i, value in part_scores.items():
                if value > get(i, 0.0) * part_top:
                    best[i] = value / part_top
        lift = self.weights.clause * max(scores.values())
        for i, share in best.items():
            scores[i] += lift * share

    def _add_meaning(self, query: str, scores: dict[int, float]) -> None:
        """The reached tools nearest the request in meaning gain weights.meaning * top * their cosine over the
        next nearest's; the top is then scaled back to what the words earned, so phrasings still compare."""
        top = max(scores.values(), default=0.0)
        if self.meanings is None or top <= 0:
            return
        near = heapq.nlargest(self.weights.nearest + 1, self.meanings.cosines(query, scores), key=lambda p: p[1])
        floor = near[-1][1] if len(near) > self.weights.nearest else 0.0
        lift = self.weights.meaning * top
        for i, closeness in near:
            # in hundredths: tools told apart only by a digit in their names ('planner_0', 'planner_1') stay tied
            scores[i] += lift * round(closeness - floor, 2)
        scale = top / max(scores.values())
        for i in scores:
            scores[i] *= scale

    def stand_in(self, name: str) -> str:
        """The server tool that stands in for a bundled tool in the ranking (its twin), or the name itself."""
        at = {self.names[j]: self.names[i] for i, bundled in self._twins.items() for j in bundled}
        return at.get(name, name)

    def doubles(self) -> list[tuple[str, str]]:
        """(server tool, bundled tool) for each bundled tool a configured server's tool stands in for."""
        return [(self.names[i], self.names[j]) for i, bundled in self._twins.items() for j in bundled]

    def _pair_twins(self, scores: dict[int, float]) -> None:
        """A server's tool with the name of a bundled one (mcp__git__git_status, git_status) stands in for it:
        the user configured that server, and the two are one answer, so the server's tool takes the better
        score of the two and the bundled twin leaves the ranking (it stays callable when its group is loaded)."""
        for i, bundled in self._twins.items():
            best = max([scores.get(i, 0.0), *(scores.get(j, 0.0) for j in bundled)])
            if best > 0:
                scores[i] = best
                for j in bundled:
                    scores.pop(j, None)

    def rank_tools(self, query: str, limit: int | None = None) -> list[tuple[str, float]]:
        """Tools ranked for the query, best first; without a limit the whole catalog (non-matches last)."""
        scores = self.score_tools(query)
        names = self.names
        matched = [i for i, value in scores.items() if value > 0]
        if limit is not None and limit < len(matched) // 4:
            matched = heapq.nlargest(limit, matched, key=scores.__getitem__)
        else:
            matched.sort(key=scores.__getitem__, reverse=True)
        result = [(names[i], scores[i]) for i in matched[:limit]]
        if limit is not None or len(matched) == len(names):
            return result
        unmatched = bytearray(b"\x01") * len(names)
        for i in matched:
            unmatched[i] = 0
        return result + list(compress(self._unmatched, unmatched))

    def rank_phrasings(self, texts: list[str], limit: int | None = None) -> list[tuple[str, float]]:
        """Tools ranked for several phrasings of one request, each tool by its best evidence: its score for a
        phrasing over what that phrasing's words could earn (a phrasing whose words all match strongly beats
        one where a single common word matched), plus a tenth of its mean over the phrasings."""
        if len(texts) < 2:
            return self.rank_tools(texts[0] if texts else "", limit)
        best: dict[int, float] = defaultdict(float)
        total: dict[int, float] = defaultdict(float)
        for text in texts:
            words = {t for p in request_parts(text) for t in _spell_out(p).strong}
            possible = (self.weights.k1 + 1) * sum(self._idf(t) for t in words)
            for i, value in self.score_tools(text).items():
                if possible > 0 and value > 0:
                    best[i] = max(best[i], value / possible)
                    total[i] += value / possible
        combined = {i: best[i] + 0.1 * total[i] / len(texts) for i in best}
        ranked = sorted(combined, key=lambda i: (-combined[i], i))[:limit]
        return [(self.names[i], combined[i]) for i in ranked]

    def search_groups(self, query: str, also: list[str] | None = None) -> list[GroupHit]:
        """Groups that match the query (and its other phrasings), best first; a group scores as its best tool."""
        hits: dict[str, GroupHit] = {}
        for name, score in self.rank_phrasings([query, *(also or [])], limit=len(self.names)):
            group = self.catalog.group_of(name) or name
            hit = hits.setdefault(group, GroupHit(group, score))
            hit.tools.append(name)
            hit.scores.append(score)
        return list(hits.values())


def _text(tool: Tool) -> str:
    """What a tool's vector is made of: its name as words, then its description (phrases included)."""
    return f"{' '.join(split_name(tool.name.rsplit('__', 1)[-1]))}. {described(tool)}"


def _twins(catalog: Catalog, names: list[str], meanings: Meanings | None = None) -> dict[int, list[int]]:
    """Each server tool (group mcp:NAME) with the bundled tools it doubles: the bundled tool of its name once
    the prefix is dropped (mcp__git__git_status, git_status); failing that, the server tool whose name says the
    bundled one's words, or synonyms of them, and whose description means much the same (fetch for web_fetch,
    search_files for find_files, create_directory for make_directory; not kubectl_delete for delete_file)."""
    served = {i for i, n in enumerate(names) if (catalog.group_of(n) or "").startswith("mcp:")}
    by_key: dict[str, list[int]] = defaultdict(list)
    for i, name in enumerate(names):
        by_key[name_key(name.rsplit("__", 1)[-1])].append(i)
    twins: dict[int, list[int]] = defaultdict(list)
    for same in by_key.values():
        bundled = [j for j in same if j not in served]
        for i in [i for i in same if i in served] if bundled else ():
            twins[i] += bundled
    if meanings is not None:
        doubled = {j for bundled in twins.values() for j in bundled}
        for j, i in _twins_by_meaning(names, served, doubled, meanings).items():
            twins[i].append(j)
    return dict(twins)


def _twins_by_meaning(names: list[str], served: set[int], doubled: set[int], meanings: Meanings) -> dict[int, int]:
    """Each bundled tool without a twin of its name -> the server tool whose name says the same and whose
    text is closest in meaning, when it is at least TWIN close."""
    words = {i: set(name_terms(names[i].rsplit("__", 1)[-1])) for i in range(len(names))}
    by_word: dict[str, set[int]] = defaultdict(set)
    for i in served:
        for word in words[i]:
            by_word[word].add(i)
    found: dict[int, int] = {}
    for j in sorted(set(range(len(names))) - served - doubled):
        said = [w for term in words[j] for w in (term, *(r for r, _ in relatives(term)))]
        candidates = set().union(*(by_word.get(w, set()) for w in said)) if said else set()
        close = sorted((-meanings.similarity(i, j), i) for i in candidates if _says_same(words[j], words[i]))
        if close and -close[0][0] >= TWIN:  # the closest; of equals, the first listed
            found[j] = close[0][1]
    return found


def _says_same(one: set[str], other: set[str]) -> bool:
    """Whether the shorter of two names' word sets is said by the longer: each word itself or a synonym."""
    short, long_ = sorted((one, other), key=len)
    return bool(short) and all(w in long_ or any(r in long_ for r, _ in relatives(w))
                               for w in short)


def _spell_out(part: RequestPart) -> RequestPart:
    """A part with the words its abbreviations stand for after its own ('open a pr' -> open pr pull request);
    appended, so the request's own phrases ('config file') stay whole for phrases and names."""
    def out(found: list[str]) -> list[str]:
        return found + [word for term in found for word in spelled_out(term) if word not in found]
    return RequestPart(out(part.strong), out(part.weak))


def check_examples(index: Index, tools: list[Tool], top: int = 3) -> list[str]:
    """One line per tool example that does not rank its tool in the top `top` (for `ankit tools check`)."""
    misses = []
    for tool in tools:
        for example in tool.examples:
            ranked = [name for name, _ in index.rank_tools(str(example), limit=top)]
            if tool.name not in ranked:
                shown = ", ".join(ranked) or "nothing"
                misses.append(f"{tool.name}: example {example!r} does not rank it in the top {top} (got {shown})")
    return misses
