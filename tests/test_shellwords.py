"""Reading shell lines for the policy: every command a line runs, and what an [a]lways covers (ankit/safety/shellwords.py)."""

import pytest

from ankit.safety.shellwords import command_key, runs_code, scan


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


@pytest.mark.parametrize("line, key", [
    ("git --no-pager log", "git log"), ("git -P log -p", "git log"), ("kubectl -n prod get pods", "kubectl get"),
    ("kubectl --context=x get pods", "kubectl get"), ("docker -H tcp://h:2375 ps", "docker ps"),
    ("npm --silent run test", "npm run test"), ("make -j4 test", "make test"), ("make -j 4 test", "make test"),
    ("helm -n x list", "helm list"), ("cargo +nightly build", "cargo build"), ("gh -R a/b pr", "gh pr"),
    ("git status -s", "git status"), ("pytest -q", "pytest"), ("npm test", "npm test"),
    ("python3 -m pytest -q", "python3 -m pytest"), ("python3 -c 'x'", None), ("sudo rm -rf /", None),
    ("unknowntool --flag value sub", None), ("git config alias.x '!sh'", None), ("docker run alpine", None),
    ("kubectl exec -it pod -- sh", None), ("npm exec x", None), ("sh -c ls", None),
])
def test_the_key_is_the_program_and_subcommand_after_global_options(line, key):
    assert command_key(scan(line).top[0]) == key


@pytest.mark.parametrize("line", [
    "git -c alias.x='!touch p' x", "git -c core.pager=sh log", "git --exec-path=/tmp log", "git -C /tmp log",
    "git --git-dir=/tmp/x log", "git fetch --upload-pack='touch p'", "git fetch -u 'touch p'",
    "git rebase -x 'touch p'", "ssh -o ProxyCommand='touch p' h", "ssh -oProxyCommand=x h", "scp -S ./x a b:",
    "rsync -e 'sh -c x' a b:", "tar -I 'sh -c x' -xf a.tar", "tar --to-command=x -xf a", "kubectl --kubeconfig k get",
    "npm --userconfig ./rc run test", "git log --ext-diff", "git diff --textconv", "find . -exec rm {} +",
    "make -f /tmp/evil test", "git -c core.fsmonitor=x status", "sed -e 'e touch p' f", "docker --config d ps",
    "git archive --exec=x", "git clone --config core.sshCommand=x u", "git difftool --extcmd=x",
    "git -p log", "git --paginate log", "git log --show-signature", "kubectl --server=https://evil get pods",
    "make test CC=./evil",
])
def test_options_that_run_code_are_seen(line):
    assert runs_code(scan(line).top[0])


def test_ordinary_options_do_not_run_code():
    for line in ("git --no-pager log --oneline", "git log -p --stat", "kubectl -n x get pods -o yaml", "ls -la",
                 "git -P log -p"):
        assert not runs_code(scan(line).top[0]), line
