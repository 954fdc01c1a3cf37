"""The sandbox with real commands under the real Landlock and seccomp of this kernel, checked from outside:
what a command wrote, and whether its TCP connection or UDP datagram reached a listener here."""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ankit.records import ToolCall
from ankit.safety import confine
from ankit.safety.sandbox import Sandbox, Support, decide, parse_mode, seatbelt_profile, support
from ankit.tooling.toolbox import ToolContext, run_call
from tests.helpers import Approver, bundled

MACHINE = support()
needs_landlock = pytest.mark.skipif(MACHINE.kind != "landlock", reason=f"no Linux sandbox here: {MACHINE.detail}")


@pytest.fixture
def places(tmp_path):
    """A working folder with a .git/hooks folder, a temporary folder, and a folder outside both."""
    work, temp, outside = tmp_path / "work", tmp_path / "tmp", tmp_path / "outside"
    for folder in (work / ".git" / "hooks", temp, outside):
        folder.mkdir(parents=True)
    return work, temp, outside


def run(command: str, work: Path, temp: Path, mode: str = "workspace", answer=True, **extra):
    """run_command through ankit's real run_call with a sandbox in this mode; (result, previews asked)."""
    sandbox = Sandbox(work, mode, MACHINE, temp)
    previews: list[str] = []
    ctx = ToolContext(cwd=work, confine=sandbox.confine)
    args = json.dumps({"command": command, **extra})
    result = run_call(ToolCall("c1", "run_command", args), bundled()[0]["run_command"], ctx,
                      Approver(answer, previews), sandbox=sandbox)
    return result, previews


def trampoline(work: Path, *options: str, command: str) -> subprocess.CompletedProcess:
    """The trampoline itself, as ankit starts it, with the working folder's .git protected."""
    argv = [sys.executable, "-I", "-S", confine.__file__, "--write", str(work), "--protect", str(work / ".git"),
            *options, "--", "sh", "-c", command]
    return subprocess.run(argv, cwd=work, capture_output=True, text=True, timeout=60)


@needs_landlock
def test_workspace_command_runs_unasked_and_writes_inside_only(places):
    work, temp, outside = places
    script = f"echo in > inside.txt; echo t > {temp}/t.txt; echo out > {outside}/x.txt; echo hook > .git/hooks/pre-commit"
    result, previews = run(script, work, temp)
    assert previews == []  # no question
    assert (work / "inside.txt").read_text() == "in\n" and (temp / "t.txt").read_text() == "t\n"
    assert not (outside / "x.txt").exists() and not (work / ".git" / "hooks" / "pre-commit").exists()
    assert "the sandbox may have stopped this" in result.content and "sandbox: false" in result.content


@needs_landlock
def test_a_git_or_claude_folder_a_command_makes_is_set_aside(places):
    work, temp, _ = places
    shutil.rmtree(work / ".git")
    result, previews = run("mkdir -p .git/hooks .claude && echo evil > .git/hooks/pre-commit && echo '{}' > "
                           ".claude/settings.json && echo made", work, temp)
    assert previews == [] and "made" in result.content
    assert not (work / ".git").exists() and not (work / ".claude").exists()
    aside = sorted(p.name for p in work.iterdir())
    assert len(aside) == 2 and aside[0].startswith(".claude.from-sandbox-") and aside[1].startswith(".git.from-sandbox-")
    assert "the command made .claude, .git in the working folder" in result.content


@needs_landlock
def test_the_same_command_with_the_sandbox_off_asks_and_writes_outside(places):
    work, temp, outside = places
    result, previews = run(f"echo out > {outside}/x.txt", work, temp, mode="off")
    assert previews and (outside / "x.txt").exists() and "sandbox may have" not in result.content


def _listeners():
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(5)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    tcp.setblocking(False)
    udp.setblocking(False)
    return tcp, udp


def _arrived(tcp: socket.socket, udp: socket.socket) -> list[str]:
    """What reached the listeners (the command has ended: a connection or datagram would be queued by now)."""
    seen = []
    try:
        tcp.accept()[0].close()
        seen.append("tcp")
    except BlockingIOError:
        pass
    try:
        udp.recvfrom(100)
        seen.append("udp")
    except BlockingIOError:
        pass
    return seen


