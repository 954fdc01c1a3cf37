"""job_status: whether background jobs are running or how they ended."""

import importlib.util
import sys
from pathlib import Path


def _common(name: str):
    """Load tools/_common/_<name>.py once, by file path (tool modules never import ankit)."""
    path = Path(__file__).resolve().parents[1] / "_common" / f"_{name}.py"
    key = f"ankit_tools_common_{name}_{abs(hash(str(path)))}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, path)
        sys.modules[key] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[key])
    return sys.modules[key]



jobs = _common("jobs")

name = "job_status"
description = "Show the state of background jobs started with job_start: running, or the exit code, with run time."
parameters = {
    "type": "object",
    "properties": {"job_id": {"type": "string", "description": "One job's id (default: all jobs)"}},
    "additionalProperties": False,
}
read_only = True
needs_approval = False
examples = ["is the dev server still running", "check on my background jobs", "did the background build finish"]


def run(args: dict, ctx) -> str:
    """One line per job (or for the one asked about)."""
    if args.get("job_id"):
        return jobs.get(ctx, args["job_id"]).line()
    table = jobs.table(ctx)
    return "\n".join(job.line() for job in table.values()) if table else "no background jobs; start one with job_start"
