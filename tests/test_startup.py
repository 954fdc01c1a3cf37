"""What each command imports on its way: real subprocesses report the modules they loaded (no timing here;
the figures are in tests/bench/bench_startup.py)."""

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

from tests.pty_spawn import spawn_on_pty
from tests.test_oneshot import env_for

# runs ankit's entry point as the installed `ankit` command does, then writes the loaded modules to argv[1]
PROBE = """import json, sys
out, argv = sys.argv[1], sys.argv[2:]
try:
    from ankit.cli import main
    code = main(argv)
except SystemExit as exc:
    code = exc.code
finally:
    with open(out, "w") as file:
        json.dump(sorted(sys.modules), file)
raise SystemExit(code)
"""
# the provider record, the preset table and the list of local servers are settings (they ask nothing until
# called); everything else in ankit.providers speaks a wire format
SETTINGS_ONLY = {"ankit.providers", "ankit.providers.base", "ankit.providers.presets", "ankit.providers.models"}


def loaded(tmp_path: Path, *argv: str, **env: str) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run ankit with argv from an empty folder; return the run and the modules it had loaded by its exit."""
    work, out = tmp_path / "work", tmp_path / "modules.json"
    work.mkdir(exist_ok=True)
    done = subprocess.run([sys.executable, "-c", PROBE, str(out), *argv], cwd=work, capture_output=True, text=True,
                          timeout=60, env=env_for(tmp_path, **env))
    return done, set(json.loads(out.read_text()))


def wire_modules(modules: set[str]) -> set[str]:
    return {m for m in modules if m.startswith("ankit.providers") and m not in SETTINGS_ONLY}


def test_version_loads_no_provider_and_no_ssl(tmp_path):
    done, modules = loaded(tmp_path, "--version")
    assert done.returncode == 0 and done.stdout.startswith("ankit ")
    assert wire_modules(modules) == set()
    assert not {"ssl", "http.client", "urllib.request", "ankit.settings.config", "ankit.turn.app"} & modules
    assert not {"ankit.safety.sandbox", "dataclasses"} & modules  # --permission-mode's names load when given


def test_tools_and_skills_load_no_provider(tmp_path):
    for command, expected in (("tools", "read_file"), ("skills", "review-commit")):
        done, modules = loaded(tmp_path, command)
        assert done.returncode == 0 and expected in done.stdout, done.stderr
        assert "ankit.turn.app" in modules  # the whole assembly ran
        assert wire_modules(modules) == set(), command
        assert not {"ssl", "http.client", "urllib.request"} & modules, command
        assert "concurrent.futures" not in modules, command  # decision mode's threads: plain ones, and only asking
        assert not {"ankit.terminal.render", "ankit.terminal.markdown"} & modules, command  # the keys need styles only


def test_listing_tools_again_imports_no_provider_no_session_and_no_tool_module(tmp_path):
    first, _ = loaded(tmp_path, "tools")
    done, modules = loaded(tmp_path, "tools")  # the bundled tools are listed from the cache the first run left
    assert done.returncode == 0 and done.stdout == first.stdout and "read_file" in done.stdout
    assert not {m for m in modules if m.startswith(("ankit.providers", "ankit.storage", "ankit_tool_"))}
    assert not {"ankit.turn.session", "ankit.turn.admin", "ankit.mcp.servers", "subprocess"} & modules


def test_a_one_shot_run_loads_its_provider_on_the_way(provider_server, tmp_path):
    """The probe sees modules imported late: a real request loads the wire format and the HTTP stack."""
    provider_server.push_openai(text="hi")
    done, modules = loaded(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "hello")
    assert done.returncode == 0, done.stderr
    assert {"ankit.providers.openai", "ankit.providers.http", "http.client"} <= modules
    assert "ankit.providers.anthropic" not in modules


def test_the_repl_shows_its_prompt_without_ssl(provider_server, tmp_path):
    out, work = tmp_path / "modules.json", tmp_path / "work"
    work.mkdir()
    env = env_for(tmp_path, ANKIT_PROVIDER="local", ANKIT_BASE_URL=provider_server.url + "/v1", ANKIT_MODEL="m",
                  TERM="xterm")  # with a model named, nothing asks the server which models it serves
    process, fd = spawn_on_pty([sys.executable, "-c", PROBE, str(out)], env, work)
    try:
        screen = _read_until(fd, b"> ")
        assert screen.endswith(b"> "), screen.decode(errors="replace")[-500:]
        os.write(fd, b"/exit\r")
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()
        process.wait()
        os.close(fd)
    modules = set(json.loads(out.read_text()))
    assert "ankit.providers.openai" in modules  # the provider was made, for the first request
    assert not {"ssl", "http.client", "urllib.request"} & modules
    assert provider_server.requests == []


def _read_until(fd: int, end: bytes, timeout: float = 60.0) -> bytes:
    """What the pty shows until it ends with `end` (or the time is up, or the child is gone)."""
    seen, deadline = b"", time.monotonic() + timeout
    while not seen.endswith(end) and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            seen += data
    return seen
