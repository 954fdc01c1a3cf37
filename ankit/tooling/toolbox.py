"""Tools at run time: running a call (arguments, approval, output cap), the runner."""

import json
import threading
from concurrent.futures import Future
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from ankit.errors import Cancelled, ToolError
from ankit.protocols import Approver, Checkpoints
from ankit.records import ARGUMENTS_CAP, TOO_LONG, CallEffects, ToolCall, ToolOutput, ToolResult
from ankit.safety import text as boundary
from ankit.safety.effects import changes
from ankit.safety.policy import Policy, Verdict as Decision
from ankit.safety.sandbox import Sandbox, Verdict
from ankit.safety.scrub import Scrubber
from ankit.hooks import toolcalls
from ankit.claude.toolnames import PER_FILE
from ankit.hooks.events import Hooks
from ankit.tooling.relay import Relay
from ankit.tooling.limits import MAX_DEPTH, ToolTimeout, call_with_limit, too_deep
from ankit.tooling.tool import DEFAULT_TIME_LIMIT, Tool, ToolContext, call_flexibly
from ankit.tooling.schema import validate

DEFAULT_OUTPUT_CAP = 64 * 1024
PARALLEL_TASKS = 4  # task calls of one reply that run at the same time
CUT_MARK = "\n[... {} characters cut ...]\n"


def cap_output(text: str, cap: int = DEFAULT_OUTPUT_CAP) -> str:
    """Cut text longer than cap characters to its head and tail with a marker saying how much was cut.

    Characters that cannot be sent (lone surrogates from file names that are not UTF-8) become "?".
    """
    text = text.encode("utf-8", "replace").decode("utf-8") if not text.isascii() else text
    if len(text) <= cap:
        return text
    half = cap // 2
    cut = len(text) - 2 * half
    return f"{text[:half]}{CUT_MARK.format(cut)}{text[-half:]}"


def parse_arguments(raw: str) -> dict:
    """Parse a model's JSON arguments, accepting raw newlines inside strings; raise ValueError otherwise."""
    if not raw or not raw.strip():
        return {}
    try:
        value = boundary.loads(raw, strict=False)
    except json.JSONDecodeError as exc:
        raise ValueError(f"arguments are not valid JSON ({exc.msg} at position {exc.pos})") from None
    except RecursionError:
        raise ValueError(f"arguments nest too deeply (more than {MAX_DEPTH} levels); send flatter arguments") from None
    if not isinstance(value, dict):
        raise ValueError("arguments must be a JSON object")
    if list(value) == [TOO_LONG]:
        raise ValueError(f"the arguments of this call were {value[TOO_LONG]:,} characters, over ankit's cap of "
                         f"{ARGUMENTS_CAP:,}; nothing ran: send smaller arguments (a big file in several calls)")
    if too_deep(value):
        raise ValueError(f"arguments nest too deeply (more than {MAX_DEPTH} levels); send flatter arguments")
    return value


LASTING_MARK = "\n[kept for later sessions: written by the model]"
DECLINED = "the user declined this call; do not retry it, ask the user what to do instead"


