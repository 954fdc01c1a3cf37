"""The child side of run_code: runs the model's program with `import tools` bound to ankit over a pipe.

Started by ankit/codemode/bridge.py as a module (`python -I -S -u`, paths.program) with IN OUT MEMORY, inside the
sandbox; it imports only the standard library. The first line on IN is {"code": ..., "tools": {name: {"order":
[parameter, ...], "help": its stub}}}; each call
writes one JSON line on OUT ({"id", "tool", "args"}) and reads one answer on IN ({"id", "ok", "value"} or
{"id", "ok": false, "kind", "error"}). What the program prints goes to stdout, which ankit reads.
"""

import json
import linecache
import os
import sys
import traceback
import types

try:
    import resource
except ImportError:  # not POSIX: the time limit still holds
    resource = None

PROGRAM = "<program>"


class ToolError(Exception):
    """A tool call that failed: the tool's error text, as the model would have seen it."""

    kind = "failed"


class ToolRefused(ToolError):
    """A call the policy, a hook or the user refused; retrying it the same way is refused again."""

    kind = "refused"


class LimitReached(ToolError):
    """A call past the run's tool-call limit (code_mode_max_calls)."""

    kind = "limit"


KINDS = {"refused": ToolRefused, "limit": LimitReached}


class Bridge:
    """The pipe to ankit: one call at a time, in order."""

    def __init__(self, reader, writer):
        self.reader, self.writer, self.count = reader, writer, 0

    def call(self, name: str, args: dict):
        self.count += 1
        try:
            line = json.dumps({"id": self.count, "tool": name, "args": args}, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"tools.{name}: arguments must be JSON data (str, int, float, bool, None, list, "
                            f"dict): {exc}") from None
        self.writer.write(line.encode("utf-8", "surrogatepass") + b"\n")
        self.writer.flush()
        answer = self.reader.readline()
        if not answer:
            raise SystemExit("ankit closed the tool pipe")
        reply = json.loads(answer)
        if reply.get("ok"):
            return reply.get("value")
        raise KINDS.get(reply.get("kind"), ToolError)(str(reply.get("error", "")))


def _function(bridge: Bridge, name: str, order: list[str]):
    def call(*args, **kwargs):
        if len(args) > len(order):
            raise TypeError(f"tools.{name} takes at most {len(order)} positional arguments; pass names")
        given = dict(zip(order, args))
        clash = sorted(set(given) & set(kwargs))
        if clash:
            raise TypeError(f"tools.{name} got {clash[0]!r} twice")
        return bridge.call(name, {**given, **kwargs})

    call.__name__ = call.__qualname__ = name
    return call


RESERVED = ("names", "help", "call", "ToolError", "ToolRefused", "LimitReached")


def tools_module(bridge: Bridge, bound: dict) -> types.ModuleType:
    """The `tools` module: one function per catalog tool, names(), help(name), and the exceptions a call raises."""
    module = types.ModuleType("tools", "Every tool of ankit's catalog as a function; a call returns its value.")
    for name, about in bound.items():
        if name.isidentifier() and not name.startswith("_") and name not in RESERVED:
            setattr(module, name, _function(bridge, name, list(about.get("order") or [])))
            getattr(module, name).__doc__ = about.get("help") or name
    module.ToolError, module.ToolRefused, module.LimitReached = ToolError, ToolRefused, LimitReached
    module.names = lambda: sorted(bound)
    module.call = lambda name, /, **args: bridge.call(str(name), args)  # a tool whose name is no identifier

    def help(name: str | None = None) -> None:
        """Print a tool's signature and whole description (every tool's name without one)."""
        if name is None:
            print(", ".join(sorted(bound)))
        elif str(name) in bound:
            print(bound[str(name)].get("help") or name)
        else:
            raise AttributeError(f"no tool named {name!r}; tools.names() lists them")

    module.help = help

    def missing(attribute: str):
        raise AttributeError(f"no tool named {attribute!r}; tools.names() lists them, find_tools documents them")

    module.__getattr__ = missing
    return module


def short_traceback(exc: BaseException) -> str:
    """The program's own frames (at most 5) and the exception: what the model needs to fix its program."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == PROGRAM][-5:]
    lines = ["Traceback (most recent call last, the program's lines):"]
    for frame in frames:
        lines.append(f"  line {frame.lineno}, in {frame.name}")
        if frame.line:
            lines.append(f"    {frame.line.strip()}")
    lines += [line.rstrip("\n") for line in traceback.format_exception_only(type(exc), exc)]
    return "\n".join(lines)


def _limit_memory(megabytes: int) -> None:
    if megabytes <= 0 or resource is None:
        return
    try:
        size = megabytes * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    except (ValueError, OSError):
        pass  # a lower hard limit already: the time limit still holds


def main(argv: list[str]) -> int:
    reader, writer = os.fdopen(int(argv[0]), "rb"), os.fdopen(int(argv[1]), "wb")
    _limit_memory(int(argv[2]))
    first = json.loads(reader.readline() or b"{}")
    code = str(first.get("code", ""))
    sys.modules["tools"] = tools_module(Bridge(reader, writer), dict(first.get("tools") or {}))
    linecache.cache[PROGRAM] = (len(code), None, code.splitlines(True), PROGRAM)
    try:
        exec(compile(code, PROGRAM, "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)
        return 1
    except BaseException as exc:  # the program's failure is what the model reads next
        sys.stdout.flush()
        print(short_traceback(exc), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.stdout.reconfigure(errors="backslashreplace")
    sys.exit(main(sys.argv[1:]))
