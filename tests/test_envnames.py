"""Environment names from hooks and settings: only names known inert pass, the rest are said in one line."""

from ankit.safety.envnames import inert, passing


def test_names_that_make_a_program_run_code_are_refused_and_said_once():
    values = {"BASH_ENV": "x", "ENV": "x", "PROMPT_COMMAND": "x", "PYTHONSTARTUP": "x", "PERL5OPT": "x",
              "LD_PRELOAD": "x", "NODE_OPTIONS": "x", "GIT_SSH_COMMAND": "x", "GIT_EXTERNAL_DIFF": "x",
              "GIT_CONFIG_PARAMETERS": "x", "PATH": "x", "PAGER": "x", "LANG": "C.UTF-8", "LC_ALL": "C", "CI": "1"}
    kept, lines = passing(values, "settings env")
    assert kept == {"LANG": "C.UTF-8", "LC_ALL": "C", "CI": "1"}
    [line] = lines
    assert line.startswith("settings env: not set: BASH_ENV, ENV, GIT_CONFIG_PARAMETERS, GIT_EXTERNAL_DIFF, ")
    assert "and 4 more" in line and "set others in your own shell" in line


def test_known_inert_names_pass_without_a_line():
    assert passing({"TZ": "UTC", "GIT_AUTHOR_NAME": "A"}, "x") == ({"TZ": "UTC", "GIT_AUTHOR_NAME": "A"}, [])
    assert inert("LC_MESSAGES") and not inert("LC_") and not inert("lc_all") and not inert("GIT_EDITOR")


def test_a_name_with_control_characters_is_shown_escaped():
    [line] = passing({"A\x1b[2J": "x"}, "CLAUDE_ENV_FILE")[1]
    assert "\x1b" not in line and "A??2J" in line