def run_call(call: ToolCall, tool: Tool | None, ctx: ToolContext, approve: Approver, cap: int = DEFAULT_OUTPUT_CAP,
             output: Callable[[str], None] | None = None, keeper: Checkpoints | None = None,
             policy: Policy | None = None, scrub: Scrubber | None = None,
             sandbox: Sandbox | None = None, values: bool = False) -> ToolResult:
    """One call to its result: arguments, the policy (rules, the sandbox's step, approval), run under a time limit,
    output scrubbed and capped; a sandboxed call whose output looks refused by the sandbox says so and how to
    leave it. With values (a run_code program's call) the result also carries the tool's value as JSON."""
    scrub = scrub or Scrubber()
    error = partial(_error, call, scrub, cap)
    if tool is None:
        return error(f"unknown tool {call.name!r}; call find_tools to discover tools", f"unknown tool {call.name}")
    told, inner = [], []
    live, stream = output or (lambda text: None), scrub.stream()  # live output: whole lines, scrubbed
    ctx = replace(ctx, output=lambda text: live(stream.feed(boundary.clean(text))), summarize=told.append,
                  inner=inner.append)
    limit = DEFAULT_TIME_LIMIT
    try:
        args = _checked_arguments(call, tool)
        effects = tool.call_effects(args, ctx)  # the one reading of what this call does
        verdict = _sandbox_step(tool, args, effects, sandbox)
        refused = _gate(call, tool, args, ctx, approve, policy or Policy(), error, verdict, effects)
        if not isinstance(refused, Decision):
            return refused
        ctx = replace(ctx, withheld=frozenset(refused.withheld))
        limit = tool.limit(args, ctx)
        try:
            output_text, value = _run(tool, args, ctx, keeper, limit, verdict, sandbox)
            output_text = scrub.text(output_text)
        finally:
            live(stream.end())  # the live output's last unfinished line
    except (Cancelled, KeyboardInterrupt):
        raise
    except BaseException as exc:  # SystemExit and RecursionError too: a tool's failure is information, not a crash
        return replace(error(*_failure_of(exc, tool, limit)), inner=[scrub.text(line) for line in inner])
    content = cap_output(output_text + LASTING_MARK if tool.outlives(args, ctx) else output_text, cap)
    return ToolResult(call.id, call.name, content, summary=scrub.text(_summary(told, output_text, cap)),
                      data=_value_json(value, scrub) if values else None, inner=[scrub.text(line) for line in inner])


def _error(call: ToolCall, scrub: Scrubber, cap: int, text: str, summary: str = "") -> ToolResult:
    """A failed call's result: the reason for the model (cleaned, scrubbed, capped) and its one-line summary."""
    text = scrub.text(boundary.clean(text))
    return ToolResult(call.id, call.name, cap_output(f"Error: {text}", cap), True, scrub.text(summary) or text)


def _failure_of(exc: BaseException, tool: Tool, limit: float) -> tuple[str, str]:
    """What the model and the user are told of a call that raised: (text, summary)."""
    if isinstance(exc, BadArguments):
        return _text_of(exc), ""
    if isinstance(exc, ToolTimeout):
        return (f"{tool.name} did not finish within {limit:g} s and was stopped (tool_timeout)",
                f"stopped after {limit:g} s (tool_timeout)")
    return _failure(exc, tool), ""


def _run(tool: Tool, args: dict, ctx: ToolContext, keeper: Checkpoints | None, limit: float, verdict: Verdict,
         sandbox: Sandbox | None) -> tuple[str, object]:
    """The call's text and its value for a run_code program (NO_VALUE when the tool gave text alone); a
    sandboxed call's text says what the sandbox may have stopped and what it set aside."""
    if verdict.action != "sandboxed":
        return _text_and_value(_execute(tool, args, ctx, keeper, limit))
    before = sandbox.protected_now()
    try:
        text, value = _text_and_value(_execute(tool, args, ctx, keeper, limit))
    finally:
        moved = sandbox.set_aside(before)
    return text + sandbox.stopped_note(text, tool.name) + moved, value


NO_VALUE = object()  # a tool that returned text alone: a program gets the text (parsed when it is JSON)
VALUE_CAP = ARGUMENTS_CAP  # characters of a value's JSON a program may get; past it the program gets the text


def _text_and_value(output) -> tuple[str, object]:
    """What run() returned as the model's text and the program's value: a ToolOutput's two parts, a dict or
    list as JSON text and itself, anything else as text alone."""
    if isinstance(output, ToolOutput):
        return _as_text(output.text), output.value
    return _as_text(output), output if isinstance(output, (dict, list)) else NO_VALUE


