"""What the loop reports, as session/update notifications: message chunks, tool calls and their updates (kind,
status, locations, diffs of the files a call changed, a command's output or terminal), the plan, ankit's own
lines as thought chunks; and why a reply stopped, for the prompt's stopReason."""

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ankit.protocols import View
from ankit.records import TodoList, ToolCall, ToolResult
from ankit.safety.effects import changes
from ankit.safety.statefiles import bundled
from ankit.safety.text import outside
from ankit.safety.visible import visible
from ankit.tooling.tool import Tool, ToolContext, call_flexibly

# What a call's declared effects cannot tell apart, for ankit's own tools: shown as a kind, never a permission
SHOWN_AS = {"delete_file": "delete", "move_file": "move", "search_text": "search", "find_files": "search",
            "find_tools": "search", "web_search": "search", "write_todos": "think", "task": "think"}
SUBJECTS = ("path", "command", "pattern", "query", "url", "source", "description", "name")
TITLE_CAP, OUTPUT_CAP, DIFF_CAP = 120, 40_000, 1_000_000  # characters of a title and of shown output; file bytes
OUTPUT_EVERY = 0.25  # seconds between two updates of a running call's output
PLAN_STATES = {"pending": "pending", "in_progress": "in_progress", "done": "completed"}
STOPS = {"max_tokens": "max_tokens", "refusal": "refusal", "content_filter": "refusal"}


def kind_of(tool: Tool | None) -> str:
    """The ACP kind a call is shown with: from the tool's declared effects, a few of ankit's own by what they do."""
    if tool is None:
        return "other"
    if tool.name in SHOWN_AS and _bundled(tool):
        return SHOWN_AS[tool.name]
    effects = tool.declared_effects()
    if "run" in effects:
        return "execute"
    if changes(effects):
        return "edit"
    if "network" in effects:
        return "fetch"
    return "read" if effects <= {"read"} else "other"


def _bundled(tool: Tool) -> bool:
    """Whether the tool is one of ankit's own modules (the built-in find_tools and task are too)."""
    if tool.source == "ankit":
        return True
    try:
        return Path(tool.source).resolve().is_relative_to(bundled("tools").resolve())
    except (OSError, ValueError):
        return False


def title_of(call: ToolCall, args: dict) -> str:
    """The call's name and what it works on, on one line."""
    subject = next((str(args[key]) for key in SUBJECTS if isinstance(args.get(key), (str, int))), "")
    return outside(f"{call.name} {subject}".strip(), TITLE_CAP, line=True)


def arguments(call: ToolCall) -> dict:
    """The call's arguments as an object ({} when they are not one)."""
    try:
        value = json.loads(call.arguments or "{}")
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


@dataclass
class Running:
    """The call being shown: what it said it would change (and those files' text before), its output so far."""

    call: ToolCall
    changed: list[Path] = field(default_factory=list)
    before: dict[Path, str | None] = field(default_factory=dict)
    output: str = ""
    sent: float = 0.0
    terminal: str = ""


