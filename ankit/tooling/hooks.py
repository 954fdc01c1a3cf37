"""Hooks: the user's commands run at points of a session, with Claude Code's events and protocol.

Each hook gets one JSON object on stdin (session_id, transcript_path, cwd, hook_event_name and the event's
fields: tool_name, tool_input, tool_response, prompt, ...). Exit 0 goes on (stdout may hold JSON with the
documented decision fields); exit 2 blocks and its stderr is the reason; any other exit, a timeout or a
command that cannot start is one line for the user and changes nothing. A hook runs in its own process group,
killed whole at its timeout. Hooks come from config.toml ([[hooks.EVENT]] tables) and Claude Code's
settings.json files (~/.claude/, and a trusted project's .claude/).
"""

import json
import os
import re
import signal
from dataclasses import dataclass, field
from pathlib import Path

EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop", "SessionStart", "SessionEnd",
          "PreCompact", "Notification")
DEFAULT_TIMEOUT = 60.0
OUTPUT_CAP = 64 * 1024  # characters of a hook's stdout or stderr that are read into a decision
# Claude Code's tool names, so a settings.json matcher such as "Bash|Write" finds ankit's tools too
CLAUDE_NAMES = {"Bash": "run_command", "Write": "write_file", "Edit": "edit_file", "MultiEdit": "edit_file",
                "Read": "read_file", "Glob": "find_files", "Grep": "search_text", "LS": "list_directory",
                "WebFetch": "web_fetch", "WebSearch": "web_search", "Task": "task", "TodoWrite": "write_todos"}
_ALIASES = {ankit: claude for claude, ankit in reversed(CLAUDE_NAMES.items())}


@dataclass
class Hook:
    """One configured command for one event."""

    event: str
    command: str
    matcher: str = ""  # a regular expression over the tool name (or source, trigger); "" and "*" match all
    timeout: float = DEFAULT_TIMEOUT
    origin: str = ""  # the file it came from

    def matches(self, subject: str) -> bool:
        """Whether this hook runs for a tool name (or an event's source); a bad pattern matches by equality."""
        if self.matcher in ("", "*") or not subject:
            return True
        names = [subject] + ([_ALIASES[subject]] if subject in _ALIASES else [])
        try:
            return any(re.fullmatch(self.matcher, name) for name in names)
        except re.error:
            return self.matcher in names


@dataclass
class Outcome:
    """What the hooks of one event decided, merged: a block wins over everything else."""

    blocked: bool = False
    reason: str = ""  # why it was blocked (exit 2's stderr or the JSON reason): told to the model
    decision: str = ""  # PreToolUse: allow, deny or ask
    updated_input: dict | None = None  # PreToolUse: the arguments to run with instead
    context: list[str] = field(default_factory=list)  # text for the model (additionalContext, stdout)
    stop: str = ""  # {"continue": false}: the turn stops, with this reason
    notes: list[str] = field(default_factory=list)  # one line each for the user (failures, systemMessage)


@dataclass
class Hooks:
    """The active hooks and the session they report about; `bind` says which session that is."""

    hooks: list[Hook] = field(default_factory=list)
    cwd: Path = field(default_factory=Path.cwd)
    problems: list[str] = field(default_factory=list)  # malformed entries skipped while loading
    transcripts: Path | None = None  # the sessions folder: transcript_path is <folder>/<session id>.jsonl
    session_id: str = ""

    def bind(self, session_id: str) -> None:
        """The session the next events belong to."""
        self.session_id = session_id

    @property
    def transcript_path(self) -> str:
        """The session file of the bound session."""
        return str(self.transcripts / f"{self.session_id}.jsonl") if self.transcripts and self.session_id else ""

    def active(self, event: str) -> bool:
        """Whether any hook listens to the event."""
        return any(h.event == event for h in self.hooks)

    def run(self, event: str, fields: dict, subject: str = "") -> Outcome:
        """Run the event's hooks that match `subject` (a tool name, a source) one after another."""
        outcome = Outcome()
        for hook in [h for h in self.hooks if h.event == event and h.matches(subject)]:
            payload = {"session_id": self.session_id, "transcript_path": self.transcript_path,
                       "cwd": str(self.cwd), "hook_event_name": event, **fields}
            _merge(outcome, hook, *run_command(hook, payload, self.cwd))
            if outcome.blocked or outcome.stop:
                break
        return outcome