NETWORK = ("import socket, sys\n"
           "for kind, port in ((socket.SOCK_STREAM, {tcp}), (socket.SOCK_DGRAM, {udp})):\n"
           "    try:\n"
           "        s = socket.socket(socket.AF_INET, kind); s.connect(('127.0.0.1', port)); s.send(b'x')\n"
           "    except OSError as exc: print(exc)\n")


@pytest.mark.parametrize("mode", ["workspace", "read-only"])
@needs_landlock
def test_no_tcp_connection_and_no_udp_datagram_reaches_a_local_listener(places, mode):
    work, temp, _ = places
    tcp, udp = _listeners()
    code = NETWORK.format(tcp=tcp.getsockname()[1], udp=udp.getsockname()[1])
    (temp / "net.py").write_text(code)
    with tcp, udp:
        result, previews = run(f"{sys.executable} {temp}/net.py", work, temp, mode)
        assert _arrived(tcp, udp) == [] and previews == []
        assert "Operation not permitted" in result.content
        run(f"{sys.executable} {temp}/net.py", work, temp, mode="off")  # the check itself sees what does arrive
        assert _arrived(tcp, udp) == ["tcp", "udp"]


@needs_landlock
def test_read_only_writes_nothing_anywhere(places):
    work, temp, _ = places
    (work / "kept.txt").write_text("kept\n")
    result, previews = run(f"cat kept.txt; echo x > new.txt; echo y > kept.txt; echo z > {temp}/t.txt; mkdir d",
                           work, temp, mode="read-only")
    assert previews == [] and "kept" in result.content  # reads work
    assert sorted(p.name for p in work.iterdir()) == [".git", "kept.txt"] and (work / "kept.txt").read_text() == "kept\n"
    assert list(temp.iterdir()) == [] and "it writes nothing" in result.content


@needs_landlock
def test_sandbox_false_asks_showing_the_reason_and_runs_outside_only_when_approved(places):
    work, temp, outside = places
    command = f"echo out > {outside}/x.txt"
    result, previews = run(command, work, temp, answer=False, sandbox=False, reason="needs to write the cache")
    assert previews[0].startswith("outside the sandbox, because: needs to write the cache\n$ echo out")
    assert result.is_error and not (outside / "x.txt").exists()
    result, previews = run(command, work, temp, sandbox=False, reason="needs to write the cache")
    assert len(previews) == 1 and (outside / "x.txt").exists() and "sandbox may have" not in result.content


@needs_landlock
def test_read_only_refuses_edit_tools_in_one_line(places):
    work, temp, _ = places
    sandbox = Sandbox(work, "read-only", MACHINE, temp)
    ctx = ToolContext(cwd=work, confine=sandbox.confine)
    result = run_call(ToolCall("c1", "write_file", json.dumps({"path": "a.txt", "content": "x"})),
                      bundled()[0]["write_file"], ctx, Approver(True), sandbox=sandbox)
    assert result.is_error and "refused in read-only plan mode" in result.content and "\n" not in result.content
    assert not (work / "a.txt").exists()


@needs_landlock
def test_deny_rules_still_apply_inside_the_sandbox(places):
    from ankit.safety.policy import Policy
    work, temp, _ = places
    sandbox = Sandbox(work, "workspace", MACHINE, temp)
    result = run_call(ToolCall("c1", "run_command", json.dumps({"command": "touch made"})),
                      bundled()[0]["run_command"], ToolContext(cwd=work, confine=sandbox.confine), Approver(True),
                      policy=Policy.from_rules([], ["run_command: touch *"], work), sandbox=sandbox)
    assert result.is_error and "refused by the rule" in result.content and not (work / "made").exists()


@needs_landlock
def test_landlock_alone_protects_git_when_namespaces_are_not_used(places):
    work, _, outside = places
    (work / "src").mkdir()
    (work / "elsewhere").symlink_to(outside)  # a cloned repository may hold a link to any folder
    done = trampoline(work, "--landlock-only",
                      command="echo a > src/a; echo h > .git/hooks/x; echo n > top; echo o > elsewhere/o")
    assert (work / "src" / "a").exists() and not (work / ".git" / "hooks" / "x").exists()
    assert not (work / "top").exists()  # the cost: no new names at the top of the folder
    assert not (outside / "o").exists(), done.stderr


