"""The shell tools with real subprocesses: exit codes, timeouts that kill the process group, background jobs."""

import json
import os
import re
import signal
import threading
import time
from pathlib import Path

import pytest

from ankit.records import ToolCall
from ankit.tooling.toolbox import ToolContext, run_call
from tests.helpers import RUN_TAG, Approver, bundled, call, ok, wait_for

BY_NAME = bundled()[0]


@pytest.fixture(autouse=True)
def sigint_as_on_a_terminal():
    """SIGINT handled as in a terminal's ankit, and so at its default in the commands started (which inherit an
    ignored signal): pytest may run with it ignored, as a background job of a script (CI's side-by-side runs)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def alive(pid: int) -> bool:
    """Whether a process exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def test_run_command_reports_exit_code_and_both_streams(tmp_path):
    out = ok("run_command", {"command": "echo out; echo err >&2; exit 3"}, ToolContext(cwd=tmp_path))
    lines = out.splitlines()
    assert lines[0].startswith("exit code 3 (") and lines[1:] == ["out", "err"]


def test_run_command_needs_approval_and_previews_command_and_folder(tmp_path):
    (tmp_path / "sub").mkdir()
    previews = []
    result = call("run_command", {"command": "touch made", "cwd": "sub"}, ToolContext(cwd=tmp_path), Approver(False, previews))
    assert result.is_error and not (tmp_path / "sub" / "made").exists()
    assert previews[0].startswith("$ touch made\n(in ") and str(tmp_path / "sub") in previews[0]
    ok("run_command", {"command": "touch made; pwd", "cwd": "sub"}, ToolContext(cwd=tmp_path))
    assert (tmp_path / "sub" / "made").exists()


def test_run_command_bad_folder_and_empty_command(tmp_path):
    ctx = ToolContext(cwd=tmp_path)
    assert "no such folder" in call("run_command", {"command": "ls", "cwd": "missing"}, ctx).content
    assert "empty" in call("run_command", {"command": "  "}, ctx).content


def test_run_command_timeout_kills_the_whole_process_group(tmp_path):
    command = "sleep 60 & echo $! > child.pid; echo waiting; wait"
    out = ok("run_command", {"command": command, "timeout": 1}, ToolContext(cwd=tmp_path))
    assert out.startswith("timed out after 1 s") and "stopped (SIGINT)" in out and "waiting" in out
    child = int((tmp_path / "child.pid").read_text())
    assert wait_for(lambda: not alive(child))


def test_run_command_caps_huge_output_and_strips_colours(tmp_path):
    ctx = ToolContext(cwd=tmp_path)
    big = ok("run_command", {"command": "python3 -c \"print('x' * 300000); print('END')\""}, ctx)
    assert "bytes of output cut" in big and big.rstrip().endswith("END") and len(big) < 50_000
    colour = ok("run_command", {"command": "printf '\\033[31mred\\033[0m\\n'"}, ctx)
    assert colour.splitlines()[1] == "red"


def test_run_command_gets_no_stdin(tmp_path):
    out = ok("run_command", {"command": "cat; echo done", "timeout": 5}, ToolContext(cwd=tmp_path))
    assert out.startswith("exit code 0") and "done" in out


def test_jobs_start_report_output_and_finish(tmp_path):
    ctx = ToolContext(cwd=tmp_path)
    previews = []
    started = call("job_start", {"command": "echo one; sleep 0.3; echo two"}, ctx, Approver(True, previews))
    assert started.content.startswith("started job 1:") and "background job: $ echo one" in previews[0]
    assert wait_for(lambda: "exited 0" in ok("job_status", {"job_id": "1"}, ctx))
    output = ok("job_output", {"job_id": "1"}, ctx)
    assert output.splitlines()[1:] == ["one", "two"]
    assert ok("job_output", {"job_id": "1", "last_lines": 1}, ctx).splitlines()[1:] == ["two"]
    assert ok("job_status", {}, ctx).startswith("job 1: exited 0")


