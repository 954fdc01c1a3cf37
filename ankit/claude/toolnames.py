"""Claude Code's tools and ankit's: the one table of their names and input keys, read by hooks (what a hook sees
and what its matcher covers), permission rules (what `Read(...)` or `Bash(...)` binds, claude/settings.py),
agent files (`tools: Read, Bash`) and the docs (a test holds `ankit help claude-code` and the README to it).

A hook written for Claude Code tests `tool_name == "Bash"` and reads `tool_input.command` or
`tool_input.file_path` (an absolute path). Each ankit tool with a Claude Code counterpart is shown to hooks
under that name with Claude Code's input keys and `tool_response` shape; `updatedInput` is mapped back. Keys
without a counterpart pass through under ankit's name. Claude Code deletes, moves and makes folders with Bash,
so ankit's delete_file, move_file and make_directory are shown as the Bash command a Claude Code user would run
(`rm -rf -- build`): a guard hook stops them as it would there. A tool without a counterpart keeps its name (the
file tools among them get `file_path`), and a matcher naming what it does covers it too (an `Edit|Write`
matcher sees deletes and moves, a `BashOutput` matcher sees job_status).
"""

import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path

SHELL_FORMS = ("delete_file", "move_file", "make_directory", "job_input", "git_commit", "git_branch", "git_status",
               "git_diff", "git_log", "git_show")  # shown as the Bash command a Claude Code user would run
EDITING = ("write_file", "edit_file", "edit_lines", "apply_patch", "delete_file", "move_file", "make_directory")
READING = ("read_file", "search_text", "find_files", "list_directory")  # Claude Code's Read rules cover its readers


@dataclass(frozen=True)
class ClaudeTool:
    """One of Claude Code's tools: the ankit tools a hook sees under its name, their keys in Claude Code's terms,
    and what a hook matcher and a permission rule naming it cover."""

    name: str
    shown: tuple[str, ...] = ()  # ankit's tools a hook sees under this name
    keys: dict[str, str] = field(default_factory=dict)  # ankit key -> Claude Code key; others keep their names
    added: tuple[str, ...] = ()  # Claude Code's keys ankit fills in beside the mapped ones
    matcher: tuple[str, ...] = ()  # besides `shown`, what a hook matcher naming it sees (tools doing the same)
    rules: tuple[str, ...] = ()  # what a permission rule naming it binds
    means: str = ""  # the ankit tool an agent file's `tools:` list means (else the first of `shown`)
    argument: str = ""  # what a rule's `(...)` holds: a command line, `domain:HOST` or a path ("": none)


ROWS = (
    ClaudeTool("Bash", ("run_command", "job_start", *SHELL_FORMS),
               {"command": "command", "reason": "description", "timeout": "timeout"},
               ("dangerouslyDisableSandbox", "run_in_background", "file_path"), rules=("run_command", "job_start"),
               argument="command"),
    ClaudeTool("BashOutput", ("job_output",), {"job_id": "bash_id"}, matcher=("job_status", "job_wait")),
    ClaudeTool("KillShell", ("job_stop",), {"job_id": "shell_id"}, matcher=("kill_process",)),
    ClaudeTool("Read", ("read_file",), {"path": "file_path", "start_line": "offset", "end_line": "limit"},
               rules=READING, argument="path"),
    ClaudeTool("Write", ("write_file",), {"path": "file_path", "content": "content"}, matcher=EDITING, rules=EDITING,
               argument="path"),
    ClaudeTool("Edit", ("edit_file", "apply_patch"), {"path": "file_path", "old_string": "old_string",
                                                      "new_string": "new_string", "replace_all": "replace_all"},
               matcher=EDITING, rules=EDITING, argument="path"),
    ClaudeTool("MultiEdit", matcher=("edit_file", "edit_lines", "apply_patch"), rules=EDITING, means="edit_file",
               argument="path"),
    ClaudeTool("Glob", ("find_files",), {"pattern": "pattern", "path": "path"}, argument="path"),
    ClaudeTool("Grep", ("search_text",), {"pattern": "pattern", "path": "path", "glob": "glob", "ignore_case": "-i",
                                          "context": "-C", "max_results": "head_limit"}, argument="path"),
    ClaudeTool("LS", ("list_directory",), {"path": "path"}, argument="path"),
    ClaudeTool("WebFetch", ("web_fetch",), {"url": "url"}, argument="domain"),
    ClaudeTool("WebSearch", ("web_search",), {"query": "query"}),
    ClaudeTool("TodoWrite", ("write_todos",), {"todos": "todos"}),
    ClaudeTool("Task", ("task",), {"description": "description", "prompt": "prompt", "agent": "subagent_type"}),
    *(ClaudeTool(name) for name in ("NotebookEdit", "NotebookRead", "SlashCommand", "Skill", "ExitPlanMode",
                                    "AskUserQuestion")),  # no counterpart in ankit
)
BY_NAME = {row.name: row for row in ROWS}
SHOWN_AS = {tool: row for row in reversed(ROWS) for tool in row.shown}  # ankit tool -> the row it is shown under
# Claude Code's name -> the ankit tool that does it (an agent file's `tools: Read, Bash` list, for one)
CLAUDE_NAMES = {row.name: row.means or row.shown[0] for row in ROWS if row.means or row.shown}
PATH_TOOLS = {"edit_lines": "path", "delete_file": "path", "move_file": "source", "make_directory": "path"}
PER_FILE = ("apply_patch",)  # shown as one Edit per file it changes
ABSOLUTE = ("file_path",)  # Claude Code sends these as absolute paths


