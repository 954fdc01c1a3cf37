"""-p --output-format json and stream-json: the run as JSON objects, with Claude Code's field names."""

import json
import sys
import time
from dataclasses import dataclass, field
from typing import TextIO

from ankit.protocols import View
from ankit.records import ToolCall, ToolResult, Usage
from ankit.tooling.toolbox import parse_arguments
from ankit.usage.budget import spent
from ankit.usage.ledger import RoundRecord, total


def usage_fields(usage: Usage) -> dict:
    """Usage as Claude Code names it: input_tokens counts the uncached part only, as Anthropic reports it."""
    uncached = max(0, usage.input_tokens - usage.cached_tokens - usage.cache_write_tokens)
    return {"input_tokens": uncached, "cache_creation_input_tokens": usage.cache_write_tokens,
            "cache_read_input_tokens": usage.cached_tokens, "output_tokens": usage.output_tokens}


ASK_NOBODY = "needs approval; -p asks nobody (rerun with --yes to allow it)"


def _input_of(call: ToolCall) -> dict:
    """A call's arguments as an object (what the model sent, when it is not JSON)."""
    try:
        return parse_arguments(call.arguments)
    except ValueError:
        return {"_raw": call.arguments}


@dataclass
class Outcomes:
    """What did not happen in a run: the calls refused (Claude Code's permission_denials, with a reason) and those
    that failed; fed by the view from each call's start and end."""

    calls: dict[str, ToolCall] = field(default_factory=dict)
    denials: list[dict] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    inner: list[dict] = field(default_factory=list)  # the calls run_code programs made (inner_calls)

    def start(self, call: ToolCall) -> None:
        """A call is about to run."""
        self.calls[call.id] = call

    def end(self, result: ToolResult, call: ToolCall | None = None) -> None:
        """A call finished: a refusal or a failure is kept."""
        call = call or self.calls.get(result.call_id) or ToolCall(result.call_id, result.name)
        if result.refused:
            reason = ASK_NOBODY if result.summary == "declined" else result.summary
            self.denials.append({"tool_name": call.name, "tool_use_id": call.id, "tool_input": _input_of(call),
                                 "reason": reason})
        elif result.is_error:
            self.failed.append(call.name)

    @property
    def shortfall(self) -> bool:
        """Whether any call was refused or failed (--strict exits 3)."""
        return bool(self.denials or self.failed)

    def line(self) -> str:
        """One line naming each refused call and why; empty when none was."""
        if not self.denials:
            return ""
        named = "; ".join(f"{d['tool_name']} ({d['reason']})" for d in self.denials)
        return f"not done: {len(self.denials)} refused call{'s' if len(self.denials) > 1 else ''}: {named}"


def result_object(session_id: str, text: str, error: str, rounds: list[RoundRecord], prices: dict | None,
                  started: float, denials: list[dict] | None = None, inner: list[dict] | None = None) -> dict:
    """The final object: Claude Code's `result` message (a refused call keeps subtype success, as there, and is
    listed in permission_denials), and ankit's inner_calls: the calls run_code programs made."""
    cost = spent(rounds, prices) if prices is not None else None
    usage = total([r for r in rounds if r.usage.reported])
    return {"type": "result", "subtype": "error_during_execution" if error else "success",
            "is_error": bool(error), "result": error or text, "session_id": session_id,
            "num_turns": len(rounds), "duration_ms": round((time.monotonic() - started) * 1000),
            "duration_api_ms": round(sum(r.duration for r in rounds) * 1000),
            "total_cost_usd": None if cost is None or not rounds else round(cost, 6),
            "usage": usage_fields(usage), "permission_denials": denials or [], "inner_calls": inner or []}


class JsonView(View):
    """Collects the run quietly (json) or prints one object per line as things happen (stream-json)."""

    def __init__(self, streaming: bool, out: TextIO | None = None):
        self.streaming = streaming
        self.out = out or sys.stdout
        self.session_id = ""
        self.text_so_far = ""
        self.outcomes = Outcomes()
        self.running = ""  # the id of the call running now: a run_code call's inner calls name it

    def emit(self, obj: dict) -> None:
        """Print one JSON line (stream-json only)."""
        if self.streaming:
            self.out.write(json.dumps({**obj, "session_id": self.session_id}, ensure_ascii=False) + "\n")
            self.out.flush()

    def text(self, delta: str) -> None:
        self.text_so_far += delta
        self.emit({"type": "stream_event", "event": {"type": "content_block_delta", "index": 0,
                                                     "delta": {"type": "text_delta", "text": delta}}})

    def reply_end(self) -> None:
        if self.text_so_far:
            self.emit({"type": "assistant", "message": {"role": "assistant",
                                                        "content": [{"type": "text", "text": self.text_so_far}]}})
        self.text_so_far = ""

    def tool_start(self, call: ToolCall) -> None:
        self.outcomes.start(call)
        self.running = call.id
        self.emit({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": call.id, "name": call.name, "input": _input_of(call)}]}})

    def tool_end(self, result: ToolResult) -> None:
        self.outcomes.end(result)
        self.emit({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": result.call_id, "content": result.content,
             "is_error": result.is_error}]}})

    def inner_call(self, call: ToolCall, result: ToolResult) -> None:
        """A run_code program's call: its tool_use and tool_result under the run_code call (parent_tool_use_id,
        as Claude Code marks a subagent's messages), and a line of inner_calls."""
        self.outcomes.end(result, call)
        parent = self.running
        self.outcomes.inner.append({"tool_use_id": call.id, "parent_tool_use_id": parent, "tool_name": call.name,
                                    "tool_input": _input_of(call), "is_error": result.is_error})
        self.emit({"type": "assistant", "parent_tool_use_id": parent, "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": call.id, "name": call.name, "input": _input_of(call)}]}})
        self.emit({"type": "user", "parent_tool_use_id": parent, "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call.id, "content": result.content, "is_error": result.is_error}]}})

    def notice(self, line: str) -> None:
        print(f"ankit: {line}", file=sys.stderr)
