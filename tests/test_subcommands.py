"""Subcommands found after the global options, and each one's own help, as a user runs them."""

import pytest

from ankit.cli.main import parser
from ankit.cli.subcommands import SUBCOMMANDS, split
from ankit.settings.layers import load_config
from tests.test_oneshot import ankit


@pytest.mark.parametrize("argv, expected", [
    (["mcp", "list"], ("mcp", ["list"])),
    (["--base-url", "http://127.0.0.1:9/v1", "mcp", "phrases"], ("mcp", ["--base-url", "http://127.0.0.1:9/v1", "phrases"])),
    (["--model=x", "--yes", "tools", "check"], ("tools", ["--model=x", "--yes", "check"])),
    (["-p", "tools"], ("", ["-p", "tools"])),  # the question is the word tools
    (["-yp", "tools"], ("", ["-yp", "tools"])),  # grouped: -y, then -p and its value
    (["-sbe brief", "tools"], ("tools", ["-sbe brief"])),  # -s with its value attached
    (["--", "mcp"], ("", ["--", "mcp"])),
    (["what", "is", "mcp"], ("", ["what", "is", "mcp"])),
])
def test_the_subcommand_is_the_first_word_that_is_no_option_nor_its_value(argv, expected):
    assert split(argv, parser()) == expected


def test_a_global_option_before_a_subcommand_applies_to_it(tmp_path):
    done = ankit(tmp_path, "--sandbox", "ask", "--model", "x", "sessions")
    assert done.returncode == 0 and done.stdout == "no saved sessions yet\n" and done.stderr == ""


@pytest.mark.parametrize("command", [c for c in SUBCOMMANDS if c not in ("eval-discovery", "bundle")])
def test_every_subcommand_has_its_own_help(tmp_path, command):
    done = ankit(tmp_path, command, "--help")
    assert done.returncode == 0 and done.stdout.startswith(f"usage: ankit {command}")
    assert "-p PROMPT" not in done.stdout  # not the top-level help


def test_help_words_after_a_server_command_belong_to_the_server(tmp_path):
    done = ankit(tmp_path, "mcp", "add", "srv", "--", "server-bin", "--help")
    assert "usage: ankit mcp" not in done.stdout and "no program 'server-bin' found" in done.stderr


def test_sandbox_takes_the_mode_names_of_slash_mode_too(tmp_path):
    for word, mode in (("ask", "off"), ("plan", "read-only"), ("workspace", "workspace")):
        assert parser().parse_args(["--sandbox", word]).sandbox == word
        assert load_config({"sandbox": word}, {}, tmp_path, tmp_path / "config").sandbox == mode
    with pytest.raises(SystemExit):
        parser().parse_args(["--sandbox", "sometimes"])
