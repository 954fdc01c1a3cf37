"""A small, general-purpose English synonym map for requests to tools (not fitted to any catalog)."""

from ankit.discovery.terms import stem

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
