"""The tool events of hooks around one call: PreToolUse before it, PermissionRequest where the user would be
asked, PostToolUse or PostToolUseFailure after it. The runner (tooling/toolbox.py) calls these; what a hook
says reaches the model and the user only through the hooks' text boundary (hooks/events.py: shown)."""

import json
from collections.abc import Callable
from dataclasses import dataclass, replace

from ankit.protocols import Approver, Tool
from ankit.records import ToolCall, ToolResult
from ankit.hooks.events import Hooks, Outcome


@dataclass
class Before:
    """What PreToolUse decided: a result when the call is blocked, else the call as it is to run."""

    blocked: ToolResult | None
    call: ToolCall
    tool: Tool
    approve: Approver
    notes: list[str]


def before(hooks: Hooks, call: ToolCall, tool: Tool, args: dict, approve: Approver,
           tell: Callable[[list[str]], None], paths: list[str] = ()) -> Before:
    """PreToolUse: a block (exit 2, deny) is the call's error result, under --yes too; allow skips the question,
    ask puts one, updatedInput changes the arguments. PermissionRequest hooks answer any question asked."""
    approve = Permission(approve, hooks, call.id, tell, list(paths)) if hooks.active("PermissionRequest") else approve
    if not hooks.active("PreToolUse"):
        return Before(None, call, tool, approve, [])
    verdict = hooks.tool("PreToolUse", call.name, args, call.id, paths=list(paths))
    if verdict.blocked:
        text = f"Error: blocked by a PreToolUse hook: {verdict.reason}"
        return Before(ToolResult(call.id, call.name, text, True, f"blocked by a hook: {verdict.reason}", refused=True),
                      call, tool, approve, verdict.notes)
    call, tool, approve = _as_decided(verdict, call, tool, approve)
    return Before(None, call, tool, approve, verdict.notes)


def _as_decided(verdict: Outcome, call: ToolCall, tool: Tool, approve: Approver) -> tuple[ToolCall, Tool, Approver]:
    """A PreToolUse decision applied: new arguments, no question (allow) or a question where the tool asks none."""
    if verdict.updated_input is not None:
        call = replace(call, arguments=json.dumps(verdict.updated_input, ensure_ascii=False))
    if verdict.decision == "allow":
        approve = _allowed
    elif verdict.decision == "ask":
        tool = replace(tool, needs_approval=True, read_only=False)
    return call, tool, approve


def _allowed(tool: Tool, args: dict, preview: str) -> bool:
    """The approver of a call a PreToolUse hook allowed."""
    return True


@dataclass
class Permission:
    """An approver that lets PermissionRequest hooks answer first: allow runs the call, deny refuses it with
    the hook's message; no answer asks the user as before."""

    inner: Approver
    hooks: Hooks
    call_id: str
    tell: Callable[[list[str]], None]  # the runner's way of telling the user a hook's notes
    paths: list[str]  # the files a several-file tool changes, each told apart

    def __call__(self, tool: Tool, args: dict, preview: str) -> bool | str:
        verdict = self.hooks.tool("PermissionRequest", tool.name, args, self.call_id, paths=self.paths)
        self.tell(verdict.notes)
        if verdict.blocked:
            return f"(answered by a PermissionRequest hook) {verdict.reason}"
        if verdict.decision == "allow":
            return True
        return self.inner(tool, args, preview)


def after(hooks: Hooks, call: ToolCall, args: dict, result: ToolResult, paths: list[str] = ()) -> list[str]:
    """PostToolUse (or PostToolUseFailure for an error result): a block's reason and added context go to the
    model with the result; returns the notes for the user."""
    event = "PostToolUseFailure" if result.is_error else "PostToolUse"
    if not hooks.active(event):
        return []
    verdict = hooks.tool(event, call.name, args, call.id, result.content, result.is_error, list(paths))
    extra = ([f"[{event} hook] {verdict.reason}"] if verdict.blocked else []) + verdict.context
    if extra:
        result.content = result.content + "\n" + "\n".join(extra)
    return verdict.notes
