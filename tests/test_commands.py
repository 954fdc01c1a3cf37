"""Subcommands as a user runs them: real subprocesses with their own XDG folders."""

import json
import sys
from pathlib import Path

from tests.test_oneshot import ankit

ROOT = Path(__file__).resolve().parent.parent

SKILL = """---
name: pdf-forms
description: >-
  Fill, inspect and flatten PDF forms. Use this skill when the user
  mentions PDF forms or fields.
license: Apache-2.0
allowed-tools: Bash Read
metadata:
  version: "1.2"
---
# PDF forms
Steps...
"""


def test_tools_lists_groups_and_reports_skipped_modules(tmp_path):
    extra = tmp_path / "mytools"
    (extra / "weather").mkdir(parents=True)
    (extra / "weather" / "forecast.py").write_text(
        "name = 'weather_forecast'\ndescription = 'Get the weather forecast for a city.'\n"
        "parameters = {'type': 'object', 'properties': {'city': {'type': 'string'}}}\n"
        "def run(args, ctx):\n    return 'sunny'\n")
    (extra / "broken.py").write_text("def run(:\n")
    done = ankit(tmp_path, "tools", "--tools-dir", str(extra))
    assert done.returncode == 0
    assert "core (core):" in done.stdout and "git (available):" in done.stdout
    assert "weather (available)" in done.stdout and "weather_forecast" in done.stdout
    assert "broken.py: syntax error at line 1" in done.stdout


def test_a_tools_dir_that_is_not_a_folder_is_reported(tmp_path):
    done = ankit(tmp_path, "tools", "--tools-dir", str(tmp_path / "typo"))
    assert f"--tools-dir {tmp_path / 'typo'} is not a folder; check the path" in done.stdout


def test_tools_check_passes_over_the_bundled_catalog(tmp_path):
    done = ankit(tmp_path, "tools", "check")
    assert done.returncode == 0, done.stdout
    assert "examples rank their tool in the top 3" in done.stdout


def test_tools_check_reports_an_example_that_misses(tmp_path):
    extra = tmp_path / "mytools"
    extra.mkdir()
    (extra / "odd.py").write_text(
        "name = 'odd_tool'\ndescription = 'Frobnicate the widget.'\nparameters = {}\n"
        "examples = ['what time is it in Tokyo']\ndef run(args, ctx):\n    return ''\n")
    done = ankit(tmp_path, "tools", "check", "--tools-dir", str(extra))
    assert done.returncode == 1
    assert "odd_tool: example 'what time is it in Tokyo' does not rank it in the top 3" in done.stdout


def test_skills_from_claude_folder_load_unchanged(tmp_path):
    folder = tmp_path / "home" / ".claude" / "skills" / "pdf-forms"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_bytes(SKILL.replace("\n", "\r\n").encode("utf-8-sig"))
    (folder / "reference.md").write_text("details")
    listing = ankit(tmp_path, "skills")
    assert listing.returncode == 0 and "pdf-forms" in listing.stdout and "review-commit" in listing.stdout
    shown = ankit(tmp_path, "skills", "show", "PDF-FORMS")
    assert shown.stdout.startswith("# Skill: pdf-forms") and "reference.md" in shown.stdout
    missing = ankit(tmp_path, "skills", "show", "nope")
    assert missing.returncode == 1 and "pdf-forms" in missing.stdout


def test_mcp_list_shows_servers_and_their_tools(tmp_path):
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True)
    server = ROOT / "tests" / "mcp_fake_server.py"
    (config / "config.toml").write_text(
        f"[mcp.servers.fake]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(server))}]\n"
        "[mcp.servers.missing]\ncommand = \"no-such-mcp-server\"\n")
    done = ankit(tmp_path, "mcp", "list")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("fake: running") for line in lines)
    assert any("mcp__fake__echo" in line for line in lines)
    assert any(line.startswith("missing: failed") and "no-such-mcp-server" in line for line in lines)


def test_mcp_list_without_servers_says_how_to_add_one(tmp_path):
    assert "[mcp.servers.NAME]" in ankit(tmp_path, "mcp", "list").stdout


def test_usage_and_sessions_after_a_one_shot_run(provider_server, tmp_path):
    assert ankit(tmp_path, "sessions").stdout.strip() == "no saved sessions yet"
    provider_server.push("openai_usage_cached.sse")
    assert ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "count my tokens").returncode == 0
    sessions = ankit(tmp_path, "sessions").stdout
    assert "count my tokens" in sessions and "  1 turn  " in sessions
    usage = ankit(tmp_path, "usage").stdout
    assert "today" in usage and "all time" in usage


def test_unknown_provider_is_one_line(tmp_path):
    done = ankit(tmp_path, "--provider", "nope", "-p", "x")
    assert done.returncode == 1
    assert done.stderr.strip() == "ankit: unknown provider 'nope'; choose one of: anthropic, openai, github, openrouter, ollama, local"
