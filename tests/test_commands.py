"""Subcommands as a user runs them: real subprocesses with their own XDG folders."""

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers import pids_started, process_gone, stubborn_server
from ankit.safety.sandbox import Sandbox
from tests.test_oneshot import ankit, env_for

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


def test_tools_check_over_the_bundled_catalog_passes(tmp_path):
    # every bundled example ranks its tool in the top 3 (seven missed before the tools had phrases and the refit)
    done = ankit(tmp_path, "tools", "check")
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[-1] == "all 137 examples rank their tool in the top 3 (46 tools)"


def test_tools_check_shows_a_start_up_notice_that_is_no_failure(tmp_path):
    # run from the folder that holds the home folder: no workspace sandbox there, which is no fault of the tools
    done = subprocess.run([sys.executable, "-m", "ankit", "tools", "check", "--sandbox", "workspace"], cwd=tmp_path,
                          text=True, capture_output=True, timeout=60, env=env_for(tmp_path))
    lines = done.stdout.splitlines()
    assert lines[-1] == "all 137 examples rank their tool in the top 3 (46 tools)"  # the notice adds no failure
    assert done.returncode == 0
    if Sandbox.for_setting("workspace", tmp_path).machine.kind:
        assert lines[0] == (f"no workspace sandbox in {tmp_path}, which holds your home folder (commands could "
                            "change your shell's startup files): commands ask before they run")
    else:
        assert lines[0].startswith("no sandbox here (")


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


def test_skills_starts_no_mcp_server(tmp_path):
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True)
    record = tmp_path / "record.jsonl"
    server = ROOT / "tests" / "mcp_fake_server.py"
    (config / "config.toml").write_text(f"[mcp.servers.fake]\ncommand = {json.dumps(sys.executable)}\n"
                                        f"args = [{json.dumps(str(server))}, \"--record\", {json.dumps(str(record))}]\n")
    listing = ankit(tmp_path, "skills")
    assert listing.returncode == 0 and "review-commit" in listing.stdout
    assert not record.exists()  # listing skills needs no tool and no server


def test_mcp_list_shows_servers_and_their_tools(tmp_path):
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True)
    server = ROOT / "tests" / "mcp_fake_server.py"
    (config / "config.toml").write_text(
        f"[mcp.servers.fake]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(server))}]\n"
        "[mcp.servers.missing]\ncommand = \"no-such-mcp-server\"\n")
    done = ankit(tmp_path, "mcp", "list")
    assert done.returncode == 1, done.stderr  # a server failed
    lines = done.stdout.splitlines()
    assert any(line.startswith("fake: ready") for line in lines)
    assert any("mcp__fake__echo" in line for line in lines)
    assert any(line.startswith("missing: failed") and "no-such-mcp-server" in line for line in lines)


def test_mcp_list_with_a_server_that_never_answers_says_so_and_leaves_nothing_running(tmp_path):
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True)
    server = ROOT / "tests" / "mcp_fake_server.py"
    table = stubborn_server(tmp_path, str(server), answers=False)
    (config / "config.toml").write_text(f"[mcp.servers.mute]\ncommand = \"/bin/sh\"\nargs = {json.dumps(table['args'])}\n"
                                        "start_timeout = 1\nstartup_timeout = 2\n")
    done = ankit(tmp_path, "mcp", "list")  # a listing waits the whole startup_timeout, so a slow server is listed
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("mute: failed: MCP server 'mute' did not answer initialize within 2s (log: ")
    assert all(process_gone(pid) for pid in pids_started(tmp_path))


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


def run_in(tmp_path, folder: str, *args):
    """ankit in tmp_path/FOLDER, sharing the XDG folders of tmp_path."""
    import subprocess
    from tests.test_oneshot import env_for
    cwd = tmp_path / folder
    cwd.mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-m", "ankit", *args], cwd=cwd, text=True, capture_output=True,
                          timeout=60, env=env_for(tmp_path))


def test_continue_picks_the_newest_session_of_this_folder(provider_server, tmp_path):
    url = provider_server.url + "/v1"
    for folder, words in (("alpha", "alpha question"), ("beta", "beta question")):
        provider_server.push_openai(text=f"{folder} answer")
        assert run_in(tmp_path, folder, "--base-url", url, "-p", words).returncode == 0
    provider_server.push_openai(text="going on")
    done = run_in(tmp_path, "alpha", "--base-url", url, "--continue", "-p", "and then?")
    assert done.returncode == 0, done.stderr
    assert [m["content"] for m in provider_server.requests[-1].json["messages"][1:]] == [
        "alpha question", "alpha answer", "and then?"]
    none = run_in(tmp_path, "gamma", "--base-url", url, "--continue", "-p", "hi")
    assert none.returncode == 1 and none.stderr.count("\n") == 1
    assert "no saved session started in this folder" in none.stderr and str(tmp_path / "gamma") in none.stderr
    listing = run_in(tmp_path, "gamma", "sessions").stdout.splitlines()
    assert len(listing) == 2  # the continued session was saved last; each line shows its folder
    assert listing[0].endswith("0/alpha  alpha question") and listing[1].endswith("0/beta  beta question")


def test_sessions_show_export_and_rm(provider_server, tmp_path):
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "a.txt").write_text("alpha ```code``` line\n")
    provider_server.push_openai(tool_calls=[("call_1", "read_file", '{"path": "a.txt"}')])
    provider_server.push_openai(text="It says \x1b[31malpha.")
    assert ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "read a.txt").returncode == 0
    sid = ankit(tmp_path, "sessions").stdout.split()[0]
    shown = ankit(tmp_path, "sessions", "show", sid[:15])
    assert shown.returncode == 0
    assert shown.stdout.startswith(f"session {sid}: read a.txt\nstarted ")
    assert "you:\nread a.txt" in shown.stdout and '  · read_file(path="a.txt")' in shown.stdout
    assert "alpha ```code``` line" in shown.stdout and "It says ^[[31malpha." in shown.stdout
    exported = ankit(tmp_path, "sessions", "export", sid, "out.md")
    assert exported.returncode == 0 and f"exported session {sid} to out.md" in exported.stdout
    markdown = (tmp_path / "work" / "out.md").read_text()
    assert markdown.startswith("# read a.txt\n") and "## You\n\nread a.txt" in markdown
    assert "````\n1\talpha ```code``` line\n" in markdown  # the fence outgrows the backticks inside
    again = ankit(tmp_path, "sessions", "export", sid, "out.md")
    assert again.returncode == 1 and "never overwritten" in again.stderr
    wrong = ankit(tmp_path, "sessions", "delete", sid)
    assert wrong.returncode == 1 and wrong.stderr.strip() == "ankit: usage: ankit sessions [show ID | rm ID | export ID [FILE.md]]"
    assert ankit(tmp_path, "sessions", "rm", sid).stdout.strip() == f"removed session {sid}"
    assert ankit(tmp_path, "sessions").stdout.strip() == "no saved sessions yet"
    gone = ankit(tmp_path, "sessions", "show", sid)
    assert gone.returncode == 1 and f"no session '{sid}'" in gone.stderr
