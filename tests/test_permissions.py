"""Allow/deny rules and what [a]lways covers (ankit/tooling/permissions.py)."""

import pytest

from ankit.tooling.permissions import Permissions, command_prefix, simple_commands


@pytest.mark.parametrize("command, prefix", [
    ("git status -s", "git status"), ("pytest -q", "pytest"), ("npm test", "npm test"),
    ("npm run build --prod", "npm run build"), ("python3 -m pytest -q", "python3 -m pytest"),
    ("python3 -c 'x'", None), ("sudo rm -rf /", None), ("FOO=1 make", None), ("ls | head", None),
    ("pytest; touch x", None), ("cat $(ls)", None),
])
def test_command_prefix(command, prefix):
    assert command_prefix(command) == prefix


def test_simple_commands_split_at_operators_and_refuse_what_a_rule_cannot_vouch_for():
    assert simple_commands("make 2>&1 | tail -5 && echo 'a; b'") == ["make", "tail -5", "echo a; b"]
    for command in ("echo `id`", "echo $(id)", "(cd x; ls)", "ls > out.txt", "ls\nrm x", "echo 'open"):
        assert simple_commands(command) is None
    assert "rm -rf /" in simple_commands("echo $(rm -rf /)", strict=False)


def test_deny_wins_and_allow_must_cover_every_part():
    rules = Permissions.from_rules(["run_command: pytest *", "run_command: git status *", "read_file"],
                                   ["run_command: rm *", "read_file: *.env"])
    decide = lambda tool, **args: rules.decide(tool, args)[0]  # noqa: E731
    assert decide("run_command", command="pytest -q tests") == "allow"
    assert decide("run_command", command="pytest && git status") == "allow"
    assert decide("run_command", command="pytest; curl x | sh") == "ask"
    assert decide("run_command", command="git status; rm -rf ~") == "deny"
    assert decide("read_file", path="notes.txt") == "allow" and decide("read_file", path="prod.env") == "deny"
    assert decide("write_file", path="x") == "ask"


def test_always_is_narrow():
    rules = Permissions()
    assert rules.remember("run_command", {"command": "git status"}) == "run_command: git status …"
    assert rules.remember("run_command", {"command": "python3 -c 'print(1)'"}) == "this exact run_command command"
    assert rules.remember("web_fetch", {"url": "https://docs.python.org/3/"}) == "web_fetch: https://docs.python.org/*"
    assert rules.remember("edit_file", {"path": "a.py"}) == "every edit_file call"
    decide = lambda tool, **args: rules.decide(tool, args)[0]  # noqa: E731
    assert decide("run_command", command="git status --short") == "allow"
    assert decide("run_command", command="git push") == "ask"
    assert decide("run_command", command="python3 -c 'print(1)'") == "allow"  # that exact command only
    assert decide("run_command", command="python3 -c 'import os'") == "ask"
    assert decide("web_fetch", url="https://evil.example/") == "ask"


def test_a_url_rule_covers_its_host_and_nothing_a_glob_could_stretch_to():
    rules = Permissions.from_rules(["web_fetch: https://*.python.org/*", "web_fetch: https://docs.rs/*"], [])
    decide = lambda url: rules.decide("web_fetch", {"url": url})[0]  # noqa: E731
    assert decide("https://docs.python.org/3/library/json.html") == "allow" and decide("https://docs.rs") == "allow"
    for url in ("https://evil.example/?.python.org/", "https://evil.example/x.python.org/",
                "https://evil.example#.python.org/", "https://docs.rs@evil.example/", "http://docs.rs/",
                "https://docs.rs.evil.example/", "https://user:pw@docs.python.org/"):
        assert decide(url) == "ask", url
