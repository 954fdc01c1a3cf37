"""Markdown tables: aligned columns, fitted to the width, cells wrapped at spaces."""

from ankit.terminal.tables import fit, render_table, wrap_cell

ROWS = ["| name | what | n |", "|:-----|:----:|--:|", "| `read_file` | reads a file with line numbers | 1 |",
        "| grep \\| rg | searches | 200 |"]


def test_columns_align_to_the_widest_cell():
    assert render_table(ROWS, 100, False) == [
        "name      │              what              │   n",
        "──────────┼────────────────────────────────┼────",
        "read_file │ reads a file with line numbers │   1",
        "grep | rg │            searches            │ 200"]


def test_a_wide_table_fits_by_wrapping_cells():
    lines = render_table(ROWS, 30, False)
    assert all(len(line) <= 29 for line in lines)
    assert lines[2:6] == ["read_file │   reads a   │   1", "          │  file with  │", "          │    line     │",
                          "          │   numbers   │"]


def test_not_a_table_without_a_delimiter_row():
    assert render_table(["| a |", "| b |"], 80, False) is None


def test_fit_and_wrap_cell():
    assert fit([10, 40, 3], 40) == [10, 21, 3]
    assert wrap_cell("a verylongword b", 4) == ["a", "very", "long", "word", "b"]
    assert wrap_cell("", 4) == [""]
