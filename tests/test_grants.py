"""[a]lways answers (ankit/safety/grants.py): the repository git would use, and options that widen a grant."""

import subprocess

from ankit.safety.grants import repository
from ankit.safety.programs import inert_options


def test_the_repository_is_found_as_git_finds_it(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path / "work")], check=True)
    (tmp_path / "work" / "src").mkdir()
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "work" / "shipped.git")], check=True)
    own = (tmp_path / "work" / ".git").resolve()
    assert repository(tmp_path / "work" / "src") == own
    assert repository(tmp_path / "work" / "shipped.git") == (tmp_path / "work" / "shipped.git").resolve()
    assert repository(tmp_path) is None


def test_options_that_follow_links_or_are_unknown_are_not_inert():
    for words in (["grep", "-rn", "x", "."], ["grep", "-A2", "-e", "-R", "x"], ["grep", "--exclude", "-R", "x"], ["grep", "-3", "x"], ["ls", "-la"],
                  ["cat", "-A", "f"], ["grep", "--", "-R", "f"]):
        assert inert_options(words), words
    for words in (["grep", "-R", "x"], ["grep", "-nR", "x"], ["grep", "--dereference-recursive", "x"],
                  ["ls", "-RL"], ["du", "-L"], ["diff", "-r", "a", "b"], ["grep", "--frobnicate", "x"]):
        assert not inert_options(words), words
