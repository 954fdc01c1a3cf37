"""Counts in what ankit prints (the singular for one), and a description's first sentence."""

from ankit.terminal.calls import result_line
from ankit.terminal.typeahead import one_line
from ankit.records import ToolResult
from ankit.wording import count, first_sentence


def test_one_is_singular_and_every_other_number_plural():
    assert [count(n, "tool") for n in (0, 1, 2, 1500)] == ["0 tools", "1 tool", "2 tools", "1,500 tools"]
    assert count(1, "row of it", "rows of it") == "1 row of it" and count(3, "row of it", "rows of it") == "3 rows of it"


def test_the_lines_ankit_prints_count_in_the_singular_for_one():
    assert one_line("first\nsecond") == "first [+1 line]"
    assert result_line(ToolResult("id", "read_file", "a\nb")).endswith(" · 2 lines")


def test_first_sentence():
    assert first_sentence("Read a file. Then more.") == "Read a file"
    assert first_sentence("Version 1.2 is out! Yes") == "Version 1.2 is out"
    assert first_sentence("  one line\nsecond line") == "one line second line"
    assert first_sentence("First paragraph\n\nSecond. Third.") == "First paragraph"
    assert first_sentence("Search the web, e.g. news. Then more.") == "Search the web, e.g. news"


def test_a_sentence_end_inside_quotes_code_or_brackets_ends_no_sentence():
    assert first_sentence("Answer a prompt such as 'Continue? [y/N]', or not. More.") == \
        "Answer a prompt such as 'Continue? [y/N]', or not"
    assert first_sentence('Say "Done. Next" here. More.') == 'Say "Done. Next" here'
    assert first_sentence("Run `a. b` now. More.") == "Run `a. b` now"
    assert first_sentence("Status (X = staged; ?? = untracked). More.") == "Status (X = staged; ?? = untracked)"
    assert first_sentence("Don't stop here. Stop.") == "Don't stop here"


def test_the_bundled_tools_first_sentences_keep_their_quotes_whole():
    from ankit.tooling.loader import load_tools
    from ankit.safety.statefiles import bundled
    tools = {t.name: t for t in load_tools([bundled("tools")])[0]}
    assert "'Continue? [y/N]'" in first_sentence(tools["job_input"].description)
    assert first_sentence(tools["git_status"].description).endswith("?? = untracked)")
