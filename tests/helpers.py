"""Helpers shared by the tests: waiting for a condition, temp XDG folders, and calling the bundled tools."""

import json
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
