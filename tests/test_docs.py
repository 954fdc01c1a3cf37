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
