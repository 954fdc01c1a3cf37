"""kill_process: send a signal to a process (by pid, or whatever listens on a port) and see it end."""

import os
import signal
import time
from pathlib import Path

from ankit.toolkit import ToolError, ports

SIGNALS = {"TERM": signal.SIGTERM, "KILL": signal.SIGKILL, "INT": signal.SIGINT, "HUP": signal.SIGHUP}

name = "kill_process"
description = (
    "Stop a process: send SIGTERM (default), INT, HUP or KILL to a pid, or to the process listening on a "
    "port, then wait a few seconds and report whether it exited."
)
parameters = {
    "type": "object",
    "properties": {
        "pid": {"type": "integer", "description": "Process id to signal"},
        "port": {"type": "integer", "description": "Instead of pid: the process listening on this TCP port"},
        "signal": {"type": "string", "enum": list(SIGNALS), "description": "Default TERM; KILL forces it"},
        "wait": {"type": "integer", "description": "Seconds to wait for it to exit (default 5, max 30)"},
    },
    "additionalProperties": False,
}
effects = ["run"]
needs_approval = True
examples = ["kill process 12345", "stop whatever is running on port 8000", "force kill the stuck python process"]


def preview(args: dict, ctx) -> str:
    """Which process gets which signal."""
    pid = _target(args)
    return f"send SIG{args.get('signal') or 'TERM'} to pid {pid} ({ports.command_of(pid)}, user {ports.user_of(pid)})"


def run(args: dict, ctx) -> str:
    """Signal the process and wait for it to go."""
    pid = _target(args)
    signame = args.get("signal") or "TERM"
    command = ports.command_of(pid)
    try:
        os.kill(pid, SIGNALS[signame])
    except ProcessLookupError:
        raise ToolError(f"no process with pid {pid}; it may have exited already") from None
    except PermissionError:
        raise ToolError(f"not allowed to signal pid {pid} (owned by {ports.user_of(pid) or 'another user'})") from None
    wait = max(0, min(30, int(args.get("wait") if args.get("wait") is not None else 5)))
    deadline = time.monotonic() + wait
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _running(pid):
        hint = "" if signame == "KILL" else "; send signal KILL to force it"
        return f"sent SIG{signame} to pid {pid} ({command}); it is still running after {wait} s{hint}"
    return f"sent SIG{signame} to pid {pid} ({command}); it has exited"


def _target(args: dict) -> int:
    """The pid to signal, checked; a port is resolved to its listening process."""
    if args.get("pid") is None and args.get("port") is None:
        raise ToolError("give pid, or port to stop the process listening on it")
    pid = args.get("pid")
    if pid is None:
        owners = sorted({item.pid for item in ports.listeners(int(args["port"])) if item.pid})
        if not owners:
            raise ToolError(f"no visible process listens on port {args['port']}; check it with port_status")
        if len(owners) > 1:
            raise ToolError(f"several processes listen on port {args['port']} (pids {owners}); give one pid")
        pid = owners[0]
    pid = int(pid)
    if pid <= 1:
        raise ToolError(f"refusing to signal pid {pid}; give a real process id")
    if pid in (os.getpid(), os.getppid()):
        raise ToolError(f"pid {pid} is ankit itself or the shell that started it; refusing")
    if not _running(pid):
        raise ToolError(f"no process with pid {pid}; list processes with run_command 'ps aux' if needed")
    return pid


def _running(pid: int) -> bool:
    """Whether pid exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True