@needs_landlock
def test_sockets_that_reach_outside_are_hidden(places, monkeypatch):
    work, temp, _ = places
    runtime = temp / "run"
    runtime.mkdir()
    listeners = []
    for path in (runtime / "bus", temp / "docker.sock"):
        server = socket.socket(socket.AF_UNIX)
        monkeypatch.chdir(path.parent)  # a socket's address is at most 107 bytes: named from its folder, so the
        server.bind(path.name)          # temporary folder's length does not matter
        server.listen(1)
        listeners.append(server)
    code = ("import os, socket, sys\n"
            "for path in sys.argv[1:]:\n"
            "    try: os.chdir(os.path.dirname(path)); socket.socket(socket.AF_UNIX).connect(os.path.basename(path)); "
            "print('reached')\n"
            "    except OSError as exc: print(exc.errno)\n")
    (temp / "reach.py").write_text(code)
    reach = f"{sys.executable} {temp}/reach.py {runtime}/bus {temp}/docker.sock"
    hidden = trampoline(work, "--hide", str(runtime), "--hide", str(temp / "docker.sock"), command=reach)
    plain = subprocess.run(reach, shell=True, capture_output=True, text=True, timeout=60)
    for server in listeners:
        server.close()
    assert plain.stdout.split() == ["reached", "reached"]
    assert hidden.stdout.split() == ["2", "111"], hidden.stderr  # ENOENT under the tmpfs, ECONNREFUSED on /dev/null


@needs_landlock
def test_other_socket_families_fail_and_unix_sockets_work(places):
    work, _, _ = places
    code = ("import socket\n"
            "for family, kind in ((10, 2), (2, 3), (17, 3), (16, 3), (1, 1)):\n"
            "    try: socket.socket(family, kind).close(); print(family, 'made')\n"
            "    except OSError as exc: print(family, exc.errno)\n"
            "a, b = socket.socketpair(); a.send(b'ok'); print(b.recv(2).decode())\n")
    done = trampoline(work, "--no-network", "--landlock-only", command=f"{sys.executable} -c \"{code}\"")
    assert done.stdout.split("\n") == ["10 1", "2 1", "17 1", "16 1", "1 made", "ok", ""], done.stderr


