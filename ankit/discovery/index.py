"""The search index over the catalog: BM25F-style field weighting of the tools' text, ranked results.

Score of a tool for a part of a request (every term counted once):
  sum over terms t of  max over expansions e of t (t itself, a synonym, a prefix match)
      factor(e) * idf(e) * (k1 + 1) * tf(e) / (k1 + tf(e)),
  where tf(e) = sum over fields f of  W_f * count_f(e) / (1 - b_f + b_f * len_f / avglen_f)
  over the fields name tokens, description, and parameter names and descriptions;
  + for query bigrams found in the tool's name or description:  bigram * mean idf of the pair;
  + name coverage:  coverage * share^power * matched, where matched is the idf of the tool's name words
    found in the request and share is matched / the idf of all its name words (short, fully named tools win).
A request with several parts ("find the rooms, then book one") is scored whole and part by part; each tool
gains clause * top * (its best part score / that part's top), so the best tool for every part ranks high.
Then meaning: the tools nearest the request by the subword vectors of ankit.discovery.vectors gain up to
meaning * top * (the share of the request's words no leading tool has), so a request in the user's words
reaches a tool described in the author's. Then the bonuses for tool names, group ids and curated keywords, and
the disambiguation rules (ankit.discovery.boosts). A server's tool stands in for the bundled tool it doubles.
"""

import bisect
import heapq
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field

from ankit.discovery.boosts import Boosts
from ankit.discovery.catalog import Catalog, described
from ankit.discovery.synonyms import is_verb, light_verb, relatives, spelled_out
from ankit.discovery.terms import RequestPart, clauses, name_key, name_terms, request_parts, split_name, stem
from ankit.discovery.vectors import Meanings, shipped
from ankit.discovery.weights import Weights
from ankit.tooling.tool import Tool


@dataclass
class GroupHit:
    """One group in a search result: its score and the tools that matched, best first."""

    group: str
    score: float
    tools: list[str] = field(default_factory=list)


_FIELDS = ("name", "description", "parameters")
_READING = frozenset(stem(w) for w in "get list show read describe search find view".split())
# A question asks to be told, so its first verb ("which issues have labels") is no action to prefer
_QUESTION = re.compile(r"\s*(what|which|who|whose|how|when|where|why|is|are|was|were|do|does|did|has|have)\b",
                       re.IGNORECASE)
