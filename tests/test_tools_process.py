"""port_status and kill_process with real sockets and real subprocesses."""

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from ankit.toolkit import ports
from tests.helpers import Approver, call, ok

SLEEPER = "import signal, sys, time\nif 'stubborn' in sys.argv: signal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('ready', flush=True)\ntime.sleep(60)\n"
SERVER = "import socket, time\ns = socket.socket()\ns.bind(('127.0.0.1', 0))\ns.listen()\nprint(s.getsockname()[1], flush=True)\ntime.sleep(60)\n"




@pytest.fixture
def listening():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def start(script: str, *argv: str) -> subprocess.Popen:
    child = subprocess.Popen([sys.executable, "-c", script, *argv], stdout=subprocess.PIPE, text=True)
    child.first_line = child.stdout.readline().strip()
    return child


def test_port_status_names_the_listening_process(listening):
    out = ok("port_status", {"port": listening})
    assert out.startswith(f"{listening}/tcp on 127.0.0.1: pid {os.getpid()} (")
    assert "python" in out.lower()
    assert f"{listening}/tcp" in ok("port_status", {})


def test_port_status_ipv6_and_udp():
    if not socket.has_ipv6:
        pytest.skip("no IPv6 here")
    with socket.socket(socket.AF_INET6) as six, socket.socket(type=socket.SOCK_DGRAM) as udp:
        try:
            six.bind(("::1", 0))
        except OSError:
            pytest.skip("::1 cannot be bound here")
        six.listen()
        udp.bind(("127.0.0.1", 0))
        assert ok("port_status", {"port": six.getsockname()[1]}).startswith(f"{six.getsockname()[1]}/tcp on ::1: pid")
        udp_port = udp.getsockname()[1]
        assert f"{udp_port}/udp on 127.0.0.1: pid {os.getpid()}" in ok("port_status", {"port": udp_port, "protocol": "udp"})
        assert "nothing is listening" in ok("port_status", {"port": udp_port})


def test_port_status_free_port_and_bad_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        free = sock.getsockname()[1]
    assert ok("port_status", {"port": free}) == f"nothing is listening on port {free} (tcp)"
    assert call("port_status", {"port": 70000}).content.startswith("Error: port 70000 is out of range; give a number from 1 to 65535")


@pytest.mark.skipif(not shutil.which("lsof"), reason="lsof is not installed")
def test_lsof_backend_finds_the_same_listener(listening):
    found = ports.lsof_listeners(listening, ("tcp",))
    assert [(item.port, item.pid) for item in found] == [(listening, os.getpid())]


def test_lsof_output_parsing():
    sample = "p4242\ncnode\nLalice\nn127.0.0.1:3000\nn[::1]:3000\np99\ncpython3\nLbob\nn*:8080\n"
    found = ports._parse_lsof(sample, "tcp")
    assert [(i.address, i.port, i.pid, i.user, i.command) for i in found] == [
        ("127.0.0.1", 3000, 4242, "alice", "node"), ("::1", 3000, 4242, "alice", "node"), ("*", 8080, 99, "bob", "python3")]


def test_kill_process_by_pid_with_preview():
    child = start(SLEEPER)
    try:
        previews = []
        out = ok("kill_process", {"pid": child.pid}, None, Approver(previews=previews))
        assert out.endswith("it has exited") and f"pid {child.pid}" in out
        assert previews[0].startswith(f"send SIGTERM to pid {child.pid} (") and "time.sleep" in previews[0]
    finally:
        child.kill()
        child.wait()
    assert child.returncode == -15


def test_kill_process_by_port():
    child = start(SERVER)
    try:
        out = ok("kill_process", {"port": int(child.first_line)})
        assert f"pid {child.pid}" in out and out.endswith("it has exited")
    finally:
        child.kill()
        child.wait()


def test_kill_process_reports_a_survivor_then_forces_it():
    child = start(SLEEPER, "stubborn")
    try:
        survived = ok("kill_process", {"pid": child.pid, "wait": 1})
        assert "still running after 1 s; send signal KILL" in survived
        assert ok("kill_process", {"pid": child.pid, "signal": "KILL"}).endswith("it has exited")
    finally:
        child.kill()
        child.wait()
    assert child.returncode == -9


def test_kill_process_refusals():
    assert "refusing" in call("kill_process", {"pid": 1}).content
    assert "ankit itself" in call("kill_process", {"pid": os.getpid()}).content
    assert call("kill_process", {}).content == "Error: give pid, or port to stop the process listening on it"
    child = start(SLEEPER)
    child.kill()
    child.wait()
    gone = call("kill_process", {"pid": child.pid})
    assert gone.is_error and "no process" in gone.content
