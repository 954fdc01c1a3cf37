"""Code mode's bridge: run_code runs the model's Python program in a child process inside the sandbox, and each
tool call the program makes comes back over a pipe to take the path of a direct call (the runner: hooks, policy,
approval, limits, checkpoints, scrubbing). Only what the program prints returns to the model.

The pipe is outside input: each message is bounded (CodeLimits.message), calls are counted (CodeLimits.calls),
and what the program sends is parsed as data, never run. The child (child.py, run as a module) starts through
the sandbox's confine() and spawn (contained, its own process group: safety/processes.py) with the pipe's two ends
as its only channel back.
"""

import codecs
import json
import os
import select
import selectors
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ankit.codemode.stubs import parameter_order, stub
from ankit.errors import ToolError
from ankit.protocols import ToolRunner
from ankit.records import ToolCall, ToolResult, ToolSpec
from ankit.safety import text as boundary
from ankit.paths import program
from ankit.safety.processes import end_group, spawn
from ankit.safety.sandbox import Sandbox
from ankit.tooling.tool import Tool
from ankit.tooling.toolbox import cap_output

CHILD = "ankit.codemode.child"  # run as a module: its file cannot be run from inside ankit.pyz
MODES = ("off", "on", "only")
CATALOG_LEVELS = ("none", "first-sentence", "full")
TAIL = 4096  # bytes kept of the end of a long printed output (where a traceback is)


@dataclass(frozen=True)
class CodeLimits:
    """What one program may use: its own time (time inside tool calls, approvals among them, is not counted),
    tool calls, printed characters returned, memory, and the size of one message on the pipe."""

    seconds: float = 120.0
    calls: int = 200
    output: int = 20_000
    memory: int = 1024  # megabytes of address space
    message: int = 1024 * 1024  # bytes of one call the program sends

    @classmethod
    def from_config(cls, raw: Mapping) -> "CodeLimits":
        """The limits of the settings (code_mode_timeout, _max_calls, _output_cap, _memory_mb); defaults else."""
        given = {"seconds": raw.get("code_mode_timeout"), "calls": raw.get("code_mode_max_calls"),
                 "output": raw.get("code_mode_output_cap"), "memory": raw.get("code_mode_memory_mb")}
        return cls(**{k: v for k, v in given.items() if isinstance(v, (int, float)) and v > 0})


@dataclass
class Printed:
    """What the program prints, bounded while read: the head up to the cap, the last TAIL bytes, and a count."""

    cap: int
    head: bytearray
    tail: bytearray
    total: int = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self.cap - len(self.head)
        self.head += data[:max(room, 0)]
        self.tail = (self.tail + data[max(room, 0):])[-TAIL:]

    def text(self, chars: int) -> str:
        """The output as text, cut to `chars` characters with a marker where it was cut."""
        cut = self.total - len(self.head) - len(self.tail)
        body = boundary.decode(bytes(self.head))
        if cut > 0:
            body += f"\n[... {cut:,} bytes cut ...]\n"
        return cap_output(body + boundary.decode(bytes(self.tail)), chars)


@dataclass
class Call:
    """One call of the program, as read from the pipe."""

    number: int
    tool: str
    args: dict


class Stopped(ToolError):
    """The program was stopped by ankit: the reason, for the model."""