def test_the_trampoline_never_runs_a_command_it_could_not_confine(tmp_path):
    done = subprocess.run([sys.executable, "-I", "-S", confine.__file__, "--write", str(tmp_path), "touch",
                           str(tmp_path / "x")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 126 and "did not run" in done.stderr and not (tmp_path / "x").exists()


def test_no_sandbox_here_means_off_said_once_and_never_claimed(tmp_path):
    none = Sandbox(tmp_path, "workspace", Support("", "the kernel has no Landlock"))
    assert none.mode == "off" and none.unavailable().startswith("no sandbox here (the kernel has no Landlock)")
    assert none.confine(["sh", "-c", "x"], {}) == ["sh", "-c", "x"] and none.prompt_note() == ""
    assert none.verdict("run_command", True, False, {}) == decide("run_command", True, False, {}, "off")
    assert Sandbox(tmp_path, "off", Support("", "off")).unavailable() == ""


def test_the_system_prompt_says_what_the_mode_means(tmp_path):
    workspace, plan = Sandbox(tmp_path, "workspace", MACHINE), Sandbox(tmp_path, "read-only", MACHINE)
    if MACHINE.kind:
        assert str(tmp_path) in workspace.prompt_note() and "sandbox false and a reason" in workspace.prompt_note()
        assert plan.prompt_note().startswith("Plan mode (read-only)")
    assert Sandbox(tmp_path, "off", MACHINE).prompt_note() == ""


def test_modes_and_the_decision_step():
    assert [parse_mode(m) for m in ("workspace", "Read-Only", "ask", "plan", "off", "all")] == [
        "workspace", "read-only", "off", "read-only", "off", None]
    assert decide("run_command", True, False, {"command": "x"}, "workspace").action == "sandboxed"
    assert decide("run_command", False, False, {"command": "x"}, "workspace").action == ""  # not ankit's own tool
    asked = decide("run_command", True, False, {"sandbox": False, "reason": "pip\ninstall"}, "read-only")
    assert asked.action == "ask" and asked.reason == "outside the sandbox, because: pip install"
    assert decide("write_file", False, True, {}, "read-only").action == "refuse"
    assert decide("write_file", False, True, {}, "workspace").action == ""


def test_seatbelt_profile_confines_writes_and_network():
    profile = seatbelt_profile(["/w/a\"b"], ["/w/a\"b/.git"], network=False)
    assert '(allow file-write* (subpath "/w/a\\"b"))' in profile and "(deny network*)" in profile
    assert profile.index("(deny file-write*)") < profile.index("(allow file-write* (subpath") < profile.index(
        '(deny file-write* (subpath "/w/a\\"b/.git"))')


@needs_landlock
def test_an_mcp_server_with_sandbox_true_writes_only_in_its_cwd(places):
    from ankit.mcp.servers import McpManager
    work, _, _ = places
    try:
        outside = Path(tempfile.mkdtemp(dir="/var/tmp"))  # outside the temporary folder the sandbox allows
    except OSError:
        pytest.skip("no writable /var/tmp to check a write outside the temporary folder")
    fake = str(Path(__file__).with_name("mcp_fake_server.py"))

    def server(record: Path, **extra) -> dict:
        return {"command": sys.executable, "args": [fake, "--record", str(record)], "cwd": str(work), **extra}

    servers = {"inside": server(work / "in.jsonl", sandbox=True, network=False),
               "outside": server(outside / "out.jsonl", sandbox=True),
               "plain": server(outside / "plain.jsonl")}
    manager = McpManager(servers, work / "logs")
    try:
        manager.start()
        assert manager.wait(60)
        heads = [line for line in manager.status.lines() if not line.startswith(" ")]
        assert heads[0].startswith("inside: ") and heads[2].startswith("plain: "), heads
        assert "failed" not in heads[0] and "failed" not in heads[2], heads
    finally:
        manager.close()
    assert (work / "in.jsonl").exists() and (outside / "plain.jsonl").exists()
    assert not (outside / "out.jsonl").exists()
    shutil.rmtree(outside)


def test_the_setting_and_the_flag_choose_the_mode_and_a_wrong_one_is_one_line(tmp_path):
    from ankit.errors import ConfigError
    from ankit.settings.layers import load_config
    home = tmp_path / "config"
    home.mkdir()
    assert load_config({}, {}, tmp_path, home).sandbox == "workspace"
    (home / "config.toml").write_text('sandbox = "read-only"\n')
    assert load_config({}, {}, tmp_path, home).sandbox == "read-only"
    assert load_config({"sandbox": "off"}, {}, tmp_path, home).sandbox == "off"
    (home / "config.toml").write_text('sandbox = "loose"\n')
    with pytest.raises(ConfigError, match="sandbox must be workspace or accept-edits or read-only or off, not 'loose'"):
        load_config({}, {}, tmp_path, home)


@needs_landlock
def test_a_background_job_runs_unasked_in_the_sandbox_and_job_stop_still_ends_it(places):
    work, temp, outside = places
    sandbox = Sandbox(work, "workspace", MACHINE, temp)
    ctx, previews = ToolContext(cwd=work, confine=sandbox.confine), []

    def call(name: str, args: dict):
        return run_call(ToolCall("c1", name, json.dumps(args)), bundled()[0][name], ctx, Approver(False, previews),
                        sandbox=sandbox)

    started = call("job_start", {"command": f"touch in; touch {outside}/out; echo ready; sleep 60"})
    assert previews == [] and not started.is_error, started.content
    assert "matched: ready" in call("job_wait", {"job_id": "1", "pattern": "ready"}).content
    stopped = call("job_stop", {"job_id": "1"})
    assert "stopped (SIG" in stopped.content, stopped.content
    assert (work / "in").exists() and not (outside / "out").exists()


# ankit -p started under a seccomp filter that refuses Landlock's calls with EPERM, as some container profiles do
WITHOUT_LANDLOCK = """
import ctypes, os, runpy, struct, sys
from ankit.safety import confine
arch, _, _, _ = confine.ARCHES[os.uname().machine]
program = [(0x20, 0, 0, 4), (0x15, 1, 0, arch), (0x06, 0, 0, confine.RET_ALLOW), (0x20, 0, 0, 0),
           (0x35, 0, 1, 444), (0x35, 0, 1, 447), (0x06, 0, 0, confine.RET_ALLOW), (0x06, 0, 0, confine.RET_ERRNO | 1)]
code = b"".join(struct.pack("=HBBI", *op) for op in program)
buffer = ctypes.create_string_buffer(code, len(code))
prog = ctypes.create_string_buffer(struct.pack("=HxxxxxxQ", len(program), ctypes.addressof(buffer)), 16)
libc = ctypes.CDLL(None, use_errno=True)
assert libc.prctl(38, 1, 0, 0, 0) == 0 and libc.prctl(22, 2, prog, 0, 0) == 0
sys.argv = ["ankit", *sys.argv[1:]]
runpy.run_module("ankit", run_name="__main__")
"""


@pytest.mark.skipif(os.uname().machine not in confine.ARCHES, reason="no seccomp filter written for this machine")
def test_where_landlock_is_refused_ankit_says_so_once_and_commands_ask(provider_server, tmp_path):
    from tests.test_oneshot import env_for
    (tmp_path / "work").mkdir()
    provider_server.push_openai(tool_calls=[("c1", "run_command", json.dumps({"command": "touch made"}))])
    provider_server.push_openai(text="Done.")
    done = subprocess.run([sys.executable, "-c", WITHOUT_LANDLOCK, "--base-url", provider_server.url + "/v1", "-p",
                           "touch"], cwd=tmp_path / "work", capture_output=True, text=True, timeout=60,
                          env=env_for(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("no sandbox here") == 1 and done.stderr.startswith(
        "ankit: no sandbox here (Landlock's system calls are refused here, as by a container's seccomp profile): "
        "commands ask before they run\n")
    assert not (tmp_path / "work" / "made").exists()  # off: it needed approval, which -p without --yes refuses
    assert "Plan mode" not in provider_server.requests[0].json["messages"][0]["content"]
    assert "run in a sandbox" not in provider_server.requests[0].json["messages"][0]["content"]


@needs_landlock
def test_a_kernel_with_landlock_and_no_seccomp_filter_for_its_architecture_starts_and_commands_ask(provider_server,
                                                                                                  tmp_path):
    """This kernel's Landlock with an architecture ankit builds no seccomp filter for (handed in as riscv64):
    start-up says so once, nothing crashes, commands ask, and /mode cannot turn a sandbox on."""
    import io
    from ankit.settings.layers import load_config
    from ankit.terminal.render import TerminalView
    from ankit.turn.app import App
    work = tmp_path / "work"
    work.mkdir()
    flags = {"provider": "local", "base_url": provider_server.url + "/v1", "model": "gpt-4o", "sandbox": "workspace"}
    app = App(load_config(flags, {}, work, tmp_path / "config"), work, arch="riscv64").load()
    try:
        assert "no sandbox here (seccomp filters are not available for riscv64): commands ask before they run" \
            in app.notices
        assert app.sandbox.mode == "off" and app.sandbox.machine.detail.endswith("riscv64")
        previews: list[str] = []
        session = app.session(TerminalView(io.StringIO(), colour=False), Approver(False, previews))
        provider_server.push_openai(tool_calls=[("c1", "run_command", json.dumps({"command": "touch made"}))])
        provider_server.push_openai(text="Declined.")
        session.turn("touch it")
        assert len(previews) == 1 and "touch made" in previews[0] and not (work / "made").exists()
        assert "mode stays ask" in app.sandbox.switch("workspace") and app.sandbox.mode == "off"
    finally:
        app.close()
