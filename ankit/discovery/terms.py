"""Search terms: tokenizing text and names, stop words, and a light English stemmer."""

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

_WORD = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_a-zA-Z]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_CLAUSE = re.compile(
    r"[.;:!?]+(?:\s+|$)|\n+|,?\s+(?:and then|then|also|additionally|afterwards|after that|finally|lastly|next|"
    r"furthermore|moreover|besides)\s+|,\s+and\s+",
    re.IGNORECASE,
)
_MAX_TEXT = 4000  # characters of a query that are read; the rest of a huge query is ignored

STOP_WORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just let me more
most my myself no nor not of off on once only or other our ours ourselves out over own same she
should so some such than that the their theirs them themselves then there these they this those
through to too under until up very was we were what when where which while who whom why will with
would you your yours yourself yourselves also may might must shall us via etc e g eg ie
please thanks thank kindly hi hello hey ok okay want wants wanted need needs needed like
help helps able tell know lets give provide im ive id youre dont cant something someone
anything thing things way using use used uses make sure really
whats hows wheres whos thats theres heres
one two new given specific specified certain particular
finally lastly additionally firstly secondly thirdly furthermore moreover afterwards besides
""".split())


# Verbs that ask for something without saying what: a match on these alone is no match.
GENERIC_VERBS = frozenset("find get show list search look check see display view retrieve lookup".split())


def plain(text: str) -> str:
    """Drop accents and control characters, keeping letters of any script and their case."""
    text = text[:_MAX_TEXT]
    if text.isascii():
        return _CONTROL.sub(" ", text)
    text = unicodedata.normalize("NFKD", text)
    return "".join(ch if ch.isprintable() else " " for ch in text if not unicodedata.combining(ch))


def words(text: str) -> list[str]:
    """Split text into lower-case words (letters and digits of any script); apostrophes join.

    A mixed-case word counts whole and split: 'GitHub' -> github, git, hub; 'getWeather' -> getweather, get,
    weather; so a brand matches as a brand, and its parts still match.
    """
    found = []
    for whole, pieces in _word_forms(text):
        found.append(whole)
        found.extend(pieces)
    return found


def _word_forms(text: str) -> list[tuple[str, list[str]]]:
    """Each word of the text, lower-cased, with the pieces of a mixed-case word (none for a plain word)."""
    text = text[:_MAX_TEXT].replace("'", "").replace("\u2019", "")
    found = []
    for word in _WORD.findall(plain(text)):
        pieces = _CAMEL.findall(word) if not word.islower() and len(word) > 3 else []
        found.append((word.lower(), [p.lower() for p in pieces] if len(pieces) > 1 else []))
    return found


def split_name(name: str) -> list[str]:
    """Split an identifier on _ . - : / spaces and camelCase: 'getHTTPStatus_v2' -> get http status v 2."""
    parts: list[str] = []
    for chunk in re.split(r"[\W_]+", plain(name)):
        parts.extend(piece.lower() for piece in _CAMEL.findall(chunk))
    return [p for p in parts if p]


def name_key(name: str) -> str:
    """A name with case, spaces, _ - . and camelCase ignored: 'Web Search', 'web_search', 'webSearch' agree."""
    return " ".join(split_name(name))


_EXCEPTIONS = {
    "news": "news", "info": "inform", "stats": "statist", "series": "series", "species": "species",
    "analysis": "analys", "analyses": "analys", "status": "status", "bus": "bus", "gas": "gas", "plus": "plus",
    "this": "this", "has": "has", "does": "do", "goes": "go", "children": "child", "people": "person",
    "men": "man", "women": "woman", "feet": "foot", "teeth": "tooth", "mice": "mouse", "data": "data",
    "media": "media", "was": "was", "is": "is", "its": "its", "us": "us", "ios": "ios", "os": "os", "dns": "dns",
    "aws": "aws", "sms": "sms", "ran": "run", "written": "writ", "wrote": "writ", "sent": "send", "bought": "buy",
    "paid": "pay", "built": "build",
}
_VOWEL = re.compile(r"[aeiouy]")
_DOUBLE = re.compile(r"([bdfgkmnprt])\1$")  # doubled before -ing, -ed, -er (not l, s, z: install, miss, buzz)
_SHORT = re.compile(r"^[^aeiou][aeiou][^aeiouwxy]$")  # fil(ing), hop(ing): the e was dropped


def _strip_plural(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes", "zes")) and len(word) > 4:
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def _strip_verb(word: str) -> str:
    for suffix in ("ing", "ed"):
        stem = word[: -len(suffix)]
        if word.endswith(suffix) and len(stem) >= 3 and _VOWEL.search(stem):
            if _DOUBLE.search(stem):
                stem = stem[:-1]  # running -> run, stopped -> stop
            elif suffix == "ed" and stem.endswith("i"):
                stem = stem[:-1] + "y"  # copied -> copy
            elif stem.endswith(("at", "bl", "iz")) or _SHORT.match(stem):
                stem += "e"  # calculated -> calculate, filed -> file
            return stem
    return word


_SUFFIXES = (
    ("ization", "ize"), ("isation", "ize"), ("ational", "ate"), ("ation", "ate"), ("ition", "ite"),
    ("fulness", "ful"), ("iveness", "ive"), ("ousness", "ous"), ("ement", "e"), ("ment", ""),
    ("ness", ""), ("ities", "ity"), ("ility", "le"), ("ically", "ic"), ("ical", "ic"), ("ally", "al"),
    ("ly", ""), ("izer", "ize"), ("iser", "ize"), ("ise", "ize"), ("ator", "ate"), ("er", ""), ("or", ""),
)


def _measure(stem: str) -> int:
    """Porter's m: how many vowel-consonant sequences the stem has."""
    return len(re.findall(r"[aeiou]+[^aeiou]+", stem.lstrip("bcdfghjklmnpqrstvwxz")))