@dataclass
class CodeMode:
    """Runs run_code programs; tool calls from them go to `runner` (built without run_code: no nesting)."""

    runner: ToolRunner
    tools: Mapping[str, Tool]  # every catalog tool, bound in the program whether activated or not
    cwd: Path
    sandbox: Sandbox | None = None
    limits: CodeLimits = CodeLimits()
    report: Callable[[ToolCall, ToolResult], None] | None = None  # one line per inner call (View.inner_call)

    def run(self, args: dict, ctx) -> str:
        """Run the program in args["code"]; its printed output (capped), or ToolError with it and why it failed.
        ctx: the call's ToolContext (live output, the user's line, the transcript's line per inner call)."""
        code = args.get("code") if isinstance(args, dict) else None
        if not isinstance(code, str) or not code.strip():
            raise ToolError("code is empty: give a Python program; `import tools` gives every tool as a function")
        run = ProgramRun(self, ctx.output, ctx.inner)
        status, why = run.go(code)
        calls = f"{run.calls} tool call{'' if run.calls == 1 else 's'}"
        ctx.summarize(f"{calls} · {run.printed.total:,} bytes printed")
        text = run.printed.text(self.limits.output)
        if why or status != 0:
            why = why or f"the program exited with code {status}"
            raise ToolError(f"{why} ({calls}); it printed:\n{text}" if text else f"{why} ({calls}); it printed nothing")
        return text or "(the program printed nothing)"

    def bindings(self) -> dict[str, dict]:
        """Every tool the program can call: its parameters in positional order, and its stub with the whole
        description for tools.help()."""
        return {name: {"order": parameter_order(tool.parameters), "help": stub(_spec(tool), whole=True)}
                for name, tool in self.tools.items()}

    def argv(self, to_child: int, from_child: int) -> list[str]:
        """The child's command line, inside the sandbox in force (unchanged where there is none)."""
        argv = [*program(CHILD, "-u"), str(to_child), str(from_child), str(self.limits.memory)]
        return self.sandbox.confine(argv, {}) if self.sandbox is not None else argv


class ProgramRun:
    """One program: started, served call by call on this thread, stopped and reaped whatever happens."""

    def __init__(self, mode: CodeMode, output: Callable[[str], None], inner: Callable[[str], None]):
        self.mode, self.output, self.inner, self.calls = mode, output, inner, 0
        self.printed = Printed(mode.limits.output * 4, bytearray(), bytearray())
        self.live = codecs.getincrementaldecoder("utf-8")("replace")

    def go(self, code: str) -> tuple[int, str]:
        """Run the program to its end: (exit status, why ankit stopped it or "")."""
        down_r, down_w = os.pipe()  # ankit -> program: the answers
        up_r, up_w = os.pipe()  # program -> ankit: the calls
        try:
            proc = spawn(self.mode.argv(down_r, up_w), self.mode.cwd, pass_fds=(down_r, up_w))  # contained: a
            # daemon the program starts (setsid, double fork) ends with it, sandbox on or off
        except OSError as exc:
            for fd in (down_r, down_w, up_r, up_w):
                os.close(fd)
            raise ToolError(f"could not start Python for the program: {exc.strerror or exc}") from None
        os.close(down_r)
        os.close(up_w)
        self.down = down_w
        os.set_blocking(down_w, False)  # a program that stops reading its answers cannot hold ankit up
        try:
            self._send({"code": code, "tools": self.mode.bindings()})
            self._serve(proc, up_r)
            return proc.wait(timeout=5), ""
        except subprocess.TimeoutExpired:
            return -1, "stopped: the program closed its output but did not end"
        except Stopped as stop:
            return -1, str(stop)
        finally:
            end_group(proc, 0.2)
            os.close(self.down)
            os.close(up_r)
            proc.stdout.close()

    def _serve(self, proc: subprocess.Popen, calls_fd: int) -> None:
        """Read the printed output and the calls until both pipes close; the program's own time is bounded."""
        limits, pending = self.mode.limits, b""
        deadline = time.monotonic() + limits.seconds
        with selectors.DefaultSelector() as chooser:
            chooser.register(proc.stdout.fileno(), selectors.EVENT_READ, "printed")
            chooser.register(calls_fd, selectors.EVENT_READ, "calls")
            while chooser.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Stopped(f"stopped: the program ran past code_mode_timeout ({limits.seconds:g} s of its "
                                  "own time; time inside tool calls is not counted)")
                for key, _ in chooser.select(left):
                    data = os.read(key.fd, 65536)
                    if not data:
                        chooser.unregister(key.fd)
                    elif key.data == "printed":
                        self._printed(data)
                    else:
                        pending, spent = self._calls(pending + data)
                        deadline += spent
        self._printed(b"", final=True)

    def _printed(self, data: bytes, final: bool = False) -> None:
        self.printed.add(data)
        shown = self.live.decode(data, final)
        if shown:
            self.output(boundary.clean(shown))

    def _calls(self, pending: bytes) -> tuple[bytes, float]:
        """Answer each whole line of pending; the rest, and the seconds spent inside tool calls."""
        spent = 0.0
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            started = time.monotonic()
            self._answer(line)
            spent += time.monotonic() - started
        if len(pending) > self.mode.limits.message:
            raise Stopped(f"stopped: the program sent a tool call over {self.mode.limits.message:,} bytes "
                          "(write big content in several calls)")
        return pending, spent

    def _answer(self, line: bytes) -> None:
        if len(line) > self.mode.limits.message:
            raise Stopped(f"stopped: the program sent a tool call over {self.mode.limits.message:,} bytes "
                          "(write big content in several calls)")
        call = _parse(line)
        if call is None:
            raise Stopped("stopped: the program wrote something other than a tool call on ankit's pipe")
        if self.calls >= self.mode.limits.calls:
            self._send({"id": call.number, "ok": False, "kind": "limit",
                        "error": f"this program made more than {self.mode.limits.calls} tool calls "
                                 "(code_mode_max_calls); do the rest in another run_code call"})
            return
        self.calls += 1
        self._send(self._result(call))

    def _result(self, call: Call) -> dict:
        """The call through the runner, as a direct call goes; its answer for the program."""
        tool_call = ToolCall(f"code-{self.calls}", call.tool, json.dumps(call.args, ensure_ascii=False))
        result = self.mode.runner.run(tool_call)
        if self.mode.report is not None:
            self.mode.report(tool_call, result)
        self.inner(_line(call, result))
        if result.is_error:
            kind = "refused" if result.refused else "failed"
            return {"id": call.number, "ok": False, "kind": kind, "error": result.content.removeprefix("Error: ")}
        return {"id": call.number, "ok": True, "value": _value(result)}

    def _send(self, message: dict) -> None:
        """Write one line to the program, waiting at most code_mode_timeout for it to read what it asked for."""
        data = json.dumps(message, ensure_ascii=False).encode("utf-8", "replace") + b"\n"
        deadline = time.monotonic() + self.mode.limits.seconds
        while data:
            try:
                data = data[os.write(self.down, data):]
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([], [self.down], [], left)[1]:
                    raise Stopped("stopped: the program did not read the answers to its tool calls") from None
            except BrokenPipeError:
                return  # the program ended without reading its answer: what it printed says the rest