def _value_json(value, scrub: Scrubber) -> str | None:
    """A value as JSON for a program, each string through the text boundary and the scrubber; None when there
    is none, or it is not JSON data, nests too deeply or is past VALUE_CAP."""
    if value is NO_VALUE or too_deep(value):
        return None
    try:
        text = json.dumps(_cleaned(value, scrub), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None
    return text if len(text) <= VALUE_CAP else None


def _cleaned(value, scrub: Scrubber):
    if isinstance(value, str):
        return scrub.text(boundary.clean(value))
    if isinstance(value, dict):
        return {_cleaned(str(key), scrub): _cleaned(item, scrub) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_cleaned(item, scrub) for item in value]
    return value


def _sandbox_step(tool: Tool, args: dict, effects: CallEffects, sandbox: Sandbox | None) -> Verdict:
    """The sandbox's say on this call (none without a sandbox)."""
    if sandbox is None:
        return Verdict()
    edits = effects.changes  # a tool without a declaration changes everything
    if tool.claims is not None and not changes(tool.claims):
        edits = False  # it only claims to read: plan mode asks the user (its calls ask) instead of refusing it
    return sandbox.verdict(tool.name, effects.confined, edits, args, effects.words)


def _gate(call: ToolCall, tool: Tool, args: dict, ctx: ToolContext, approve: Approver, policy: Policy,
          error: Callable[[str, str], ToolResult], step: Verdict, effects: CallEffects):
    """The policy's verdict (ankit/safety/policy.py: rules over what the call declares it touches, the sandbox's
    step), then the user's approval where the tool wants it or the policy asks; the verdict lets the call run
    (with the reads it must leave out), a result refuses it."""
    exact = tool.exact_grant(args, ctx, effects)
    touched = tool.touched(args, ctx) if policy.binds_paths(tool.name, tool.group) else None
    changed = _changed_paths(tool, args, ctx) if touched is None else ()  # cheap: no walk of a tree
    verdict = policy.decide(tool.name, args, changed, exact, step, touched, tool.group)
    if verdict.decision == "deny" and not verdict.rule:  # the sandbox refused it (plan mode)
        return replace(error(verdict.why, verdict.why.split(":")[0]), refused=True)
    if verdict.decision == "deny":
        why = f" ({verdict.why})" if verdict.why else ""
        return replace(error(f"refused by the rule {verdict.rule!r} in the settings{why}; do not retry it, ask the "
                             "user", f"refused by the rule {verdict.rule!r}"), refused=True)
    if verdict.decision == "ask" and (verdict.rule or effects.asks):
        text = call_flexibly(tool.preview, args, ctx) if tool.preview else ""
        text = f"{step.reason}\n{text}" if step.reason else text
        text = f"{verdict.why}\n{text}" if verdict.rule and verdict.why else text  # why a line was not read surely
        answer = approve(tool, args, str(text or ""))
        if isinstance(answer, str) or not answer:  # False, or the reason the user gave for the no
            return declined(call, answer)
    return verdict


def _execute(tool: Tool, args: dict, ctx: ToolContext, keeper: Checkpoints | None, limit: float):
    """Run the tool under its time limit, keeping the files it declares it changes for /undo."""
    changing = _kept_paths(tool, args, ctx, keeper) if keeper is not None else []
    if changing:
        keeper.keep(changing)
    try:
        return call_with_limit(lambda: call_flexibly(tool.run, args, ctx), limit)
    finally:
        if changing:
            keeper.settle(changing)


class BadArguments(ValueError):
    """A call's arguments that cannot be used: not JSON, too deep, or not what the schema asks for."""


def _checked_arguments(call: ToolCall, tool: Tool) -> dict:
    """The call's arguments, parsed and validated; BadArguments says what is wrong."""
    try:
        args = parse_arguments(call.arguments)
    except ValueError as exc:
        raise BadArguments(str(exc)) from None
    problems = validate(args, tool.parameters)
    if problems:
        raise BadArguments("; ".join(problems[:5]))
    return args


def _changed_paths(tool: Tool, args: dict, ctx: ToolContext) -> list[Path]:
    """The paths the tool says this call will change, under the working folder; none when it declares none
    (or cannot say: _kept_paths tells the user)."""
    try:
        return _declared_changes(tool, args, ctx)
    except Exception:
        return []


def _declared_changes(tool: Tool, args: dict, ctx: ToolContext) -> list[Path]:
    """The paths the tool's changes() names for this call; raises what changes() raises."""
    if tool.changes is None:
        return []
    found = call_flexibly(tool.changes, args, ctx) or []
    return [Path(ctx.cwd) / str(p) for p in found]


def _kept_paths(tool: Tool, args: dict, ctx: ToolContext, keeper: Checkpoints) -> list[Path]:
    """The paths to keep for /undo; when the tool cannot say which, the user hears that /undo will not cover it."""
    try:
        return _declared_changes(tool, args, ctx)
    except Exception as exc:
        keeper.notes.append(f"{tool.name}: cannot tell which files this call changes (its changes() raised "
                            f"{type(exc).__name__}); /undo will not cover it")
        return []


def declined(call: ToolCall, answer) -> ToolResult:
    """The result of a call the user refused; a reason the user gave (a non-empty string answer) goes along."""
    reason = answer.strip() if isinstance(answer, str) else ""
    text = f"Error: {DECLINED}" + (f". The user said: {reason}" if reason else "")
    return ToolResult(call.id, call.name, text, True, f"declined: {reason}" if reason else "declined", refused=True)


def _summary(told: list[str], text: str, cap: int) -> str:
    """The tool's own line, or its first output line and how many lines; says when the model got a cut."""
    if told:
        line = told[-1]
    else:
        lines = text.splitlines() or [""]
        line = lines[0] + (f" · {len(lines):,} lines" if len(lines) > 1 else "")
    if len(text) > cap:
        line += f" · {cut_note(2 * (cap // 2), len(text))}"
    return line


def cut_note(sent: int, total: int) -> str:
    """'40,000 of 1.2 M characters sent'."""
    shown = f"{total / 1e6:.1f} M" if total >= 1_000_000 else f"{total:,}"
    return f"{sent:,} of {shown} characters sent"


def _text_of(exc: BaseException) -> str:
    """str(exc), even for an exception whose __str__ itself fails."""
    try:
        return str(exc)
    except Exception:
        return ""


def _failure(exc: BaseException, tool: Tool) -> str:
    """A ToolError (ankit.toolkit's) says what went wrong in the tool's words; any other exception is a bug in
    the tool, said as one: its class and message, and where in the tool's file it came from."""
    text = _text_of(exc)
    if isinstance(exc, ToolError):
        return text or f"{tool.name} failed without saying why"
    if isinstance(exc, SystemExit):
        return f"the tool called exit({text or 0}); ankit kept running"
    return (f"{type(exc).__name__}: {text} (a bug in the tool {tool.name}{_where(exc, tool.source)}: it raised "
            "this instead of a ToolError)")


def _where(exc: BaseException, source: str) -> str:
    """' at read_file.py line 12': the last line of the tool's own file the exception passed through, or ''."""
    line, step = 0, exc.__traceback__
    while step is not None:
        if source and step.tb_frame.f_code.co_filename == source:
            line = step.tb_lineno
        step = step.tb_next
    return f" at {Path(source).name} line {line}" if line else ""


def _as_text(output) -> str:
    if output is None:
        return "(no output)"
    if isinstance(output, str):
        return boundary.clean(output)  # a tool's own text enters here: no lone surrogate goes further
    try:
        return boundary.clean(json.dumps(output, ensure_ascii=False, indent=1))
    except (TypeError, ValueError):
        return boundary.clean(str(output))


@dataclass
class Runner:
    """Runs the model's tool calls: looks the tool up, validates, asks the approver, runs, caps the output."""

    tools: Mapping[str, Tool]
    ctx: ToolContext
    approve: Approver
    cap: int = DEFAULT_OUTPUT_CAP
    keeper: Checkpoints | None = None  # checkpoints before calls that declare changes()
    policy: Policy = field(default_factory=Policy)  # the rules, [a]lways answers and --yes (ankit/safety/policy.py)
    scrub: Scrubber = field(default_factory=Scrubber)  # secrets out of tool output before anyone sees it
    sandbox: Sandbox | None = None  # the session's sandbox: commands inside it run unasked
    hooks: Hooks | None = None  # PreToolUse and PostToolUse commands
    stop: threading.Event | None = None  # set on Ctrl-C: task calls running at once stop (shared with subagents)
    notice: Callable[[str], None] | None = None  # where hooks' lines for the user go (the view's notice)
    values: bool = False  # a run_code program's runner: results carry the tool's value (ToolResult.data)
    _started: dict[str, tuple[Future, Relay]] = field(default_factory=dict, init=False, repr=False)  # tasks at once

    def lookup(self, name: str) -> Tool | None:
        """A known tool by name, whether or not its group is active."""
        return self.tools.get(name)

    def start(self, calls: list[ToolCall], output: Callable[[str], None] | None = None) -> None:
        """Begin the task calls of one reply together (a few at a time) when there are several; run() waits for
        each. Their live output goes to `output`, each line marked with its task."""
        tasks = [c for c in calls if c.name == "task" and c.name in self.tools]
        self._started = {}
        if len(tasks) < 2:
            return
        if self.stop is not None:
            self.stop.clear()
        slots = threading.BoundedSemaphore(PARALLEL_TASKS)
        for call in tasks:
            future, relay = Future(), Relay(output)  # its lines wait for its own block on screen
            self._started[call.id] = (future, relay)
            threading.Thread(target=self._run_in_slot, args=(call, relay, future, slots), daemon=True,
                             name="ankit-task").start()

    def _run_in_slot(self, call: ToolCall, output, future: Future, slots: threading.BoundedSemaphore) -> None:
        """One task call on its own thread (a daemon: Ctrl-C and exit never wait for it), once a slot is free."""
        with slots:
            if self.stop is not None and self.stop.is_set():
                future.set_exception(Cancelled("cancelled before it started"))
                return
            try:
                future.set_result(self._run(call, output))
            except BaseException as exc:  # handed to the main thread, whatever it is
                future.set_exception(exc)

    def run(self, call: ToolCall, output: Callable[[str], None] | None = None) -> ToolResult:
        """One call to its result; a failure becomes an error result the model sees; output hears it live."""
        started = self._started.pop(call.id, None)
        if started is None:
            return self._run(call, output)
        future, relay = started
        relay.go_live()
        try:
            return future.result()
        except KeyboardInterrupt:  # Ctrl-C while waiting: the others stop at their next step, unwaited for
            if self.stop is not None:
                self.stop.set()
            self._started = {}
            raise

    def _run(self, call: ToolCall, output: Callable[[str], None] | None = None) -> ToolResult:
        tool, approve = self.lookup(call.name), self.approve
        args = _arguments_or_none(call)
        if self.hooks is not None and tool is not None and args is not None:
            paths = [str(p) for p in _changed_paths(tool, args, self.ctx)] if call.name in PER_FILE else []
            decided = toolcalls.before(self.hooks, call, tool, args, approve, partial(self._tell, output=output), paths)
            self._tell(decided.notes, output)
            if decided.blocked is not None:  # exit 2 or a deny: under --yes too
                blocked = decided.blocked
                return replace(blocked, content=cap_output(self.scrub.text(blocked.content), self.cap))
            call, tool, approve = decided.call, decided.tool, decided.approve
        result = run_call(call, tool, self.ctx, approve, self.cap, output, self.keeper, self.policy, self.scrub,
                          self.sandbox, self.values)
        return self._after(call, result, output)

    def _after(self, call: ToolCall, result: ToolResult, output: Callable[[str], None] | None) -> ToolResult:
        """PostToolUse or PostToolUseFailure: the hooks see the result; a block or added context goes with it."""
        args = _arguments_or_none(call)
        if self.hooks is None or args is None or result.summary == "declined":
            return result
        before = result.content
        self._tell(toolcalls.after(self.hooks, call, args, result), output)
        if result.content != before:
            result.content = cap_output(self.scrub.text(result.content), self.cap)
        return result

    def _tell(self, notes: list[str], output: Callable[[str], None] | None) -> None:
        for note in notes:
            if self.notice is not None:
                self.notice(self.scrub.text(note))
            elif output is not None:
                output(f"ankit: {self.scrub.text(note)}\n")


def _arguments_or_none(call: ToolCall) -> dict | None:
    try:
        return parse_arguments(call.arguments)
    except ValueError:
        return None
