"""The frontmatter reader against the shapes real SKILL.md files use, and against what it must refuse."""

from pathlib import Path

import pytest

from ankit.skills.frontmatter import lenient_frontmatter, parse_yaml, read_fields, read_frontmatter


def doc(fields: str, body: str = "# Body\n") -> str:
    return f"---\n{fields}---\n{body}"


def test_plain_fields_and_body():
    fields, body = read_frontmatter(doc("name: pdf-tools\ndescription: Fill PDF forms.\n", "# PDF\n\nSteps.\n"))
    assert fields == {"name": "pdf-tools", "description": "Fill PDF forms."}
    assert body == "# PDF\n\nSteps.\n"


def test_scalars_stay_text_and_empty_is_none():
    assert parse_yaml("version: 1.0\nflag: true\ncount: 010\nempty:\nnull_word: null") == {
        "version": "1.0", "flag": "true", "count": "010", "empty": None, "null_word": "null"}


def test_colon_inside_a_plain_value_is_kept():
    fields = parse_yaml("description: Use when: the user asks for a PDF. See https://example.com/x")
    assert fields["description"] == "Use when: the user asks for a PDF. See https://example.com/x"


def test_multi_line_plain_scalar_folds():
    text = "description: Reads spreadsheets\n  and writes charts.\n\n  New paragraph.\nlicense: MIT"
    assert parse_yaml(text) == {"description": "Reads spreadsheets and writes charts.\nNew paragraph.", "license": "MIT"}


def test_single_quoted():
    assert parse_yaml("a: 'it''s # not a comment'\nb: 'folded\n  over lines'") == {
        "a": "it's # not a comment", "b": "folded over lines"}


def test_double_quoted_escapes_and_folding():
    text = 'a: "tab\\there \\"q\\" \\u00e9\\x41 back\\\\slash"\nb: "one\n  two\n\n  three \\\n  joined"'
    assert parse_yaml(text) == {"a": 'tab\there "q" \u00e9A back\\slash', "b": "one two\nthree joined"}


def test_unknown_escape_is_kept_as_written():
    assert parse_yaml('pattern: "match \\d+ digits"') == {"pattern": "match \\d+ digits"}


def test_folded_description_like_real_skills():
    text = (
        "description: >\n"
        "  Use this skill for PDFs: \"make a PDF\", 'fill the form',\n"
        "  and reformatting.\n"
        "\n"
        "  Second paragraph.\n"
        "license: Proprietary. LICENSE.txt has complete terms\n"
    )
    fields = parse_yaml(text)
    assert fields["description"] == "Use this skill for PDFs: \"make a PDF\", 'fill the form', and reformatting.\nSecond paragraph.\n"
    assert fields["license"] == "Proprietary. LICENSE.txt has complete terms"


@pytest.mark.parametrize("header, expected", [
    ("|", "one\n  two\nthree\n"),
    ("|-", "one\n  two\nthree"),
    ("|+", "one\n  two\nthree\n\n\n"),
    (">", "one\n  two\nthree\n"),
    (">-", "one\n  two\nthree"),
    (">+", "one\n  two\nthree\n\n\n"),
])
def test_block_scalar_chomping(header, expected):
    text = f"k: {header}\n  one\n    two\n  three\n\n\nnext: x"
    assert parse_yaml(text) == {"k": expected, "next": "x"}


def test_folded_keeps_blank_lines_as_newlines():
    assert parse_yaml("k: >-\n  a\n  b\n\n\n  c") == {"k": "a b\n\nc"}


def test_block_scalar_indentation_digit_and_comment():
    assert parse_yaml("k: |2  # two spaces\n    indented\n  base\nz: y") == {"k": "  indented\nbase\n", "z": "y"}


def test_block_scalar_at_end_and_empty():
    assert parse_yaml("a: |\nb: >-\n  last") == {"a": "", "b": "last"}


def test_lists_in_both_styles():
    text = (
        "block:\n  - Read\n  - Bash(git add:*)   # comment\n"
        "compact:\n- one\n- two\n"
        "flow: [Read, \"Write, quoted\", 'Grep']\n"
        "multiline: [\n  a,   # first\n  b,\n]\n"
        "empty: []\n"
    )
    assert parse_yaml(text) == {
        "block": ["Read", "Bash(git add:*)"], "compact": ["one", "two"],
        "flow": ["Read", "Write, quoted", "Grep"], "multiline": ["a", "b"], "empty": []}


def test_maps_nested_and_in_lists():
    text = (
        "metadata:\n  author: someone\n  version: \"1.0\"\n  tags: [docs, pdf]\n"
        "nested:\n  inner:\n    deep: yes\n"
        "items:\n  - name: a\n    value: 1\n  - plain\n  - - x\n    - y\n"
        "flowmap: {a: 1, b: [c, d], 'e': \"f\"}\n"
    )
    assert parse_yaml(text) == {
        "metadata": {"author": "someone", "version": "1.0", "tags": ["docs", "pdf"]},
        "nested": {"inner": {"deep": "yes"}},
        "items": [{"name": "a", "value": "1"}, "plain", ["x", "y"]],
        "flowmap": {"a": "1", "b": ["c", "d"], "e": "f"}}


