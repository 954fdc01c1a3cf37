"""job_wait: wait for a background job to finish or to print a line matching a pattern."""

import re
import time

from ankit.toolkit import ToolError, jobs

DEFAULT_TIMEOUT = 30
MAX_TIMEOUT = 600
POLL = 0.05

name = "job_wait"
description = (
    "Wait (block) until a background job ends, or until it prints a line matching a regular expression (such "
    "as 'started|ready'), at most timeout seconds (default 30). Only output printed since the last job_input "
    "or job_wait counts. Returns the matching line or the exit code, with the recent output."
)
parameters = {
    "type": "object",
    "properties": {
        "job_id": {"type": "string", "description": "The job id job_start returned"},
        "pattern": {"type": "string", "description": "Regular expression to wait for in a line (default: wait for the end)"},
        "timeout": {"type": "integer", "description": "Seconds to wait at most (default 30, max 600)"},
    },
    "required": ["job_id"],
    "additionalProperties": False,
}
effects = ["read"]
needs_approval = False
examples = [
    "wait until the dev server says it is ready",
    "wait for the background build to finish",
    "block until job 2 prints that the server started",
]


def run(args: dict, ctx) -> str:
    """Poll the job's new output and state until a match, the end, or the timeout."""
    job = jobs.get(ctx, args["job_id"])
    pattern = _compile(args.get("pattern"))
    timeout = max(1, min(MAX_TIMEOUT, int(args.get("timeout") or DEFAULT_TIMEOUT)))
    deadline = time.monotonic() + timeout
    while True:
        ended = job.finished()
        output = job.new_output()  # read after the state, so an ended job's last words are in it
        line = _match(pattern, output)
        if line is not None:
            job.move_mark()
            return f"matched: {line}\n{job.line()}\n{_tail(output)}"
        if ended:
            job.move_mark()
            outcome = f"no line matched {pattern.pattern!r}; " if pattern else ""
            return f"{outcome}{job.line()}\n{_tail(output) or '(no new output)'}"
        if time.monotonic() >= deadline:
            what = f"no line matched {pattern.pattern!r}" if pattern else "it has not finished"
            return f"still running after {timeout} s: {what}\n{job.line()}\n{_tail(output) or '(no new output)'}"
        time.sleep(POLL)


def _compile(raw: str | None):
    if not raw:
        return None
    try:
        return re.compile(raw)
    except re.error as exc:
        raise ToolError(f"pattern {raw!r} is not a valid regular expression ({exc}); escape special characters") from None


def _match(pattern, output: str) -> str | None:
    if pattern is None:
        return None
    return next((line for line in output.splitlines() if pattern.search(line)), None)


def _tail(output: str, lines: int = 20) -> str:
    return "\n".join(output.rstrip("\n").splitlines()[-lines:])
