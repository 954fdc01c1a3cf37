"""Counts in what ankit prints: the singular for one."""

from ankit.terminal.calls import result_line
from ankit.terminal.typeahead import one_line
from ankit.records import ToolResult
from ankit.wording import count


def test_one_is_singular_and_every_other_number_plural():
    assert [count(n, "tool") for n in (0, 1, 2, 1500)] == ["0 tools", "1 tool", "2 tools", "1,500 tools"]
    assert count(1, "row of it", "rows of it") == "1 row of it" and count(3, "row of it", "rows of it") == "3 rows of it"


def test_the_lines_ankit_prints_count_in_the_singular_for_one():
    assert one_line("first\nsecond") == "first [+1 line]"
    assert result_line(ToolResult("id", "read_file", "a\nb")).endswith(" · 2 lines")
