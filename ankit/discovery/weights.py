"""The knobs of the search score, shared by the index and the bonuses."""

from dataclasses import dataclass


@dataclass
class Weights:
    """The knobs of the score; general choices, not fitted to one catalog."""

    k1: float = 1.2
    name: float = 2.5
    description: float = 1.0
    parameters: float = 0.7
    b_name: float = 0.3
    b_text: float = 0.75
    bigram: float = 0.5
    coverage: float = 1.0
    coverage_power: float = 2.0
    clause: float = 1.0
    exact_name: float = 3.0
    name_phrase: float = 1.0
    group_id: float = 3.0
    keyword: float = 2.0
    synonym: float = 0.5  # the hand-made synonym map
    slang: float = 0.6  # software_words.txt: a user's word for what authors call otherwise
    thesaurus: float = 0.35  # thesaurus.txt: general English, below the others: it only rescues misses
    thesaurus_beside: float = 0.1  # ... and beside a word the catalog has, far below: it only breaks ties
    prefix: float = 0.5
    min_prefix: int = 5
    idf_floor: float = 1.0
    share_power: float = 0.5  # a group bonus lifts a tool by (its text score / the group's best) ** this
    action: float = 0.25  # near-ties: a tool named for what the request asks to do gains this share of the top
    near: float = 0.15  # ... among the tools within this share of the top score
    meaning: float = 2.0  # a tool whose text means what the request says (cosine 1 over the 31st nearest) gains
    # this share of the top, times the share of the request its words leave unexplained
    nearest: int = 30  # ... among the request's nearest tools in meaning that its words reached
    weak: float = 0.7  # words inside quotes, identifiers and paths, and the pieces of a mixed-case word
