"""Helpers shared by the tests: waiting for a condition, temp XDG folders, and calling the bundled tools."""

import json
import os
import socket
import time
import urllib.parse
from functools import cache
from pathlib import Path

from ankit.records import ToolCall, ToolResult
from ankit.tooling.loader import load_tools
from ankit.tooling.toolbox import Tool, ToolContext, run_call

ROOT = Path(__file__).resolve().parent.parent
TOOLS_DIR = ROOT / "tools"


def wait_for(condition, timeout: float = 10.0):
    """Poll condition() until it is true or timeout seconds pass; return its last value."""
    deadline = time.monotonic() + timeout
    while not (value := condition()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return value


def local_model_server() -> str | None:
    """The address of a usual local model server (Ollama, llama.cpp, LM Studio, vLLM) that answers here, if any.

    With no provider configured ankit uses such a server, so a test of that case cannot run where one listens.
    """
    from ankit.providers.models import LOCAL_SERVERS
    for server in LOCAL_SERVERS:
        address = urllib.parse.urlsplit(server.base_url)
        try:
            socket.create_connection((address.hostname, address.port), timeout=1).close()
        except OSError:
            continue
        return server.base_url
    return None


def xdg_env(root: Path) -> dict[str, str]:
    """XDG folders and HOME under root, for a subprocess's environment or monkeypatch.setenv."""
    return {"XDG_CONFIG_HOME": str(root / "config"), "XDG_STATE_HOME": str(root / "state"),
            "XDG_DATA_HOME": str(root / "data"), "HOME": str(root / "home")}


@cache
def bundled() -> tuple[dict[str, Tool], list[str]]:
    """The bundled tools by name (loaded once per test run), and the modules that were skipped."""
    tools, problems = load_tools([TOOLS_DIR])
    return {tool.name: tool for tool in tools}, problems


class Approver:
    """Records the previews it is shown and answers as told (True runs the call)."""

    def __init__(self, answer=True, previews: list | None = None):
        self.answer = answer
        self.previews = previews if previews is not None else []

    def __call__(self, tool, args, preview):
        self.previews.append(preview)
        return self.answer


def call(name: str, args: dict, where: Path | ToolContext | None = None, approve=None) -> ToolResult:
    """Run one call to a bundled tool through ankit's real run_call, in a folder or a given context."""
    ctx = where if isinstance(where, ToolContext) else ToolContext(cwd=where or Path.cwd())
    return run_call(ToolCall("c1", name, json.dumps(args)), bundled()[0][name], ctx, approve or Approver())


def ok(name: str, args: dict, where: Path | ToolContext | None = None, approve=None) -> str:
    """A call that must succeed; its text."""
    result = call(name, args, where, approve)
    assert not result.is_error, result.content
    return result.content


# This test run's own number: a test that finds processes by what they run puts it in their command line, so
# suites run side by side (.ci/run) never see, or kill, each other's.
RUN_TAG = str(os.getpid())


def sleeps_left(tag: str) -> list[int]:
    """The pids, seen from here, of the `sleep TAG...` processes still running (a zombie counts as gone): a
    sandboxed command's own $$ and $! are numbers in its PID namespace, so it is found by what it runs."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            line = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_bytes().rpartition(b")")[2].split()[0]
        except (OSError, IndexError):
            continue
        if line.startswith(b"sleep\0" + tag.encode()) and state != b"Z":
            found.append(int(entry))
    return found


def process_gone(pid: int) -> bool:
    """Whether a process no longer runs, seen from outside (a zombie nobody reaped yet counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rpartition(b")")[2].split()[0] == b"Z"
    except FileNotFoundError:
        return True
    except OSError:
        import os
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False


def stubborn_server(tmp_path: Path, fake: str, answers: bool = True) -> dict:
    """An MCP server table: a shell that ignores SIGTERM, starts a child that ignores it too, runs the fake server
    (or, answers=False, nothing that answers) and then sleeps on; every pid goes to tmp_path/pids."""
    import sys
    pids = tmp_path / "pids"
    serve = f"{sys.executable} {fake}" if answers else "sleep 300"
    script = f'trap "" TERM; echo $$ >> {pids}; sleep 300 & echo $! >> {pids}; {serve}; sleep 300'
    return {"command": "/bin/sh", "args": ["-c", script]}


def pids_started(tmp_path: Path) -> list[int]:
    """The pids a stubborn server wrote, and the fake server's own (from its log line)."""
    return [int(line) for line in (tmp_path / "pids").read_text().split()]
