"""job_stop: stop a background job and its child processes."""

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



proc, jobs = _common("proc"), _common("jobs")

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
read_only = False
needs_approval = False  # it only ends a job this session started
examples = ["stop the dev server", "kill background job 2", "end the watcher job"]


def run(args: dict, ctx) -> str:
    """Stop the job (if still running) and report how it ended."""
    job = jobs.get(ctx, args["job_id"])
    if job.proc.poll() is None:
        job.stopped_by = proc.stop(job.proc)
    else:
        proc.release(job.proc)
    tail = job.capture.text(last_lines=20).rstrip("\n")
    return f"{job.line()}" + (f"\nlast output:\n{tail}" if tail else "")
