"""job_input: write a line to a running background job's standard input."""

import time

from ankit.toolkit import ToolError, jobs

SETTLE = 1.0  # seconds to wait for the job's answer to the input
QUIET = 0.2  # the answer is taken as complete after this long without new output

name = "job_input"
description = (
    "Type a line into a running background job's standard input (answer a prompt such as 'Continue? [y/N]', "
    "send a command to a REPL the job runs). A newline is added unless newline is false; close_input ends the "
    "input (EOF). Returns what the job printed in reply within about a second."
)
parameters = {
    "type": "object",
    "properties": {
        "job_id": {"type": "string", "description": "The job id job_start returned"},
        "text": {"type": "string", "description": "The text to send, e.g. 'y' or 'print(1 + 1)'"},
        "newline": {"type": "boolean", "description": "Add a newline after text (default true)"},
        "close_input": {"type": "boolean", "description": "Close the job's input after sending (default false)"},
    },
    "required": ["job_id", "text"],
    "additionalProperties": False,
}
effects = ["run"]
needs_approval = True
examples = [
    "answer yes to the prompt in job 1",
    "type a reply into the background job's stdin",
    "send input to the running interactive job",
]


def _data(args: dict) -> str:
    return args["text"] + ("\n" if args.get("newline", True) else "")


def preview(args: dict, ctx) -> str:
    """The job and the exact text it would receive (control characters shown as escapes)."""
    job = jobs.get(ctx, args["job_id"])
    closing = "\n(then close its input: the job sees end of file)" if args.get("close_input") else ""
    return f"send to job {job.id} ({job.command}):\n{_data(args)!r}{closing}"


def run(args: dict, ctx) -> str:
    """Write the text, then return the job's reply so far."""
    job = jobs.get(ctx, args["job_id"])
    if job.ended():
        raise ToolError(job.ended())
    stdin = job.proc.stdin
    if stdin is None or stdin.closed:
        raise ToolError(f"job {job.id}'s input is closed; it takes no more input")
    job.move_mark()
    try:
        stdin.write(_data(args).encode("utf-8"))
        stdin.flush()
        if args.get("close_input"):
            stdin.close()
    except (BrokenPipeError, OSError):
        raise ToolError(f"job {job.id} no longer reads its input ({job.state()})") from None
    reply = _settle(job)
    sent = "sent" + (" and closed the input" if args.get("close_input") else "")
    return f"{sent}; {job.line()}\n{reply or '(no reply yet; see job_output or wait with job_wait)'}"


def _settle(job) -> str:
    """The output after the input, once it has been quiet a moment (at most SETTLE seconds)."""
    deadline, last, changed = time.monotonic() + SETTLE, "", time.monotonic()
    while time.monotonic() < deadline and job.proc.poll() is None:
        time.sleep(0.05)
        now = job.new_output()
        if now != last:
            last, changed = now, time.monotonic()
        elif now and time.monotonic() - changed >= QUIET:
            break
    job.finished()  # an exited job's last words are read before they are reported
    return job.new_output().rstrip("\n")
