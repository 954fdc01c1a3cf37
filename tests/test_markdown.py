"""Markdown rendered as it streams: every block and inline element, wherever the deltas split."""

import re

from ankit.terminal.markdown import Markdown
from tests.test_wordwrap import screen

SGR = re.compile(r"\x1b\[[0-9;]*m")
REPLY = ("# Plan\nFirst a #hashtag and a # in the middle.\n\n```python\n# a comment, not a heading\n"
         "x = 1\n```\n## Done\n   ### indented heading\n#no-space\n~~~\ntilde code\n~~~\nend")
EVERYTHING = """# Title with **bold**
Some *italic*, __bold__, `code`, a [link](https://example.com), snake_case_name, 2 * 3 and \\*stars\\*.

- a bullet that is long enough to wrap at a narrow width
  - a nested bullet
1. first
2) second

> a quoted line that wraps too at this width

***

| tool | what it does | n |
|------|:------------:|--:|
| `read_file` | reads a text file with numbers | 1 |
| grep | searches | 20 |

```sh
ls -l  # list
```
done"""


def styled(pieces: list[str], colour: bool = True, width: int = 0) -> str:
    markdown = Markdown(colour, width)
    return "".join(markdown.feed(p) for p in pieces) + markdown.end()


def plain(text: str) -> list[str]:
    """The screen lines, colours removed."""
    return screen(SGR.sub("", text))


def test_without_colour_the_output_is_exactly_the_text():
    for reply in (REPLY, EVERYTHING):
        assert styled([reply], colour=False) == reply
        assert styled(list(reply), colour=False) == reply


def test_rendering_does_not_depend_on_where_the_deltas_split():
    for reply, width in ((REPLY, 0), (EVERYTHING, 0), (EVERYTHING, 40)):
        whole = styled([reply], width=width)
        for cut in range(1, len(reply)):
            assert styled([reply[:cut], reply[cut:]], width=width) == whole, cut
        assert styled(list(reply), width=width) == whole


def test_every_element_is_rendered():
    lines = plain(styled([EVERYTHING], width=40))
    assert lines == [
        "Title with bold",
        "Some italic, bold, code, a link ",
        "(https://example.com), snake_case_name,",
        "2 * 3 and *stars*.",
        "",
        "• a bullet that is long enough to wrap ",
        "  at a narrow width",
        "  ◦ a nested bullet",
        "1. first",
        "2) second",
        "",
        "│ a quoted line that wraps too at this ",
        "│ width",
        "",
        "─" * 39,
        "",
        "tool      │      what it does      │  n",
        "──────────┼────────────────────────┼───",
        "read_file │ reads a text file with │  1",
        "          │        numbers         │ ",
        "grep      │        searches        │ 20",
        "",
        "```sh",
        "ls -l  # list",
        "```",
        "done"]


def test_styles_are_escape_codes_around_the_text():
    out = styled([EVERYTHING])
    assert "\x1b[1;4;35mTitle with \x1b[0m\x1b[1;4;35m\x1b[1mbold" in out  # heading, then bold inside it
    assert "\x1b[3mitalic\x1b[0m" in out and "\x1b[1mbold\x1b[0m" in out and "\x1b[36mcode\x1b[0m" in out
    assert "\x1b[4mlink\x1b[0m\x1b[2m (https://example.com)" in out
    assert "\x1b[2;3m# list\x1b[0m" in out  # the shell comment, highlighted


def test_code_lines_are_never_wrapped_or_changed():
    text = "```\ncode that is long and stays whole\n    indented  twice\n```\nafter the code block comes prose"
    lines = plain(styled([text], width=13))
    assert lines[:4] == ["```", "code that is long and stays whole", "    indented  twice", "```"]
    assert lines[4:] == ["after the ", "code block ", "comes prose"]


def test_with_a_width_but_no_colour_prose_wraps_and_code_never():
    text = "# A heading that is long\nplain words that go on and on\n```\ncode that is long and stays\n```\nend"
    pieces = [styled([text[:cut], text[cut:]], colour=False, width=13) for cut in range(1, len(text))]
    assert set(pieces) == {styled([text], colour=False, width=13)}
    assert screen(pieces[0]) == ["# A heading ", "that is long", "plain words ", "that go on ", "and on", "```",
                                 "code that is long and stays", "```", "end"]


def test_headings_lose_their_marks_and_hashtags_stay_text():
    lines = plain(styled([REPLY]))
    assert lines[:2] == ["Plan", "First a #hashtag and a # in the middle."]
    assert "Done" in lines and "indented heading" in lines and "#no-space" in lines
    assert "# a comment, not a heading" in lines  # inside code


def test_text_is_shown_as_it_arrives_except_an_undecided_line_start():
    markdown = Markdown(True)
    assert markdown.feed("Hello wor") == "Hello wor"  # a plain line start is decided at once
    assert markdown.feed("ld\n#") == "ld\n"  # "#" may open a heading: held back
    assert SGR.sub("", markdown.feed("# Title")) == "Title"
    assert markdown.feed(" and **bo") == " and \x1b[0m\x1b[1;35m\x1b[1mbo"  # bold from the first letter
    assert markdown.end().endswith("\x1b[0m")


def test_a_table_is_held_until_it_ends_and_fits_the_width():
    markdown = Markdown(True, 30)
    assert markdown.feed("| a | b |\n|---|---|\n| one | two |\n") == ""
    shown = plain(markdown.feed("after\n"))
    assert shown[:3] == ["a   │ b  ", "────┼────", "one │ two"] and shown[3] == "after"
    wide = "| name | description |\n|---|---|\n| x | " + "word " * 20 + "|\n"
    assert all(len(line) <= 29 for line in plain(styled([wide], width=30)))


def test_lines_that_only_look_like_a_table_are_shown_as_they_came():
    assert plain(styled(["| not a table |\nreally\n"])) == ["| not a table |", "really", ""]


def test_a_fence_split_across_two_deltas_opens_the_code_block():
    assert plain(styled(["Look:\n``", "`sh\nls -l\n``", "`\nafter"])) == ["Look:", "```sh", "ls -l", "```", "after"]


def test_no_color_keeps_the_layout_and_drops_only_the_colour():
    md = Markdown(colour=False, width=60, layout=True)
    out = md.feed("# Heading\nSome **bold** and `code`.\n- item\n> quoted\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n---\n")
    out += md.end()
    assert "\033" not in out
    lines = out.splitlines()
    assert lines[:4] == ["Heading", "Some bold and code.", "• item", "│ quoted"]
    assert "a │ b" in out and "─┼─" in out and "|---|" not in out and "**" not in out
    assert lines[-1] == "─" * 59
