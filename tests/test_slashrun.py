"""`ankit -p "/name args"` as `claude -p` runs it: custom commands (user, project, plugin) with their allowed-tools,
model and !`lines`, skills as /skill-name, and one line for anything else starting with a slash."""

import re
import shutil
import subprocess
from pathlib import Path

from tests.test_oneshot import ankit

FIXTURES = Path(__file__).parent / "fixtures" / "claude_code"
# Claude Code's documented command shape (code.claude.com/docs/en/slash-commands, "Bash command execution")
COMMIT = """---
allowed-tools: Bash(git add:*), Bash(git status:*), Bash(git branch:*), Bash(git commit:*)
description: Create a git commit
model: gpt-4o-mini
---

## Context

- Current git status: !`git status --short`
- Current branch: !`git branch --show-current`

## Your task

Based on the above changes, create a single git commit about $1.
"""


def repository(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "trunk", str(work)], check=True)
    (work / "notes.txt").write_text("hello\n")
    return work


def user_command(tmp_path: Path, relative: str, text: str) -> None:
    path = tmp_path / "home" / ".claude" / "commands" / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_command_runs_its_lines_under_its_allowed_tools_on_its_model(provider_server, tmp_path):
    repository(tmp_path)
    user_command(tmp_path, "commit.md", COMMIT)
    provider_server.push_openai(text="Committed.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--model", "gpt-4o", "--sandbox", "ask",
                 "-p", "/commit the notes")  # every command asks: its allowed-tools let these through
    assert done.returncode == 0 and done.stdout == "Committed.\n", done.stderr
    request = provider_server.requests[0].json
    assert request["model"] == "gpt-4o-mini"
    sent = request["messages"][-1]["content"]
    assert re.search(r"- Current git status: exit code 0 \([\d.]+ s\)\n\?\? notes.txt\n- Current branch: exit code 0 "
                     r"\([\d.]+ s\)\ntrunk\n", sent), sent
    assert sent.endswith("create a single git commit about the.")  # $1: the first word, as in Claude Code
    assert "!`" not in sent and "$1" not in sent
    assert "· $ git status --short" in done.stderr  # shown as the REPL shows it


def test_a_line_its_allowed_tools_do_not_cover_is_refused_in_p_and_nothing_is_sent(provider_server, tmp_path):
    repository(tmp_path)
    user_command(tmp_path, "peek.md", "Files: !`ls -a`\n")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--sandbox", "ask", "-p", "/peek")
    assert done.returncode == 1 and provider_server.requests == []
    assert done.stderr.splitlines()[-1] == "ankit: /peek not sent: its command ls -a was declined"


def test_arguments_are_text_a_backtick_command_in_them_never_runs(provider_server, tmp_path):
    """`ankit -p "/review $PR_TITLE"` in CI: a title holding !`touch PWNED` is text sent to the model, never a line
    run (in the workspace sandbox it would run unasked); the command's own lines still run."""
    repository(tmp_path)
    user_command(tmp_path, "review.md", "Branch: !`git branch --show-current`\nReview $ARGUMENTS\n")
    user_command(tmp_path, "hello.md", "Say hello\n")
    provider_server.push_openai(text="Reviewed.")
    provider_server.push_openai(text="Hello.")
    for prompt in ("/review fix !`touch PWNED` now", "/hello !`touch PWNED2`"):
        done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", prompt)
        assert done.returncode == 0, done.stderr
    first, second = (r.json["messages"][-1]["content"] for r in provider_server.requests)
    assert re.fullmatch(r"Branch: exit code 0 \([\d.]+ s\)\ntrunk\nReview fix !`touch PWNED` now", first), first
    assert second.endswith("\n\n!`touch PWNED2`"), second
    assert not [p for p in (tmp_path / "work").iterdir() if p.name.startswith("PWNED")]


def test_third_party_commands_fill_arguments_and_a_skill_starts_as_slash_name(provider_server, tmp_path):
    """wshobson/agents' tech-debt command ($ARGUMENTS) and wcag-audit-patterns skill (MIT)."""
    source = FIXTURES / "wshobson" / "commands" / "codebase-cleanup" / "tech-debt.md"
    user_command(tmp_path, "cleanup/tech-debt.md", source.read_text())
    skills = tmp_path / "home" / ".claude" / "skills"
    shutil.copytree(FIXTURES / "wshobson" / "plugins" / "accessibility-compliance" / "skills", skills)
    provider_server.push_openai(text="Debt listed.")
    provider_server.push_openai(text="Audited.")
    url = provider_server.url + "/v1"
    done = ankit(tmp_path, "--base-url", url, "-p", "/tech-debt src/billing")
    assert done.returncode == 0 and done.stdout == "Debt listed.\n", done.stderr
    sent = provider_server.requests[0].json["messages"][-1]["content"]
    assert sent.startswith("# Technical Debt Analysis and Remediation") and "\nsrc/billing\n" in sent
    done = ankit(tmp_path, "--base-url", url, "-p", "/wcag-audit-patterns the signup form")
    assert done.returncode == 0 and done.stdout == "Audited.\n", done.stderr
    sent = provider_server.requests[1].json["messages"][-1]["content"]
    assert sent.startswith("# Skill: wcag-audit-patterns\n") and sent.endswith("\n\nthe signup form")


def test_other_slash_words_are_one_line_and_a_path_is_a_question(provider_server, tmp_path):
    url = provider_server.url + "/v1"
    unknown = ankit(tmp_path, "--base-url", url, "-p", "/reveiw src")
    assert unknown.returncode == 1 and unknown.stderr.startswith("ankit: unknown command /reveiw")
    assert "(-p runs custom commands and skills)" in unknown.stderr and len(unknown.stderr.splitlines()) == 1
    repl_only = ankit(tmp_path, "--base-url", url, "-p", "/model gpt-4o")
    assert repl_only.stderr == "ankit: /model is a command of the REPL, not run by -p: run ankit and type it there\n"
    assert provider_server.requests == []
    provider_server.push_openai(text="It maps names to addresses.")
    path = ankit(tmp_path, "--base-url", url, "-p", "/etc/hosts: what is it for?")
    assert path.returncode == 0 and provider_server.requests[0].json["messages"][-1]["content"].startswith("/etc/hosts")


def test_trust_trusts_a_folder_whose_only_project_file_is_a_command_with_allowed_tools_and_a_model(
        provider_server, tmp_path):
    work = tmp_path / "work"
    (work / ".ankit" / "commands").mkdir(parents=True)
    (work / ".ankit" / "commands" / "tidy.md").write_text(
        "---\nallowed-tools: Bash(touch:*)\nmodel: gpt-4o-mini\n---\nMake the file.\n")
    url = provider_server.url + "/v1"
    for flags in ((), ("--trust",)):
        provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "touch made.txt"}')])
        provider_server.push_openai(text="Done.")
        done = ankit(tmp_path, "--base-url", url, "--model", "gpt-4o", "--sandbox", "ask", *flags, "-p", "/tidy")
        assert done.returncode == 0, done.stderr
    untrusted, _, trusted, _ = [r.json for r in provider_server.requests]
    assert untrusted["model"] == "gpt-4o" and trusted["model"] == "gpt-4o-mini"
    refused, allowed = [[m["content"] for m in r.json["messages"] if m["role"] == "tool"][0]
                        for r in (provider_server.requests[1], provider_server.requests[3])]
    assert refused.startswith("Error") and not allowed.startswith("Error") and (work / "made.txt").exists()