def test_job_stop_ends_a_stubborn_job_and_its_children(tmp_path):
    ctx = ToolContext(cwd=tmp_path)
    ok("job_start", {"command": "trap '' TERM; sleep 60 & echo $! > child.pid; wait"}, ctx)
    assert wait_for(lambda: (tmp_path / "child.pid").exists() and (tmp_path / "child.pid").read_text().strip())
    child = int((tmp_path / "child.pid").read_text())
    assert alive(child)
    stopped = ok("job_stop", {"job_id": "1"}, ctx)
    assert "stopped (SIGKILL)" in stopped
    assert wait_for(lambda: not alive(child))


def test_jobs_are_per_session_and_unknown_ids_are_explained(tmp_path):
    ctx, other = ToolContext(cwd=tmp_path), ToolContext(cwd=tmp_path)
    ok("job_start", {"command": "sleep 30"}, ctx)
    assert "no background jobs" in ok("job_status", {}, other)
    missing = call("job_output", {"job_id": "7"}, ctx)
    assert missing.is_error and "known jobs: 1" in missing.content
    assert "stopped (SIGTERM)" in ok("job_stop", {"job_id": "job 1"}, ctx)


def test_job_start_needs_approval_and_the_others_do_not(tmp_path):
    assert BY_NAME["job_start"].needs_approval is True
    for name in ("job_status", "job_output", "job_stop"):
        assert BY_NAME[name].wants_approval({"job_id": "1"}, ToolContext(cwd=tmp_path)) is False
    refused = call("job_start", {"command": "touch nope"}, ToolContext(cwd=tmp_path), Approver(False))
    assert refused.is_error and not (tmp_path / "nope").exists()


def test_ctrl_c_while_a_command_runs_stops_its_whole_group_and_says_what_it_printed(tmp_path):
    command = "trap '' INT; sleep 60 & echo $! > child.pid; echo started; wait"  # the shell ignores SIGINT
    shown = []

    def ctrl_c_once_started(text: str) -> None:  # a Ctrl-C while it runs: once it has said so, never earlier
        before = "".join(shown)
        shown.append(text)
        if "started" in before + text and "started" not in before:
            os.kill(os.getpid(), signal.SIGINT)

    # pytest may run with SIGINT ignored (a background job of a script, as CI runs it): a Ctrl-C must raise here
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt) as caught:
            run_call(ToolCall("c1", "run_command", json.dumps({"command": command})), BY_NAME["run_command"],
                     ToolContext(cwd=tmp_path), lambda *a: True, output=ctrl_c_once_started)
    finally:
        signal.signal(signal.SIGINT, previous)
    child = int((tmp_path / "child.pid").read_text())
    assert wait_for(lambda: not alive(child))
    assert "stopped by the user after" in str(caught.value) and "(SIGTERM)" in str(caught.value)
    assert str(caught.value).endswith("output so far:\nstarted")


@pytest.mark.parametrize("tool", ["run_command", "job_start"])
def test_a_ctrl_c_while_the_output_reader_starts_still_stops_the_whole_group(tmp_path, monkeypatch, tool):
    # the reader's first chunk (shown live) can prompt a Ctrl-C before the reader's start() has returned, as a
    # loaded machine showed: here the Ctrl-C lands in start(), once the command has started its child
    command = "echo $$ > shell.pid; sleep 60 & echo $! > child.pid; echo started; wait"
    real_start = threading.Thread.start

    def start_then_ctrl_c(thread):
        real_start(thread)
        if getattr(getattr(thread, "_target", None), "__name__", "") == "_pump":
            assert wait_for(lambda: (tmp_path / "child.pid").exists() and (tmp_path / "child.pid").read_text().strip())
            raise KeyboardInterrupt

    monkeypatch.setattr(threading.Thread, "start", start_then_ctrl_c)
    with pytest.raises(KeyboardInterrupt) as caught:
        call(tool, {"command": command}, ToolContext(cwd=tmp_path))
    monkeypatch.undo()
    pids = [int((tmp_path / name).read_text()) for name in ("shell.pid", "child.pid")]
    assert wait_for(lambda: not any(map(alive, pids)))
    if tool == "run_command":
        assert "stopped by the user after" in str(caught.value) and "(SIGINT)" in str(caught.value)


