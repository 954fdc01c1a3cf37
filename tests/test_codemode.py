"""Code mode (ankit/codemode/bridge.py) as a user runs it: `ankit -p` and the REPL against the loopback provider,
programs run by a real Python child in the real sandbox, calling real tools on real files and a real MCP server."""

import json
import os
import sys
import time
from pathlib import Path

import pytest

from ankit.safety.sandbox import support
from tests.helpers import sleeps_left, wait_for
from tests.test_oneshot import ROOT, ankit
from tests.test_repl import QUESTION, home, run  # noqa: F401  (the pty fixtures)

SANDBOXED = pytest.mark.skipif(not support().kind, reason="this machine has no sandbox")
FAKE = ROOT / "tests" / "mcp_fake_server.py"


def configure(tmp_path: Path, text: str = "") -> None:
    """config.toml with code mode on, and whatever else the test needs."""
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('code_mode = "on"\n' + text)


def program(code: str, call_id: str = "c1") -> tuple:
    """A run_code call the model makes."""
    return (call_id, "run_code", json.dumps({"code": code}))


def answered(provider_server, code: str, *args: str, tmp_path: Path, **env) -> tuple[str, object]:
    """Run `ankit -p` where the model sends one program; what the model got back, and the run."""
    provider_server.push_openai(tool_calls=[program(code)])
    provider_server.push_openai(text="done")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--model", "gpt-4o", *args, "-p", "go", **env)
    assert done.returncode == 0, done.stderr
    tool = [m for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    return tool[-1]["content"], done


def test_a_program_reads_real_files_and_only_what_it_prints_reaches_the_model(provider_server, tmp_path):
    configure(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    for i in range(3):
        (work / f"part{i}.txt").write_text("line\n" * (i + 1))
    content, done = answered(provider_server, (
        "import tools\n"
        "total = 0\n"
        "for i in range(3):\n"
        "    text = tools.read_file(path=f'part{i}.txt')\n"
        "    total += text.count('line\\n')\n"
        "print('lines:', total, repr(tools.read_file('part1.txt')))\n"), tmp_path=tmp_path)
    assert content == "lines: 6 'line\\nline\\n'\n"  # the file's text, no numbers; nothing else reached the model
    assert len(provider_server.requests) == 2
    assert done.stderr.count("  · read_file(path=\"part") == 4  # each inner call has its line, as a direct one
    sessions = list((tmp_path / "state" / "ankit" / "sessions").glob("*.jsonl"))
    shown = ankit(tmp_path, "sessions", "show", _id(sessions[0]))
    assert shown.returncode == 0, shown.stderr
    assert '  ⎿ run_code:\n    · read_file(path="part0.txt")\n    · read_file(path="part1.txt")\n' in shown.stdout
    exported = ankit(tmp_path, "sessions", "export", _id(sessions[0])).stdout
    assert 'Calls from the program:\n\n- `read_file(path="part0.txt")`\n' in exported


def test_a_program_calls_tools_positionally_and_a_name_given_twice_is_refused(provider_server, tmp_path):
    configure(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("one\ntwo\nthree\n")
    content, _ = answered(provider_server, (
        "import tools\n"
        "print(repr(tools.read_file('a.txt')), repr(tools.read_file('a.txt', 2, 3)))\n"
        "try:\n"
        "    tools.read_file('a.txt', path='b.txt')\n"
        "except TypeError as exc:\n"
        "    print(exc)\n"
        "names = tools.names()\n"
        "print(len(names) > 30, 'read_file' in names, 'git_commit' in names, names == sorted(names))\n"
        "tools.help('git_commit')\n"), tmp_path=tmp_path)
    lines = content.splitlines()
    assert lines[0] == "'one\\ntwo\\nthree\\n' 'two\\nthree\\n'"  # start_line, end_line: as the signature orders
    assert lines[1] == "tools.read_file got 'path' twice"
    assert lines[2] == "True True True True"
    assert lines[3].startswith("def git_commit(message: str, paths: list[str] | None = None")
    assert "paths: " in content and "Returns " in content  # the whole description, each parameter's sentence


def test_a_program_parses_a_json_file_and_uses_a_listing_and_git_records(provider_server, tmp_path):
    import subprocess
    configure(tmp_path)
    work = tmp_path / "work"
    (work / "data").mkdir(parents=True)
    for name, size in (("a", 3), ("b", 7), ("c", 5)):
        (work / "data" / f"{name}.json").write_text(json.dumps({"name": name, "rows": list(range(size))}, indent=2))
    git = ["git", "-c", "user.name=Ann", "-c", "user.email=ann@example.com"]
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    subprocess.run(git + ["add", "."], cwd=work, check=True)
    subprocess.run(git + ["commit", "-qm", "data: three files"], cwd=work, check=True)
    (work / "new.txt").write_text("x")
    content, _ = answered(provider_server, (
        "import json, tools\n"
        "sizes = {}\n"
        "for path in tools.find_files('*.json'):\n"
        "    sizes[path] = len(json.loads(tools.read_file(path))['rows'])\n"
        "print(max(sizes, key=sizes.get), sorted(tools.list_directory('data')))\n"
        "log = tools.git_log()\n"
        "print(log[0]['author'], log[0]['subject'], tools.git_status()['files'])\n"
        "print(tools.search_text('\"b\"', 'data')[0]['path'])\n"), "--yes", tmp_path=tmp_path)
    assert content.splitlines() == [
        "data/b.json ['data/a.json', 'data/b.json', 'data/c.json']",
        "Ann data: three files [{'path': 'new.txt', 'staged': '?', 'unstaged': '?'}]",
        "data/b.json"]


def _id(path: Path) -> str:
    """A session's id, from the first line of its file."""
    return json.loads(path.read_text().splitlines()[0])["id"]


def test_results_are_python_data_where_the_tool_gives_data_and_mcp_tools_are_bound_unloaded(provider_server, tmp_path):
    configure(tmp_path, f"[mcp.servers.fake]\ncommand = {json.dumps(sys.executable)}\n"
                        f"args = [{json.dumps(str(FAKE))}]\nstart_timeout = 60\n")
    content, _ = answered(provider_server, (
        "import tools\n"
        "weather = tools.mcp__fake__structured()\n"
        "echo = tools.mcp__fake__echo(text='hi')\n"
        "print(type(weather).__name__, weather['temperature'], weather['sky'], type(echo).__name__, echo)\n"
        "tools.help('mcp__fake__structured')\n"), "--yes", tmp_path=tmp_path)
    assert content.splitlines()[0] == "dict 21.5 sunny str hi"  # the structured content, not the sentence
    assert "-> dict:" in content and "{'temperature', 'sky'}" in content  # its outputSchema gives the return type
    tools = {t["function"]["name"] for t in provider_server.requests[0].json["tools"]}
    assert "run_code" in tools and "mcp__fake__structured" not in tools  # never loaded, still callable


def test_a_call_a_rule_refuses_raises_inside_the_program_and_says_why(provider_server, tmp_path):
    configure(tmp_path, 'deny = ["write_file"]\n')
    content, _ = answered(provider_server, (
        "import tools\n"
        "try:\n"
        "    tools.write_file(path='x.txt', content='no')\n"
        "except tools.ToolRefused as exc:\n"
        "    print('refused:', exc)\n"), "--yes", tmp_path=tmp_path)
    assert content.startswith("refused: refused by the rule 'write_file'")
    assert not (tmp_path / "work" / "x.txt").exists()


def test_a_pretooluse_hook_sees_an_inner_call_and_can_block_it_under_yes(provider_server, tmp_path):
    hook = tmp_path / "hook.py"
    hook.write_text("import json, sys\n"
                    "event = json.load(sys.stdin)\n"
                    "open(sys.argv[1], 'a').write(event['tool_name'] + ' ' + json.dumps(event['tool_input']) + '\\n')\n"
                    "if event['tool_name'] == 'Write':\n"  # hooks see Claude Code's names
                    "    print('no writes from programs', file=sys.stderr)\n"
                    "    sys.exit(2)\n")
    seen = tmp_path / "seen.txt"
    configure(tmp_path, f"[[hooks.PreToolUse]]\nmatcher = \"read_file|write_file\"\n"
                        f"command = {json.dumps(f'{sys.executable} {hook} {seen}')}\n")
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "a.txt").write_text("a\n")
    content, _ = answered(provider_server, (
        "import tools\n"
        "tools.read_file(path='a.txt')\n"
        "try:\n"
        "    tools.write_file(path='b.txt', content='b')\n"
        "except tools.ToolRefused as exc:\n"
        "    print(exc)\n"), "--yes", tmp_path=tmp_path)
    assert content == "blocked by a PreToolUse hook: no writes from programs\n"
    work = tmp_path / "work"
    assert seen.read_text().splitlines() == [f'Read {{"file_path": "{work / "a.txt"}"}}',
                                             f'Write {{"file_path": "{work / "b.txt"}", "content": "b"}}']
    assert not (tmp_path / "work" / "b.txt").exists()


def test_p_refuses_an_inner_write_without_yes_and_runs_it_with_yes(provider_server, tmp_path):
    configure(tmp_path)
    code = ("import tools\n"
            "try:\n"
            "    print(tools.write_file(path='x.txt', content='yes\\n'))\n"
            "except tools.ToolRefused as exc:\n"
            "    print('refused:', exc)\n")
    content, _ = answered(provider_server, code, "--sandbox", "off", tmp_path=tmp_path)
    assert content.startswith("Error: the user declined") or "refused" in content  # run_code itself is asked
    assert not (tmp_path / "work" / "x.txt").exists()
    provider_server.requests.clear()
    content, _ = answered(provider_server, code, "--sandbox", "off", "--yes", tmp_path=tmp_path)
    assert "created x.txt" in content
    assert (tmp_path / "work" / "x.txt").read_text() == "yes\n"


@SANDBOXED
def test_p_in_the_workspace_sandbox_runs_the_program_unasked_but_asks_for_its_write(provider_server, tmp_path):
    configure(tmp_path)
    content, _ = answered(provider_server, (
        "import tools\n"
        "print(tools.get_time()[:5])\n"
        "try:\n"
        "    tools.write_file(path='x.txt', content='no')\n"
        "except tools.ToolRefused as exc:\n"
        "    print('refused:', exc)\n"), "--sandbox", "workspace", tmp_path=tmp_path)
    assert content.startswith("local") and "refused: the user declined this call" in content
    assert not (tmp_path / "work" / "x.txt").exists()


@SANDBOXED
def test_read_only_mode_refuses_an_inner_write_and_the_program_cannot_write_itself(provider_server, tmp_path):
    configure(tmp_path)
    content, _ = answered(provider_server, (
        "import tools, socket\n"
        "try:\n"
        "    tools.write_file(path='x.txt', content='no')\n"
        "except tools.ToolRefused as exc:\n"
        "    print('inner:', exc)\n"
        "try:\n"
        "    open('y.txt', 'w')\n"
        "except OSError as exc:\n"
        "    print('direct:', type(exc).__name__)\n"
        "try:\n"
        "    socket.create_connection(('127.0.0.1', 9), timeout=2)\n"
        "except OSError as exc:\n"
        "    print('network:', exc.errno)\n"), "--sandbox", "read-only", "--yes", tmp_path=tmp_path)
    lines = content.splitlines()
    assert lines[0].startswith("inner: write_file is refused in read-only plan mode")
    assert lines[1] == "direct: PermissionError" and lines[2] == "network: 1"
    assert not (tmp_path / "work" / "x.txt").exists() and not (tmp_path / "work" / "y.txt").exists()


@SANDBOXED
def test_the_program_gets_no_secret_from_the_environment_and_what_it_prints_is_scrubbed(provider_server, tmp_path):
    configure(tmp_path)
    key = "sk-proj-" + "a1b2c3d4" * 5
    content, done = answered(provider_server, (
        "import os\n"
        "print('env:', os.environ.get('MY_SERVICE_TOKEN'))\n"
        f"print('printed:', {key!r})\n"), "--sandbox", "workspace", "--yes", tmp_path=tmp_path,
        MY_SERVICE_TOKEN="hunter2-secret-value")
    assert content.startswith("env: None\nprinted: ") and key not in content
    assert key not in done.stdout + done.stderr


def test_limits_time_calls_output_and_memory(provider_server, tmp_path):
    configure(tmp_path, "code_mode_timeout = 2\ncode_mode_max_calls = 2\ncode_mode_output_cap = 200\n"
                        "code_mode_memory_mb = 256\n")
    content, _ = answered(provider_server, "while True:\n    pass\n", "--yes", tmp_path=tmp_path)
    assert content.startswith("Error: stopped: the program ran past code_mode_timeout (2 s")
    provider_server.requests.clear()
    content, _ = answered(provider_server, (
        "import tools\n"
        "for i in range(3):\n"
        "    try:\n"
        "        tools.get_time()\n"
        "    except tools.LimitReached as exc:\n"
        "        print(i, exc)\n"), "--yes", tmp_path=tmp_path)
    assert content.startswith("2 this program made more than 2 tool calls (code_mode_max_calls)")
    provider_server.requests.clear()
    content, _ = answered(provider_server, "print('a' * 100_000)\nprint('the end')\n", "--yes", tmp_path=tmp_path)
    assert len(content) < 400 and "characters cut" in content and content.endswith("the end\n")
    provider_server.requests.clear()
    content, _ = answered(provider_server, "block = bytearray(1024 * 1024 * 1024)\n", "--yes", tmp_path=tmp_path)
    assert content.startswith("Error: the program exited with code 1 (0 tool calls)") and "MemoryError" in content


def test_a_failing_program_returns_its_output_and_a_short_traceback(provider_server, tmp_path):
    configure(tmp_path)
    content, _ = answered(provider_server, "print('before')\ndef f():\n    return 1 / 0\nf()\n", "--yes",
                          tmp_path=tmp_path)
    assert content == ("Error: the program exited with code 1 (0 tool calls); it printed:\nbefore\n"
                       "Traceback (most recent call last, the program's lines):\n  line 4, in <module>\n    f()\n"
                       "  line 3, in f\n    return 1 / 0\nZeroDivisionError: division by zero\n")


def test_what_the_program_sends_on_the_pipe_is_data_and_bounded(provider_server, tmp_path):
    configure(tmp_path, "code_mode_timeout = 5\ncode_mode_max_calls = 5000\n")
    content, _ = answered(provider_server, (
        "import os, sys\n"
        "os.write(int(sys.argv[2]), b'{\"not\": \"a call\"}\\n')\n"
        "import time; time.sleep(30)\n"), "--yes", tmp_path=tmp_path)
    assert content.startswith("Error: stopped: the program wrote something other than a tool call")
    provider_server.requests.clear()
    content, _ = answered(provider_server, (
        "import os, sys\n"
        "os.write(int(sys.argv[2]), b'x' * (2 * 1024 * 1024))\n"), "--yes", tmp_path=tmp_path)
    assert content.startswith("Error: stopped: the program sent a tool call over 1,048,576 bytes")
    provider_server.requests.clear()
    content, _ = answered(provider_server, (  # calls whose answers it never reads
        "import json, os, sys, time\n"
        "for i in range(3000):\n"
        "    os.write(int(sys.argv[2]), json.dumps({'id': i, 'tool': 'get_time', 'args': {}}).encode() + b'\\n')\n"
        "time.sleep(60)\n"), "--yes", tmp_path=tmp_path)
    assert content.startswith("Error: stopped: the program did not read the answers to its tool calls")


def test_a_program_cannot_start_another_program(provider_server, tmp_path):
    configure(tmp_path)
    content, _ = answered(provider_server, (
        "import tools\n"
        "try:\n"
        "    tools.run_code(code='print(1)')\n"
        "except tools.ToolError as exc:\n"
        "    print(exc)\n"), "--yes", tmp_path=tmp_path)
    assert content == "run_code is not available here (a program cannot start another)\n"


def test_only_mode_sends_run_code_and_find_tools_alone_and_find_tools_answers_with_stubs(provider_server, tmp_path):
    configure(tmp_path)
    (tmp_path / "config" / "ankit" / "config.toml").write_text('code_mode = "only"\ncode_mode_catalog = "none"\n')
    provider_server.push_openai(tool_calls=[("c1", "find_tools", json.dumps({"query": "edit files"}))])
    provider_server.push_openai(text="done")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--model", "gpt-4o", "-p", "go")
    assert done.returncode == 0, done.stderr
    for request in provider_server.requests:
        assert sorted(t["function"]["name"] for t in request.json["tools"]) == ["find_tools", "run_code"]
    system = provider_server.requests[0].json["messages"][0]["content"]
    assert "Code mode: in a run_code program" in system and "\ncore: find_files, " in system  # names, grouped
    answer = provider_server.requests[1].json["messages"][-1]["content"]
    assert "```python\ndef write_file(path: str, content: str" in answer and "\ndef edit_file(" in answer
    assert "    path: " in answer  # the whole description with each parameter's first sentence: no schema is sent
    assert "not loaded yet: apply_patch" in answer and "def apply_patch(" not in answer  # the found tools' stubs
    assert "These tools can be called from your next step" not in answer


def test_the_approval_for_an_inner_call_is_shown_on_screen(run, provider_server, home):  # noqa: F811
    configure(home, "")
    provider_server.push_openai(tool_calls=[program(
        "import tools\nprint(tools.write_file(path='a.txt', content='from code\\n'))\n")])
    provider_server.push_openai(text="Written.")
    term = run("--sandbox", "workspace" if support().kind else "off")
    term.line("write a")
    if not support().kind:  # no sandbox: the program itself is asked first
        term.expect("run this Python program (outside a sandbox)")
        term.expect(QUESTION)
        term.answer("y")
    term.expect("write_file")
    term.expect(QUESTION)
    term.answer("y")
    term.expect("Written.")
    term.line("/usage")
    term.expect("run_code: 1 call")
    assert (home / "work" / "a.txt").read_text() == "from code\n"
    term.line("/undo")  # the program's write was kept for /undo, as a direct one is
    term.expect("undid the file changes of turn 1:")
    assert term.finish() == 0
    assert not (home / "work" / "a.txt").exists()
    tool = [m for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert tool[-1]["content"].startswith("created a.txt")


def test_ctrl_c_stops_the_program_and_everything_it_started(run, provider_server, home):  # noqa: F811
    configure(home, "")
    provider_server.push_openai(tool_calls=[program(
        "import os, subprocess\n"  # found from outside by what they run: the sandbox's /proc is its own
        "subprocess.Popen(['sleep', '1207'])\n"
        "print('started', flush=True)\n"
        "os.execvp('sleep', ['sleep', '1208'])\n")])  # the program itself, as `sleep 1208`
    provider_server.push_openai(text="Going on.")
    term = run("--sandbox", "workspace", "--yes")
    term.line("run it")
    term.expect("started")
    wait_for(lambda: sleeps_left("1207") and sleeps_left("1208"))
    term.type("\x03")
    term.expect("cancelled")
    deadline = time.monotonic() + 10
    while (sleeps_left("1207") or sleeps_left("1208")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not sleeps_left("1207") and not sleeps_left("1208")
    term.line("go on")
    term.expect("Going on.")
    assert term.finish() == 0
    assert "stopped by the user" in provider_server.requests[1].json["messages"][-2]["content"]


def test_on_mode_describes_each_found_tool_once_its_schema_and_a_call_line(provider_server, tmp_path):
    configure(tmp_path)
    provider_server.push_openai(tool_calls=[("c1", "find_tools", json.dumps({"query": "commit my changes"}))])
    provider_server.push_openai(text="done")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--model", "gpt-4o", "-p", "go")
    assert done.returncode == 0, done.stderr
    system = provider_server.requests[0].json["messages"][0]["content"]
    sent = {t["function"]["name"] for t in provider_server.requests[0].json["tools"]}
    finder = next(t for t in provider_server.requests[0].json["tools"] if t["function"]["name"] == "find_tools")
    assert "read_file" in sent and "git_commit" not in system  # no name twice: the schemas, then find_tools' list
    assert "\n- git: git_branch, git_commit, " in finder["function"]["description"]  # names alone, by group
    answer = provider_server.requests[1].json["messages"][-1]["content"]
    assert "tools.git_commit(message, paths, all) -> str: the new commit's hash" in answer
    assert "def git_commit(" not in answer and "git_commit" in {t["function"]["name"] for t in
                                                               provider_server.requests[1].json["tools"]}


@pytest.mark.parametrize("mode", ["on", "only"])
def test_a_find_tools_request_of_several_parts_loads_the_tool_of_each(provider_server, tmp_path, mode):
    configure(tmp_path)
    (tmp_path / "config" / "ankit" / "config.toml").write_text(f'code_mode = "{mode}"\n')
    query = "show the last commits and who made them, create a branch, commit"
    provider_server.push_openai(tool_calls=[("c1", "find_tools", json.dumps({"query": query}))])
    provider_server.push_openai(text="done")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--model", "gpt-4o", "-p", "go")
    assert done.returncode == 0, done.stderr
    answer = provider_server.requests[1].json["messages"][-1]["content"]
    sent = {t["function"]["name"] for t in provider_server.requests[1].json["tools"]}
    if mode == "on":
        assert {"git_log", "git_commit"} <= sent
        assert "tools.git_log(" in answer and "tools.git_commit(" in answer
    else:
        assert sent == {"find_tools", "run_code"}
        assert "def git_log(" in answer and "def git_commit(" in answer


def test_always_on_one_program_covers_that_program_text_only(run, provider_server, home):  # noqa: F811
    configure(home, "")
    outside = home / "outside.txt"
    provider_server.push_openai(tool_calls=[program("print('harmless')\n")])
    provider_server.push_openai(tool_calls=[program(f"open({str(outside)!r}, 'w').write('pwned')\n", "c2")])
    provider_server.push_openai(text="Done.")
    term = run("--sandbox", "off")
    term.line("go")
    term.expect("[a]lways covers: this exact run_code call only")
    term.expect(QUESTION)
    term.answer("a")
    term.expect("approved for the rest of this session: this exact run_code call only")
    term.expect("run this Python program (outside a sandbox)")  # another program: asked again
    term.expect(QUESTION)
    term.answer("n")
    term.expect("why not?")
    term.type("\r")
    term.expect("Done.")
    assert term.finish() == 0
    assert not outside.exists()


def test_a_program_outside_the_sandbox_is_refused_under_yes_where_a_command_rule_exists(provider_server, tmp_path):
    """Bash(touch:*) denied: under --yes with the sandbox off, `os.system('touch ...')` in a program would walk
    around the rule, which ankit cannot read in it; refused, as an unsure shell line is. In the sandbox it runs."""
    configure(tmp_path, 'sandbox = "off"\n')
    claude = tmp_path / "home" / ".claude"
    claude.mkdir(parents=True)
    (claude / "settings.json").write_text('{"permissions": {"deny": ["Bash(touch:*)"]}}')
    content, _ = answered(provider_server, "import os\nos.system('touch PWNED')\n", "--yes", tmp_path=tmp_path)
    assert content.startswith("Error: refused by the rule 'run_command: touch*'") and "cannot tell" in content, content
    assert not (tmp_path / "work" / "PWNED").exists()
