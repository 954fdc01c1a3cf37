"""Whole transcripts, compared exactly with golden files in tests/fixtures/golden/: the first request's system
prompt and tools for a fixed folder, skills and tools, and the stdout and stderr of a scripted `ankit -p` run.

A change to any of them (a prompt's wording, a tool's description, a line ankit prints) shows up as a diff.
When the change is meant, write the golden files anew and read the diff before committing it:

    ANKIT_GOLDEN=write python3 -m pytest -q tests/test_transcript.py && git diff tests/fixtures/golden
"""

import json
import os
from pathlib import Path

import pytest

from tests.test_oneshot import ankit

GOLDEN = Path(__file__).parent / "fixtures" / "golden"
SKILL = "---\nname: {name}\ndescription: {description}\n---\n\n1. Do the thing.\n"


def check(name: str, text: str) -> None:
    """text must equal the golden file, byte for byte; with ANKIT_GOLDEN=write it becomes the golden file."""
    path = GOLDEN / name
    if os.environ.get("ANKIT_GOLDEN") == "write":
        path.write_text(text, encoding="utf-8")
    again = "if the change is meant: ANKIT_GOLDEN=write python3 -m pytest -q tests/test_transcript.py"
    assert path.exists(), f"no golden file {path}; {again}"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from its golden file; {again}"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A working folder with project instructions, two project skills and a file to read."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("the answer is 42\n")
    (work / "AGENTS.md").write_text("Run the tests with make test.\n")
    for name, description in [("release-notes", "Write release notes from the git log since the last tag."),
                              ("triage", "Sort new issues by area and urgency.")]:
        (work / ".ankit" / "skills" / name).mkdir(parents=True)
        (work / ".ankit" / "skills" / name / "SKILL.md").write_text(SKILL.format(name=name, description=description))
    return tmp_path


def run(folder: Path, server, *args: str):
    # the same prompt on every machine, with a sandbox or without one (the sandbox's lines: tests/test_sandbox.py)
    done = ankit(folder, "--base-url", server.url + "/v1", "--model", "gpt-4o", "--sandbox", "off", *args)
    work = str(folder / "work")
    return done, done.stdout.replace(work, "<work>"), done.stderr.replace(work, "<work>")


def test_the_first_request_carries_exactly_the_golden_system_prompt_and_tools(folder, provider_server):
    provider_server.push_openai(text="ok")
    done, _, _ = run(folder, provider_server, "-p", "hello")
    assert done.returncode == 0, done.stderr
    body = provider_server.requests[0].json
    system = body["messages"][0]
    assert system["role"] == "system"
    check("system_prompt.txt", system["content"].replace(str(folder / "work"), "<work>"))
    check("tools.json", json.dumps(body["tools"], indent=1, ensure_ascii=False) + "\n")


def test_a_scripted_run_prints_exactly_the_golden_stdout_and_stderr(folder, provider_server):
    provider_server.push_openai(tool_calls=[("call_1", "read_file", '{"path": "notes.txt"}')])
    # a missing file whose message names no folder: a line naming the temporary folder is cut where its length says
    provider_server.push_openai(tool_calls=[("call_2", "read_file", '{"path": "missing.txt"}')])
    provider_server.push_openai(text="Your notes say the answer is 42.")
    done, stdout, stderr = run(folder, provider_server, "-p", "what do my notes say?")
    assert done.returncode == 0, done.stderr
    check("oneshot_stdout.txt", stdout)
    check("oneshot_stderr.txt", stderr)


def test_a_code_mode_run_prints_its_inner_calls_as_golden_lines(folder, provider_server):
    config = folder / "config" / "ankit"
    config.mkdir(parents=True)
    (config / "config.toml").write_text('code_mode = "on"\ncode_mode_catalog = "none"\n')
    code = ("import tools\nprint(tools.read_file(path='notes.txt').splitlines()[0])\n"
            "try:\n    tools.read_file(path='missing/notes.txt')\nexcept tools.ToolError as exc:\n    print('no:', type(exc).__name__)\n")  # not the message: it names the folder, whose length varies
    provider_server.push_openai(tool_calls=[("call_1", "run_code", json.dumps({"code": code}))])
    provider_server.push_openai(text="Your notes say the answer is 42.")
    done, stdout, stderr = run(folder, provider_server, "--yes", "-p", "what do my notes say?")
    assert done.returncode == 0, done.stderr
    check("codemode_stderr.txt", stderr)
    system = provider_server.requests[0].json["messages"][0]["content"].replace(str(folder / "work"), "<work>")
    check("codemode_system_prompt.txt", system)
    result = provider_server.requests[1].json["messages"][-1]["content"]
    check("codemode_result.txt", result.replace(str(folder / "work"), "<work>"))
