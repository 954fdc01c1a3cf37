"""job_stop: stop a background job and its child processes."""

from ankit.toolkit import jobs, proc

name = "job_stop"
description = (
    "Stop a background job started with job_start: SIGTERM to its whole process group, then SIGKILL if it "
    "does not end within a few seconds. Returns the last lines it printed."
)
parameters = {
    "type": "object",
    "properties": {"job_id": {"type": "string", "description": "The job id job_start returned"}},
    "required": ["job_id"],
    "additionalProperties": False,
}
effects = []  # it only ends a job this session started
needs_approval = False  # it only ends a job this session started
examples = ["stop the dev server", "kill background job 2", "end the watcher job"]


def run(args: dict, ctx) -> str:
    """Stop the job (if still running) and report how it ended."""
    job = jobs.get(ctx, args["job_id"])
    if job.proc.poll() is None:
        job.stopped_by = proc.stop(job.proc, proc.GENTLE[1:], grace=2.0)
    else:
        proc.release(job.proc)
    job.finished()  # its last output is read before it is shown
    tail = job.capture.text(last_lines=20).rstrip("\n")
    return f"{job.line()}" + (f"\nlast output:\n{tail}" if tail else "")
