"""Every number of the search score, in one place (fitted by tests/bench/fit_ranking.py on training sets only)."""

from dataclasses import dataclass

FIELDS = ("name", "description", "parameters", "phrases", "server")


@dataclass
class Weights:
    """The numbers of the one scoring function (see ankit.discovery.index): BM25F field weights and length
    normalisation, what a word's relatives count for, and the meaning term's weight."""

    k1: float = 1.194
    b: float = 0.422  # length normalisation of the text fields
    b_name: float = 0.797  # ... and of the short ones (name, server)
    name: float = 5.0
    description: float = 1.0
    parameters: float = 0.349
    phrases: float = 4.162  # the requests a model wrote for a tool (ankit mcp phrases)
    server: float = 2.0  # the server's name (or a bundled group's id)
    weak: float = 0.262  # words inside quotes, identifiers and paths, and the pieces of a mixed-case word
    synonym: float = 0.497  # the hand-made synonym map
    slang: float = 0.9  # software_words.txt: a user's word for what authors call otherwise
    clause: float = 1.0  # a request of several parts: each tool also gains its best part's share of the top
    meaning: float = 1.5  # the reached tools nearest in meaning gain this share of the top times their closeness
    nearest: int = 30  # ... over the closeness of the next nearest