def test_run_command_output_arrives_live_and_the_user_line_counts_what_was_sent(tmp_path):
    seen = []
    result = run_call(ToolCall("c1", "run_command", json.dumps({"command": "seq 1 200000"})),
                      BY_NAME["run_command"], ToolContext(cwd=tmp_path), lambda *a: True, output=seen.append)
    assert "".join(seen).splitlines() == [str(n) for n in range(1, 200001)]
    assert re.fullmatch(r"exit code 0 \(\d+\.\d s\) · 200,000 lines · 40,000 of 1\.3 M characters sent",
                        result.summary), result.summary
    assert "bytes of output cut" in result.content  # the model is told too
    small = run_call(ToolCall("c2", "run_command", json.dumps({"command": "echo one"})),
                     BY_NAME["run_command"], ToolContext(cwd=tmp_path), lambda *a: True)
    assert small.summary.endswith(" · 1 line")


def test_job_input_answers_a_prompt_and_shows_the_reply(tmp_path):
    ctx = ToolContext(cwd=tmp_path)
    # each answer is one write, so it is whole whenever the reply is taken (after a quiet moment)
    script = "printf 'name? '; read who; printf 'hello %s\\nagain? ' \"$who\"; read yn; echo \"got $yn\""
    ok("job_start", {"command": script}, ctx)
    assert "matched: name?" in ok("job_wait", {"job_id": "1", "pattern": r"name\?", "timeout": 10}, ctx)
    previews = []
    sent = call("job_input", {"job_id": "1", "text": "Ada\x1b"}, ctx, Approver(True, previews))
    assert previews == ["send to job 1 (" + script + "):\n'Ada\\x1b\\n'"]  # control characters visible
    assert sent.content.split("\n", 1)[1] == "hello Ada\x1b\nagain? "  # only the reply to this input
    ok("job_input", {"job_id": "1", "text": "y", "close_input": True}, ctx)
    done = ok("job_wait", {"job_id": "1", "timeout": 10}, ctx)
    assert "exited 0" in done and "got y" in done


def test_job_wait_reports_an_exited_jobs_last_words(tmp_path):
    # a slow listener (a slow terminal showing live output) holds the reader back, so the process has exited
    # with its last words still in the pipe; the report waits for the reader to reach the end of the output
    ctx = ToolContext(cwd=tmp_path)
    ok("job_start", {"command": "sleep 1; echo first; sleep 0.1; echo last"}, ctx)
    ctx.state["jobs"]["1"].capture.listener = lambda chunk: time.sleep(0.5)
    done = ok("job_wait", {"job_id": "1", "timeout": 10}, ctx)
    assert "exited 0" in done and "first\nlast" in done


def test_job_input_is_refused_by_the_user_or_by_an_exited_job(tmp_path):
    ctx = ToolContext(cwd=tmp_path)
    ok("job_start", {"command": "cat > got.txt"}, ctx)
    declined = call("job_input", {"job_id": "1", "text": "secret plan"}, ctx, Approver(False))
    assert declined.is_error
    ok("job_input", {"job_id": "1", "text": "", "newline": False, "close_input": True}, ctx)
    assert "exited 0" in ok("job_wait", {"job_id": "1", "timeout": 10}, ctx)
    assert (tmp_path / "got.txt").read_text() == ""
    late = call("job_input", {"job_id": "1", "text": "too late"}, ctx)
    assert late.is_error and late.content == ("Error: job 1 is no longer running (exited 0); see job_output, "
                                              "or start it again with job_start")


def test_job_wait_times_out_with_a_note_and_rejects_a_bad_pattern(tmp_path):
    ctx = ToolContext(cwd=tmp_path)
    ok("job_start", {"command": "echo booting; sleep 30"}, ctx)
    assert wait_for(lambda: "booting" in ok("job_output", {"job_id": "1"}, ctx))  # however slowly the shell starts
    waited = ok("job_wait", {"job_id": "1", "pattern": "ready", "timeout": 1}, ctx)
    assert waited.startswith("still running after 1 s: no line matched 'ready'") and "booting" in waited
    bad = call("job_wait", {"job_id": "1", "pattern": "([", "timeout": 1}, ctx)
    assert bad.is_error and "not a valid regular expression" in bad.content
    ok("job_stop", {"job_id": "1"}, ctx)
    assert "no line matched 'ready'" in ok("job_wait", {"job_id": "1", "pattern": "ready"}, ctx)