class AcpView(View):
    """One ACP session's view: every report becomes a session/update for the client; `notify(method, params)`
    sends one (wire.Connection.notify). Until open() names the session, updates wait."""

    def __init__(self, notify: Callable[[str, dict], None], lookup: Callable[[str], Tool | None], cwd: Path):
        self.notify, self.lookup, self.cwd = notify, lookup, cwd
        self.session_id = ""
        self.held: list[dict] = []
        self.running: Running | None = None
        self.stopped = ""  # the last reply's stop reason, as ACP names it ("" for an ordinary end)
        self.written: dict[Path, str] = {}  # what the editor wrote for the running call (acp.editor)
        self.lock = threading.Lock()

    def open(self, session_id: str) -> None:
        """The client knows the session now: send what waited, and from now on as it comes."""
        self.session_id = session_id
        held, self.held = self.held, []
        for update in held:
            self.send(update)

    def send(self, update: dict) -> None:
        """One session/update (held until the session is open)."""
        if not self.session_id:
            self.held.append(update)
            return
        self.notify("session/update", {"sessionId": self.session_id, "update": update})

    def text(self, delta: str) -> None:
        self.send({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": delta}})

    def notice(self, line: str) -> None:
        self.send({"sessionUpdate": "agent_thought_chunk",
                   "content": {"type": "text", "text": f"ankit: {visible(line)}\n"}})

    def stop_reason(self, reason: str) -> None:
        self.stopped = STOPS.get(reason, "")

    def todos(self, todos: TodoList) -> None:
        self.send({"sessionUpdate": "plan", "entries": [
            {"content": outside(item.text, 500, line=True), "priority": "medium",
             "status": PLAN_STATES.get(item.status, "pending")} for item in todos.items]})

    def tool_start(self, call: ToolCall) -> None:
        tool, args = self.lookup(call.name), arguments(call)
        running = Running(call, self._changed(tool, args))
        running.before = {path: _text(path) for path in running.changed}
        self.running, self.written = running, {}
        self.send({"sessionUpdate": "tool_call", "toolCallId": call.id, "title": title_of(call, args),
                   "kind": kind_of(tool), "status": "pending", "rawInput": args,
                   "locations": self._locations(running.changed, args)})

    def tool_output(self, text: str) -> None:
        with self.lock:
            running = self.running
            if running is None or not text:
                return
            running.output = (running.output + text)[-OUTPUT_CAP:]
            if time.monotonic() - running.sent < OUTPUT_EVERY:
                return
            running.sent = time.monotonic()
        self._update(running, "in_progress", self._content(running, visible(running.output)))

    def running_now(self) -> None:
        """The approved call starts (the approver, or the view when none was asked)."""
        if self.running is not None:
            self.send({"sessionUpdate": "tool_call_update", "toolCallId": self.running.call.id,
                       "status": "in_progress"})

    def terminal(self, terminal_id: str) -> None:
        """The running call's command runs in this terminal of the editor (acp.editor): its output shows there."""
        if self.running is not None:
            self.running.terminal = terminal_id
            self._update(self.running, "in_progress", self._content(self.running, ""))

    def tool_end(self, result: ToolResult) -> None:
        running = self.running if self.running and self.running.call.id == result.call_id else Running(
            ToolCall(result.call_id, result.name))
        shown = outside(result.content, OUTPUT_CAP)
        content = self._diffs(running) + self._content(running, shown)
        self._update(running, "failed" if result.is_error else "completed", content)
        self.running, self.written = None, {}

    def stopped_running(self, why: str) -> None:
        """A cancel stopped the turn: the call it stopped ends as failed, saying why."""
        if self.running is not None:
            self._update(self.running, "failed", self._content(self.running, outside(why, 500)))
            self.running, self.written = None, {}

    def _update(self, running: Running, status: str, content: list[dict]) -> None:
        self.send({"sessionUpdate": "tool_call_update", "toolCallId": running.call.id, "status": status,
                   "content": content})

    def _content(self, running: Running, text: str) -> list[dict]:
        found = [{"type": "terminal", "terminalId": running.terminal}] if running.terminal else []
        return found + ([{"type": "content", "content": {"type": "text", "text": text}}] if text else [])

    def _diffs(self, running: Running) -> list[dict]:
        """A diff for each file the call said it would change and did."""
        found = []
        for path, old in running.before.items():
            new = self.written.get(path, _text(path))
            if new != old and new is not None:
                found.append({"type": "diff", "path": str(path), "oldText": old, "newText": new})
        return found

    def _changed(self, tool: Tool | None, args: dict) -> list[Path]:
        """The files the tool declares this call changes (tooling's changes()), as absolute paths."""
        if tool is None or tool.changes is None:
            return []
        try:
            found = call_flexibly(tool.changes, args, ToolContext(cwd=self.cwd)) or []
        except Exception:  # a tool that cannot say: shown without diffs, as the runner tells /undo
            return []
        return [(self.cwd / str(p)).resolve() for p in found][:20]

    def _locations(self, changed: list[Path], args: dict) -> list[dict]:
        """Where the call works, for the editor to follow: the files it changes, else the path it names."""
        if changed:
            return [{"path": str(p)} for p in changed]
        path = args.get("path")
        if not isinstance(path, str) or not path:
            return []
        line = args.get("start_line")
        return [{"path": str((self.cwd / path).resolve()), **({"line": line} if isinstance(line, int) else {})}]


def _text(path: Path) -> str | None:
    """A file's text for a diff: None when it does not exist, is a folder, binary or too big."""
    try:
        if not path.is_file() or path.stat().st_size > DIFF_CAP:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    return None if b"\x00" in data[:8192] else data.decode("utf-8", "replace")

