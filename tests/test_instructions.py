"""Project instructions: AGENTS.md / CLAUDE.md from the user's config and the repository, outermost first."""

import subprocess

from ankit.context.instructions import CAP, load_instructions


def repo(tmp_path):
    root = tmp_path / "repo"
    (root / "pkg" / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_user_file_then_root_down_to_the_working_folder(tmp_path):
    root, config = repo(tmp_path), tmp_path / "config"
    config.mkdir()
    (config / "AGENTS.md").write_text("user rule\n")
    (root / "AGENTS.md").write_text("root rule\n")
    (root / "pkg" / "CLAUDE.md").write_text("pkg rule (claude)\n")
    (tmp_path / "AGENTS.md").write_text("above the repository: never read\n")
    found = load_instructions(root / "pkg" / "sub", config)
    assert found.files == [config / "AGENTS.md", root / "AGENTS.md", root / "pkg" / "CLAUDE.md"]
    text = found.text
    assert text.index("user rule") < text.index("root rule") < text.index("pkg rule")
    assert "never read" not in text


def test_agents_md_wins_over_claude_md_in_the_same_folder(tmp_path):
    root = repo(tmp_path)
    (root / "AGENTS.md").write_text("agents\n")
    (root / "CLAUDE.md").write_text("claude\n")
    found = load_instructions(root, tmp_path / "none")
    assert "agents" in found.text and "claude" not in found.text


def test_outside_a_repository_only_the_working_folder_counts(tmp_path):
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    (tmp_path / "a" / "AGENTS.md").write_text("parent\n")
    assert load_instructions(work, tmp_path / "none").text == ""
    (work / "AGENTS.md").write_text("here\n")
    assert "here" in load_instructions(work, tmp_path / "none").text


def test_the_cap_keeps_the_head_and_says_the_cut(tmp_path):
    root = repo(tmp_path)
    (root / "AGENTS.md").write_text("first line\n" + "x" * (CAP + 500))
    found = load_instructions(root, tmp_path / "none")
    assert "first line" in found.text and found.cut > 500
    assert f"{found.cut:,} more characters of instructions were cut" in found.text
    assert len(found.text) < CAP + 400


def test_a_link_out_of_the_repository_or_a_huge_file_is_not_read_whole(tmp_path):
    """A cloned repository's AGENTS.md linking to ~/.ssh/id_rsa would put the key in every request."""
    root, config = repo(tmp_path), tmp_path / "config"
    config.mkdir()
    (tmp_path / "id_rsa").write_text("PRIVATE KEY MATERIAL\n")
    (root / "AGENTS.md").symlink_to(tmp_path / "id_rsa")
    (root / "pkg" / "AGENTS.md").write_text("pkg rule\n")
    (root / "pkg" / "sub" / "CLAUDE.md").symlink_to(root / "pkg" / "AGENTS.md")  # a link inside is fine
    with open(root / "pkg" / "sub" / "AGENTS.md", "wb") as handle:  # 8 GB that take no disk
        handle.write(b"huge rule " * 10)
        handle.truncate(8 * 1024 ** 3)
    found = load_instructions(root / "pkg" / "sub", config)
    assert found.files == [root / "pkg" / "AGENTS.md", root / "pkg" / "sub" / "AGENTS.md"]
    assert "PRIVATE KEY" not in found.text and "huge rule" in found.text and len(found.text) < CAP + 500
