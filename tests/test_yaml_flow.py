"""YAML flow styles on their own: where quotes and brackets end, quoted scalars decoded, flow lists and maps."""

import pytest

from ankit.skills.yaml_flow import flow_end, flow_value, quote_end, strip_comment, unquote


def test_quote_end_knows_both_quoting_rules():
    assert quote_end('"say \\"hi\\"" rest', 0) == 12
    assert quote_end("'it''s' rest", 0) == 7
    assert quote_end("x: 'a' b", 3) == 6
    assert quote_end('"never closed \\"', 0) is None and quote_end("'open", 0) is None


def test_flow_end_skips_quoted_brackets_and_comments():
    assert flow_end("[a, [b, c]] # after") == 11
    assert flow_end("{k: ']', j: \"}\"} tail") == 16
    assert flow_end("[a,  # a comment with ]\n b]") == 27
    assert flow_end("[a, [b]") is None and flow_end("[a, 'b]") is None and flow_end("[a # ]") is None


def test_flow_value_reads_nested_lists_and_maps():
    assert flow_value("[Read, \"Write, quoted\", 'Grep', Bash(git add:*)]") == [
        "Read", "Write, quoted", "Grep", "Bash(git add:*)"]
    assert flow_value("{a: 1, b: [c, {d: e}], 'k j': \"v\", bare}") == {
        "a": "1", "b": ["c", {"d": "e"}], "k j": "v", "bare": None}
    assert flow_value("[\n  one,  # first\n  two\n  words,\n]") == ["one", "two words"]
    assert flow_value("[]") == [] and flow_value("{}") == {}
    assert flow_value("[http://x.org/a#b, C#]") == ["http://x.org/a#b", "C#"]


@pytest.mark.parametrize("text, message", [
    ("{a: b c: d}", "expected ',' or '}' in a flow map"),
    ("[a b: c]", "expected ',' or ']' in a flow list"),
    ("[it's\n\n','aa}", "never closed"),
])
def test_flow_value_refuses_what_it_cannot_read(text, message):
    with pytest.raises(ValueError, match=message):
        flow_value(text)


def test_unquote_decodes_escapes():
    assert unquote('"tab\\there \\"q\\" \\u00e9\\x41 \\U0001F600 back\\\\slash"') == 'tab\there "q" éA 😀 back\\slash'
    assert unquote("'it''s \\n raw'") == "it's \\n raw"
    assert unquote('"\\d+ and \\x4 stay as written"') == "\\d+ and \\x4 stay as written"


def test_unquote_folds_line_breaks_as_yaml_does():
    assert unquote('"one  \n   two\n\n  three \\\n  joined"') == "one two\nthree joined"
    assert unquote("'a\n\n\n  b'") == "a\n\nb"


def test_strip_comment_needs_a_space_before_the_hash():
    assert strip_comment("value   # note ") == "value"
    assert strip_comment("C# and F#") == "C# and F#"
    assert strip_comment("  url: http://a/#frag\t#x") == "url: http://a/#frag"
