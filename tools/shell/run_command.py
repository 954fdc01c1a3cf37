"""run_command: run a shell command line to completion, with a timeout and capped output."""

from ankit.toolkit import ToolError, paths, proc

DEFAULT_TIMEOUT = 120
MAX_TIMEOUT = 3600

name = "run_command"
description = (
    "Run a shell command line (bash: tests, builds, installs, scripts) in the working folder or a subfolder and return its exit code and "
    "combined stdout/stderr (long output is cut in the middle). It is killed, with its child processes, at "
    "the timeout (default 120 s). Input is not available. For servers and other long-running commands use job_start."
)
parameters = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "The command line, e.g. 'pytest -q' or 'ls -la | head'"},
        "cwd": {"type": "string", "description": "Folder to run in, relative to the working folder (default '.')"},
        "sandbox": {"type": "boolean", "description": "false: run outside ankit's sandbox (network, writes outside "
                    "the folder); the user is asked and sees reason. Only after the sandbox stopped the command"},
        "reason": {"type": "string", "description": "With sandbox false: why the command must run outside"},
        "timeout": {"type": "integer", "description": "Seconds before the command is killed (default 120, max 3600)"},
    },
    "required": ["command"],
    "additionalProperties": False,
}
effects = ["run"]
confined = True  # its command starts through ctx.confine: inside the sandbox in force (ankit's own module only)
needs_approval = True
examples = [
    "run the tests with pytest",
    "execute make build and show me the errors",
    "install the dependencies with npm install",
    "run this shell command",
]


def time_limit(args: dict) -> float:
    """ankit's limit on run(): past the command's own timeout, by which time the command was killed."""
    return _timeout(args) + 30


def preview(args: dict, ctx) -> str:
    """The command and the folder it runs in."""
    folder = paths.resolve(ctx, args.get("cwd"))
    note = paths.outside_note({"cwd": args.get("cwd")}, ctx, ("cwd",))
    return f"{note}$ {args['command']}\n(in {folder}, timeout {_timeout(args)} s)"


def run(args: dict, ctx) -> str:
    """Run the command and report exit code, duration and output."""
    folder = paths.resolve(ctx, args.get("cwd"))
    if not folder.is_dir():
        raise ToolError(f"no such folder: {paths.show(ctx, folder)}; give cwd as an existing folder")
    if not args["command"].strip():
        raise ToolError("command is empty; give a shell command line")
    live = proc.LiveText(getattr(ctx, "output", None))
    outcome = proc.run(proc.shell_line(args["command"], args, ctx), folder, _timeout(args), live.feed, ctx=ctx)
    if outcome.timed_out:
        head = (f"timed out after {_timeout(args)} s: the command and its child processes were stopped "
                f"({outcome.signal_used}); raise timeout or use job_start for long commands")
        short = f"timed out after {_timeout(args)} s ({outcome.signal_used})"
    else:
        head = short = f"exit code {outcome.code} ({outcome.seconds:.1f} s)"
    body = outcome.output.rstrip("\n")
    if hasattr(ctx, "summarize"):
        ctx.summarize(short + proc.printed(outcome, live.chars))
    return f"{head}\n{body}" if body else f"{head}\n(no output)"


def _timeout(args: dict) -> int:
    return max(1, min(MAX_TIMEOUT, int(args.get("timeout") or DEFAULT_TIMEOUT)))

