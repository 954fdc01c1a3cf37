"""Reading shell lines (ankit/safety/shellwords.py): every command a line runs, whether the reading is sure, and a real
shell as the oracle (tests/shell_oracle.py)."""

import pytest

from ankit.safety.shellwords import scan
from tests.shell_oracle import disagreements, generate


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


@pytest.mark.parametrize("line", [
    "echo $'';rm -rf x;echo \\'", "echo $'\\'';rm -rf x;echo \\'", "echo $[x]",
    "$'\\x72m' -rf x", "{r''m,-rf,x}", "r\\m -rf x",
    "$CMD x", "r* -rf x", "~/bin/rm x", "x='a[$(touch p)]'; echo $((x))", "(( x ))", "BASH_ENV=f bash -c true",
    "env BASH_ENV=f bash -c true", "LD_PRELOAD=./x.so ls", "PYTHONSTARTUP=f python3 x.py", "ENV=f sh -c true",
    "NODE_OPTIONS='--require ./x' node a.js", "PERL5OPT=-Mx perl a.pl", "export BASH_ENV=f", "PATH=.:$PATH; ls",
    "PS4='$(touch p)' bash -xc true", "trap 'rm x' EXIT", "alias ls=rm", "shopt -s expand_aliases",
    "f() { rm x; }; f", "function f { rm x; }", "eval 'rm x'", "source ./s.sh", ". ./s.sh", "exec rm x",
    "hash -p ./evil ls", "enable -f ./x.so x", "printf -v 'a[$(touch p)]' 1", "declare x=1", "HOME=. git log",
    "case x in x) rm y;; esac", "sh <<E\nrm x\nE", "python3 - <<E\nimport os\nE", "cat <<E\n$(rm x)\nE",
    "python3 -c 'import os'", "node -e 'x'", "perl -e 'x'", "awk 'BEGIN{system(\"rm x\")}'", "python3",
    "bash script.sh", "cat s | sh", "xargs -I{} sh -c '{}'", "sudo -s rm x", "env -S 'rm x'",
    "find . -exec sh -c {} \\;", "ls\x01", "echo ${x@P}", "echo ${!x}", "echo a |& rm x", "cat <(rm x)",
    "ls &> f rm", "a[1]=x", "printf 'r''m v' | xargs env", "ls | xargs -0 nice", "find . -exec env {} \\;",
    "curl a b<& -exec", "ls >& $f", "env A#=1 rm", "time a=b ls", "ls 12>&1", "env LANG\u00a0=C rm", "fish -c 'rm (ls)'", "echo 'open",
    "time -p $x", "ls \\\n-l",
])
def test_a_line_using_what_the_scanner_does_not_model_is_unsure(line):
    found = scan(line)
    assert not found.sure and found.why, line


@pytest.mark.parametrize("line", [
    "ls -la", "git log --oneline -5", "ls | grep x > out.txt", "cd src && make test 2>&1 | tail -5",
    'for f in *.py; do wc -l "$f"; done', "if test -f x; then cat x; fi", 'echo "$(git rev-parse HEAD)"', "'rm' x",
    "LANG=C sort f", "x=1; echo $x", "cat <<'EOF' > f.txt\n$(not run)\nEOF", "find . -name '*.py' -exec wc -l {} +",
    "sh -c 'ls; rm x'", "timeout 5 nice -n 2 rm x", "python3 -m pytest -q", "git log @{u}..", "echo a,b {}",
    "git log HEAD~1", "python3 x.py", "ls &>/dev/null", "while read -r line; do echo $line; done < f",
    "(cd src && ls)", "( ls; echo x ) | wc -l", "ls && (cd a && make) || echo no",
])
def test_a_line_of_modelled_constructs_is_sure(line):
    assert scan(line).sure, scan(line).why


TRICKY = ["echo 'a;rm x' \"b;rm x\" c\\;rm", "e''cho \"$(l's' -l)\"", "ls #; rm x", "ls '#'; c\"at\" x", "{ ls; } | wc",
          "( cd bin && ls ) && id", "echo a\\ b 'c\\' \"d\\\"e\"", "env -- id -u", "timeout -s KILL 5 ls -la",
          "xargs -n1 rm -f", "nice -n 5 env LANG=C id", "sh -c 'ls; \"r\"m x; `cat y`'", "for i in a b; do ls $i; done",
          "find . -maxdepth 0 -exec rm v {} \\;", "echo `echo \\`rm v\\``", "echo $( # )\nrm v\n)", "ls 2>f rm v",
          "cat <<E; rm v\nbody\nE", "xargs <<E\nrm\nE", "time LANG=C ls", "cat <<-E\n\trm v\n\tE\nls", "echo a\\\"; rm v", "env -iu X rm v", ">f rm v",
          "echo \"`echo \\\"\\`rm v\\`\\\"`\"", "ls ; ; rm v", "echo a#b; rm v", "rm\u00a0v", "for x; do rm v; done"]


def test_a_real_shell_starts_only_what_the_scanner_reports_for_a_line_it_is_sure_of():
    """The oracle (tests/shell_oracle.py): generated lines run under bash and dash with stub programs."""
    bad, sure = disagreements(generate(300, 29) + TRICKY)
    assert sure >= 40 and bad == []
