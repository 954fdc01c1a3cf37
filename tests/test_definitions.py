"""Named subagents' definitions: Claude Code's Markdown format, precedence, and what an untrusted project's may do."""

import os
import shutil
from pathlib import Path

from ankit.agents.definitions import agent_dirs, agents_text, load_agents, read_agent, tools_given, unknown_tools

REVIEWER = """---
name: reviewer
description: Reviews code for bugs; never edits.
tools: Read, Grep, Bash, git_log
model: claude-opus-9
---
You are a careful reviewer.
"""


def test_claude_codes_format_is_read_with_its_tool_names_mapped(tmp_path):
    path = tmp_path / "reviewer.md"
    path.write_text(REVIEWER)
    spec, problem = read_agent(path)
    assert problem == "" and spec.name == "reviewer" and spec.description == "Reviews code for bugs; never edits."
    assert spec.tools == ["read_file", "search_text", "run_command", "git_log"]
    assert spec.model == "claude-opus-9" and spec.system == "You are a careful reviewer." and not spec.read_only


def test_a_list_of_tools_star_and_none(tmp_path):
    path = tmp_path / "a.md"
    path.write_text("---\ndescription: d\ntools:\n  - Read\n  - web\n---\nbody\n")
    assert read_agent(path)[0].tools == ["read_file", "web"] and read_agent(path)[0].name == "a"
    path.write_text("---\ndescription: d\ntools: '*'\n---\nbody\n")
    assert read_agent(path)[0].tools is None


def test_files_that_cannot_be_used_are_skipped_with_one_line(tmp_path):
    path = tmp_path / "bad.md"
    path.write_text("---\nname: bad\n---\nno description\n")
    assert read_agent(path) == (None, f"agent {path} skipped: it needs a description: line and a system prompt below the frontmatter")
    path.write_text("no frontmatter at all")
    assert "no frontmatter" in read_agent(path)[1]
    path.write_text("---\nname: bad name!\ndescription: d\n---\nbody\n")
    assert "its name 'bad name!'" in read_agent(path)[1]


def test_an_untrusted_projects_agent_gets_no_model_and_read_only_tools(tmp_path):
    home, work = tmp_path / "home", tmp_path / "work"
    (work / ".claude" / "agents").mkdir(parents=True)
    (work / ".claude" / "agents" / "reviewer.md").write_text(REVIEWER)
    found, problems = load_agents(agent_dirs(work, tmp_path / "config", home / ".claude"), trusted=False, root=work)
    spec = found["reviewer"]
    assert problems == [] and spec.project and spec.read_only and spec.model == ""
    assert spec.notes == ["its model 'claude-opus-9' is ignored", "it gets read-only tools only"]
    trusted, _ = load_agents(agent_dirs(work, tmp_path / "config", home / ".claude"), trusted=True, root=work)
    assert trusted["reviewer"].model == "claude-opus-9" and not trusted["reviewer"].read_only
    assert "reviewer: Reviews code for bugs; never edits." in agents_text(found)


def test_the_project_wins_a_name_and_a_link_out_of_the_project_is_skipped(tmp_path):
    config, work = tmp_path / "config", tmp_path / "work"
    (config / "agents").mkdir(parents=True)
    (config / "agents" / "helper.md").write_text("---\ndescription: mine\n---\nuser's\n")
    (work / ".ankit" / "agents").mkdir(parents=True)
    (work / ".ankit" / "agents" / "helper.md").write_text("---\ndescription: project's\n---\nproject's\n")
    secret = tmp_path / "secret.md"
    secret.write_text("---\ndescription: s\n---\nkey material\n")
    os.symlink(secret, work / ".ankit" / "agents" / "leak.md")
    found, problems = load_agents(agent_dirs(work, config, tmp_path / "home" / ".claude"), trusted=True, root=work)
    assert found["helper"].description == "project's" and "leak" not in found
    assert problems == [f"agent {work / '.ankit' / 'agents' / 'leak.md'} skipped: it links to a file outside {work}"]


FIXTURES = Path(__file__).parent / "fixtures" / "claude_code"


