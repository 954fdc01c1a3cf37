"""job_output: what a background job has printed so far."""

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

name = "job_output"
description = (
    "Show the output (stdout and stderr) a background job has printed so far, with its state. Very long "
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
read_only = True
needs_approval = False
examples = ["show the dev server logs", "what has the background job printed", "tail the output of job 1"]


def run(args: dict, ctx) -> str:
    """The job's state line and its kept output."""
    job = jobs.get(ctx, args["job_id"])
    last = args.get("last_lines")
    output = job.capture.text(last_lines=max(1, int(last)) if last else None).rstrip("\n")
    return f"{job.line()}\n{output or '(no output yet)'}"
