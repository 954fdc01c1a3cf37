"""job_start: start a long-running command in the background."""

import subprocess
import time

from ankit.toolkit import ToolError, jobs, paths, proc

name = "job_start"
description = (
    "Start a long-running shell command in the background (a dev server, a watcher, a long build) and return "
    "its job id at once. Check it with job_status and job_output, answer its prompts with job_input, wait for it with job_wait, end it with job_stop. Jobs end with the session."
)
parameters = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "The command line to start, e.g. 'npm run dev'"},
        "cwd": {"type": "string", "description": "Folder to run in, relative to the working folder (default '.')"},
        "sandbox": {"type": "boolean", "description": "false: run outside ankit's sandbox (network, writes outside "
                    "the folder); the user is asked and sees reason. Only after the sandbox stopped the command"},
        "reason": {"type": "string", "description": "With sandbox false: why the command must run outside"},
    },
    "required": ["command"],
    "additionalProperties": False,
}
effects = ["run"]
confined = True  # its command starts through ctx.confine: inside the sandbox in force (ankit's own module only)
needs_approval = True
examples = [
    "start the dev server in the background",
    "run the long build as a background job",
    "launch python -m http.server and keep it running",
]


def preview(args: dict, ctx) -> str:
    """The command and folder of the job to start."""
    note = paths.outside_note({"cwd": args.get("cwd")}, ctx, ("cwd",))
    return f"{note}background job: $ {args['command']}\n(in {paths.resolve(ctx, args.get('cwd'))})"


def run(args: dict, ctx) -> str:
    """Start the job and return its id and first output (if any within a moment)."""
    folder = paths.resolve(ctx, args.get("cwd"))
    if not folder.is_dir():
        raise ToolError(f"no such folder: {paths.show(ctx, folder)}; give cwd as an existing folder")
    capture = proc.Capture()
    process, _reader = proc.spawn(proc.shell_line(args["command"], args, ctx), folder, capture, stdin=subprocess.PIPE)
    job = jobs.Job(jobs.next_id(ctx), args["command"], folder, process, capture, time.monotonic())
    jobs.table(ctx)[job.id] = job
    try:
        process.wait(0.5)
    except subprocess.TimeoutExpired:
        pass
    job.finished()  # a job that already ended has its output read to the end
    early = capture.text(last_lines=20).strip()
    return f"started {job.line()}" + (f"\nfirst output:\n{early}" if early else "")

