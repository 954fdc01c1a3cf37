"""The groups' rules, as data: a real collision between two groups, decided by the request's words.

Every rule whose words are all in the request fires, if the group it prefers is reached well enough (or a group
it beats leads); the groups it beats are halved, and the groups fired rules prefer are lifted together just
above every other group, so which rule was written first (or in which folder) never decides.
"""

from ankit.discovery.catalog import Catalog
from ankit.discovery.terms import keyword_terms

REACH = 0.5  # a rule fires only for a group scoring at least this share of the best: it breaks near-ties


class Rules:
    """The catalog's rules over one index's tools (by position)."""

    def __init__(self, catalog: Catalog, names: list[str]) -> None:
        position = {name: i for i, name in enumerate(names)}
        self._members = {g.id: [position[n] for n in g.tools if n in position] for g in catalog.groups.values()}
        self._group_of = {i: g for g, members in self._members.items() for i in members}
        self._rules = []
        for rule in catalog.rules():
            phrases = [" ".join(keyword_terms(w)) for w in rule.when]
            if rule.prefer in catalog.groups and all(phrases):
                self._rules.append(([f" {p} " for p in phrases], rule.prefer, set(rule.over)))

    def apply(self, request: str, scores: dict[int, float]) -> None:
        """Halve the groups the fired rules beat; lift the groups they prefer just above all others, order kept."""
        joined = f" {request} "
        fired = [(prefer, over) for phrases, prefer, over in self._rules if all(p in joined for p in phrases)]
        if not fired or not scores:
            return
        lifted = {i for prefer, _ in fired for i in self._members[prefer]}
        top = max((v for i, v in scores.items() if i not in lifted), default=0.0)  # the best of the rest
        leaders = {self._group_of.get(i) for i, value in scores.items() if value >= top and i not in lifted}
        fired = [(p, o) for p, o in fired if self._best(p, scores) >= REACH * top or leaders & o]
        if not fired:
            return
        preferred = list(dict.fromkeys(p for p, _ in fired))
        for loser in {g for _, over in fired for g in over} - set(preferred):  # two rules that disagree cancel
            for i in self._members.get(loser, ()):
                if i in scores:
                    scores[i] *= 0.5
        lifted = {i for g in preferred for i in self._members[g]}
        others = max((v for i, v in scores.items() if i not in lifted), default=0.0)
        weakest = min(self._best(g, scores) for g in preferred)
        top = max([others, *(scores.get(i, 0.0) for i in lifted)])
        lift = max(0.0, others - weakest) + 0.01 * top + 0.01  # one lift for the groups keeps their order
        for g in preferred:
            best = self._best(g, scores)
            for i in self._members[g]:
                if scores.get(i, 0.0) > 0 and best > 0:
                    scores[i] += lift * scores[i] / best

    def _best(self, group_id: str, scores: dict[int, float]) -> float:
        return max((scores.get(i, 0.0) for i in self._members.get(group_id, ())), default=0.0)
