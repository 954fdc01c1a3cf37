"""job_output: what a background job has printed so far."""

from ankit.toolkit import jobs

name = "job_output"
description = (
    "Show the output (logs, stdout and stderr) a background job has printed so far, with its state. Very long "
    "output keeps the beginning and the end; last_lines shows only the most recent lines."
)
parameters = {
    "type": "object",
    "properties": {
        "job_id": {"type": "string", "description": "The job id job_start returned"},
        "last_lines": {"type": "integer", "description": "Only the last N lines (default: all kept output)"},
    },
    "required": ["job_id"],
    "additionalProperties": False,
}
effects = ["read"]
needs_approval = False
examples = ["show the dev server logs", "what has the background job printed", "tail the output of job 1"]


def run(args: dict, ctx) -> str:
    """The job's state line and its kept output."""
    job = jobs.get(ctx, args["job_id"])
    job.finished()  # an ended job's output is read to the end first
    last = args.get("last_lines")
    output = job.capture.text(last_lines=max(1, int(last)) if last else None).rstrip("\n")
    if hasattr(ctx, "output") and output:  # the user sees it as the tail, and /show has it whole
        ctx.output(output + "\n")
    if hasattr(ctx, "summarize"):
        count = len(output.splitlines())
        ctx.summarize(f"job {job.id}: {job.state()} · {count:,} line{'' if count == 1 else 's'} shown")
    return f"{job.line()}\n{output or '(no output yet)'}"
