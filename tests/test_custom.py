"""Custom slash commands: templates, their placeholders, and the folders they come from."""

import shutil
from pathlib import Path

from ankit.terminal.custom import command_dirs, expand_template, load_commands, snippets


def test_arguments_and_positional_placeholders():
    body = "Review $1 for $2 (all: $ARGUMENTS; none: [$3])"
    assert expand_template(body, 'app.py "error handling"') == \
        'Review app.py for error handling (all: app.py "error handling"; none: [])'


def test_a_template_without_placeholders_gets_the_arguments_appended():
    assert expand_template("Summarize the diff.", "only tests") == "Summarize the diff.\n\nonly tests"
    assert expand_template("Summarize the diff.", "") == "Summarize the diff."


def test_folders_frontmatter_and_clashes(tmp_path):
    cwd, config = tmp_path / "work", tmp_path / "config"
    project, user, claude, _ = command_dirs(cwd, config, tmp_path / "home" / ".claude")
    for folder in (project, user, claude):
        folder.mkdir(parents=True)
    (project / "review.md").write_text("---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1\n")
    (user / "review.md").write_text("user's review\n")
    (claude / "explain.md").write_text("# Explain the code\nExplain $ARGUMENTS\n")
    (claude / "help.md").write_text("clash\n")
    found, problems = load_commands([project, user, claude], {"help", "exit"})
    assert sorted(found) == ["explain", "review"]
    assert (found["review"].description, found["review"].hint, found["review"].body) == ("Review a file", "FILE", "Review $1")
    assert found["explain"].description == "Explain the code"
    assert len(problems) == 2
    assert "/review is already defined by" in problems[0] and "/help is a built-in command" in problems[1]


def test_a_repository_command_linking_out_of_the_folder_is_skipped(tmp_path):
    """.ankit/commands/review.md -> ~/.aws/credentials would send the file when the user runs /review."""
    work, home = tmp_path / "work", tmp_path / "home"
    (work / ".ankit" / "commands").mkdir(parents=True)
    (home / "commands").mkdir(parents=True)
    (tmp_path / "credentials").write_text("aws_secret_access_key = x\n")
    (tmp_path / "mine.md").write_text("my own command\n")
    (work / ".ankit" / "commands" / "review.md").symlink_to(tmp_path / "credentials")
    (home / "commands" / "mine.md").symlink_to(tmp_path / "mine.md")  # the user's own link: theirs to make
    found, problems = load_commands(command_dirs(work, home), set(), work)
    assert list(found) == ["mine"] and len(problems) == 1 and "links to a file outside" in problems[0]


FIXTURES = Path(__file__).parent / "fixtures" / "claude_code" / "wshobson" / "commands"


def test_claude_codes_folders_and_subfolders_are_namespaced_as_claude_code_does(tmp_path):
    """wshobson's plugin commands copied into ~/.claude/commands/ by plugin: two of them are refactor-clean.md."""
    home, cwd = tmp_path / "home", tmp_path / "work"
    shutil.copytree(FIXTURES, home / ".claude" / "commands")
    (home / ".claude" / "commands" / "README.md").write_text("# my commands\n")
    found, problems = load_commands(command_dirs(cwd, tmp_path / "config", home / ".claude"), {"help"}, cwd)
    assert problems == []
    assert sorted(found) == ["business-case", "codebase-cleanup:refactor-clean", "refactor-clean", "tech-debt"]
    assert found["refactor-clean"].source.parent.name == "code-refactoring"
    assert found["refactor-clean"].description == "Refactor and Clean Code (user:code-refactoring)"
    assert found["tech-debt"].description.endswith("(user:codebase-cleanup)")
    assert found["business-case"].tools == ["Read", "Write", "Edit", "Glob", "Grep", "Bash", "WebSearch", "WebFetch"]
    assert not found["tech-debt"].project


def test_a_projects_claude_commands_are_the_projects_and_snippets_are_found(tmp_path):
    cwd = tmp_path / "work"
    (cwd / ".claude" / "commands" / "git").mkdir(parents=True)
    (cwd / ".claude" / "commands" / "git" / "commit.md").write_bytes(
        b"\xef\xbb\xbf---\r\nallowed-tools: Bash(git add:*), Bash(git status:*)\r\nmodel: haiku\r\n"
        b"description: Commit\r\n---\r\nStatus: !`git status --short`\r\nDiff: !`git diff --stat`\r\n")
    found, _ = load_commands(command_dirs(cwd, tmp_path / "config", tmp_path / "home" / ".claude"), set(), cwd)
    commit = found["commit"]
    assert commit.project and commit.description == "Commit (project:git)" and commit.model == "haiku"
    assert commit.tools == ["Bash(git add:*)", "Bash(git status:*)"]
    assert snippets(commit.body) == ["git status --short", "git diff --stat"]
