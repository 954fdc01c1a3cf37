"""Background jobs for the shell tools, kept in the session state."""

__all__ = ["Job", "table", "get", "next_id"]

import time
from dataclasses import dataclass
from pathlib import Path

from ankit.errors import ToolError
from ankit.toolkit import proc


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
    mark: int = 0  # output bytes seen by the last job_input or job_wait; later output is "new"

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


    def new_output(self) -> str:
        """What the job printed after the mark (all kept output when the middle was dropped since)."""
        capture = self.capture
        with capture.lock:
            fresh = capture.total - self.mark
            whole = len(capture.head) + len(capture.tail) == capture.total
            stream = bytes(capture.head + capture.tail) if whole else bytes(capture.tail)
            kept = stream[len(stream) - fresh:] if 0 <= fresh <= len(stream) else None
        if kept is None:
            return capture.text()
        return proc.ANSI.sub("", kept.decode("utf-8", errors="replace")).replace("\r\n", "\n")

    def move_mark(self) -> None:
        """Count everything printed so far as seen."""
        with self.capture.lock:
            self.mark = self.capture.total

    def finished(self, drain: float = 2.0) -> bool:
        """Whether the process has exited; if so, its last output is read first (a process's exit comes before its pipe's end)."""
        if self.proc.poll() is None:
            return False
        self.capture.done.wait(drain)  # a grandchild holding the pipe open must not hold the answer up for long
        return True

    def ended(self) -> str:
        """'' while running, else a one-line error text for tools that need a running job."""
        if self.proc.poll() is None:
            return ""
        return f"job {self.id} is no longer running ({self.state()}); see job_output, or start it again with job_start"


def table(ctx) -> dict[str, Job]:
    """The session's jobs by id."""
    return ctx.state.setdefault("jobs", {})


def get(ctx, job_id: str) -> Job:
    """A job by id, or a ToolError listing the known ids."""
    jobs = table(ctx)
    job = jobs.get(str(job_id).strip().removeprefix("job").strip())
    if job is None:
        known = ", ".join(jobs) or "none yet; start one with job_start"
        raise ToolError(f"no job {job_id!r}; known jobs: {known}")
    return job


def next_id(ctx) -> str:
    """The next free job id: 1, 2, 3..."""
    jobs = table(ctx)
    return str(max((int(k) for k in jobs), default=0) + 1)
