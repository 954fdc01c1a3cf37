"""`ankit -p` as a user runs it: a real subprocess against the loopback provider server."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def env_for(tmp_path: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN")) and not k.startswith("ANKIT_")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_DATA_HOME=str(tmp_path / "data"), HOME=str(tmp_path / "home"), NO_COLOR="1",
               PYTHONPATH=str(ROOT))
    env.update(extra)
    return env


def ankit(tmp_path, *args, stdin="", **env):
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-m", "ankit", *args], cwd=work, input=stdin, text=True,
                          capture_output=True, timeout=60, env=env_for(tmp_path, **env))


def test_prints_the_streamed_answer_openai(provider_server, tmp_path):
    provider_server.push("openai_text.sse")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "hello")
    assert done.returncode == 0, done.stderr
    body = provider_server.requests[0].json
    assert body["messages"][-1] == {"role": "user", "content": "hello"}
    assert done.stdout.strip() and done.stderr == ""


def test_prints_the_streamed_answer_anthropic(provider_server, tmp_path):
    provider_server.push("anthropic_text.sse")
    done = ankit(tmp_path, "--provider", "anthropic", "--base-url", provider_server.url + "/v1", "-p", "hello",
                 ANTHROPIC_API_KEY="sk-ant-test-0123456789")
    assert done.returncode == 0, done.stderr
    assert provider_server.requests[0].headers["x-api-key"] == "sk-ant-test-0123456789"
    assert done.stdout.strip()


def test_piped_text_is_appended(provider_server, tmp_path):
    provider_server.push_openai(text="three lines")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "summarize this", stdin="a\nb\nc\n")
    assert done.returncode == 0, done.stderr
    assert provider_server.requests[0].json["messages"][-1]["content"] == "summarize this\n\na\nb\nc\n"
    assert done.stdout == "three lines\n"


def test_a_real_two_round_tool_loop(provider_server, tmp_path):
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("the answer is 42\n")
    provider_server.push_openai(tool_calls=[("call_1", "read_file", '{"path": "notes.txt"}')])
    provider_server.push_openai(text="It says 42.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "what do my notes say?")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "It says 42.\n"
    second = provider_server.requests[1].json["messages"]
    assert second[-2]["tool_calls"][0]["function"]["name"] == "read_file"
    assert second[-1]["role"] == "tool" and "the answer is 42" in second[-1]["content"]


def test_tools_needing_approval_are_refused_without_yes(provider_server, tmp_path):
    provider_server.push_openai(tool_calls=[("c1", "write_file", '{"path": "x.txt", "content": "hi"}')])
    provider_server.push_openai(text="I could not write it.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "write x.txt")
    assert done.returncode == 0
    assert "write_file needs approval; refused (rerun with --yes to allow it)" in done.stderr
    assert not (tmp_path / "work" / "x.txt").exists()
    assert "declined" in provider_server.requests[1].json["messages"][-1]["content"]


def test_yes_approves(provider_server, tmp_path):
    provider_server.push_openai(tool_calls=[("c1", "write_file", '{"path": "x.txt", "content": "hi"}')])
    provider_server.push_openai(text="done")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "write x.txt", "--yes")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "work" / "x.txt").read_text() == "hi"


def test_failure_is_one_line_and_non_zero(provider_server, tmp_path):
    provider_server.push("anthropic_401.http")
    done = ankit(tmp_path, "--provider", "anthropic", "--base-url", provider_server.url + "/v1", "-p", "hi",
                 ANTHROPIC_API_KEY="sk-ant-secret-0123456789")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == ["ankit: 401 from anthropic: check ANTHROPIC_API_KEY"]
    assert "sk-ant-secret" not in done.stderr + done.stdout


def test_nothing_configured_prints_set_up_help(tmp_path):
    done = ankit(tmp_path, "-p", "hi")
    assert done.returncode == 1
    assert len(done.stderr.strip().splitlines()) == 3 and "ANTHROPIC_API_KEY" in done.stderr


def test_one_shot_runs_are_saved_as_sessions_without_secrets(provider_server, tmp_path):
    provider_server.push("anthropic_usage_cached.sse")
    done = ankit(tmp_path, "--provider", "anthropic", "--base-url", provider_server.url + "/v1", "-p", "hi",
                 ANTHROPIC_API_KEY="sk-ant-secret-0123456789")
    assert done.returncode == 0, done.stderr
    files = list((tmp_path / "state" / "ankit" / "sessions").glob("*.jsonl"))
    assert len(files) == 1
    text = files[0].read_text()
    assert "sk-ant-secret" not in text
    rounds = [json.loads(line) for line in text.splitlines() if json.loads(line)["type"] == "round"]
    assert len(rounds) == 1 and rounds[0]["usage"]["cached_tokens"] > 0


def test_version_and_bad_flag(tmp_path):
    assert ankit(tmp_path, "--version").stdout.startswith("ankit ")
    bad = ankit(tmp_path, "--frobnicate")
    assert bad.returncode == 2 and "unrecognized arguments: --frobnicate" in bad.stderr
