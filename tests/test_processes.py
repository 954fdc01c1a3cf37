"""Processes ankit starts cannot outlive the call or ankit: commands that leave their process group (`setsid cmd &`,
a double-forked daemon) started through every real path (run_command in and out of the sandbox, a background job
when ankit exits, a hook, a `!` line, an MCP server), checked from outside in /proc."""

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from ankit.mcp.transport import StdioTransport
from ankit.safety import processes
from ankit.terminal.bang import run_shell
from ankit.hooks import process
from tests.helpers import sleeps_left, wait_for
from tests.test_mcp_client import FAKE
from tests.test_oneshot import ankit
from tests.test_sandbox import MACHINE, places, run  # noqa: F401 (places is a fixture)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="containment is Linux's (PID namespaces, subreapers)")
DAEMON = ("import os, sys\n"
          "if os.fork() == 0:\n"
          "    os.setsid()\n"
          "    if os.fork() == 0:\n"
          "        fd = os.open(os.devnull, os.O_RDWR)\n"
          "        for n in (0, 1, 2): os.dup2(fd, n)\n"
          "        os.execvp('sleep', ['sleep', sys.argv[1]])\n")


def escapes(tag: str, tmp_path: Path) -> str:
    """A shell line that leaves behind three sleeps marked with tag: one setsid in the background, one double-forked
    by a subshell, one by a real daemon (setsid, its own stdio)."""
    (tmp_path / "daemon.py").write_text(DAEMON)
    quiet = ">/dev/null 2>&1 </dev/null"  # none holds the output pipe: a reader waiting for its end would hang
    return (f"setsid sleep {tag}1 {quiet} & (setsid sh -c 'sleep {tag}2 {quiet} &' &); "
            f"{sys.executable} {tmp_path}/daemon.py {tag}3; echo started")


left = sleeps_left


@pytest.fixture
def tag(request):
    """A sleep length no other process uses; whatever carries it is killed by pid after the test."""
    mark = f"9{os.getpid() % 1000:03d}{abs(hash(request.node.name)) % 1000:03d}."
    yield mark
    for pid in left(mark):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def gone(tag: str) -> bool:
    return wait_for(lambda: not left(tag), 3.0)


@pytest.mark.parametrize("mode", ["workspace", "off"])
def test_what_a_command_starts_outside_its_group_ends_with_the_call(places, tag, tmp_path, mode):
    """workspace: a PID namespace (the kernel ends it with the call); off (asked, run outside): the subreaper."""
    if mode == "workspace" and MACHINE.kind != "landlock":
        pytest.skip(f"no Linux sandbox here: {MACHINE.detail}")
    work, temp, _ = places
    result, _previews = run(escapes(tag, tmp_path), work, temp, mode=mode)
    assert "exit code 0" in result.content and "started" in result.content, result.content
    assert gone(tag), f"still running after the call: {left(tag)}"


@pytest.mark.parametrize("mode", ["workspace", "off"])
def test_nothing_a_background_job_started_outlives_ankit(provider_server, tmp_path, tag, mode):
    if mode == "workspace" and MACHINE.kind != "landlock":
        pytest.skip(f"no Linux sandbox here: {MACHINE.detail}")
    command = escapes(tag, tmp_path) + f"; sleep {tag}4"
    provider_server.push_openai(tool_calls=[("c1", "job_start", json.dumps({"command": command}))])
    provider_server.push_openai(tool_calls=[("c2", "job_wait", json.dumps({"job_id": "1", "pattern": "started"}))])
    provider_server.push_openai(text="Done.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--sandbox", mode, "--yes", "-p", "start it")
    assert done.returncode == 0, done.stderr
    assert "matched: started" in provider_server.requests[2].json["messages"][-1]["content"]
    assert gone(tag), f"still running after ankit exited: {left(tag)}"


