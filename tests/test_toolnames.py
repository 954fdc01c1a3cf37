"""The one table of Claude Code's tools (ankit/claude/toolnames.py): the docs show it as it is, and what a hook
sees of a call is what a Claude Code user would have run for the same effect."""

import json
import sys
from pathlib import Path

import pytest

from ankit.claude.toolnames import CLAUDE_NAMES, ROWS, SHELL_FORMS, claude_name, names, rule_tools, to_claude
from ankit.hooks.events import Hook, Hooks
from ankit.records import ToolCall, ToolResult
from ankit.tooling.toolbox import Runner, Tool, ToolContext

ROOT = Path(__file__).resolve().parent.parent


def _codes(items) -> str:
    return ", ".join(f"`{item}`" for item in dict.fromkeys(items)) or "none"


def guide_table() -> str:
    """The table `ankit help claude-code` shows, as the code has it."""
    lines = ["| Claude Code's tool | ankit's tools a hook sees under that name | `tool_input` keys "
             "| a matcher naming it also sees | a permission rule naming it binds |", "|---|---|---|---|---|"]
    for row in (r for r in ROWS if r.shown or r.rules):
        keys = [*row.keys.values(), *row.added]
        also = [t for t in row.matcher if t not in row.shown]
        lines.append(f"| `{row.name}` | {_codes(row.shown)} | {_codes(keys)} | {_codes(also)} "
                     f"| {_codes(rule_tools(row.name))} |")
    missing = [r.name for r in ROWS if not r.shown and not r.rules]
    return "\n".join(lines) + f"\n\nNo counterpart in ankit: {_codes(missing)}.\n"


def readme_table() -> str:
    """The README's short form: each Claude Code name and the ankit tools shown under it, two to a line."""
    cells = [(f"`{r.name}`", _codes(r.shown)) for r in ROWS if r.shown]
    lines = ["| Claude Code | ankit | Claude Code | ankit |", "|---|---|---|---|"]
    for left, right in zip(cells[::2], cells[1::2] + [("", "")]):
        lines.append(f"| {left[0]} | {left[1]} | {right[0]} | {right[1]} |")
    return "\n".join(lines) + "\n"


def test_the_guide_and_the_readme_show_the_code_table():
    assert guide_table() in (ROOT / "ankit" / "docs" / "claude-code.md").read_text()
    assert readme_table() in (ROOT / "README.md").read_text()


def test_hooks_rules_and_agents_read_the_same_rows():
    assert claude_name("apply_patch") == "Edit" and "Edit" in names("move_file") and "Bash" in names("move_file")
    assert set(rule_tools("Edit")) >= {"apply_patch", "move_file"} and rule_tools("NotebookEdit") == ()
    assert CLAUDE_NAMES["Bash"] == "run_command" and CLAUDE_NAMES["MultiEdit"] == "edit_file"
    # a tool shown under a name is bound by a rule naming it, but for Bash's shell forms (a Bash rule's pattern
    # is a command line, which delete_file's arguments are not)
    assert [t for row in ROWS for t in row.shown if t not in rule_tools(row.name)] == list(SHELL_FORMS)


def test_a_folder_delete_is_shown_as_rm_rf_and_a_new_branch_as_git_switch_c(tmp_path):
    assert to_claude("delete_file", {"path": "build", "recursive": True}, tmp_path)[1]["command"] == "rm -rf -- build"
    assert to_claude("delete_file", {"path": "a.txt"}, tmp_path)[1]["command"] == "rm -- a.txt"
    assert to_claude("git_branch", {"action": "create", "name": "fix"}, tmp_path)[1]["command"] == "git switch -c fix"


def guarded(tmp_path: Path, body: str, matcher: str = "Bash") -> Hooks:
    """A real PreToolUse hook script run as its own process: it sees the event on stdin and logs each tool_input."""
    log = tmp_path / "seen.jsonl"
    path = tmp_path / "guard.py"
    path.write_text("import json, sys\nevent = json.load(sys.stdin)\ninp = event['tool_input']\n"
                    f"open({str(log)!r}, 'a').write(json.dumps([event['tool_name'], inp]) + '\\n')\n" + body)
    return Hooks([Hook("PreToolUse", f"{sys.executable} {path}", matcher)], tmp_path)


def seen(tmp_path: Path) -> list:
    return [json.loads(line) for line in (tmp_path / "seen.jsonl").read_text().splitlines()]


def recording(tool: str, ran: list, **properties) -> Tool:
    """A tool that records the arguments it ran with."""
    return Tool(tool, "T.", {"type": "object", "properties": properties}, lambda args: ran.append(args) or "done",
                group="shell", needs_approval=True)


