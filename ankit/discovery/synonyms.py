"""Related words for requests to tools (none fitted to a catalog): a small hand-made synonym map and the words of
software work (software_words.txt: abbreviations spelled out, slang); verbs.txt (from Open English WordNet).
"""

import pkgutil
from functools import cache

from ankit.discovery.terms import GENERIC_VERBS, STOP_WORDS, stem, words

_GENERIC = frozenset(stem(w) for w in GENERIC_VERBS)

# Each line is a set of words a user and a tool author may use for the same thing.
# Kept to everyday vocabulary of common tool domains; no entry names a particular tool. Words with a
# common second meaning in software (track, text, build, change, end, share, class, auto, tune, route,
# digest, event, memory, issue, training, fitness: stemmed to fit) are left out.
_SETS = """
image picture photo pic photograph
film movie
song music
car vehicle automobile
buy purchase shop shopping
price cost pricing fee
cheap discount deal coupon bargain sale
job career employment vacancy hiring
trip travel journey vacation holiday
flight airline plane
hotel accommodation lodging
restaurant dining eatery
recipe cooking cuisine dish meal
doctor physician
illness disease sickness
medicine medication drug
email mail inbox
message chat sms
delete remove erase
create make generate produce
find search look lookup locate
show display list view
edit modify alter
fetch download retrieve
run execute launch invoke
stop kill terminate halt
folder directory dir
file document doc
start begin
translate translation language
weather forecast climate
stock equity ticker
money currency cash
news headline headlines
book reserve reservation booking
house home property apartment housing realestate
calendar schedule appointment meeting agenda
reminder remind alarm
note memo notes
summary summarize summarise tldr
website site webpage page url link web
video clip
game play gaming
paper article publication research
course lesson tutorial learn
map location place direction navigate
clock time timezone
port socket listening
process program pid
remember memorize recall
password credential secret
error bug problem
commit revision changeset
repository repo
notification alert notify
compute calculate calculation math
convert conversion transform
compare comparison versus
recommend recommendation suggest suggestion
review rating feedback
count number tally
statistics stats analytics metrics
sport sports athletic
exercise workout
diet nutrition food
quote quotation
podcast episode
speech voice audio
transcribe transcript transcription
"""


def _build() -> dict[str, tuple[str, ...]]:
    table: dict[str, set[str]] = {}
    for line in _SETS.strip().splitlines():
        stems = {stem(w) for w in line.split()}
        for s in stems:
            table.setdefault(s, set()).update(stems - {s})
    return {k: tuple(sorted(v)) for k, v in table.items()}


SYNONYMS = _build()


def related(term: str) -> tuple[str, ...]:
    """Stemmed synonyms of a stemmed term (empty when it has none)."""
    return SYNONYMS.get(term, ())


# How close a related word is, strongest first: an expansion keeps the strongest kind that reaches it.
KINDS = ("slang", "synonym")


def relatives(term: str) -> list[tuple[str, str]]:
    """(stemmed word, kind) pairs a stemmed request term stands for, strongest kind first; the term left out."""
    found = [(other, "slang") for other in _software()[1].get(term, ())]
    found += [(other, "synonym") for other in SYNONYMS.get(term, ())]
    return [(other, kind) for other, kind in found if other != term]


def spelled_out(term: str) -> tuple[str, ...]:
    """The stemmed words an abbreviation stands for ('pr' -> pull, request); empty for any other term."""
    return _software()[0].get(term, ())


def is_verb(term: str) -> bool:
    """Whether a stemmed term is (also) an English verb (verbs.txt, from Open English WordNet)."""
    return term in _verbs() or term in _software()[1] or term in _GENERIC


@cache
def _verbs() -> frozenset[str]:
    return frozenset(word for line in _lines("verbs.txt") for word in line.split())


def _lines(name: str) -> list[str]:
    data = pkgutil.get_data(__package__, name)  # pkgutil also reads it inside ankit.pyz
    text = data.decode("utf-8") if data else ""
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


@cache
def _software() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """software_words.txt: abbreviation -> the words it stands for; slang word -> the words authors use."""
    short: dict[str, tuple[str, ...]] = {}
    slang: dict[str, list[str]] = {}
    for line in _lines("software_words.txt"):
        if ">" in line:
            continue  # a light verb (light_verb)
        sign = "=" if "=" in line else ":"
        left, _, right = line.partition(sign)
        targets = tuple(dict.fromkeys(stem(w) for w in right.lower().split()))
        for word in left.lower().split():
            if sign == "=":
                short[stem(word)] = tuple(t for t in targets if t != stem(word))
            else:
                slang.setdefault(stem(word), []).extend(t for t in targets if t not in slang.get(stem(word), []))
    return short, {k: tuple(v) for k, v in slang.items()}


def light_verb(text: str) -> tuple[str, ...]:
    """The stemmed action a request's first word asks for when it is a light verb ('make a branch' -> creat)."""
    for word in words(text[:200]):
        if word in _light():
            return _light()[word]
        if word not in STOP_WORDS:
            return ()
    return ()


@cache
def _light() -> dict[str, tuple[str, ...]]:
    found = {}
    for line in _lines("software_words.txt"):
        if ">" in line:
            left, _, right = line.partition(">")
            for word in left.lower().split():
                found[word] = tuple(stem(w) for w in right.lower().split())
    return found

