"""Subagents: the task tool runs a sub-session against the loopback provider, in a context of its own."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import fixture_parts, openai_sse
from tests.test_oneshot import ankit, env_for
from tests.test_repl import home, run  # noqa: F401  (pytest fixtures)


def sessions(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "state" / "ankit" / "sessions").glob("*.jsonl"))


def test_a_task_call_gets_an_answer_made_in_a_separate_context(provider_server, tmp_path):
    task = json.dumps({"description": "count the notes", "prompt": "How many lines does notes.txt have?"})
    provider_server.push_openai(tool_calls=[("c1", "task", task)])
    provider_server.push_openai(text="notes.txt has 3 lines.", usage={"prompt_tokens": 50, "completion_tokens": 7,
                                                                       "total_tokens": 57})
    provider_server.push_openai(text="The subagent says 3.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "secret main question: use a subagent")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "The subagent says 3.\n"
    sub = provider_server.requests[1].json["messages"]
    assert [m["role"] for m in sub] == ["system", "user"]
    assert sub[1]["content"] == "How many lines does notes.txt have?"
    assert "subagent of ankit" in sub[0]["content"] and "secret main question" not in json.dumps(sub)
    names = [t["function"]["name"] for t in provider_server.requests[1].json.get("tools", [])]
    assert "find_tools" in names and "task" not in names
    back = provider_server.requests[2].json["messages"]
    assert back[-1]["role"] == "tool" and back[-1]["content"] == "notes.txt has 3 lines."
    lines = [json.loads(line) for line in sessions(tmp_path)[0].read_text().splitlines()]
    run = next(line for line in lines if line["type"] == "subagent")
    assert run["description"] == "count the notes" and run["answer"] == "notes.txt has 3 lines."
    assert [m["role"] for m in run["messages"]] == ["user", "assistant"]
    assert run["rounds"][0]["usage"]["output_tokens"] == 7


def test_a_named_agent_brings_its_system_prompt_tools_and_model(provider_server, tmp_path):
    agents = tmp_path / "config" / "ankit" / "agents"
    agents.mkdir(parents=True)
    agents.joinpath("reviewer.md").write_text("---\nname: reviewer\ndescription: Reviews code.\ntools: Read, git_log\n"
                                              "model: review-model\n---\nYou review code and never edit.\n")
    task = json.dumps({"description": "review", "prompt": "Review main.py", "agent": "reviewer"})
    provider_server.push_openai(tool_calls=[("c1", "task", task)])
    provider_server.push_openai(text="Looks fine.")
    provider_server.push_openai(text="The reviewer says it looks fine.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "review it")
    assert done.returncode == 0, done.stderr
    sub = provider_server.requests[1].json
    assert sub["model"] == "review-model"
    assert sub["messages"][0]["content"].startswith("You review code and never edit.")
    assert sorted(t["function"]["name"] for t in sub["tools"]) == ["git_log", "read_file"]
    [task_tool] = [t for t in provider_server.requests[2].json["tools"] if t["function"]["name"] == "task"]
    assert "- reviewer: Reviews code." in task_tool["function"]["description"]


def test_an_unknown_agent_is_an_error_result_the_model_reads(provider_server, tmp_path):
    task = json.dumps({"description": "x", "prompt": "do it", "agent": "nobody"})
    provider_server.push_openai(tool_calls=[("c1", "task", task)])
    provider_server.push_openai(text="No such agent.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "go")
    assert done.returncode == 0, done.stderr
    result = provider_server.requests[1].json["messages"][-1]["content"]
    assert result.startswith("Error: no agent named 'nobody' (named agents: none are defined)")


def test_two_task_calls_of_one_reply_run_at_once(provider_server, tmp_path):
    from tests.helpers import wait_for
    calls = [("c1", "task", json.dumps({"description": "one", "prompt": "first task"})),
             ("c2", "task", json.dumps({"description": "two", "prompt": "second task"}))]
    gate = provider_server.gate()
    provider_server.push_openai(tool_calls=calls)
    provider_server.push(fixture_parts(openai_sse(text="answer A")), delay=gate)  # held until both have asked
    provider_server.push_openai(text="answer B")
    provider_server.push_openai(text="Both done.")
    work = tmp_path / "work"
    work.mkdir()
    process = subprocess.Popen([sys.executable, "-m", "ankit", "--base-url", provider_server.url + "/v1", "-p", "go"],
                               cwd=work, env=env_for(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        both = wait_for(lambda: len(provider_server.requests) >= 3, timeout=30)
        gate.set()
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert both, "the second subagent did not ask while the first waited: the task calls ran one after the other"
    assert process.returncode == 0, err
    prompts = sorted(r.json["messages"][1]["content"] for r in provider_server.requests[1:3])
    assert prompts == ["first task", "second task"]
    results = [m for m in provider_server.requests[3].json["messages"] if m["role"] == "tool"]
    assert sorted(m["content"] for m in results) == ["answer A", "answer B"]
    assert [m["tool_call_id"] for m in results] == ["c1", "c2"] and out == "Both done.\n"


def test_progress_of_task_calls_run_at_once_stays_in_each_call_s_own_block(run, provider_server, home):
    from tests.helpers import wait_for
    calls = [("c1", "task", json.dumps({"description": "one", "prompt": "first task"})),
             ("c2", "task", json.dumps({"description": "two", "prompt": "second task"}))]
    gate = provider_server.gate()
    provider_server.push_openai(tool_calls=calls)
    provider_server.push(fixture_parts(openai_sse(text="answer A")), delay=gate)  # one: held until two has worked
    provider_server.push_openai(tool_calls=[("s1", "list_directory", json.dumps({"path": "."}))])  # two: a tool
    provider_server.push_openai(text="answer B")
    provider_server.push_openai(text="Both done.")
    term = run()
    term.line("go")
    worked = wait_for(lambda: len(provider_server.requests) >= 4, timeout=30)  # two asked again after its tool
    gate.set()
    term.expect("Both done.")
    assert worked and term.finish() == 0
    blocks, current = {}, None  # each progress line [LABEL] under the task line it was shown in
    for line in term.seen.splitlines():
        found = re.search(r'task\(description="(\w+)"', line)
        current = found.group(1) if found else current
        label = re.match(r"\s+\[(\w+)\]", line)
        if label:
            blocks.setdefault(current, set()).add(label.group(1))
    assert blocks == {"one": {"one"}, "two": {"two"}}, term.seen  # never inside the other call's block
    assert "· list_directory" in term.seen


def test_the_question_names_the_subagent(tmp_path):
    import threading
    from ankit.turn.subagents import NamedApprover
    seen = []
    ask = NamedApprover(lambda tool, args, preview: seen.append(preview) or True, "fix the tests", threading.Lock())
    assert ask(None, {"path": "a.txt"}, "") is True
    assert seen == ['NOTE: asked by the subagent \'fix the tests\'\n{\n  "path": "a.txt"\n}']


def test_ctrl_c_stops_subagents_running_at_once_without_waiting_for_them(run, provider_server, home):
    calls = [("c1", "task", json.dumps({"description": "one", "prompt": "first task"})),
             ("c2", "task", json.dumps({"description": "two", "prompt": "second task"}))]
    provider_server.push_openai(tool_calls=calls)
    for _ in range(2):  # both subagents get the start of a reply, then silence
        provider_server.push(fixture_parts(openai_sse(text="Thinking about it"))[:2] + ["stall"])
    provider_server.push_openai(text="Going on.")
    term = run()
    term.line("do both")
    from tests.helpers import wait_for
    assert wait_for(lambda: len(provider_server.requests) >= 3, timeout=30)  # both subagents are waiting
    term.type("\x03")
    term.expect("cancelled")
    term.line("go on")
    term.expect("Going on.")
    assert term.finish() == 0
    sent = provider_server.requests[3].json["messages"]
    assert [m["role"] for m in sent[1:]] == ["user", "assistant", "tool", "tool", "user"]


def test_a_subagent_runs_a_program_whose_calls_go_through_its_own_tools(provider_server, tmp_path):
    config = tmp_path / "config" / "ankit"
    (config / "agents").mkdir(parents=True)
    (config / "config.toml").write_text('code_mode = "on"\ncode_mode_max_calls = 3\n')
    (config / "agents" / "reader.md").write_text("---\nname: reader\ndescription: Reads.\ntools: Read, run_code\n---\nRead.\n")
    (tmp_path / "work").mkdir()
    for name in ("a", "b", "c"):
        (tmp_path / "work" / f"{name}.json").write_text(json.dumps({"n": ord(name)}))
    code = ("import json, tools\nprint(hasattr(tools, 'write_file'))\n"
            "try:\n    tools.call('write_file', path='x.txt', content='no')\n"
            "except tools.ToolError as exc:\n    print('no:', type(exc).__name__)\n"
            "total = 0\nfor name in 'abc':\n    try:\n"
            "        total += json.loads(tools.read_file(name + '.json'))['n']\n"
            "    except tools.LimitReached as exc:\n        print('limit:', exc)\n"
            "print(total)\n")
    task = json.dumps({"description": "sum", "prompt": "Sum the numbers.", "agent": "reader"})
    provider_server.push_openai(tool_calls=[("c1", "task", task)])
    provider_server.push_openai(tool_calls=[("s1", "run_code", json.dumps({"code": code}))])
    provider_server.push_openai(text="The sum is 195.")
    provider_server.push_openai(text="The subagent says 195.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--yes", "-p", "go")
    assert done.returncode == 0, done.stderr
    sub = sorted(t["function"]["name"] for t in provider_server.requests[1].json["tools"])
    assert sub == ["read_file", "run_code"]
    printed = provider_server.requests[2].json["messages"][-1]["content"].splitlines()
    assert printed[:2] == ["False", "no: ToolError"]  # write_file is not its tool: unbound, and refused by name
    assert printed[2].startswith("limit: this program made more than 3 tool calls")  # the limits hold for it
    assert printed[3] == str(ord("a") + ord("b"))
    assert not (tmp_path / "work" / "x.txt").exists()
    lines = [json.loads(line) for line in sessions(tmp_path)[0].read_text().splitlines()]
    run = next(line for line in lines if line["type"] == "subagent")
    inner = [r["inner"] for m in run["messages"] for r in m.get("results", []) if r.get("inner")]
    assert inner == [['write_file(path="x.txt", content="no") (error)', 'read_file(path="a.json")',
                      'read_file(path="b.json")']]  # kept with its run; the call past the limit never ran


FIXTURES = Path(__file__).parent / "fixtures" / "claude_code"


def test_a_real_agent_with_an_alias_runs_on_that_family_and_its_unknown_tools_are_told_once(provider_server, tmp_path):
    """wshobson's team-debugger (model: opus; Claude Code's team tools) from a subfolder of ~/.claude/agents/."""
    folder = tmp_path / "home" / ".claude" / "agents" / "agent-teams"
    folder.mkdir(parents=True)
    shutil.copy(FIXTURES / "wshobson" / "agent-teams" / "agents" / "team-debugger.md", folder)
    task = json.dumps({"description": "debug", "prompt": "Why does main.py crash?", "agent": "team-debugger"})
    provider_server.push_openai(tool_calls=[("c1", "task", task)])
    provider_server.push_openai(text="A typo.")
    provider_server.push_openai(text="It is a typo.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--model", "claude-sonnet-5-5", "-p", "debug")
    assert done.returncode == 0, done.stderr
    sub = provider_server.requests[1].json
    assert sub["model"] == "claude-opus-5-5" and provider_server.requests[0].json["model"] == "claude-sonnet-5-5"
    assert sorted(t["function"]["name"] for t in sub["tools"]) == ["find_files", "read_file", "run_command",
                                                                   "search_text"]
    assert done.stderr.count("TaskList, TaskGet, TaskUpdate, SendMessage are not a tool here and left out") == 1


def test_an_alias_the_provider_has_no_family_for_runs_on_the_session_model_said_in_one_line(run, provider_server,
                                                                                          home):
    agents = home / "config" / "ankit" / "agents"
    agents.mkdir(parents=True)
    agents.joinpath("scout.md").write_text("---\nname: scout\ndescription: Looks around.\ntools: Read, find_tools\n"
                                           "model: haiku\n---\nYou look around.\n")
    task = json.dumps({"description": "look", "prompt": "Look around", "agent": "scout"})
    provider_server.push_openai(tool_calls=[("c1", "task", task)])
    provider_server.push_openai(text="Seen.")
    provider_server.push_openai(text="Done.")
    term = run()  # the session's model is gpt-4o
    term.line("/agents")
    term.expect("tools: find_tools, read_file and what find_tools finds")
    term.expect("model: gpt-4o (haiku: the session's model; no haiku model here)")
    term.line("look")
    term.expect("[look] ankit: the agent scout: model 'haiku' is a Claude family and gpt-4o has none: it runs on "
                "the session's model")
    term.expect("Done.")
    assert term.finish() == 0
    sub = provider_server.requests[1].json
    assert sub["model"] == "gpt-4o"
    assert sorted(t["function"]["name"] for t in sub["tools"]) == ["find_tools", "read_file"]


def test_a_subagent_calls_a_tool_and_its_steps_are_shown_as_progress_lines(run, provider_server, home):
    """Every other scripted subagent answers in text: this one reads a file first, seen on screen as it goes."""
    (home / "work" / "notes.txt").write_text("one\ntwo\nthree\n")
    task = json.dumps({"description": "count the notes", "prompt": "How many lines does notes.txt have?"})
    provider_server.push_openai(tool_calls=[("c1", "task", task)])
    provider_server.push_openai(tool_calls=[("s1", "read_file", json.dumps({"path": "notes.txt"}))])
    provider_server.push_openai(text="notes.txt has 3 lines.")
    provider_server.push_openai(text="The subagent says 3.")
    term = run()
    term.line("use a subagent")
    term.expect("[count the notes] started")
    term.expect('[count the notes] · read_file {"path": "notes.txt"}')
    term.expect("[count the notes] done: ")
    term.expect("The subagent says 3.")
    assert term.finish() == 0
    read = provider_server.requests[2].json["messages"]
    assert read[-1]["role"] == "tool" and "three" in read[-1]["content"]
    assert provider_server.requests[3].json["messages"][-1]["content"] == "notes.txt has 3 lines."


KEY = "sk-test-0123456789abcdefghijklmnop"


def test_a_subagent_answer_carrying_a_secret_reaches_no_model_screen_or_file(provider_server, tmp_path):
    task = json.dumps({"description": "leak", "prompt": "find the key"})
    provider_server.push_openai(tool_calls=[("c1", "task", task)])
    provider_server.push_openai(tool_calls=[("s1", "get_time", json.dumps({"note": f"\x1b]0;{KEY}\x07"}))])
    provider_server.push_openai(text=f"The key is {KEY} \x1b[2J\x1b]8;;http://evil\x07click\x1b]8;;\x07")
    provider_server.push_openai(text="Done.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "go", OPENAI_API_KEY=KEY,
                 ANKIT_API_KEY=KEY)
    assert done.returncode == 0, done.stderr
    back = provider_server.requests[3].json["messages"][-1]["content"]
    assert KEY not in back and "[redacted]" in back and "\x1b" not in back, back
    assert KEY not in done.stdout + done.stderr and "\x1b" not in done.stderr, done.stderr
    saved = "".join(p.read_text() for p in sessions(tmp_path))
    run = next(json.loads(line) for line in saved.splitlines() if json.loads(line)["type"] == "subagent")
    assert KEY not in saved and run["answer"].startswith("The key is [redacted] ^[[2J^[]8;;http://evil^Gclick")
