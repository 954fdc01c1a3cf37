"""Word wrapping of streamed prose at the terminal's edge, checked on the screen it draws."""

import re

from ankit.terminal.wordwrap import WordWrap, columns

TEXT = "The quick brown fox jumps over the lazy dog and keeps on running far away"
MOVE = re.compile(r"\x1b\[(\d+)D\x1b\[K")


def screen(output: str) -> list[str]:
    """The lines a terminal shows for the output: a move erases the columns it names."""
    lines = [""]
    for part in re.split(r"(\x1b\[\d+D\x1b\[K|\n)", output):
        if part == "\n":
            lines.append("")
        elif MOVE.fullmatch(part):
            erase = int(MOVE.fullmatch(part)[1])
            while erase > 0:
                erase -= columns(lines[-1][-1])
                lines[-1] = lines[-1][:-1]
        else:
            lines[-1] += part
    return lines


def wrapped(pieces: list[str], width: int) -> str:
    wrap = WordWrap(width)
    return "".join(wrap.feed(p) for p in pieces)


def test_lines_break_between_words_and_nothing_else_changes():
    lines = screen(wrapped([TEXT], 21))
    assert lines == ["The quick brown fox ", "jumps over the lazy ", "dog and keeps on ", "running far away"]
    assert "".join(lines) == TEXT  # only breaks were added


def test_every_character_shows_at_once_and_a_word_that_grows_past_the_edge_moves_down():
    wrap = WordWrap(11)
    assert wrap.feed("Hello wor") == "Hello wor"
    assert wrap.feed("ld") == "l\x1b[4D\x1b[K\nworld"  # "worl" fitted; "world" does not
    assert screen("Hello wor" + "l\x1b[4D\x1b[K\nworld") == ["Hello ", "world"]


def test_the_screen_does_not_depend_on_where_the_pieces_split():
    whole = wrapped([TEXT], 17)
    for cut in range(1, len(TEXT)):
        assert wrapped([TEXT[:cut], TEXT[cut:]], 17) == whole, cut
    assert wrapped(list(TEXT), 17) == whole


def test_prose_never_reaches_the_last_column_and_a_space_at_the_edge_breaks():
    assert screen(wrapped(["abcde fghij"], 6)) == ["abcde", "fghij"]


def test_a_word_longer_than_a_line_is_left_whole_for_the_terminal_to_wrap():
    url = "https://example.com/" + "x" * 30
    assert screen(wrapped([f"see {url} now"], 21)) == ["see ", f"{url} now"]  # no break inside: it copies whole
    assert WordWrap(11).feed("x" * 12) == "x" * 12


def test_wide_characters_take_two_columns():
    assert columns("界") == 2 and columns("a") == 1 and columns("\u0301") == 0
    assert screen(wrapped(["界界界 界界"], 9)) == ["界界界 ", "界界"]


def test_a_new_line_starts_at_the_left_edge_again():
    wrap = WordWrap(11)
    assert wrap.feed("abcdefgh") == "abcdefgh"
    wrap.end_line()
    assert wrap.feed("abcdefgh") == "abcdefgh"