@pytest.mark.parametrize("mode", ["off", "workspace"])
def test_a_daemon_a_run_code_program_starts_is_gone_when_ankit_exits(provider_server, tmp_path, tag, mode):
    """Code mode's program starts through spawn like every command: contained, with the sandbox off too."""
    if mode == "workspace" and MACHINE.kind != "landlock":
        pytest.skip(f"no Linux sandbox here: {MACHINE.detail}")
    (tmp_path / "daemon.py").write_text(DAEMON)
    config = tmp_path / "config" / "ankit"
    config.mkdir(parents=True)
    (config / "config.toml").write_text('code_mode = "on"\n')
    code = ("import subprocess, sys\n"
            f"subprocess.Popen(['setsid', 'sleep', '{tag}1'], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, "
            "stderr=subprocess.DEVNULL)\n"
            f"subprocess.run([sys.executable, {str(tmp_path / 'daemon.py')!r}, '{tag}3'])\n"
            "print('started')\n")
    provider_server.push_openai(tool_calls=[("c1", "run_code", json.dumps({"code": code}))])
    provider_server.push_openai(text="Done.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--sandbox", mode, "--yes", "-p", "start it")
    assert done.returncode == 0, done.stderr
    assert "started" in provider_server.requests[1].json["messages"][-1]["content"]
    assert gone(tag), f"still running after ankit exited: {left(tag)}"


def test_what_a_hook_starts_ends_with_the_hook(tmp_path, tag):
    finished = process.run(escapes(tag, tmp_path), b"{}", tmp_path, process.environment(tmp_path, {}), 30)
    assert finished.code == 0 and finished.failure == ""
    assert gone(tag), f"still running after the hook: {left(tag)}"


def test_what_a_bang_line_starts_ends_with_it(tmp_path, tag):
    output, code = run_shell(escapes(tag, tmp_path), tmp_path, lambda text: None)
    assert code == 0 and "started" in output
    assert gone(tag), f"still running after the ! line: {left(tag)}"


def test_what_an_mcp_server_starts_ends_when_it_is_closed(tmp_path, tag):
    line = escapes(tag, tmp_path).replace("echo started", f"exec {sys.executable} {FAKE}")
    transport = StdioTransport("fake", "sh", ["-c", line], None, str(tmp_path), tmp_path / "fake.log")
    transport.spawn()
    try:
        assert wait_for(lambda: len(left(tag)) == 3), left(tag)
    finally:
        transport.close()
    assert gone(tag), f"still running after the server was closed: {left(tag)}"


def test_a_missing_program_is_said_as_popen_says_it(tmp_path):
    with pytest.raises(FileNotFoundError):
        processes.contained(["no-such-program-here"], {"PATH": str(tmp_path)})
    assert processes.contained(["sh", "-c", "true"])[:len(processes.trampoline())] == processes.trampoline()


def test_the_command_ends_as_it_ended_and_hears_a_stop(tmp_path):
    """The exit code, and a SIGTERM to the trampoline reaching the command (which reports it)."""
    import subprocess
    assert subprocess.run(processes.contained(["sh", "-c", "exit 7"])).returncode == 7
    proc = subprocess.Popen(processes.contained(["sh", "-c", "trap 'echo heard; exit 3' TERM; echo up; "
                                                 "while :; do sleep 0.05; done"]), stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "up\n"
    time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    assert proc.stdout.readline() == "heard\n" and proc.wait(5) == 3


@pytest.mark.parametrize("mode", ["workspace", "off"])
def test_a_command_stopped_at_its_timeout_leaves_no_daemon_that_ignores_the_stop(places, tag, mode):
    """The call's own stop (SIGINT, SIGTERM, then SIGKILL to the group) never reaches what left the group, and
    its SIGKILL ends the trampoline too: what escaped must be ended before that."""
    if mode == "workspace" and MACHINE.kind != "landlock":
        pytest.skip(f"no Linux sandbox here: {MACHINE.detail}")
    work, temp, _ = places
    stubborn = "trap '' INT TERM HUP"
    command = (f"setsid sh -c \"{stubborn}; sleep {tag}1\" >/dev/null 2>&1 </dev/null & "
               f"{stubborn}; echo up; sleep 100")
    result, _previews = run(command, work, temp, mode=mode, timeout=2)
    assert "timed out after 2 s" in result.content, result.content
    assert gone(tag), f"still running after the call was stopped: {left(tag)}"
