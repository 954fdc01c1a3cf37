"""The guide's topics: every file is listed, found by name or prefix, shipped, and linked from the README."""

import re
import subprocess
import sys
from pathlib import Path

from ankit import docs

ROOT = Path(__file__).resolve().parent.parent


def test_every_topic_file_is_listed_once_with_its_title_in_the_guide_s_order():
    files = sorted(p.stem for p in (ROOT / "ankit" / "docs").glob("*.md"))
    listed = [name for name, _ in docs.topics()]
    assert sorted(listed) == files and len(set(listed)) == len(listed)
    assert listed[:3] == ["install", "providers", "oneshot"]
    assert dict(docs.topics())["sandbox"] == "Sandbox"


def test_a_topic_is_found_by_its_name_or_a_prefix_only_one_topic_has():
    assert docs.find("sandbox") == "sandbox" and docs.find("SAND") == "sandbox"
    assert docs.find("s") is None  # sandbox, safety, sessions, skills, subagents
    assert docs.find("nothing") is None and docs.find("") is None
    assert docs.read("hooks").startswith("# Hooks\n")


def test_the_readme_links_every_topic_and_each_link_resolves():
    readme = (ROOT / "README.md").read_text()
    linked = set(re.findall(r"\(ankit/docs/([\w-]+)\.md\)", readme))
    assert linked == {name for name, _ in docs.topics()}
    assert len(readme.splitlines()) < 600


def test_links_between_topics_point_at_files_that_exist():
    for path in (ROOT / "ankit" / "docs").glob("*.md"):
        for target in re.findall(r"\]\(([\w-]+)\.md(?:#[\w-]+)?\)", path.read_text()):
            assert (path.parent / f"{target}.md").is_file(), (path.name, target)


def ankit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ankit", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=60)


def test_ankit_help_lists_the_topics_and_prints_one_exactly_when_piped():
    listing = ankit("help")
    assert listing.returncode == 0 and listing.stdout.splitlines()[0].startswith("Topics (ankit help TOPIC")
    assert "  sandbox       Sandbox" in listing.stdout
    topic = ankit("help", "sandb")
    assert topic.returncode == 0 and topic.stdout == (ROOT / "ankit" / "docs" / "sandbox.md").read_text()


def test_an_unknown_topic_is_one_line_naming_the_topics():
    result = ankit("help", "zzz")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("ankit: no help topic 'zzz': the topics are install, providers")
    assert result.stderr.count("\n") == 1


def test_on_a_terminal_a_topic_is_laid_out_as_a_reply_and_paged(tmp_path):
    import os
    from tests.pty_spawn import read_all, spawn_on_pty
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm", "NO_COLOR": "1", "PAGER": "cat",
           "PYTHONPATH": str(ROOT), "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    process, fd = spawn_on_pty([sys.executable, "-m", "ankit", "help", "sandbox"], env, tmp_path, rows=30, cols=100)
    try:
        shown = read_all(fd, quiet=5)
        assert process.wait(timeout=30) == 0
    finally:
        os.close(fd)
    text = shown.decode()
    assert text.startswith("Sandbox\r\n") and "# Sandbox" not in text  # a heading, not its marks
    assert "─┼─" in text and "|---|" not in text  # the table drawn
    assert "\x1b[" not in text  # NO_COLOR: the layout, no colour
