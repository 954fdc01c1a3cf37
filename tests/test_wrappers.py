"""Wrappers read through or unsure (ankit/safety/wrappers.py), checked against the scanner's reading and a real
shell (tests/shell_oracle.py)."""

import pytest

from ankit.safety.shellwords import scan
from tests.shell_oracle import disagreements, wrapper_lines


def runs(line: str) -> list[str]:
    return [" ".join(words) for words in scan(line).commands]


@pytest.mark.parametrize("line, inner", [
    ("flock lk -c 'rm -rf x'", "rm -rf x"), ("flock -w 1 lk rm -rf x", "rm -rf x"),
    ("script -qc 'rm -rf x' /dev/null", "rm -rf x"), ("su root -c 'rm -rf x'", "rm -rf x"),
    ("runuser -u root -- rm -rf x", "rm -rf x"), ("runuser -c 'rm -rf x' root", "rm -rf x"),
    ("ssh-agent sh -c 'rm -rf x'", "rm -rf x"), ("ssh-agent -t 5 rm -rf x", "rm -rf x"),
    ("setpriv --reuid=0 rm -rf x", "rm -rf x"), ("unshare -r rm -rf x", "rm -rf x"), ("chroot / rm -rf x", "rm -rf x"),
    ("ionice -c 3 stdbuf -oL nice -5 rm -rf x", "rm -rf x"), ("systemd-run --user -p X=1 rm -rf x", "rm -rf x"),
])
def test_the_command_a_wrapper_runs_is_found(line, inner):
    found = scan(line)
    assert inner in runs(line) and found.sure, (runs(line), found.why)


@pytest.mark.parametrize("line", [
    "parallel rm ::: a b", "su root x.sh", "su -s /bin/zsh root -c 'ls'", "timeout --frobnicate 5 rm x",
    "ionice -X 3 rm x", "taskset -c 0 rm x", "flock -Q lk rm x", "systemd-run --shell", "watch -x rm 'a b'",
    "unshare --frob rm x", "flock -c 'rm -rf x' lk", "runuser -u root rm -rf x",
])
def test_a_wrapper_ankit_cannot_read_through_makes_the_line_unsure(line):
    found = scan(line)
    assert not found.sure and found.why, line


def test_a_real_shell_starts_only_what_the_scanner_reports_for_the_wrapper_corpus():
    """The oracle over generated lines run through flock, script, su, runuser, ssh-agent, timeout, nice, ionice,
    stdbuf, chroot, unshare, setpriv, systemd-run, xargs, parallel and their spellings."""
    bad, sure = disagreements(wrapper_lines(150, 11))
    assert sure >= 30 and bad == []