def _strip_suffix(word: str) -> str:
    for suffix, replacement in _SUFFIXES:
        shortest = 3 if len(suffix) >= 4 else 4
        if word.endswith(suffix) and len(word) - len(suffix) >= shortest:
            word = word[: -len(suffix)] + replacement
            return word[:-1] if suffix in ("er", "or") and _DOUBLE.search(word) else word  # runner -> run
    return word


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Reduce an English word to a light stem: plurals, -ing, -ed and common suffixes; others unchanged."""
    if word in _EXCEPTIONS:
        return _EXCEPTIONS[word]
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    word = _strip_verb(_strip_plural(word))
    word = _strip_suffix(word)
    if word.endswith("ate") and _measure(word[:-3]) > 1:
        word = word[:-3]  # information -> inform, but create stays
    if word.endswith(("sion", "tion")) and _measure(word[:-3]) > 1:
        word = word[:-3]  # deletion -> delet, connection -> connect
    if word.endswith("ific"):
        word = word[:-1]  # notification / notify, specific / specify
    if word.endswith("ll") and len(word) > 5:
        word = word[:-1]  # install / installation
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]  # create / creating / created -> creat
    if word.endswith("y") and len(word) >= 4 and word[-2] not in "aeiou":
        word = word[:-1] + "i"  # city / cities, movie / movies
    if word.endswith("yz"):
        word = word[:-1] + "s"  # analyze / analysis
    return word


def terms(text: str) -> list[str]:
    """Search terms of free text: words minus stop words, stemmed, in order."""
    return [stem(w) for w in words(text) if w not in STOP_WORDS]


# Text a request quotes, and tokens that are identifiers, paths, addresses or versions ('acme/web', 'web-5d8',
# 'config.yaml', 'v1.2.3', 'user_id'): their words are what the user works on, not what they want done.
_QUOTED = re.compile("\"[^\"\\n]{1,300}\"|\u201c[^\u201d\\n]{1,300}\u201d|`[^`\\n]{1,300}`|(?<!\\w)'[^'\\n]{1,300}'(?!\\w)")
_EDGES = ".,;:!?()[]{}<>\"'`*"


_CLOCK_WORD = re.compile(r"\d{1,2}(:\d{2}(am|pm)?|(am|pm))$", re.IGNORECASE)
_ADDRESS_WORD = re.compile(r"[a-z][a-z0-9+.-]*://\w", re.IGNORECASE)
# a path (~/notes, ./src, /etc/hosts) or a file name with an extension (deploy.sh, bug.png), not a web host
_FILE_WORD = re.compile(r"(~|\.{1,2})?/\w|[\w-]{2,}\.(?!(com|org|net|io|dev|ai|app|co)$)[a-z][a-z0-9]{0,4}$",
                        re.IGNORECASE)
_DOTTED = re.compile(r"[a-z]\.[a-z]", re.IGNORECASE)
_JOINED = re.compile(r"\w[-.:]\w")


def _is_identifier(token: str) -> bool:
    if token.isalpha():
        return False  # a plain word (the common case)
    if any(c in token for c in "/\\@=") or ("_" in token and token.strip("_") != token.replace("_", "")):
        return True
    if _DOTTED.search(token):
        return True  # a file, a host or a dotted name
    return bool(_JOINED.search(token)) and any(c.isdigit() for c in token)


def _implied(token: str) -> str | None:
    """The word an address, a file name or a clock time in a request says, which the words around it often
    leave out ('summarize https://example.com' asks about a url, 'perms of deploy.sh' about a file)."""
    if _ADDRESS_WORD.match(token):
        return "url"
    if _CLOCK_WORD.match(token):
        return "time"
    return "file" if _FILE_WORD.match(token) else None


@dataclass
class RequestPart:
    """One clause of a request: its terms (strong evidence) and the terms of quoted or identifier text (weak)."""

    strong: list[str]
    weak: list[str]


def request_parts(text: str) -> list[RequestPart]:
    """A request's clauses as terms: plain words are strong; a mixed-case word is strong whole and weak split;
    words inside quotes, identifiers, paths and versions are weak; an address says url, a file name file,
    a clock time time."""
    parts = []
    for clause in clauses(text):
        weak_text: list[str] = []
        clause = _QUOTED.sub(lambda m: weak_text.append(m.group(0)) or " ", clause)
        kept = []
        for token in clause.split():
            core = token.strip(_EDGES)
            (weak_text if _is_identifier(core) else kept).append(core)
            implied = _implied(core)
            if implied:
                kept.append(implied)
        strong, weak = [], terms(" ".join(weak_text))
        for whole, pieces in _word_forms(" ".join(kept)):
            if whole not in STOP_WORDS:
                strong.append(stem(whole))
                weak.extend(stem(p) for p in pieces if p not in STOP_WORDS)
        if strong or weak:
            parts.append(RequestPart(strong, [t for t in weak if t not in strong]))
    return parts


def clauses(text: str) -> list[str]:
    """Split a request into its parts at sentence ends and connectives ('..., then ...', '. Finally, ...')."""
    return [part for part in _CLAUSE.split(text[:_MAX_TEXT]) if part and part.strip()]


def phrase_terms(name: str) -> list[str]:
    """An identifier as the terms a request would use for it: 'delete_file' matches 'delete the file'."""
    return terms(" ".join(split_name(name)))


def name_terms(name: str) -> list[str]:
    """Search terms of an identifier: its split parts, stemmed; stop words kept (a name has no filler)."""
    return [stem(p) for p in split_name(name)]


def keyword_terms(text: str) -> list[str]:
    """A curated keyword or rule word as search terms; a keyword made only of stop words keeps its words."""
    return terms(text) or name_terms(text)
