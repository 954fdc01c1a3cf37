"""Hooks: the user's commands run at points of a session, with Claude Code's events and protocol.

Each hook gets one JSON object on stdin (session_id, transcript_path, cwd, permission_mode, hook_event_name and
the event's fields). Tool events name tools as Claude Code does (claude/toolnames.py: `Bash` with
`command`, `Read` with an absolute `file_path`, ...). The hooks of one event run side by side; their answers
are merged in the order they were configured. Exit 0 goes on (stdout may hold JSON with Claude Code's decision
fields); exit 2 blocks where Claude Code's event can be blocked, its stderr the reason (elsewhere it is shown to
the user); any other exit, a timeout or a command that cannot start is one line for the user and changes
nothing. Everything a hook prints passes the text boundary: capped as it is read (hooks/process.py),
control characters made visible and known secrets scrubbed before anyone sees it. A `"type": "prompt"` hook
is answered by the model through the Judge seam. Loading: hooks/config.py.
"""

import json
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

from ankit.protocols import Judge
from ankit.safety.sandbox import CLAUDE_NAMES, Sandbox
from ankit.safety.scrub import Scrubber
from ankit.safety.text import deep, outside
from ankit.claude import toolnames
from ankit.hooks import envfile, process

EVENTS = ("PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit",
          "Notification", "Stop", "SubagentStart", "SubagentStop", "PreCompact", "SessionStart", "SessionEnd")
TOOL_EVENTS = ("PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure")
BLOCKING = ("PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop",
            "SubagentStop")  # where exit 2 or a "block" changes what happens; elsewhere stderr is shown
CONTEXT_EVENTS = ("UserPromptSubmit", "SessionStart", "SubagentStart")  # plain stdout of exit 0 is context
DEFAULT_TIMEOUT = 60.0
HOOK_TEXT_CAP = 64 * 1024  # characters of one text a hook wrote, shown or sent (its output is capped before too)
KNOWN_OUTPUT = {"continue", "stopReason", "suppressOutput", "systemMessage", "decision", "reason",
                "hookSpecificOutput"}
KNOWN_SPECIFIC = {"hookEventName", "permissionDecision", "permissionDecisionReason", "updatedInput",
                  "additionalContext", "decision"}


@dataclass
class Hook:
    """One configured hook for one event: a command, or (kind "prompt") a question the model answers."""

    event: str
    command: str
    matcher: str = ""  # a regular expression over the tool name (or source, trigger); "" and "*" match all
    timeout: float = DEFAULT_TIMEOUT
    origin: str = ""  # the file it came from
    kind: str = "command"
    env: dict[str, str] = field(default_factory=dict)  # CLAUDE_PLUGIN_ROOT for a plugin's hook

    def matches(self, subject: str) -> bool:
        """Whether this hook runs for a tool (by any of its names) or an event's source; a bad pattern matches
        by equality."""
        if self.matcher in ("", "*") or not subject:
            return True
        names = toolnames.names(subject)
        try:
            return any(re.fullmatch(self.matcher, name) for name in names)
        except re.error:
            return self.matcher in names


@dataclass
class Outcome:
    """What the hooks of one event decided, merged: a block wins over everything else."""

    blocked: bool = False
    reason: str = ""  # why it was blocked (exit 2's stderr or the JSON reason): told to the model
    decision: str = ""  # PreToolUse: allow, deny or ask; PermissionRequest: allow or deny
    updated_input: dict | None = None  # the arguments to run with instead (in ankit's terms for tool events)
    context: list[str] = field(default_factory=list)  # text for the model (additionalContext, stdout)
    stop: str = ""  # {"continue": false}: the turn stops, with this reason
    notes: list[str] = field(default_factory=list)  # one line each for the user (failures, systemMessage)


