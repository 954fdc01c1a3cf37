"""The REPL's history file: multi-line entries stay one entry, old files still read, trimming."""

from ankit.terminal import history


def test_entries_round_trip_one_line_each(tmp_path):
    path = tmp_path / "state" / "history"
    entries = ["/usage", "first line\nsecond line", '"quoted"', "tab\there", 'a "b" c']
    history.append(path, entries)
    assert len(path.read_text().splitlines()) == 5
    assert history.load(path) == entries
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_file_written_before_reads_as_it_was(tmp_path):
    path = tmp_path / "history"
    path.write_text('/model\n"""\nplain "words"\n"not json\n')
    assert history.load(path) == ["/model", '"""', 'plain "words"', '"not json']
    assert history.load(tmp_path / "missing") == []


def test_the_history_file_is_trimmed_to_its_last_lines(tmp_path):
    path = tmp_path / "history"
    path.write_text("".join(f"line {i}\n" for i in range(9)))
    history.trim(path, 4)
    assert path.read_text().splitlines() == [f"line {i}" for i in range(5, 9)]
    history.trim(path, 4)  # within twice the limit: untouched
    assert len(path.read_text().splitlines()) == 4
    assert path.stat().st_mode & 0o777 == 0o600


def test_an_entry_holding_a_line_separator_of_another_class_comes_back_whole(tmp_path):
    path = tmp_path / "history"
    entries = ["one\u2028two", "three\u2029four", "five\x85six", "seven\x1cx", "plain", '"quoted"']
    history.append(path, entries)
    assert history.load(path) == entries
    for raw in ("\u2028", "\u2029", "\x85", "\x1c"):
        assert raw.encode() not in path.read_bytes()
