"""What programs do with their words (ankit/safety/programs.py): options that run code, and the table of inert
programs an [a]lways answer widens over."""

import pytest

from ankit.safety.programs import command_key, runs_code
from ankit.safety.shellwords import scan


@pytest.mark.parametrize("line, key", [
    ("git --no-pager log", "git log"), ("git -P log -p", "git log"), ("git status -s", "git status"),
    ("ls -la src", "ls"), ("grep -rn TODO .", "grep"), ("cat a.txt", "cat"), ("git diff HEAD~1", "git diff"),
    ("kubectl -n prod get pods", None), ("docker -H tcp://h:2375 ps", None), ("npm --silent run test", None),
    ("make -j4 test", None), ("cargo +nightly build", None), ("pytest -q", None), ("npm test", None),
    ("python3 -m pytest -q", None), ("python3 -c 'x'", None), ("sudo rm -rf /", None), ("git push", None),
    ("git branch -D main", None), ("git grep -Ox foo", None), ("find . -name x", None), ("sed -n 1p f", None),
    ("awk '{print}' f", None), ("less f", None), ("tar -xf a.tar", None), ("sort -o f g", None),
    ("unknowntool --flag value sub", None), ("git config alias.x '!sh'", None), ("sh -c ls", None),
    ("/bin/ls", None), ("jq -n env", None),
])
def test_the_key_is_an_inert_program_or_its_inert_subcommand(line, key):
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
