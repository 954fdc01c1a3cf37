"""Word wrapping of streamed prose at the terminal's edge."""

from ankit.wordwrap import WordWrap, columns

TEXT = "The quick brown fox jumps over the lazy dog and keeps on running far away"


def wrapped(pieces: list[str], width: int) -> str:
    wrap = WordWrap(width)
    return "".join(wrap.feed(p) for p in pieces) + wrap.end_line()


def test_lines_break_between_words_and_nothing_else_changes():
    out = wrapped([TEXT], 20)
    assert out.splitlines() == ["The quick brown fox ", "jumps over the lazy ", "dog and keeps on ",
                                "running far away"]
    assert out.replace("\n", "") == TEXT  # only breaks were added
    assert " ".join(out.split()) == TEXT


def test_the_result_does_not_depend_on_where_the_pieces_split():
    whole = wrapped([TEXT], 17)
    for cut in range(1, len(TEXT)):
        assert wrapped([TEXT[:cut], TEXT[cut:]], 17) == whole, cut
    assert wrapped(list(TEXT), 17) == whole


def test_a_word_is_held_back_until_it_ends():
    wrap = WordWrap(40)
    assert wrap.feed("Hello wor") == "Hello "
    assert wrap.feed("ld and") == "world "
    assert wrap.end_line() == "and"


def test_a_word_that_fills_the_line_exactly_and_a_space_at_the_edge():
    assert wrapped(["abcde fghij"], 5) == "abcde\nfghij"  # the space at the edge became the break


def test_a_word_longer_than_a_line_is_passed_on_whole_for_the_terminal_to_wrap():
    url = "https://example.com/" + "x" * 30
    out = wrapped([f"see {url} now"], 20)
    assert out == f"see \n{url} now"  # no break inside the URL, so it copies whole
    wrap = WordWrap(10)
    assert wrap.feed("x" * 12) == "x" * 12  # shown as it comes, not held back


def test_wide_characters_take_two_columns():
    assert columns("界") == 2 and columns("a") == 1 and columns("\u0301") == 0
    assert wrapped(["界界界 界界"], 8) == "界界界 \n界界"


def test_a_new_line_starts_at_the_left_edge_again():
    wrap = WordWrap(10)
    assert wrap.feed("abcdefgh") + wrap.end_line() == "abcdefgh"
    assert wrap.feed("abcdefgh") + wrap.end_line() == "abcdefgh"
