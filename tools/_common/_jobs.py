"""Background jobs for the shell tools, kept in the session state."""

import time
from dataclasses import dataclass
from pathlib import Path


class JobError(Exception):
    """A job request that cannot be served, said in one line."""


@dataclass
class Job:
    """One background command: its process, captured output and timing."""

    id: str
    command: str
    cwd: Path
    proc: object
    capture: object
    started: float
    stopped_by: str = ""

    def state(self) -> str:
        """running, exited N, or stopped by SIGTERM/SIGKILL."""
        code = self.proc.poll()
        if code is None:
            return "running"
        if self.stopped_by:
            return f"stopped ({self.stopped_by})"
        return f"exited {code}" if code >= 0 else f"killed by signal {-code}"

    def line(self) -> str:
        """One line: id, state, age, pid, command."""
        age = int(time.monotonic() - self.started)
        return f"job {self.id}: {self.state()}, {age}s since start, pid {self.proc.pid}, in {self.cwd}: {self.command}"


def table(ctx) -> dict[str, Job]:
    """The session's jobs by id."""
    return ctx.state.setdefault("jobs", {})


def get(ctx, job_id: str) -> Job:
    """A job by id, or a JobError listing the known ids."""
    jobs = table(ctx)
    job = jobs.get(str(job_id).strip().removeprefix("job").strip())
    if job is None:
        known = ", ".join(jobs) or "none yet; start one with job_start"
        raise JobError(f"no job {job_id!r}; known jobs: {known}")
    return job


def next_id(ctx) -> str:
    """The next free job id: 1, 2, 3..."""
    jobs = table(ctx)
    return str(max((int(k) for k in jobs), default=0) + 1)