def test_ankits_time_limit_for_a_tool_stops_the_commands_group_and_stays_a_timeout(tmp_path):
    from ankit.tooling.limits import ToolTimeout, call_with_limit
    command = "sleep 60 & echo $! > child.pid; wait"
    run = BY_NAME["run_command"].run
    with pytest.raises(ToolTimeout) as caught:  # not a plain KeyboardInterrupt: the turn goes on
        call_with_limit(lambda: run({"command": command}, ToolContext(cwd=tmp_path)), 1)
    assert str(caught.value).startswith("stopped after 1.")
    child = int((tmp_path / "child.pid").read_text())
    assert wait_for(lambda: not alive(child))


def sleeping(marker: str) -> bool:
    """Whether the command's own sleep runs (not only the sandbox's trampoline, whose arguments hold marker too)."""
    def program(pid: int) -> bytes:
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
        except OSError:
            return b""
    return any(program(pid) == b"sleep" for pid in running(marker))


def running(marker: str) -> list[int]:
    """The live (not zombie) processes whose command line holds marker."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline and alive(int(entry)):
            found.append(int(entry))
    return found


def _cleanup(*markers: str) -> None:
    for marker in markers:
        for pid in running(marker):
            os.kill(pid, signal.SIGKILL)


def test_nothing_a_run_leaves_behind_outlives_ankit(provider_server, tmp_path):
    """A command that leaves a child ignoring SIGTERM behind, a job whose leader exits at once leaving a child,
    and a stubborn running job: when ankit -p ends, every one of their process groups is gone."""
    from tests.test_oneshot import ankit
    left, orphan, stubborn = (f"sleep 313.7{n}{RUN_TAG}" for n in (1, 2, 3))
    calls = [("c1", "run_command", json.dumps({"command": f"(trap '' TERM; {left}) > /dev/null 2>&1 &"})),
             ("c2", "job_start", json.dumps({"command": f"{orphan} & exit 0"})),
             ("c3", "job_start", json.dumps({"command": f"trap '' TERM; {stubborn}; true"}))]
    provider_server.push_openai(tool_calls=calls)
    provider_server.push_openai(text="started them")
    try:
        done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "--yes", "-p", "start things")
        assert done.returncode == 0, done.stderr
        results = [m["content"] for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
        assert not any(r.startswith("Error") for r in results), results
        left_behind = lambda: [pid for marker in (left, orphan, stubborn) for pid in running(marker)]  # noqa: E731
        assert wait_for(lambda: not left_behind(), timeout=10), left_behind()
    finally:
        _cleanup(left, orphan, stubborn)


def test_ankit_ended_by_sigterm_mid_command_takes_the_command_with_it(provider_server, tmp_path):
    import subprocess
    import sys
    from tests.test_oneshot import env_for
    marker = f"sleep 313.74{RUN_TAG}"
    provider_server.push_openai(tool_calls=[("c1", "run_command", json.dumps({"command": f"trap '' TERM; {marker}"}))])
    provider_server.push_openai(text="never")
    (tmp_path / "work").mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "ankit", "--base-url", provider_server.url + "/v1", "--yes", "-p",
                             "run it"], cwd=tmp_path / "work", env=env_for(tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        assert wait_for(lambda: sleeping(marker), timeout=30)  # mid command: the sleep itself runs
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
        assert wait_for(lambda: not running(marker), timeout=10), running(marker)
    finally:
        proc.kill()
        proc.wait()
        _cleanup(marker)


def test_a_bang_command_leaving_a_child_behind_does_not_outlive_ankit(tmp_path):
    import subprocess
    import sys
    marker = f"sleep 313.75{RUN_TAG}"
    script = ("from pathlib import Path\nfrom ankit.terminal.bang import run_shell\n"
              f"run_shell(\"(trap '' TERM; {marker}) > /dev/null 2>&1 &\", Path('.'), print)\n")
    try:
        done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
        assert done.returncode == 0, done.stderr
        assert wait_for(lambda: not running(marker), timeout=10), running(marker)
    finally:
        _cleanup(marker)