def test_a_collection_copied_in_with_its_subfolders_and_readme_is_read_as_claude_code_does(tmp_path):
    """VoltAgent's category folder and wshobson's plugin agents, copied into ~/.claude/agents/ as people do."""
    home = tmp_path / "home"
    shutil.copytree(FIXTURES / "voltagent" / "04-quality-security", home / ".claude" / "agents" / "quality")
    shutil.copytree(FIXTURES / "wshobson" / "agent-teams" / "agents", home / ".claude" / "agents" / "teams" / "x")
    found, problems = load_agents(agent_dirs(tmp_path / "work", tmp_path / "config", home / ".claude"), trusted=False)
    assert problems == []  # the README is no agent, and says nothing
    assert sorted(found) == ["code-reviewer", "debugger", "team-debugger", "team-implementer", "team-lead",
                             "team-reviewer", "ui-ux-tester"]
    assert found["code-reviewer"].tools == ["read_file", "write_file", "edit_file", "run_command", "find_files",
                                            "search_text"]
    assert found["team-debugger"].model == "opus" and found["debugger"].model == "sonnet"


def test_unknown_tool_names_and_what_an_agent_really_gets(tmp_path):
    shutil.copy(FIXTURES / "wshobson" / "agent-teams" / "agents" / "team-lead.md", tmp_path / "team-lead.md")
    spec, _ = read_agent(tmp_path / "team-lead.md")
    here = {"read_file": "files", "write_file": "files", "find_files": "files", "search_text": "search",
            "run_command": "shell", "task": "agents", "find_tools": "core"}
    assert unknown_tools(spec, here) == ["Agent", "TeamCreate", "TeamDelete", "TaskCreate", "TaskList", "TaskGet",
                                         "TaskUpdate", "SendMessage"]
    assert tools_given(spec, here) == "read_file, find_files, search_text, run_command"
    spec.tools = ["read_file", "find_tools"]
    assert tools_given(spec, here) == "read_file, find_tools and what find_tools finds"
    spec.tools, spec.asked = ["files", "mcp__github__get_issue"], ["files", "mcp__github__get_issue"]
    assert unknown_tools(spec, here) == [] and tools_given(spec, here) == "read_file, write_file, find_files"
    text = agents_text({"team-lead": spec}, here, "claude-sonnet-5-5", ["claude-fable-5-1", "claude-sonnet-5-5"])
    assert "model: claude-fable-5-1 (fable)" in text


def test_crlf_bom_and_a_tools_list_are_read(tmp_path):
    path = tmp_path / "win.md"
    path.write_bytes("\ufeff---\r\nname: win\r\ndescription: From Windows.\r\ntools:\r\n  - Read\r\n  - Grep\r\n---\r\n"
                     "Body.\r\n".encode())
    spec, problem = read_agent(path)
    assert problem == "" and spec.tools == ["read_file", "search_text"] and spec.system == "Body."


def test_a_description_running_over_unindented_example_lines_is_read_as_claude_code_reads_it(tmp_path):
    """Not YAML, but how many published agents are written (Claude Code reads them)."""
    path = tmp_path / "creator.md"
    path.write_text("---\nname: creator\ndescription: Use this agent when the user asks to \"create an agent\". "
                    "Examples:\n\n<example>\nContext: User wants a reviewer\nuser: \"Create an agent\"\n"
                    "assistant: \"I'll use the creator agent.\"\n</example>\n\nmodel: sonnet\ncolor: magenta\n"
                    "tools: [\"Write\", \"Read\"]\n---\n\nYou create agents.\n")
    spec, problem = read_agent(path)
    assert problem == "" and spec.name == "creator" and spec.model == "sonnet"
    assert spec.description.startswith('Use this agent when the user asks to "create an agent". Examples: <example>')
    assert 'user: "Create an agent"' in spec.description and spec.tools == ["write_file", "read_file"]
    path.write_text("---\nname: x\ndescription: never closed\nbody\n")
    assert read_agent(path)[1].endswith("skipped: frontmatter is not closed: add a '---' line after the last field")
