"""Inline Markdown one character at a time: markers hidden only when they open or close a style."""

import re

import pytest

from ankit.terminal.inline import Inline, strip_inline

SGR = re.compile(r"\x1b\[[0-9;]*m")


def shown(text: str) -> str:
    inline = Inline()
    pieces = [p for char in text for p in inline.feed(char)] + inline.end()
    return "".join(pieces)


@pytest.mark.parametrize("text, plain", [
    ("**bold** and *it* and _it_ and __b__", "bold and it and it and b"),
    ("***both***", "both"), ("`a * b`", "a * b"), ("``a ` b``", "a ` b"),
    ("2 * 3 * 4", "2 * 3 * 4"), ("snake_case_name", "snake_case_name"), ("a ** b", "a ** b"),
    ("\\*not\\* \\_no\\_", "*not* _no_"), ("C:\\path", "C:\\path"),
    ("[docs](https://x.org/a) and [same](same)", "docs (https://x.org/a) and same"),
    ("[x] done, [y](no url", "[x] done, [y](no url"), ("**unclosed", "unclosed"),
])
def test_markers_are_hidden_only_when_they_style(text, plain):
    assert SGR.sub("", shown(text)) == plain


def test_styles_are_closed_at_the_end_of_the_line():
    assert shown("**open").endswith("\x1b[0m")
    assert shown("plain") == "plain"


def test_strip_inline():
    assert strip_inline("**a** `b` [c](d) *e* snake_case") == "a b c e snake_case"