def rule_tools(name: str) -> tuple[str, ...]:
    """The ankit tools a permission rule naming this Claude Code tool binds (none: ankit has no counterpart)."""
    row = BY_NAME.get(name)
    return (row.rules or row.shown) if row is not None else ()


def rule_argument(name: str) -> str:
    """What a permission rule naming this tool holds in its parentheses: "command", "domain", "path" or ""."""
    return BY_NAME[name].argument if name in BY_NAME else ""


def path_rule(name: str) -> str:
    """ankit's path rule form a rule naming this tool with a path becomes: "Read" (every path any tool reads),
    "Edit" (every path any tool changes: Edit, Write, MultiEdit) or "" (a rule over its own tools)."""
    row = BY_NAME.get(name)
    return "Read" if name == "Read" else "Edit" if row is not None and row.rules == EDITING else ""


def claude_name(tool: str) -> str:
    """The name a hook sees: Claude Code's for a tool with a counterpart, else ankit's."""
    return SHOWN_AS[tool].name if tool in SHOWN_AS else tool


def _keys(tool: str) -> dict[str, str]:
    """ankit's keys of this tool -> Claude Code's (a tool shown in Bash's shell form keeps its own)."""
    return SHOWN_AS[tool].keys if tool in SHOWN_AS and tool not in SHELL_FORMS else {}


def _shell_form(tool: str, args: dict) -> str:
    """The command Claude Code would run for a delete, move or new folder."""
    quote = lambda key: shlex.quote(str(args.get(key, "")))  # noqa: E731
    if tool == "delete_file":
        return f"rm {'-rf ' if args.get('recursive') else ''}-- {quote('path')}"  # as a Claude Code user deletes a folder
    if tool == "move_file":
        return f"mv {'' if args.get('overwrite') else '-n '}-- {quote('source')} {quote('destination')}"
    if tool == "job_input":
        return str(args.get("text", ""))  # typed into a running shell: a command all the same
    if tool.startswith("git_"):
        return _git_form(tool, args)
    return f"mkdir -p -- {quote('path')}"


def _git_form(tool: str, args: dict) -> str:
    """The git command line Claude Code would run for one of ankit's git tools."""
    if tool == "git_commit":
        paths = " ".join(shlex.quote(str(p)) for p in args.get("paths") or [])
        line = f"git commit {'-a ' if args.get('all') else ''}-m {shlex.quote(str(args.get('message', '')))}"
        return line + (f" -- {paths}" if paths else "")
    if tool == "git_branch":
        action, name = args.get("action") or "list", shlex.quote(str(args.get("name", "")))
        return {"create": f"git switch -c {name}", "switch": f"git switch {name}"}.get(action, "git branch")
    words = {"git_status": ["status"], "git_diff": ["diff"], "git_log": ["log"], "git_show": ["show"]}[tool]
    words += [shlex.quote(str(args[k])) for k in ("ref", "file_at_ref") if isinstance(args.get(k), str)]
    words += ["--", shlex.quote(args["path"])] if isinstance(args.get("path"), str) else []
    return "git " + " ".join(words)


def names(tool: str) -> list[str]:
    """Every name a matcher may use for this tool: ankit's, Claude Code's, and those of what it does alike."""
    found = [tool, claude_name(tool)] + [row.name for row in ROWS if tool in row.matcher]
    return list(dict.fromkeys(found))


def _absolute(value, cwd: Path) -> str:
    """The absolute path Claude Code would send, links followed (a link to .env is .env to a guard hook); inside
    the working folder it is shown under the folder as the hooks know it (CLAUDE_PROJECT_DIR)."""
    path = os.path.realpath(os.path.join(str(cwd), os.path.expanduser(str(value))))
    inside = os.path.relpath(path, os.path.realpath(cwd))
    return path if inside.startswith("..") else os.path.normpath(os.path.join(str(cwd), inside))


def _relative(value, cwd: Path) -> str:
    """A path a hook gave back, as ankit's tools take it: relative inside the working folder."""
    path = Path(os.path.normpath(os.path.join(str(cwd), os.path.expanduser(str(value)))))
    return path.relative_to(cwd).as_posix() if path.is_relative_to(cwd) else str(path)


