"""What names and metadata add to a text score: tool names, group ids, curated keywords and disambiguation rules.

Bonuses are idf-scaled: a tool name typed as is ("web_search"), a name said as words ("search the web" does
not count, "delete the file" counts for delete_file), the group id as a word, a curated keyword as a phrase.
A group's bonuses lift its best tool (and the tools a keyword names) whole, its other tools by their share of
that tool's text score: a group's word picks the group without lifting its unrelated tools over another
group's right one. Of one-word keywords, which say the same thing again, only the strongest counts.
Disambiguation rules come last: every rule whose words are all in the request fires; the groups they beat are
halved, and the groups they prefer are lifted together just above every other group, so which rule was
written first (or in which folder) never decides.
"""

import re
from collections import defaultdict
from collections.abc import Callable

from ankit.discovery.catalog import Catalog, Rule
from ankit.discovery.terms import keyword_terms, phrase_terms, split_name
from ankit.discovery.weights import Weights

_TOKEN = re.compile(r"[\w.:-]*\w")  # a tool name as typed: letters, digits, _ . : -
_MAX_TEXT = 4000
_LEADING = 20  # tools whose groups are compared when a one-word keyword fires
RULE_REACH = 0.5  # a rule fires only for a group scoring at least this share of the best: it breaks near-ties


def _vocabulary(catalog: Catalog, group) -> set[str]:
    """Every term of a group: its tools' names, descriptions and parameters, its keywords and its id."""
    found = set(phrase_terms(group.id))
    for name in group.tools:
        doc = catalog.terms.get(name)
        if doc:
            found.update(doc.name, doc.description, doc.parameters)
    for keyword in group.keywords:
        found.update(keyword_terms(keyword))
    return found


class _Lifts:
    """The group bonuses one request earns, gathered before they are applied to the text scores (base)."""

    def __init__(self, base: dict[int, float]) -> None:
        self.base = base
        self.pending: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])  # group -> [one word, phrases]
        self.said: dict[str, set[str]] = defaultdict(set)  # group -> the words of its keywords the request used

    def add(self, group_id: str, bonus: float, words: list[str], phrase: bool = False) -> None:
        """A phrase counts whole; of one-word keywords and ids, which say the same thing again, the strongest."""
        pending = self.pending[group_id]
        if phrase:
            pending[1] += bonus
        else:
            pending[0] = max(pending[0], bonus)
        self.said[group_id].update(words)