@dataclass
class Hooks:
    """The active hooks and the session they report about; `bind` says which session that is."""

    hooks: list[Hook] = field(default_factory=list)
    cwd: Path = field(default_factory=Path.cwd)
    problems: list[str] = field(default_factory=list)  # malformed or unsupported entries, said at start
    transcripts: Path | None = None  # the sessions folder: transcript_path is <folder>/<session id>.jsonl
    session_id: str = ""
    scrub: Scrubber = field(default_factory=Scrubber)
    mode: Sandbox | None = None  # the session's sandbox: its mode is the permission_mode hooks see
    yes: bool = False  # --yes: permission_mode bypassPermissions
    judge: Judge | None = None  # answers prompt hooks; None: they are skipped, said once
    _told: set[str] = field(default_factory=set, init=False, repr=False)

    def bind(self, session_id: str) -> None:
        """The session the next events belong to."""
        self.session_id = session_id

    @property
    def transcript_path(self) -> str:
        """The session file of the bound session."""
        return str(self.transcripts / f"{self.session_id}.jsonl") if self.transcripts and self.session_id else ""

    @property
    def permission_mode(self) -> str:
        """Claude Code's name for the mode ankit is in."""
        if self.yes:
            return "bypassPermissions"
        return CLAUDE_NAMES.get(getattr(self.mode, "name", "off"), "default")

    def active(self, event: str) -> bool:
        """Whether any hook listens to the event."""
        return any(h.event == event for h in self.hooks)

    def run(self, event: str, fields: dict, subject: str = "") -> Outcome:
        """Run the event's hooks that match `subject` (a tool name, a source) side by side; merge their answers."""
        chosen = list({(h.kind, h.command): h for h in self.hooks if h.event == event and h.matches(subject)}.values())
        payload = {"session_id": self.session_id, "transcript_path": self.transcript_path, "cwd": str(self.cwd),
                   "permission_mode": self.permission_mode, "hook_event_name": event, **fields}
        data = json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8", "replace")
        results: list = [None] * len(chosen)
        env_file = envfile.new_file() if event == "SessionStart" and chosen else None
        extra = {"CLAUDE_ENV_FILE": str(env_file)} if env_file else {}
        threads = [threading.Thread(target=self._one, args=(hook, data, results, i, extra), daemon=True,
                                    name="ankit-hook") for i, hook in enumerate(chosen)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        outcome = Outcome()
        for hook, finished in zip(chosen, results):
            _merge(outcome, hook, finished, self)
        if env_file is not None:
            values, problems = envfile.take(env_file)
            os.environ.update(values)  # the commands ankit runs from now on see them
            outcome.notes += [outside(line, HOOK_TEXT_CAP, self.scrub).strip() for line in problems]
        return outcome

    def _one(self, hook: Hook, data: bytes, results: list, index: int, extra: dict) -> None:
        if hook.kind == "prompt":
            results[index] = self._ask(hook, data)
            return
        env = process.environment(self.cwd, {**hook.env, **extra})
        results[index] = process.run(hook.command, data, self.cwd, env, hook.timeout)

    def _ask(self, hook: Hook, data: bytes) -> process.Finished:
        """A prompt hook: the model reads the question and the event, and answers Claude Code's JSON."""
        if self.judge is None:
            return process.Finished(None, failure="prompt hooks need a model, and none is set up here")
        question = hook.command.replace("$ARGUMENTS", data.decode("utf-8", "replace"))
        try:
            answer = self.judge(question, hook.timeout)
        except Exception as exc:  # a provider failure is the hook's failure, one line
            return process.Finished(None, failure=f"the model did not answer ({exc})")
        verdict = _answer(answer)
        if verdict is None:
            return process.Finished(None, failure="the model's answer was not the JSON a prompt hook asks for")
        ok, reason = verdict
        return process.Finished(0, json.dumps({} if ok else {"decision": "block", "reason": reason}))

    def once(self, line: str) -> list[str]:
        """[line] the first time it is said in this session, [] after."""
        if line in self._told:
            return []
        self._told.add(line)
        return [line]

    def tool(self, event: str, tool: str, args: dict, call_id: str, content: str | None = None,
             failed: bool = False, paths: list[str] = ()) -> Outcome:
        """A tool event, told in Claude Code's terms; updatedInput comes back in ankit's. A tool that changes
        several files (apply_patch) is told once per file it changes, as Claude Code's Edit."""
        if tool not in toolnames.PER_FILE or not paths:
            return self._tool(event, tool, args, call_id, content, failed, None)
        merged = Outcome()
        for path in paths:
            one = self._tool(event, tool, args, call_id, content, failed, path)
            merged.notes += one.notes
            merged.context += one.context
            if one.blocked or one.stop:
                merged.blocked, merged.reason, merged.stop = one.blocked, one.reason, one.stop
                return merged
            merged.decision = "ask" if "ask" in (one.decision, merged.decision) else one.decision
        return merged

    def _tool(self, event: str, tool: str, args: dict, call_id: str, content: str | None, failed: bool,
              path: str | None) -> Outcome:
        name, shown = toolnames.to_claude(tool, args, self.cwd, path)
        fields = {"tool_name": name, "tool_input": shown, "tool_use_id": call_id}
        if event == "PostToolUse":
            fields["tool_response"] = toolnames.response(tool, shown, content or "", failed)
        elif event == "PostToolUseFailure":
            fields.update(error=content or "", is_interrupt=False)
        elif event == "PermissionRequest":
            fields["permission_suggestions"] = []
        outcome = self.run(event, fields, tool)
        if outcome.updated_input is not None:
            outcome.updated_input = toolnames.from_claude(tool, outcome.updated_input, shown, args, self.cwd)
            if outcome.updated_input is None and not outcome.blocked:  # never run what no hook saw
                outcome.blocked = True
                outcome.reason = f"a {event} hook changed the {name} input of {tool} in a way ankit cannot apply"
        return outcome


def _answer(text: str) -> tuple[bool, str] | None:
    """A prompt hook's answer: {"ok": true} or {"ok": false, "reason": ...} (or the older "decision" form)."""
    start, end = text.find("{"), text.rfind("}")
    try:
        data = json.loads(text[start:end + 1]) if start >= 0 else None
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    if "ok" in data:
        return bool(data["ok"]), str(data.get("reason") or "")
    if data.get("decision") in ("approve", "block"):
        return data["decision"] == "approve", str(data.get("reason") or "")
    return None


def _merge(outcome: Outcome, hook: Hook, finished: process.Finished, hooks: Hooks) -> None:
    """Fold one hook's exit code and output into the event's outcome."""
    name = f"{hook.event} hook {_short(hook.command)}"
    err = outside(finished.err, HOOK_TEXT_CAP, hooks.scrub).strip()
    if finished.dropped:
        outcome.notes += hooks.once(f"{name} printed more than {process.OUTPUT_CAP:,} bytes; the rest was dropped")
    if finished.failure:
        outcome.notes.append(f"{name}: {finished.failure}; going on")
    elif finished.code == 2 and hook.event in BLOCKING:
        if not outcome.blocked:
            outcome.blocked, outcome.reason = True, err or f"blocked by the {name}"
    elif finished.code == 2:
        outcome.notes.append(f"{name}: {_first_line(err) or 'exit 2'}")
    elif finished.code != 0:
        outcome.notes.append(f"{name} exited with {finished.code}: {_first_line(err) or 'no message'}; going on")
    else:
        _read_json(outcome, hook, name, finished.out.strip(), hooks)


def _read_json(outcome: Outcome, hook: Hook, name: str, out: str, hooks: Hooks) -> None:
    """Exit 0: JSON on stdout carries decisions; other text is context for the events that take it."""
    try:
        data = deep(json.loads(out)) if out.startswith("{") else None
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        if out and hook.event in CONTEXT_EVENTS:
            outcome.context.append(outside(out, HOOK_TEXT_CAP, hooks.scrub).strip())
        return
    specific = data.get("hookSpecificOutput") if isinstance(data.get("hookSpecificOutput"), dict) else {}
    unknown = sorted((set(data) - KNOWN_OUTPUT) | (set(specific) - KNOWN_SPECIFIC))
    if unknown:
        outcome.notes += hooks.once(f"{name}: ankit does not support the output field(s) {', '.join(unknown)}; "
                                    "they are ignored")
    if data.get("continue") is False:
        stop = str(data.get("stopReason") or f"stopped by the {name}")
        outcome.stop = outside(stop, HOOK_TEXT_CAP, hooks.scrub).strip()
    if isinstance(data.get("systemMessage"), str):
        outcome.notes.append(outside(data["systemMessage"], HOOK_TEXT_CAP, hooks.scrub).strip())
    if isinstance(specific.get("additionalContext"), str):
        outcome.context.append(outside(specific["additionalContext"], HOOK_TEXT_CAP, hooks.scrub).strip())
    _decide(outcome, name, data, specific, hooks)


def _decide(outcome: Outcome, name: str, data: dict, specific: dict, hooks: Hooks) -> None:
    """The decision fields: permissionDecision (PreToolUse), decision.behavior (PermissionRequest), decision."""
    request = specific.get("decision") if isinstance(specific.get("decision"), dict) else {}
    reason = outside(str(specific.get("permissionDecisionReason") or request.get("message")
                             or data.get("reason") or ""), HOOK_TEXT_CAP, hooks.scrub).strip()
    decision = (specific.get("permissionDecision") or request.get("behavior")
                or {"approve": "allow", "block": "deny"}.get(data.get("decision")))
    if decision == "deny":
        if not outcome.blocked:
            outcome.blocked, outcome.reason = True, reason or f"blocked by the {name}"
    elif decision in ("allow", "ask") and outcome.decision != "ask":
        outcome.decision, outcome.reason = decision, reason
    updated = specific.get("updatedInput", request.get("updatedInput"))
    if isinstance(updated, dict):
        outcome.updated_input = updated


def _short(command: str) -> str:
    line = outside(" ".join(command.split()), 200, line=True)
    return repr(line if len(line) <= 40 else line[:39] + "…")


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")[:200]
