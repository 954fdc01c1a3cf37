"""How ankit words what it prints: a count ("1 tool", "2 tools"), a description's first sentence."""

import re

OPEN, CLOSE = "([{", ")]}"
ENDS = ".!?"
ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.")  # a full stop that ends no sentence
_WALKED = re.compile(r"[\"`'()\[\]{}.!?]")  # the only characters the walk acts on


def count(number: int, noun: str, plural: str = "") -> str:
    """The number and the noun, singular for one (plural: the noun's plural where adding s is wrong)."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"


def first_sentence(text: str) -> str:
    """The first sentence of a text's first paragraph, on one line, without its final full stop: cut at a `.`,
    `!` or `?` followed by a space, outside quotes, `code` and brackets ('Continue? [y/N]' does not end it)."""
    flat = " ".join(str(text).strip().split("\n\n")[0].split())
    end = _sentence_end(flat)
    return (flat[:end] if end is not None else flat.rstrip(".")).strip()


def _sentence_end(text: str) -> int | None:
    """Where the first sentence's closing mark is, or None when the text is one sentence (marks inside quotes,
    `code` and brackets end none; only the characters that matter are visited)."""
    quote, depth = "", 0
    for mark in _WALKED.finditer(text):
        i, char = mark.start(), mark.group()
        if quote:
            quote = "" if char == quote and _closes(text, i) else quote
        elif char in "\"`" or char == "'" and (i == 0 or not text[i - 1].isalnum()):
            quote = char
        elif char in OPEN:
            depth += 1
        elif char in CLOSE:
            depth = max(depth - 1, 0)
        elif char in ENDS and depth == 0 and (i + 1 == len(text) or text[i + 1] == " "):
            if not text[: i + 1].lower().endswith(ABBREVIATIONS):
                return i
    return None


def _closes(text: str, i: int) -> bool:
    """Whether the quote mark at i closes (an apostrophe inside a word, as in don't, does not)."""
    return text[i] != "'" or i + 1 == len(text) or not text[i + 1].isalnum()