def _spec(tool: Tool) -> ToolSpec:
    """What a program's help says of a tool (find_tools' spec() would build its catalog)."""
    return ToolSpec(tool.name, tool.description, tool.parameters, tool.group, tool.returns)


def _line(call: Call, result: ToolResult) -> str:
    """An inner call in one line for the transcript: `read_file(path="a.txt")`, and how it failed if it did."""
    shown = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)[:60]}" for k, v in call.args.items())
    failed = f" (refused: {result.summary})" if result.refused else (" (error)" if result.is_error else "")
    return boundary.clean(f"{call.tool}({shown})"[:200] + failed)


def _value(result: ToolResult):
    """What a call returns in the program: the tool's value where it gave one, else its text, parsed where the
    text is a JSON object or array."""
    if result.data is not None:
        return json.loads(result.data)
    if result.content.lstrip()[:1] in ("{", "["):
        try:
            return json.loads(result.content)
        except ValueError:  # text that only starts like JSON
            pass
    return result.content


def _parse(line: bytes) -> Call | None:
    """A call from the program's line, or None when it is not one."""
    try:
        value = boundary.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict):
        return None
    number, tool, args = value.get("id"), value.get("tool"), value.get("args")
    if not isinstance(number, int) or not isinstance(tool, str) or not isinstance(args, dict):
        return None
    return Call(number, tool, args)
