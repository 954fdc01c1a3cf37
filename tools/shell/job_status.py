"""job_status: whether background jobs are running or how they ended."""

from ankit.toolkit import jobs

name = "job_status"
description = (
    "Show the state of background jobs started with job_start: still running, or finished with its exit code, "
    "with run time."
)
parameters = {
    "type": "object",
    "properties": {"job_id": {"type": "string", "description": "One job's id (default: all jobs)"}},
    "additionalProperties": False,
}
effects = ["read"]
needs_approval = False
examples = ["is the dev server still running", "check on my background jobs", "did the background build finish"]


def run(args: dict, ctx) -> str:
    """One line per job (or for the one asked about)."""
    if args.get("job_id"):
        return jobs.get(ctx, args["job_id"]).line()
    table = jobs.table(ctx)
    return "\n".join(job.line() for job in table.values()) if table else "no background jobs; start one with job_start"