def test_comments_everywhere():
    text = "# leading\nname: x # trailing\n\n  # indented comment\ndesc: C# and F#\nurl: http://a/#frag\n# end"
    assert parse_yaml(text) == {"name": "x", "desc": "C# and F#", "url": "http://a/#frag"}


def test_quoted_keys():
    assert parse_yaml("\"quoted key\": 1\n'single': 2") == {"quoted key": "1", "single": "2"}


def test_crlf_bom_and_lone_cr():
    text = "\ufeff---\r\nname: win\r\ndescription: >-\r\n  folded\r\n  text\r\n---\r\nbody\r\n"
    assert read_frontmatter(text) == ({"name": "win", "description": "folded text"}, "body\n")
    assert read_frontmatter("---\rname: mac\r---\rbody")[0] == {"name": "mac"}


def test_closing_dots_and_empty_frontmatter():
    assert read_frontmatter("---\nname: x\n...\nbody") == ({"name": "x"}, "body")
    assert read_frontmatter("---\n---\n") == ({}, "")


def test_body_keeps_later_rulers():
    fields, body = read_frontmatter("---\nname: x\n---\ntext\n---\nmore\n")
    assert fields == {"name": "x"} and body == "text\n---\nmore\n"


def test_flow_followed_by_text_is_read_as_text():
    # `argument-hint: [pr] [priority]` is not YAML but appears in real command and skill files
    assert parse_yaml("argument-hint: [pr-number] [priority]") == {"argument-hint": "[pr-number] [priority]"}


@pytest.mark.parametrize("text, message", [
    ("# Just markdown\n", "no frontmatter"),
    ("---\nname: x\ndescription: y\n", "not closed"),
    ("\n---\nname: x\n---\n", "no frontmatter"),
])
def test_missing_or_unclosed_frontmatter(text, message):
    with pytest.raises(ValueError, match=message):
        read_frontmatter(text)


@pytest.mark.parametrize("fields, line, message", [
    ("name: x\nthis line has no key\n", 3, "expected 'key: value'"),
    ("name: \"never closed\ndescription: y\n", 2, "never closed"),
    ("tools: [a, b\n", 2, "never closed"),
    ("name: a\nname: b\n", 3, "appears twice"),
    ("name: x\n\tdescription: y\n", 3, "tab"),
    ("name: \"x\" trailing\n", 2, "after the closing quote"),
    ("body: |x\n  text\n", 2, "block scalar header"),
    ("- a\n- b\n", 2, "expected 'key: value'"),
    ("meta:\n    a: 1\n  b: 2\n", 4, "unexpected indentation"),
    ("m: {a: b c: d}\n", 2, "flow map"),
    ("k: [it's\n\n','aa}\n", 2, "never closed"),  # the quote looked closed to the bracket matcher
])
def test_unreadable_frontmatter_names_the_line(fields, line, message):
    with pytest.raises(ValueError) as caught:
        read_frontmatter(doc(fields))
    assert f"line {line}" in str(caught.value) and message in str(caught.value)


@pytest.mark.parametrize("fields", ["k: " + "[" * 3000 + "]" * 3000, "\n".join(" " * i + f"k{i}:" for i in range(1500))])
def test_absurd_nesting_is_refused_in_one_line(fields):
    with pytest.raises(ValueError, match="nested too deeply"):
        read_frontmatter(doc(fields + "\n"))


def test_a_flow_list_or_text_on_the_line_below_its_key_as_real_command_files_write_it():
    """wshobson's business-case.md writes `allowed-tools:` and its list on the next line."""
    path = Path(__file__).parent / "fixtures" / "claude_code" / "wshobson" / "commands" / "startup-business-analyst" \
        / "business-case.md"
    fields, body = read_frontmatter(path.read_text())
    assert fields["allowed-tools"] == ["Read", "Write", "Edit", "Glob", "Grep", "Bash", "WebSearch", "WebFetch"]
    assert body.lstrip().startswith("# Business Case Generator")
    fields, _ = read_frontmatter("---\ntags:\n  [\n    database,\n    sql,\n  ]\nsummary:\n  a plain\n  text\n---\n")
    assert fields == {"tags": ["database", "sql"], "summary": "a plain text"}


def test_lenient_fields_for_files_that_are_not_yaml():
    keys = frozenset({"name", "description", "tools"})
    text = "---\nname: x\ndescription: first line\n\nContext: not a key\n  indented\ntools: [\"Read\", \"Grep\"]\n---\nbody"
    assert lenient_frontmatter(text, keys) == ({"name": "x", "description": "first line\n\nContext: not a key\n  indented",
                                                "tools": ["Read", "Grep"]}, "body")
    with pytest.raises(ValueError, match="no frontmatter"):
        lenient_frontmatter("no frontmatter", keys)
    assert read_fields("---\nname: 'ok'\n---\nb", keys) == ({"name": "ok"}, "b")  # YAML first
