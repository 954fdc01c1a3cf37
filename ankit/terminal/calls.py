"""One-line texts about tool calls, shared by the REPL and -p: the call, its live label, its outcome, the checklist."""

import json

from ankit.records import TodoList, ToolCall, ToolResult
from ankit.safety.visible import visible_line
from ankit.terminal.live import clip
from ankit.wording import count

HEAD_LINES = 4  # lines of a command's output shown under its result line; /show has the rest


def call_summary(call: ToolCall, width: int = 80) -> str:
    """A tool call in one short line: `$ command` for a shell command, else its name and first arguments."""
    args = _arguments(call)
    command = args.get("command") if isinstance(args, dict) else None
    if isinstance(command, str):
        shown = "$ " + " ".join(command.split())
        return clip(visible_line(shown if call.name == "run_command" else f"{call.name} {shown}"), width)
    if isinstance(args, dict):
        shown = ", ".join(f"{k}={_short(v)}" for k, v in args.items())
    else:
        shown = _short(call.arguments)
    return clip(visible_line(f"{call.name}({shown})"), width)


def status_label(call: ToolCall) -> str:
    """The live line's text while a call runs: the tool and its main argument."""
    args = _arguments(call)
    first = next((v for v in args.values() if isinstance(v, str) and v.strip()), "") if isinstance(args, dict) else ""
    return visible_line(f"{call.name} · {clip(' '.join(first.split()), 60)}" if first else call.name)


def _arguments(call: ToolCall):
    try:
        return json.loads(call.arguments or "{}", strict=False)
    except (ValueError, RecursionError):  # arguments nested too deep are shown as text
        return None


def _short(value, limit: int = 40) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = clip(" ".join(text.split()), limit)
    return json.dumps(text, ensure_ascii=False) if isinstance(value, str) else text


ERROR_LINES = 12  # lines of a failed call's reason shown under its ✗ (the rest: /show)


def shown_line(text: str) -> str:
    """Outside text on one line of the screen: a tab as a space, every other control made visible."""
    return visible_line(text.replace("\t", " "))


def result_line(result: ToolResult, width: int = 80) -> str:
    """The user's line about a finished call: its summary (or first line); an error in full, its first line up to
    200 columns and each further line under it (a program's traceback reads as one)."""
    lines = result.content.splitlines() or [""]
    if result.is_error:
        reason = (result.summary or result.content).rstrip("\n").splitlines() or [""]
        rest = [clip("    " + shown_line(line), width - 1) for line in reason[1:ERROR_LINES]]
        more = len(reason) - ERROR_LINES
        rest += [f"    … {more:,} more line{'s' if more != 1 else ''} (/show)"] if more > 0 else []
        return "\n".join([f"  ✗ {clip(shown_line(reason[0]), 200)}", *rest])  # the first wrapped if need be
    line, more = shown_line(result.summary or lines[0]), ""
    if not result.summary and len(lines) > 1:
        more = f" · {count(len(lines), 'line')}"
    return f"  ⎿ {clip(line, width - 5 - len(more))}{more}"


def output_head(text: str, width: int = 80, shown: int = HEAD_LINES) -> list[str]:
    """The first lines of a command's output under its result line, each clipped, then how many more /show has."""
    lines = text.rstrip("\n").splitlines()
    head = [clip("    " + shown_line(line.rstrip("\r").rsplit("\r", 1)[-1]), width - 1) for line in lines[:shown]]
    rest = len(lines) - shown
    return head + ([f"    … {rest:,} more line{'s' if rest != 1 else ''} (/show)"] if rest > 0 else [])


TODO_MARKS = {"done": "✓", "in_progress": "▸", "pending": "○"}


def todo_lines(todos: TodoList, width: int = 80) -> list[str]:
    """The checklist compactly: a head line with the counts, then one clipped line per item."""
    if not todos.items:
        return ["todos: none (the model keeps a checklist with write_todos for work of several steps)"]
    lines = [f"todos {todos.counts()}"]
    for item in todos.items:
        lines.append(clip(f"  {TODO_MARKS.get(item.status, '○')} {visible_line(item.text)}", width))
    return lines
