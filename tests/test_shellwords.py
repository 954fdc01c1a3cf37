"""Reading shell lines for the policy: every command a line runs, and what an [a]lways covers (ankit/safety/shellwords.py)."""

import pytest

from ankit.safety.shellwords import scan


def runs(line: str) -> list[str]:
    return [" ".join(words) for words in scan(line).commands]


@pytest.mark.parametrize("line, inner", [
    ('echo "$(rm -rf x)"', "rm -rf x"), ("echo `rm -rf x`", "rm -rf x"), ('echo "`rm -rf x`"', "rm -rf x"),
    ("ls; rm -rf x", "rm -rf x"), ("ls && rm -rf x", "rm -rf x"), ("ls | rm -rf x", "rm -rf x"),
    ("(cd a && rm -rf x)", "rm -rf x"), ("{ rm -rf x; }", "rm -rf x"), ("env A=1 rm -rf x", "rm -rf x"),
    ("sudo -u bob rm -rf x", "rm -rf x"), ("xargs -n1 rm -rf x", "rm -rf x"), ("sh -c 'rm -rf x'", "rm -rf x"),
    ("bash -lc \"rm -rf x\"", "rm -rf x"), ("/bin/rm -rf x", "rm -rf x"), ("r\\m -rf x", "rm -rf x"),
    ("'r'm -rf x", "rm -rf x"), ("cat <(rm -rf x)", "rm -rf x"), ("eval 'rm -rf x'", "rm -rf x"),
    ("find . -exec rm -rf x \\;", "rm -rf x"), ("timeout 5 nice -n 2 rm -rf x", "rm -rf x"),
    ("echo ${a:-$(rm -rf x)}", "rm -rf x"), ("if true; then rm -rf x; fi", "rm -rf x"),
    ("echo $( (rm -rf x) )", "rm -rf x"), ("env -S 'rm -rf x'", "rm -rf x"), ("echo hi & rm -rf x", "rm -rf x"),
    ("ls\nrm -rf x", "rm -rf x"), ("sudo env X=1 xargs sh -c 'echo; rm -rf x'", "rm -rf x"),
])
def test_every_command_a_line_runs_is_found(line, inner):
    assert inner in runs(line)


def test_what_cannot_be_read_surely_is_said():
    for line in ("echo 'open", 'echo "$(rm x', "$CMD -rf x", "/bin/r? -rf x"):
        assert not scan(line).sure, line
    assert scan("git log --oneline").sure and scan("git log --oneline").plain


@pytest.mark.parametrize("line", ["ls > out.txt", "ls | head", "echo $(id)", "ls; id", "cat <<EOF", "(ls)"])
def test_lines_that_are_not_one_plain_command(line):
    assert not scan(line).plain