TWIN = 0.6  # how close in meaning a server tool and a bundled one of like names must be to be one answer
_LEADING = 5  # the tools whose texts count as explaining a request's words
_MEANING_PARTS = 8  # parts of a request compared in meaning (each is a pass over the catalog)
_MATCH_CACHE = 20_000  # term matches kept between searches (each refers to postings the index holds anyway)
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
        self._matched: dict[tuple[str, float], tuple[Postings, Postings] | None] = {}  # term matches, kept
        self._build_postings()
        vectors = shipped() if self.weights.meaning else None
        self.meanings = Meanings(vectors, [_text(known[n]) for n in self.names]) if vectors else None
        self._twins = _twins(catalog, self.names, self.meanings)
        self.boosts = Boosts(catalog, self.names, self.weights, self._idf, self._name_idf, self._kin())

    def _build_postings(self) -> None:
        w = self.weights
        docs = [self.catalog.terms[n] for n in self.names]
        count = max(len(docs), 1)
        avg = {f: (sum(len(getattr(d, f)) for d in docs) / count) or 1.0 for f in _FIELDS}
        weight = {"name": w.name, "description": w.description, "parameters": w.parameters}
        b = {"name": w.b_name, "description": w.b_text, "parameters": w.b_text}
        raw: dict[str, dict[int, float]] = defaultdict(dict)
        for i, doc in enumerate(docs):
            for f in _FIELDS:
                values = getattr(doc, f)
                norm = weight[f] / (1 - b[f] + b[f] * len(values) / avg[f])
                for term in values:
                    raw[term][i] = raw[term].get(i, 0.0) + norm
        self.idf = {t: math.log(1 + (count - len(p) + 0.5) / (len(p) + 0.5)) for t, p in raw.items()}
        self._postings: dict[str, Postings] = {
            t: [(i, self.idf[t] * tf * (w.k1 + 1) / (w.k1 + tf)) for i, tf in p.items()] for t, p in raw.items()
        }
        self._vocabulary = sorted(raw)
        self._in_name: dict[str, list[int]] = defaultdict(list)
        self._name_idf: list[float] = []
        self._bigrams: dict[tuple[str, str], set[int]] = defaultdict(set)
        for i, doc in enumerate(docs):
            for term in set(doc.name):
                self._in_name[term].append(i)
            self._name_idf.append(sum(self.idf[t] for t in set(doc.name)) or 1.0)
            for seq in (doc.name, doc.description):
                for pair in zip(seq, seq[1:]):
                    self._bigrams[pair].add(i)

    def _idf(self, term: str) -> float:
        return self.idf.get(term, math.log(1 + len(self.names)))

    def expansions(self, term: str) -> dict[str, float]:
        """The indexed terms a query term stands for, with their factor: itself, synonyms, prefix matches."""
        w = self.weights
        found = {term: 1.0} if term in self._postings else {}
        for other, kind in relatives(term):
            if other not in self._postings:
                continue
            if kind != "thesaurus" or term not in found:
                found.setdefault(other, getattr(w, kind))
            elif self.idf[other] >= self.idf[term]:
                # the thesaurus rescues misses; beside a word the catalog has it only breaks ties, and only
                # by a rarer word (a common one would reach most of the catalog for a tenth of a point)
                found.setdefault(other, w.thesaurus_beside)
        if not found and len(term) >= w.min_prefix and term.isascii():
            start = bisect.bisect_left(self._vocabulary, term)
            for other in self._vocabulary[start : start + 5]:
                if other.startswith(term):
                    found.setdefault(other, w.prefix)
            for cut in range(len(term) - 1, w.min_prefix - 1, -1):
                if term[:cut] in self._postings:
                    found.setdefault(term[:cut], w.prefix)
                    break
        return found

    def forget(self) -> None:
        """Drop the term matches kept between searches (they are rebuilt as queries need them)."""
        self._matched.clear()

    def _term_match(self, term: str, floor: float) -> tuple[Postings, Postings] | None:
        """The tools a term reaches through its expansions of idf >= floor, with scores; and its name matches."""
        expanded = self.expansions(term)
        beside = term in expanded and self.idf[term] < floor  # a common word: its tie-breakers wait too
        found = {t: f for t, f in expanded.items()
                 if self.idf[t] >= floor and not (beside and f == self.weights.thesaurus_beside)}
        if not found:
            return None
        if list(found.values()) == [1.0]:
            return self._postings[term], [(i, self.idf[term]) for i in self._in_name.get(term, ())]
        best: dict[int, float] = {}
        named: dict[int, float] = {}
        for other, factor in found.items():
            for i, value in self._postings[other]:
                if factor * value > best.get(i, 0.0):
                    best[i] = factor * value
            for i in self._in_name.get(other, ()):
                named[i] = max(named.get(i, 0.0), factor * self.idf[other])
        return list(best.items()), list(named.items())

    def _matches(self, part: list[str]) -> list[tuple[Postings, Postings]]:
        """Matches of a part's terms; words found in most tools say little and count only when nothing else does."""
        unique = list(dict.fromkeys(part))
        cache = self._matched
        if len(cache) > _MATCH_CACHE:
            cache.clear()
        for floor in (self.weights.idf_floor, 0.0):
            found = []
            for term in unique:
                match = cache.get((term, floor), False)
                if match is False:
                    match = cache[term, floor] = self._term_match(term, floor)
                if match:
                    found.append(match)
            if found:
                return found
        return []

    def _score_part(self, request: RequestPart) -> dict[int, float]:
        w = self.weights
        part = request.strong
        scores: dict[int, float] = defaultdict(float)
        named: dict[int, float] = defaultdict(float)
        get = scores.get  # faster than defaultdict's += in the loops below
        for postings, in_name in self._matches(part):
            for i, value in postings:
                scores[i] = get(i, 0.0) + value
            for i, value in in_name:
                named[i] += value
        weak = w.weak
        for postings, _ in self._matches(request.weak):
            for i, value in postings:
                scores[i] = get(i, 0.0) + weak * value
        for pair in set(zip(part, part[1:])):
            docs = self._bigrams.get(pair)
            if docs:
                bonus = w.bigram * (self._idf(pair[0]) + self._idf(pair[1])) / 2
                for i in docs:
                    scores[i] = get(i, 0.0) + bonus
        name_idf, power, coverage = self._name_idf, w.coverage_power, w.coverage
        for i, matched in named.items():
            share = matched / name_idf[i]
            scores[i] = get(i, 0.0) + coverage * (share if share < 1.0 else 1.0) ** power * matched
        return scores

    def score_tools(self, query: str) -> dict[int, float]:
        """Scores of the tools that match the query at all, by position in the index."""
        requested = [_spell_out(p) for p in request_parts(query)]
        parts = [p.strong for p in requested if p.strong]
        whole = RequestPart([t for p in requested for t in p.strong], [t for p in requested for t in p.weak])
        scores = self._score_part(whole)
        if len(requested) > 1 and scores and self.weights.clause:
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
        self._add_meaning(query, [t for p in parts for t in p], scores)
        if requested and scores:
            self._prefer_action(requested[0].strong, scores, bool(_QUESTION.match(query)), light_verb(query))
        self.boosts.apply(query, parts, scores)  # the rules come last: they decide between groups
        self._pair_twins(scores)
        return scores

    def _add_meaning(self, query: str, words: list[str], scores: dict[int, float]) -> None:
        """Lift the matched tools nearest the request in meaning (per part, by their closeness over the next
        one's) by up to weights.meaning of the top score, times the share of the request its words leave
        unexplained: a tool described in other words than the user's comes near, a request in the author's
        words keeps its ranking. Meaning reorders what the words reached and adds no tool; the top score stays
        what the words earned, so phrasings of a request still compare by their words' evidence."""
        top = max(scores.values(), default=0.0)
        if self.meanings is None or top <= 0:
            return
        best: dict[int, float] = {}
        get = best.get
        for part in clauses(query)[:_MEANING_PARTS]:
            near = self.meanings.cosines(part, scores)
            nearest = heapq.nlargest(self.weights.nearest + 1, near, key=lambda pair: pair[1])
            floor = nearest[-1][1] if len(nearest) > self.weights.nearest else 0.0
            for i, closeness in nearest:
                if closeness - floor > get(i, 0.0):
                    best[i] = closeness - floor
        lift = self.weights.meaning * top * self._unexplained(words, scores)
        for i, closeness in best.items():
            # in hundredths: tools told apart only by a digit in their names ('planner_0', 'planner_1') stay tied
            scores[i] += lift * round(closeness, 2)
        scale = top / max(scores.values())  # the request's top stays what its words earned: phrasings compare
        for i in scores:
            scores[i] *= scale

    def _unexplained(self, words: list[str], scores: dict[int, float]) -> float:
        """The idf share of the request's words that none of the leading tools' texts has: meaning counts as
        far as the words leave the request unexplained (a request in the author's words needs none)."""
        words = list(dict.fromkeys(words))
        total = sum(self._idf(t) for t in words)
        if not total:
            return 0.0
        leading = heapq.nlargest(_LEADING, scores, key=scores.__getitem__)
        docs = [self.catalog.terms[self.names[i]] for i in leading]
        found = sum(self._idf(t) for t in words if any(t in d.name or t in d.description or t in d.parameters
                                                          for d in docs))
        return 1.0 - found / total

    def _kin(self) -> dict[str, set[str]]:
        """Each bundled group with the servers that double its tools: one domain."""
        kin: dict[str, set[str]] = defaultdict(set)
        group_of = self.catalog.group_of
        for i, bundled in self._twins.items():
            for j in bundled:
                kin[group_of(self.names[j]) or ""].add(group_of(self.names[i]) or "")
        return kin

    def stand_in(self, name: str) -> str:
        """The server tool that stands in for a bundled tool in the ranking (its twin), or the name itself."""
        at = {self.names[j]: self.names[i] for i, bundled in self._twins.items() for j in bundled}
        return at.get(name, name)

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

    def _prefer_action(self, part: list[str], scores: dict[int, float], question: bool,
                       light: tuple[str, ...] = ()) -> None:
        """Break near-ties by what the request asks to do: its first verb (of its first two words) and the
        word after it; a tool whose name says the verb gains most, one whose name says the object less. A
        question, or a request that starts with no verb, asks to be told: reading is its verb, at half weight.
        A light verb first ('make a branch') asks for its action (create) on the first word."""
        at = None if question else next((n for n, term in enumerate(part[:2]) if is_verb(term)), None)
        if light and not question:
            action, weight = dict.fromkeys(light, 1.0), 1.0
            thing = self._sayings(part[0]) if part else {}
        elif at is None:
            action, weight = dict.fromkeys(_READING, 1.0), 0.5
            thing = self._sayings(part[0]) if part else {}
        else:
            action, weight = self._sayings(part[at]), 1.0
            thing = self._sayings(part[at + 1]) if at + 1 < len(part) else {}
        top = max(scores.values())
        lift, floor = self.weights.action * top, (1 - self.weights.near) * top
        terms = self.catalog.terms
        for i, value in list(scores.items()):
            if value >= floor:
                name = terms[self.names[i]].name
                does = max((action.get(t, 0.0) for t in name), default=0.0)
                names = max((thing.get(t, 0.0) for t in name), default=0.0)
                scores[i] = value + lift * (weight * does + 0.5 * names)

    def _sayings(self, term: str) -> dict[str, float]:
        """A term and the words that say the same, by how closely: itself, its spelled-out words and its
        slang fully, synonyms by half (the thesaurus not at all)."""
        found = dict.fromkeys([term, *spelled_out(term)], 1.0)
        for other, kind in relatives(term):
            if kind != "thesaurus":
                found.setdefault(other, 1.0 if kind == "slang" else 0.5)
        return found

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
        seen = set(matched)
        return result + [pair for i, pair in enumerate(self._unmatched) if i not in seen]

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
            hits.setdefault(group, GroupHit(group, score)).tools.append(name)
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
        said = [w for term in words[j] for w in (term, *(r for r, kind in relatives(term) if kind != "thesaurus"))]
        candidates = set().union(*(by_word.get(w, set()) for w in said)) if said else set()
        close = sorted((-meanings.similarity(i, j), i) for i in candidates if _says_same(words[j], words[i]))
        if close and -close[0][0] >= TWIN:  # the closest; of equals, the first listed
            found[j] = close[0][1]
    return found


def _says_same(one: set[str], other: set[str]) -> bool:
    """Whether the shorter of two names' word sets is said by the longer: each word itself or a synonym."""
    short, long_ = sorted((one, other), key=len)
    return bool(short) and all(w in long_ or any(r in long_ for r, kind in relatives(w) if kind != "thesaurus")
                               for w in short)


def _spell_out(part: RequestPart) -> RequestPart:
    """A part with the words its abbreviations stand for after its own ('open a pr' -> open pr pull request);
    appended, so the request's own phrases ('config file') stay whole for keywords and names."""
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