def run_command(hook: Hook, payload: dict, cwd: Path) -> tuple[int | None, str, str, str]:
    """Run one hook: (exit code or None, stdout, stderr, a failure line or "")."""
    from ankit.safety.processes import contained, subprocess  # here: listings that run no hook start faster
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(cwd), "ANKIT_PROJECT_DIR": str(cwd)}
    try:
        process = subprocess.Popen(contained(["/bin/sh", "-c", hook.command]), cwd=cwd, env=env, stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    except OSError as exc:
        return None, "", "", f"could not start ({exc.strerror or exc})"
    data = json.dumps(payload, ensure_ascii=False, default=str).encode()
    try:
        out, err = process.communicate(data, timeout=hook.timeout)
    except subprocess.TimeoutExpired:
        _kill(process)
        return None, "", "", f"stopped after {hook.timeout:g} s (its timeout)"
    except BaseException:  # Ctrl-C: the hook's whole group goes too
        _kill(process)
        raise
    return process.returncode, _text(out), _text(err), ""


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")[:OUTPUT_CAP].strip()


def _kill(process) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        pass
    process.communicate()


def _merge(outcome: Outcome, hook: Hook, code: int | None, out: str, err: str, failure: str) -> None:
    """Fold one hook's exit code and output into the event's outcome."""
    name = f"{hook.event} hook {_short(hook.command)}"
    if failure:
        outcome.notes.append(f"{name}: {failure}; going on")
    elif code == 2:
        outcome.blocked, outcome.reason = True, err or f"blocked by the {name}"
    elif code != 0:
        outcome.notes.append(f"{name} exited with {code}: {_first_line(err) or 'no message'}; going on")
    else:
        _read_json(outcome, hook, name, out)


def _read_json(outcome: Outcome, hook: Hook, name: str, out: str) -> None:
    """Exit 0: JSON on stdout carries decisions; other text is context for the events that take it."""
    try:
        data = json.loads(out) if out.startswith("{") else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        if out and hook.event in ("UserPromptSubmit", "SessionStart"):
            outcome.context.append(out)
        return
    specific = data.get("hookSpecificOutput") if isinstance(data.get("hookSpecificOutput"), dict) else {}
    if data.get("continue") is False:
        outcome.stop = str(data.get("stopReason") or f"stopped by the {name}")
    if isinstance(data.get("systemMessage"), str):
        outcome.notes.append(data["systemMessage"])
    if isinstance(specific.get("additionalContext"), str):
        outcome.context.append(specific["additionalContext"])
    reason = str(specific.get("permissionDecisionReason") or data.get("reason") or "")
    decision = specific.get("permissionDecision") or {"approve": "allow", "block": "deny"}.get(data.get("decision"))
    if decision == "deny" or data.get("decision") == "block":
        outcome.blocked, outcome.reason = True, reason or f"blocked by the {name}"
    elif decision in ("allow", "ask"):
        outcome.decision, outcome.reason = decision, reason
    if isinstance(specific.get("updatedInput"), dict):
        outcome.updated_input = specific["updatedInput"]


def _short(command: str) -> str:
    line = " ".join(command.split())
    return repr(line if len(line) <= 40 else line[:39] + "…")


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")[:200]


def from_config(tables: dict, origin: str) -> tuple[list[Hook], list[str]]:
    """Hooks from config.toml's [[hooks.EVENT]] tables (matcher, command, timeout); problems one line each."""
    hooks, problems = [], []
    for event, entries in (tables or {}).items():
        if event not in EVENTS:
            problems.append(f"{origin}: unknown hook event {event!r}; events are {', '.join(EVENTS)}")
            continue
        for entry in entries if isinstance(entries, list) else [entries]:
            hook = _hook(event, entry, entry, origin) if isinstance(entry, dict) else None
            if hook is None:
                problems.append(f"{origin}: a [[hooks.{event}]] entry needs command = \"...\" (and may have matcher, timeout)")
            else:
                hooks.append(hook)
    return hooks, problems


def from_claude_settings(path: Path) -> tuple[list[Hook], list[str]]:
    """Hooks from a Claude Code settings.json: {"hooks": {EVENT: [{"matcher", "hooks": [{"type": "command", ...}]}]}}."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [], []
    except (OSError, ValueError, RecursionError) as exc:
        return [], [f"{path}: not read ({type(exc).__name__}); its hooks are off"]
    tables = data.get("hooks") if isinstance(data, dict) else None
    hooks, problems = [], []
    for event, groups in (tables if isinstance(tables, dict) else {}).items():
        if event not in EVENTS:
            continue  # Claude Code has events ankit does not fire (PermissionRequest, ...)
        for group in groups if isinstance(groups, list) else []:
            for entry in (group.get("hooks") if isinstance(group, dict) else None) or []:
                if isinstance(entry, dict) and entry.get("type", "command") == "command":
                    hook = _hook(event, group, entry, str(path))
                    hooks += [hook] if hook else []
                    problems += [] if hook else [f"{path}: a {event} hook without a command is skipped"]
    return hooks, problems


def _hook(event: str, group: dict, entry: dict, origin: str) -> Hook | None:
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        return None
    try:
        timeout = float(entry.get("timeout") or DEFAULT_TIMEOUT)
    except (TypeError, ValueError):
        timeout = DEFAULT_TIMEOUT
    return Hook(event, command, str(group.get("matcher") or ""), max(timeout, 0.1), origin)


def load_hooks(config_tables: dict, config_origin: str, settings_files: list[Path], cwd: Path) -> Hooks:
    """Every active hook: config.toml's first, then each settings.json in order."""
    hooks, problems = from_config(config_tables, config_origin)
    for path in settings_files:
        found, more = from_claude_settings(path)
        hooks, problems = hooks + found, problems + more
    return Hooks(hooks, cwd, problems=problems)


def listing(hooks: Hooks) -> str:
    """/hooks: each active hook with its event, matcher, timeout and where it came from."""
    if not hooks.hooks:
        return ("no hooks are active: add [[hooks.PreToolUse]] tables to config.toml, or hooks to "
                "~/.claude/settings.json (see ankit help hooks)")
    lines = []
    for event in EVENTS:
        for hook in (h for h in hooks.hooks if h.event == event):
            where = f" [{hook.matcher}]" if hook.matcher else ""
            lines.append(f"{event}{where}  {hook.command}  (timeout {hook.timeout:g} s; {hook.origin})")
    return "\n".join(lines + hooks.problems)