def to_claude(tool: str, args: dict, cwd: Path, path: str | None = None) -> tuple[str, dict]:
    """(tool_name, tool_input) as Claude Code would send them for this call (for a PER_FILE tool, for the change
    to one of its files: `path`)."""
    if tool in PER_FILE and path is not None:
        return "Edit", {**args, "file_path": _absolute(path, cwd)}
    name, keys = claude_name(tool), _keys(tool)
    shown = {keys.get(key, key): value for key, value in args.items()}
    if tool in SHELL_FORMS:
        shown["command"] = _shell_form(tool, args)
    if tool in PATH_TOOLS and isinstance(args.get(PATH_TOOLS[tool]), str):
        shown["file_path"] = args[PATH_TOOLS[tool]]
    for key in ABSOLUTE:
        if isinstance(shown.get(key), str):
            shown[key] = _absolute(shown[key], cwd)
    if tool == "run_command" and isinstance(args.get("timeout"), (int, float)):
        shown["timeout"] = int(args["timeout"] * 1000)  # Claude Code's Bash counts milliseconds
    if tool in ("run_command", "job_start") and args.get("sandbox") is False:
        shown["dangerouslyDisableSandbox"] = True
    if tool == "job_start":
        shown["run_in_background"] = True
    if tool == "read_file" and isinstance(args.get("end_line"), int):
        shown["limit"] = args["end_line"] - int(args.get("start_line") or 1) + 1
    if tool == "write_todos" and isinstance(args.get("todos"), list):
        shown["todos"] = [_todo(item) for item in args["todos"]]
    return name, shown


def _todo(item) -> dict:
    if not isinstance(item, dict):
        return {"content": str(item), "status": "pending"}
    text = item.get("text", "")
    return {"content": text, "status": item.get("status", "pending"), "activeForm": text}


def from_claude(tool: str, updated: dict, sent: dict, args: dict, cwd: Path) -> dict | None:
    """A hook's updatedInput (in Claude Code's terms) as ankit's arguments. It is the whole new input, as Claude
    Code takes it: what it changed from what it was sent is applied to the call's own arguments, and a key it
    left out is dropped (`dangerouslyDisableSandbox` left out runs the command in the sandbox). None when the
    change cannot be put in ankit's terms (a new command for a delete shown as `rm`)."""
    back = {claude: key for key, claude in _keys(tool).items()}
    if PATH_TOOLS.get(tool):
        back["file_path"] = PATH_TOOLS[tool]
    result = _dropped(tool, [key for key in sent if key not in updated], dict(args), back)
    for key, value in updated.items():
        if key in sent and sent[key] == value:
            continue
        if (tool in SHELL_FORMS and key in ("command", "file_path")) or (tool in PER_FILE and key == "file_path"):
            return None
        if key == "dangerouslyDisableSandbox" and tool in ("run_command", "job_start"):
            result["sandbox"] = not value
        elif key == "run_in_background" and tool in ("run_command", "job_start"):
            continue  # which tool runs it is not a hook's to change
        else:
            result[back.get(key, key)] = _back(tool, key, value, result, cwd)
    return result


def _dropped(tool: str, left_out: list[str], args: dict, back: dict[str, str]) -> dict:
    """The call's arguments without those whose keys an updatedInput left out; keys ankit derives for hooks
    (`run_in_background`, a shell form's `command`, a path tool's `file_path`) stand for nothing to drop."""
    derived = {"run_in_background"} | ({"command", "file_path"} if tool in SHELL_FORMS + PER_FILE else set()) \
        | ({"file_path"} if tool in PATH_TOOLS else set())
    for key in (k for k in left_out if k not in derived):
        args.pop("sandbox" if key == "dangerouslyDisableSandbox" else back.get(key, key), None)
    return args


def _back(tool: str, key: str, value, result: dict, cwd: Path):
    """One changed value in ankit's terms."""
    if key in ABSOLUTE and isinstance(value, str):
        return _relative(value, cwd)
    if tool == "run_command" and key == "timeout" and isinstance(value, (int, float)):
        return max(1, -(-int(value) // 1000))  # milliseconds to whole seconds, rounded up
    if tool == "read_file" and key == "limit" and isinstance(value, int):
        return int(result.get("start_line") or 1) + value - 1
    if tool == "write_todos" and key == "todos" and isinstance(value, list):
        return [{"text": t.get("content", ""), "status": t.get("status", "pending")} if isinstance(t, dict) else t
                for t in value]
    return value


def response(tool: str, shown: dict, content: str, failed: bool) -> dict | str:
    """tool_response as Claude Code sends it for this tool (ankit's result text where Claude Code's has no field)."""
    name = claude_name(tool)
    if name == "Bash":
        return {"stdout": content, "stderr": "", "interrupted": False, "isImage": False}
    if name == "Read":
        return {"type": "text", "file": {"filePath": shown.get("file_path", ""), "content": content,
                                         "numLines": content.count("\n") + 1, "startLine": shown.get("offset", 1)}}
    if name == "Write":
        return {"type": "update", "filePath": shown.get("file_path", ""), "content": shown.get("content", ""),
                "structuredPatch": [], "success": not failed}
    if name == "Edit":
        return {"filePath": shown.get("file_path", ""), "oldString": shown.get("old_string", ""),
                "newString": shown.get("new_string", ""), "replaceAll": bool(shown.get("replace_all")),
                "structuredPatch": [], "userModified": False, "success": not failed}
    if "file_path" in shown:
        return {"filePath": shown["file_path"], "success": not failed, "result": content}
    return content
