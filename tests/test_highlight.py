"""Code highlighting: colour codes added around tokens, the characters of a line never changed."""

import re

import pytest

from ankit.terminal.highlight import STYLES, Highlighter

SGR = re.compile(r"\x1b\[[0-9;]*m")


def painted(language: str, lines: list[str]) -> list[str]:
    highlighter = Highlighter(language)
    return [highlighter.line(line) for line in lines]


@pytest.mark.parametrize("language, line, token, kind", [
    ("python", "def f(x):  # note", "def", "keyword"), ("python", "x = 'a'", "'a'", "string"),
    ("python", "y = 1.5e3", "1.5e3", "number"), ("python", "z = 1  # note", "# note", "comment"),
    ("bash", "for f in *; do echo $f; done # loop", "# loop", "comment"), ("sh", "if true; then x; fi", "then", "keyword"),
    ("ts", "const x: number = 42; // answer", "// answer", "comment"), ("javascript", "let s = `t`", "`t`", "string"),
    ("json", '{"a": true, "b": null}', '"a"', "string"), ("yaml", "on: push  # when", "# when", "comment"),
    ("go", "func main() { return }", "func", "keyword"), ("rust", 'let s = "x";', '"x"', "string"),
    ("c", "int main(void) { return 0; }", "int", "keyword"), ("java", "public class A {}", "public", "keyword"),
    ("diff", "+added line", "+added line", "added"), ("diff", "-removed", "-removed", "removed"),
])
def test_tokens_get_their_colour(language, line, token, kind):
    [out] = painted(language, [line])
    assert f"{STYLES[kind]}{token}\x1b[0m" in out
    assert SGR.sub("", out) == line


def test_state_carries_across_lines():
    python = painted("python", ['s = """start', "middle # not a comment", '"""', "x = 1"])
    assert python[1] == f"{STYLES['string']}middle # not a comment\x1b[0m"
    assert f"{STYLES['number']}1\x1b[0m" in python[3]
    c = painted("c", ["/* open", "still */ int x;"])
    assert c[1].startswith(f"{STYLES['comment']}still */\x1b[0m") and f"{STYLES['keyword']}int" in c[1]


def test_shell_hash_inside_a_word_is_not_a_comment():
    [out] = painted("bash", ["echo $# a#b"])
    assert STYLES["comment"] not in out


def test_unknown_language_is_plain_code_colour_and_text_is_unchanged():
    [out] = painted("brainfuck", ["+[->+<]"])
    assert out == f"{STYLES['plain']}+[->+<]\x1b[0m"