def run(hooks: Hooks, tool: Tool, arguments: dict) -> ToolResult:
    runner = Runner({tool.name: tool}, ToolContext(cwd=hooks.cwd), lambda tool, args, preview: True, hooks=hooks)
    return runner.run(ToolCall("c1", tool.name, json.dumps(arguments)))


COMMAND = {"command": {"type": "string"}, "timeout": {"type": "integer"}, "sandbox": {"type": "boolean"}}
BLOCK_NEW_BRANCH = ("import re\nif re.search(r'git (switch -c|checkout -b) ', inp.get('command', '')):\n"
                    "    sys.stderr.write('no new branches'); sys.exit(2)\n")


def test_a_bash_guard_sees_the_branch_tool_as_git_switch_c_and_stops_it(tmp_path):
    ran = []
    branch = recording("git_branch", ran, action={"type": "string"}, name={"type": "string"})
    result = run(guarded(tmp_path, BLOCK_NEW_BRANCH), branch, {"action": "create", "name": "hotfix"})
    assert result.content == "Error: blocked by a PreToolUse hook: no new branches" and ran == []
    assert seen(tmp_path) == [["Bash", {"action": "create", "name": "hotfix", "command": "git switch -c hotfix"}]]
    assert run(guarded(tmp_path, BLOCK_NEW_BRANCH), branch, {"action": "switch", "name": "main"}).content == "done"


def test_a_guard_sees_dangerously_disable_sandbox_only_for_an_unsandboxed_command(tmp_path):
    body = ("if inp.get('dangerouslyDisableSandbox'):\n"
            "    sys.stderr.write('only sandboxed commands'); sys.exit(2)\n")
    ran = []
    tool = recording("run_command", ran, **COMMAND)
    refused = run(guarded(tmp_path, body), tool, {"command": "make", "sandbox": False})
    assert refused.content == "Error: blocked by a PreToolUse hook: only sandboxed commands" and ran == []
    assert run(guarded(tmp_path, body), tool, {"command": "make"}).content == "done" and ran == [{"command": "make"}]
    assert [inp.get("dangerouslyDisableSandbox") for _, inp in seen(tmp_path)] == [True, None]


@pytest.mark.parametrize("given, wanted, runs", [({"sandbox": False}, False, True), ({}, True, False)])
def test_updated_input_sets_the_sandbox_either_way(tmp_path, given, wanted, runs):
    body = ("print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', "
            f"'updatedInput': dict(inp, dangerouslyDisableSandbox={wanted})}}}}))\n")
    ran = []
    assert run(guarded(tmp_path, body), recording("run_command", ran, **COMMAND), {"command": "make", **given}).content == "done"
    assert ran == [{"command": "make", "sandbox": runs}]


@pytest.mark.parametrize("milliseconds, seconds", [(60000, 60), (1500, 2)])
def test_updated_input_adds_a_timeout_the_call_lacked_in_seconds(tmp_path, milliseconds, seconds):
    body = ("print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', "
            f"'updatedInput': dict(inp, timeout={milliseconds})}}}}))\n")
    ran = []
    assert run(guarded(tmp_path, body), recording("run_command", ran, **COMMAND), {"command": "make"}).content == "done"
    assert ran == [{"command": "make", "timeout": seconds}]
    assert seen(tmp_path) == [["Bash", {"command": "make"}]]


def test_a_timeout_is_shown_in_milliseconds_and_an_unchanged_one_comes_back_as_it_was(tmp_path):
    body = "print(json.dumps({'hookSpecificOutput': {'updatedInput': dict(inp, description='build it')}}))\n"
    ran = []
    tool = recording("run_command", ran, reason={"type": "string"}, **COMMAND)
    assert run(guarded(tmp_path, body), tool, {"command": "make", "timeout": 90}).content == "done"
    assert seen(tmp_path) == [["Bash", {"command": "make", "timeout": 90000}]]
    assert ran == [{"command": "make", "timeout": 90, "reason": "build it"}]


def test_updated_input_is_the_whole_input_so_a_key_left_out_is_dropped(tmp_path):
    body = ("inp.pop('dangerouslyDisableSandbox'); inp.pop('timeout')\n"
            "print(json.dumps({'hookSpecificOutput': {'updatedInput': inp}}))\n")
    ran = []
    tool = recording("run_command", ran, **COMMAND)
    assert run(guarded(tmp_path, body), tool, {"command": "make", "timeout": 90, "sandbox": False}).content == "done"
    assert ran == [{"command": "make"}]  # in the sandbox again, with the default time limit