class Boosts:
    """The name, group id, keyword and rule bonuses over one index's tools (by position)."""

    def __init__(self, catalog: Catalog, names: list[str], weights: Weights, idf: Callable[[str], float],
                 name_idf: list[float], kin: dict[str, set[str]] | None = None) -> None:
        self.weights, self._idf, self._name_idf = weights, idf, name_idf
        position = {name: i for i, name in enumerate(names)}
        self._members = {g.id: [position[n] for n in g.tools if n in position] for g in catalog.groups.values()}
        self._name_terms = [set(catalog.terms[n].name) for n in names]
        self._group_of = {i: g for g, members in self._members.items() for i in members}
        self._exact: dict[str, list[int]] = defaultdict(list)
        self._literal: dict[str, list[int]] = defaultdict(list)
        for i, name in enumerate(names):
            self._exact[" ".join(phrase_terms(name))].append(i)
            if len(split_name(name)) > 1:  # an identifier, not an ordinary word such as "search"
                self._literal[name.lower()].append(i)
        self._group_keys: dict[str, str] = {}
        self._keywords: list[tuple[str, str, float]] = []
        self._vocabulary: dict[str, set[str]] = {}
        for group in catalog.groups.values():
            self._vocabulary[group.id] = _vocabulary(catalog, group)
            key = " ".join(phrase_terms(group.id))
            if key and key not in self._exact and ":" not in group.id:  # mcp:NAME: NAME is the user's word
                self._group_keys[key] = group.id
            for phrase in filter(None, map(keyword_terms, group.keywords)):
                bonus = weights.keyword * sum(idf(t) for t in phrase)
                for target in [group.id, *sorted((kin or {}).get(group.id, ()))]:
                    self._keywords.append((f" {' '.join(phrase)} ", target, bonus))
        self._rules: list[tuple[list[str], Rule]] = []
        for rule in catalog.rules():
            phrases = [" ".join(keyword_terms(w)) for w in rule.when]
            if rule.prefer in catalog.groups and all(phrases):
                self._rules.append(([f" {p} " for p in phrases], rule))
        self._longest = max([len(k.split()) for k in [*self._exact, *self._group_keys]] + [1])

    def apply(self, query: str, parts: list[list[str]], scores: dict[int, float]) -> None:
        """Add the bonuses for the request (its text and its parts' terms) to the scores, then apply the rules.

        A one-word keyword counts by how much of the request its group explains (the idf share of the request's
        terms found in the group's words), compared with the leading group that explains most: 'logs'
        says git in 'show the git logs', not in 'the logs of pod web-5d8 in namespace prod'; a keyword phrase
        of two words or more counts whole. A rule decides only between groups the request already reaches.
        """
        lifts = _Lifts(dict(scores))
        self._names(query, parts, scores, lifts)
        request = list(dict.fromkeys(t for p in parts for t in p))
        joined = " " + " ".join(t for p in parts for t in p) + " "
        shares: dict[str, float] = {}
        best = 0.0
        for phrase, group_id, bonus in self._keywords:
            if phrase in joined:
                if phrase.count(" ") > 2:  # a phrase of two words or more is specific: it counts whole
                    lifts.add(group_id, bonus, phrase.split(), phrase=True)
                    continue
                if not shares:
                    best = self._best_share(request, scores)
                if group_id not in shares:
                    shares[group_id] = self._share(group_id, request)
                relative = min(1.0, shares[group_id] / best) if best else 1.0
                lifts.add(group_id, bonus * relative, phrase.split())
        self._lift_groups(lifts, scores)
        self._apply_rules(joined, scores)

    def _best_share(self, request: list[str], scores: dict[int, float]) -> float:
        """The largest share of the request that one of the leading groups (by text score) explains."""
        leading = sorted(scores, key=scores.__getitem__, reverse=True)[:_LEADING]
        return max((self._share(g, request) for g in {self._group_of.get(i) for i in leading} if g), default=0.0)

    def _share(self, group_id: str, request: list[str]) -> float:
        """The idf share of the request's terms that the group's own words cover."""
        vocabulary = self._vocabulary.get(group_id, set())
        total = sum(self._idf(t) for t in request) or 1.0
        return sum(self._idf(t) for t in request if t in vocabulary) / total

    def _names(self, query: str, parts: list[list[str]], scores: dict[int, float], lifts: "_Lifts") -> None:
        """Bonuses for a tool name (typed, or said in two words or more, or as the whole request) and a group id."""
        w = self.weights
        for token in set(_TOKEN.findall(query[:_MAX_TEXT].lower())):
            for i in self._literal.get(token, ()):
                scores[i] += w.exact_name * self._name_idf[i]
        alone = sum(len(p) for p in parts) == 1
        seen: set[str] = set()
        for part in parts:
            for n in range(1, self._longest + 1):
                for start in range(len(part) - n + 1):
                    key = " ".join(part[start : start + n])
                    if key in seen:
                        continue
                    seen.add(key)
                    if key in self._exact and (n > 1 or alone):
                        bonus = w.name_phrase * sum(self._idf(t) for t in part[start : start + n])
                        for i in self._exact[key]:
                            scores[i] += bonus
                    if key in self._group_keys:
                        bonus = w.group_id * sum(self._idf(t) for t in part[start : start + n])
                        lifts.add(self._group_keys[key], bonus, [], phrase=n > 1)

    def _lift_groups(self, lifts: "_Lifts", scores: dict[int, float]) -> None:
        """Lift each group by its bonuses: the tools a keyword names and the group's best tool by the whole
        bonus, the others by their share of that tool's text score, so a group's words never lift its unrelated
        tools over another group's right one."""
        for group_id, (word, phrase) in lifts.pending.items():
            shares, bonus = self._shares(group_id, lifts.base), word + phrase
            said = lifts.said.get(group_id, set())
            for i in self._members.get(group_id, ()):
                share = 1.0 if said & self._name_terms[i] else shares.get(i, 0.0)  # the keyword names the tool
                if share:
                    scores[i] += bonus * share

    def _shares(self, group_id: str, scores: dict[int, float]) -> dict[int, float]:
        """Each member's score as a share of the group's best (all 1.0 when none of them scores)."""
        members = self._members.get(group_id, ())
        top = max((scores.get(i, 0.0) for i in members), default=0.0)
        if top <= 0:
            return {i: 1.0 for i in members}
        power = self.weights.share_power
        return {i: (scores[i] / top) ** power for i in members if scores.get(i, 0.0) > 0}

    def _apply_rules(self, joined: str, scores: dict[int, float]) -> None:
        """Halve the groups the fired rules beat; lift the groups they prefer just above all others, order kept."""
        fired = [rule for phrases, rule in self._rules if all(p in joined for p in phrases)]
        if not fired or not scores:
            return
        lifted = {i for rule in fired for i in self._members[rule.prefer]}
        top = max((v for i, v in scores.items() if i not in lifted), default=0.0)  # the best of the rest
        leaders = {self._group_of.get(i) for i, value in scores.items() if value >= top and i not in lifted}
        reach = {r.prefer: max((scores.get(i, 0.0) for i in self._members[r.prefer]), default=0.0) for r in fired}
        fired = [rule for rule in fired if reach[rule.prefer] >= RULE_REACH * top or leaders & set(rule.over)]
        if not fired:
            return
        preferred = list(dict.fromkeys(rule.prefer for rule in fired))
        for loser in {g for rule in fired for g in rule.over} - set(preferred):  # two rules that disagree cancel
            for i in self._members.get(loser, ()):
                if i in scores:
                    scores[i] *= 0.5
        lifted = {i for g in preferred for i in self._members[g]}
        others = max((v for i, v in scores.items() if i not in lifted), default=0.0)
        weakest = min(max((scores.get(i, 0.0) for i in self._members[g]), default=0.0) for g in preferred)
        top = max([others, *(scores.get(i, 0.0) for i in lifted)])
        lift = max(0.0, others - weakest) + 0.01 * top + 0.01  # one lift for the groups keeps their order
        for g in preferred:
            for i, share in self._shares(g, scores).items():
                scores[i] += lift * share
