"""The error tree's one-line forms, and the line for an exception ankit did not expect (a bug)."""

from ankit.errors import bug_line


def test_a_bug_is_one_line_naming_the_exception_and_where_it_was_raised():
    try:
        {}["missing"]
    except KeyError as exc:
        line = bug_line(exc)
    assert line.startswith("a bug in ankit: KeyError: 'missing' at test_errors.py:") and "\n" not in line
    assert line.endswith(" (please report it)")
